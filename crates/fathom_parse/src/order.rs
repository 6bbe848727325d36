//! The order in which matches reach extraction.

use std::cmp::{Ordering, Reverse};

use tree_sitter::Node;

/// A capture: its index in the query, and the node.
pub(crate) type Capture<'t> = (u32, Node<'t>);

/// Matches, to be handed on in the order of their outermost capture: the
/// first in the source first, the wider of two at one place first, then by
/// pattern. Which match comes first decides, for example, which call to a
/// function a test edge cites, and tree-sitter's order (that in which
/// matches complete) is not the source's.
#[derive(Default)]
pub(crate) struct InOrder<'t> {
    captures: Vec<Capture<'t>>,
    /// Each match's key and where its captures end.
    matches: Vec<(Place, usize)>,
}

impl<'t> InOrder<'t> {
    pub(crate) fn add(&mut self, pattern: usize, captures: impl IntoIterator<Item = Capture<'t>>) {
        let from = self.captures.len();
        self.captures.extend(captures);
        let added = &self.captures[from..];
        let outermost = added.iter().map(|(_, n)| (n.start_byte() as u32, Reverse(n.end_byte() as u32))).min();
        let (start, end) = outermost.unwrap_or((0, Reverse(0)));
        self.matches.push((Place { start, end, pattern }, self.captures.len()));
    }

    pub(crate) fn each(self, mut take: impl FnMut(usize, &[Capture<'t>])) {
        let InOrder { captures, matches } = self;
        let range = |at: usize| (if at == 0 { 0 } else { matches[at - 1].1 })..matches[at].1;
        // Ties, rare, are broken by all the captures, so that the order
        // depends on nothing but the matches.
        let sorted = |at: usize| {
            let mut key: Vec<_> =
                captures[range(at)].iter().map(|(c, n)| (n.start_byte(), Reverse(n.end_byte()), *c)).collect();
            key.sort_unstable();
            key
        };
        // Each match as its place with its position beside it: comparing
        // places in place is the faster.
        let order =
            |(a, at): &(&Place, usize), (b, bt): &(&Place, usize)| a.cmp(b).then_with(|| sorted(*at).cmp(&sorted(*bt)));
        // The cursor hands on most matches at their outermost node (every
        // bare name is one), so they come in the source's order already;
        // those that complete after they start (a call, a definition) come
        // late. The matches that keep the order are taken as they come, the
        // late ones sorted, and the two merged.
        let mut kept: Vec<(&Place, usize)> = Vec::with_capacity(matches.len());
        let mut late: Vec<(&Place, usize)> = Vec::new();
        for (at, (place, _)) in matches.iter().enumerate() {
            let next = (place, at);
            match kept.last() {
                Some(last) if order(last, &next) == Ordering::Greater => late.push(next),
                _ => kept.push(next),
            }
        }
        late.sort_unstable_by(order);
        let mut late = late.into_iter().peekable();
        for next in kept {
            while let Some((place, at)) = late.next_if(|l| order(l, &next) == Ordering::Less) {
                take(place.pattern, &captures[range(at)]);
            }
            take(next.0.pattern, &captures[range(next.1)]);
        }
        for (place, at) in late {
            take(place.pattern, &captures[range(at)]);
        }
    }
}

/// Where a match is: its outermost capture's start and end (the wider of
/// two at one place first), then its pattern.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Place {
    start: u32,
    end: Reverse<u32>,
    pattern: usize,
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;

    use fathom_model::Language;
    use streaming_iterator::StreamingIterator;
    use tree_sitter::QueryCursor;

    use super::{Capture, InOrder};
    use crate::Loaded;

    const PYTHON: &str = r#"
@decorator(first(), second.call())
def outer(a, b=make().then()):
    """Doc."""
    x = a.b.c(d.e(f(g)))
    self.value = [h(i) for i in items if i and not j or k]
    class Inner(Base, other.Mixin):
        field: int = 0
        def method(self): return self.field.get().put(self)
    return lambda y: y.z(outer(x))

import os.path as p
from . import (q, r as s)
"#;

    /// Every match of the language's whole query over `text`, as the
    /// cursor hands them on: (pattern, captures).
    fn matches<'t>(loaded: &Loaded, tree: &'t tree_sitter::Tree, text: &str) -> Vec<(usize, Vec<Capture<'t>>)> {
        let mut cursor = QueryCursor::new();
        let mut found = Vec::new();
        let mut all = cursor.matches(&loaded.query, tree.root_node(), text.as_bytes());
        while let Some(m) = all.next() {
            found.push((m.pattern_index, m.captures().iter().map(|c| (c.index, c.node)).collect()));
        }
        found
    }

    /// The order `each` must give: every match sorted by its outermost
    /// capture, wider first, then pattern, then all its captures.
    fn sorted_whole<'t>(found: &[(usize, Vec<Capture<'t>>)]) -> Vec<(usize, Vec<Capture<'t>>)> {
        let key = |(pattern, captures): &(usize, Vec<Capture<'t>>)| {
            let mut all: Vec<_> = captures.iter().map(|(c, n)| (n.start_byte(), Reverse(n.end_byte()), *c)).collect();
            all.sort_unstable();
            let outermost = all.iter().map(|&(s, e, _)| (s, e)).min().unwrap_or((0, Reverse(0)));
            (outermost, *pattern, all)
        };
        let mut sorted = found.to_vec();
        sorted.sort_by_cached_key(key);
        sorted
    }

    fn each<'t>(found: &[(usize, Vec<Capture<'t>>)]) -> Vec<(usize, Vec<Capture<'t>>)> {
        let mut in_order = InOrder::default();
        for (pattern, captures) in found {
            in_order.add(*pattern, captures.iter().copied());
        }
        let mut out = Vec::new();
        in_order.each(|pattern, captures| out.push((pattern, captures.to_vec())));
        out
    }

    /// Whatever order the matches arrive in (the cursor's, reversed,
    /// rotated, shuffled), they are handed on sorted as a whole sort would.
    #[test]
    fn matches_are_handed_on_in_the_order_of_a_whole_sort_whatever_their_arrival() {
        let mut loaded = Loaded::new(Language::Python).expect("python loads");
        let tree = loaded.parser.parse(PYTHON, None).expect("parses");
        let found = matches(&loaded, &tree, PYTHON);
        assert!(found.len() > 100, "{} matches", found.len());
        let expected = sorted_whole(&found);
        assert_ne!(found, expected, "the cursor's order is not the source's, so the merge has late matches to place");
        assert_eq!(each(&found), expected, "the cursor's order");
        let mut reversed = found.clone();
        reversed.reverse();
        assert_eq!(each(&reversed), expected, "reversed");
        for by in [1, found.len() / 3, found.len() - 1] {
            let mut rotated = found.clone();
            rotated.rotate_left(by);
            assert_eq!(each(&rotated), expected, "rotated by {by}");
        }
        let mut state = 0x9e37_79b9_u32;
        for round in 0..8 {
            let mut shuffled = found.clone();
            for i in (1..shuffled.len()).rev() {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                shuffled.swap(i, state as usize % (i + 1));
            }
            assert_eq!(each(&shuffled), expected, "shuffle {round}");
        }
    }
}
