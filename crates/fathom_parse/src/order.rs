//! The order in which matches reach extraction.

use std::cmp::Reverse;

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
        // The places sorted with their match's position beside them, not
        // positions by place: a sort that compares in place is the faster.
        let mut order: Vec<(&Place, usize)> = matches.iter().enumerate().map(|(at, (place, _))| (place, at)).collect();
        // Ties, rare, are broken by all the captures, so that the order
        // depends on nothing but the matches.
        let sorted = |at: usize| {
            let mut key: Vec<_> =
                captures[range(at)].iter().map(|(c, n)| (n.start_byte(), Reverse(n.end_byte()), *c)).collect();
            key.sort_unstable();
            key
        };
        order.sort_unstable_by(|(a, at), (b, bt)| a.cmp(b).then_with(|| sorted(*at).cmp(&sorted(*bt))));
        for (place, at) in order {
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
