//! Runs the extraction queries over one walk of the tree, for the part of
//! tree-sitter's query language that they use.
//!
//! tree-sitter's query cursor is general: at every node it asks the tree
//! cursor for the node's field, its later siblings and its supertypes, and
//! it steps every pattern state in flight. Extraction paid more for that
//! than for anything but parsing (a quarter of a parse worker's time on
//! Django). This matcher visits each node once, looks up the patterns whose
//! root is of the node's kind, and matches each against the node's
//! children directly.
//!
//! It answers what tree-sitter's cursor answers, match for match (a test
//! checks it on every file of the corpora): every way a pattern matches,
//! less those whose captures are a subset of another way's at the same
//! node (tree-sitter's "longest match"). The order differs: matches come by
//! node in tree order, then by pattern.
//!
//! Supported: node kinds, `_` and `(_)`, quoted tokens, fields, negated
//! fields, alternations, `?`, captures, and the `#eq?`, `#not-eq?`,
//! `#match?`, `#not-match?`, `#any-of?` and `#not-any-of?` predicates. A
//! root wildcard may hold one child pattern: `(_ name: (identifier) @x)`.
//! [`Matcher::new`] refuses a query that uses anything else (anchors,
//! `*` and `+`, sibling groups, supertypes), and the language keeps
//! tree-sitter's cursor.

use std::cmp::Reverse;
use std::num::NonZeroU16;

use regex::bytes::Regex;
use rustc_hash::FxHashMap;
use tree_sitter::{Language as Grammar, Node, Query, TreeCursor};

/// A capture: its index in the query, and the node.
pub(crate) type Capture<'t> = (u32, Node<'t>);

pub(crate) struct Matcher {
    patterns: Vec<Pattern>,
    /// The patterns whose root is of each kind, in pattern order.
    by_kind: Vec<Vec<u32>>,
    /// The patterns `(_ field: (kind))`, by the kind of their one child.
    by_child_kind: Vec<Vec<u32>>,
}

struct Pattern {
    index: usize,
    root: Item,
    predicates: Vec<Predicate>,
}

/// One pattern node, with what its parent asks of it.
struct Item {
    field: Option<NonZeroU16>,
    optional: bool,
    captures: Vec<u32>,
    body: Body,
}

enum Body {
    Node { kind: Kind, negated: Vec<NonZeroU16>, children: Vec<Item> },
    Alternatives(Vec<Item>),
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `_`: any node but an error.
    Any,
    /// `(_)`: any named node but an error.
    Named,
    Symbol(u16),
}

enum Predicate {
    Eq { capture: u32, other: Operand, positive: bool },
    Match { capture: u32, regex: Regex, positive: bool },
    AnyOf { capture: u32, values: Vec<String>, positive: bool },
}

enum Operand {
    Capture(u32),
    Text(String),
}

impl Matcher {
    /// Compiles `source`, which `query` is compiled from; `Err` names the
    /// first construct it does not support.
    pub(crate) fn new(grammar: &Grammar, query: &Query, source: &str) -> Result<Matcher, String> {
        let mut reader = Reader { src: source.as_bytes(), at: 0, grammar, query };
        let mut patterns = Vec::new();
        while reader.skip_space() {
            let mut predicates = Vec::new();
            let root = reader.item(None, &mut predicates)?;
            patterns.push(Pattern { index: patterns.len(), root, predicates });
        }
        if patterns.len() != query.pattern_count() {
            return Err(format!("read {} patterns where tree-sitter reads {}", patterns.len(), query.pattern_count()));
        }
        let kinds = grammar.node_kind_count();
        let mut by_kind = vec![Vec::new(); kinds];
        let mut by_child_kind = vec![Vec::new(); kinds];
        for (index, pattern) in patterns.iter().enumerate() {
            let index = index as u32;
            let root = &pattern.root;
            if root.optional {
                return Err("an optional pattern root".into());
            }
            match &root.body {
                Body::Node { kind: Kind::Symbol(kind), .. } => by_kind[*kind as usize].push(index),
                Body::Alternatives(alternatives) => {
                    for kind in symbols(alternatives).ok_or("a root alternation of other than node kinds")? {
                        by_kind[kind as usize].push(index);
                    }
                }
                Body::Node { negated, children, .. } => {
                    let [child] = children.as_slice() else {
                        return Err("a root wildcard with other than one child pattern".into());
                    };
                    if !negated.is_empty() || child.optional {
                        return Err("a root wildcard with a negated field or an optional child".into());
                    }
                    let child_kinds = match &child.body {
                        Body::Node { kind: Kind::Symbol(kind), .. } => vec![*kind],
                        Body::Alternatives(alternatives) => {
                            symbols(alternatives).ok_or("a root wildcard's child of other than node kinds")?
                        }
                        Body::Node { .. } => return Err("a root wildcard with a wildcard child".into()),
                    };
                    for kind in child_kinds {
                        by_child_kind[kind as usize].push(index);
                    }
                }
            }
        }
        for list in by_kind.iter_mut().chain(by_child_kind.iter_mut()) {
            list.dedup();
        }
        Ok(Matcher { patterns, by_kind, by_child_kind })
    }

    /// Calls `found` with each match in the tree under `root`: its pattern
    /// index and its captures.
    ///
    /// One walk with one tree cursor, iterative (deep nesting cannot
    /// overflow the stack). Each node's children are gathered as the walk
    /// passes them, and its patterns are matched as the walk leaves it, so
    /// that no node's children are walked twice: moving a tree cursor costs
    /// more than the matching does.
    pub(crate) fn run<'t>(&self, root: Node<'t>, text: &[u8], found: &mut dyn FnMut(usize, &[Capture<'t>])) {
        let mut run = Run { text, captures: Vec::new(), solutions: Vec::new(), ends: Vec::new() };
        // Every left node's children, each node's together; and the
        // children gathered so far of each node on the path to the walk.
        let mut left: Vec<Kid<'t>> = Vec::new();
        let mut open: Vec<(Kid<'t>, Vec<Kid<'t>>)> = Vec::new();
        let mut spare: Vec<Vec<Kid<'t>>> = Vec::new();
        let mut walk = root.walk();
        let enter = |open: &mut Vec<(Kid<'t>, Vec<Kid<'t>>)>, spare: &mut Vec<Vec<Kid<'t>>>, walk: &TreeCursor<'t>| {
            let kid = Kid { node: walk.node(), field: walk.field_id(), kids: (0, 0) };
            open.push((kid, spare.pop().unwrap_or_default()));
        };
        enter(&mut open, &mut spare, &walk);
        loop {
            if walk.goto_first_child() {
                enter(&mut open, &mut spare, &walk);
                continue;
            }
            loop {
                let (mut kid, mut kids) = open.pop().expect("the walk is inside a node");
                let start = left.len() as u32;
                left.extend_from_slice(&kids);
                kid.kids = (start, left.len() as u32);
                kids.clear();
                spare.push(kids);
                self.leave(&mut run, &left, kid, found);
                if let Some((_, siblings)) = open.last_mut() {
                    siblings.push(kid);
                }
                if walk.goto_next_sibling() {
                    enter(&mut open, &mut spare, &walk);
                    break;
                }
                if !walk.goto_parent() {
                    return;
                }
            }
        }
    }

    /// Matches the patterns rooted at `node`, and those rooted at a
    /// wildcard whose one child is one of its children.
    fn leave<'t>(
        &self,
        run: &mut Run<'t, '_>,
        left: &[Kid<'t>],
        node: Kid<'t>,
        found: &mut dyn FnMut(usize, &[Capture<'t>]),
    ) {
        if let Some(patterns) = self.by_kind.get(node.node.kind_id() as usize) {
            for &pattern in patterns {
                let pattern = &self.patterns[pattern as usize];
                run.solve(|run| run.item(left, &pattern.root, node, &mut |run| run.keep()));
                run.emit(pattern, found);
            }
        }
        for &kid in &left[node.kids.0 as usize..node.kids.1 as usize] {
            let Some(patterns) = self.by_child_kind.get(kid.node.kind_id() as usize) else { continue };
            for &pattern in patterns {
                let pattern = &self.patterns[pattern as usize];
                let Body::Node { kind: parent_kind, children, .. } = &pattern.root.body else {
                    unreachable!("by_child_kind holds root wildcards")
                };
                let child = &children[0];
                if !accepts(*parent_kind, node.node) || child.field.is_some_and(|f| Some(f) != kid.field) {
                    continue;
                }
                run.solve(|run| {
                    run.captures.extend(pattern.root.captures.iter().map(|&c| (c, node.node)));
                    run.item(left, child, kid, &mut |run| run.keep());
                });
                run.emit(pattern, found);
            }
        }
    }
}

/// A node met by [`Matcher::run`]: its field, and where its children are
/// among the nodes left.
#[derive(Clone, Copy)]
struct Kid<'t> {
    node: Node<'t>,
    field: Option<NonZeroU16>,
    kids: (u32, u32),
}

/// Matches, to be handed on in the order of their outermost capture: the
/// first in the source first, the wider of two at one place first, then by
/// pattern. Which match comes first decides, for example, which call to a
/// function a test edge cites, and neither the matcher's order nor
/// tree-sitter's (by when a match completes) is that of the source.
#[derive(Default)]
pub(crate) struct InOrder<'t> {
    captures: Vec<Capture<'t>>,
    /// Each match's key and where its captures end.
    matches: Vec<(Place, usize)>,
}

impl<'t> InOrder<'t> {
    pub(crate) fn add(&mut self, pattern: usize, captures: &[Capture<'t>]) {
        let outermost = captures.iter().map(|(_, n)| (n.start_byte() as u32, Reverse(n.end_byte() as u32))).min();
        let (start, end) = outermost.unwrap_or((0, Reverse(0)));
        self.captures.extend_from_slice(captures);
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

/// The node kinds of alternatives that are all plain node kinds.
fn symbols(alternatives: &[Item]) -> Option<Vec<u16>> {
    alternatives
        .iter()
        .map(|a| match a.body {
            Body::Node { kind: Kind::Symbol(kind), .. } => Some(kind),
            _ => None,
        })
        .collect()
}

fn accepts(kind: Kind, node: Node<'_>) -> bool {
    match kind {
        Kind::Any => !node.is_error(),
        Kind::Named => node.is_named() && !node.is_error(),
        Kind::Symbol(symbol) => node.kind_id() == symbol,
    }
}

/// The state of one [`Matcher::run`]: the solutions found for the pattern
/// being matched at a node.
struct Run<'t, 'x> {
    text: &'x [u8],
    captures: Vec<Capture<'t>>,
    /// Every solution's captures, one after another; `ends` marks each end.
    solutions: Vec<Capture<'t>>,
    ends: Vec<usize>,
}

impl<'t> Run<'t, '_> {
    fn solve(&mut self, search: impl FnOnce(&mut Self)) {
        self.solutions.clear();
        self.ends.clear();
        self.captures.clear();
        search(self);
    }

    fn keep(&mut self) {
        self.solutions.extend_from_slice(&self.captures);
        self.ends.push(self.solutions.len());
    }

    /// Matches `item` at `node`, calling `then` once for each way it does.
    fn item(&mut self, left: &[Kid<'t>], item: &Item, node: Kid<'t>, then: &mut dyn FnMut(&mut Self)) {
        match &item.body {
            Body::Alternatives(alternatives) => {
                for alternative in alternatives {
                    let mark = self.captures.len();
                    self.captures.extend(item.captures.iter().map(|&c| (c, node.node)));
                    self.item(left, alternative, node, then);
                    self.captures.truncate(mark);
                }
            }
            Body::Node { kind, negated, children } => {
                let kids = &left[node.kids.0 as usize..node.kids.1 as usize];
                if !accepts(*kind, node.node) || negated.iter().any(|&f| kids.iter().any(|k| k.field == Some(f))) {
                    return;
                }
                let mark = self.captures.len();
                self.captures.extend(item.captures.iter().map(|&c| (c, node.node)));
                self.sequence(left, children, kids, then);
                self.captures.truncate(mark);
            }
        }
    }

    /// Matches `items` in order against `kids`.
    fn sequence(&mut self, left: &[Kid<'t>], items: &[Item], kids: &[Kid<'t>], then: &mut dyn FnMut(&mut Self)) {
        let Some((item, rest)) = items.split_first() else {
            then(self);
            return;
        };
        for (at, &kid) in kids.iter().enumerate() {
            if item.field.is_some_and(|f| Some(f) != kid.field) {
                continue;
            }
            self.item(left, item, kid, &mut |run| run.sequence(left, rest, &kids[at + 1..], then));
        }
        if item.optional {
            self.sequence(left, rest, kids, then);
        }
    }

    /// Passes on each solution that no other contains and that satisfies
    /// the pattern's predicates.
    fn emit(&mut self, pattern: &Pattern, found: &mut dyn FnMut(usize, &[Capture<'t>])) {
        let count = self.ends.len();
        if count == 1 {
            let only = self.solution(0);
            if pattern.predicates.iter().all(|p| self.holds(p, only)) {
                found(pattern.index, only);
            }
            return;
        }
        let kept = self.longest(count);
        for s in kept {
            let mine = self.solution(s);
            if pattern.predicates.iter().all(|p| self.holds(p, mine)) {
                found(pattern.index, mine);
            }
        }
    }

    /// The solutions that no other contains, the first of equal ones, in
    /// order. A root with many solutions (a module's thousands of globals)
    /// compares each only with those that share its rarest capture, so the
    /// work stays linear where it can.
    fn longest(&self, count: usize) -> Vec<usize> {
        let sets: Vec<Vec<(u32, usize)>> = (0..count)
            .map(|s| {
                let mut set: Vec<(u32, usize)> = self.solution(s).iter().map(|(c, n)| (*c, n.id())).collect();
                set.sort_unstable();
                set.dedup();
                set
            })
            .collect();
        let mut holding: FxHashMap<(u32, usize), Vec<usize>> = FxHashMap::default();
        for (s, set) in sets.iter().enumerate() {
            for &capture in set {
                holding.entry(capture).or_default().push(s);
            }
        }
        let all: Vec<usize> = (0..count).collect();
        (0..count)
            .filter(|&s| {
                let mine = &sets[s];
                let candidates = mine.iter().map(|c| &holding[c]).min_by_key(|h| h.len()).unwrap_or(&all);
                !candidates
                    .iter()
                    .any(|&o| o != s && is_subset(mine, &sets[o]) && (o < s || mine.len() < sets[o].len()))
            })
            .collect()
    }

    fn solution(&self, at: usize) -> &[Capture<'t>] {
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        &self.solutions[start..self.ends[at]]
    }

    fn holds(&self, predicate: &Predicate, captures: &[Capture<'t>]) -> bool {
        let text =
            |capture: u32| captures.iter().find(|(c, _)| *c == capture).map(|(_, node)| &self.text[node.byte_range()]);
        match predicate {
            Predicate::Eq { capture, other, positive } => {
                // As tree-sitter's binding has it: a missing capture
                // satisfies a comparison with text, and fails one with a
                // capture that is present.
                match (text(*capture), other) {
                    (None, Operand::Text(_)) => true,
                    (Some(left), Operand::Text(right)) => (left == right.as_bytes()) == *positive,
                    (left, Operand::Capture(c)) => match (left, text(*c)) {
                        (Some(left), Some(right)) => (left == right) == *positive,
                        (None, None) => true,
                        _ => false,
                    },
                }
            }
            Predicate::Match { capture, regex, positive } => {
                text(*capture).is_none_or(|t| regex.is_match(t) == *positive)
            }
            Predicate::AnyOf { capture, values, positive } => {
                text(*capture).is_none_or(|t| values.iter().any(|v| v.as_bytes() == t) == *positive)
            }
        }
    }
}

/// Whether sorted `inner` is a subset of sorted `outer`.
fn is_subset(inner: &[(u32, usize)], outer: &[(u32, usize)]) -> bool {
    let mut outer = outer.iter();
    inner.iter().all(|i| outer.any(|o| o == i))
}

/// Reads the query language, as far as [`Matcher`] supports it.
struct Reader<'s> {
    src: &'s [u8],
    at: usize,
    grammar: &'s Grammar,
    query: &'s Query,
}

impl Reader<'_> {
    /// Skips white space and comments; whether anything is left.
    fn skip_space(&mut self) -> bool {
        while let Some(&c) = self.src.get(self.at) {
            if c == b';' {
                while self.src.get(self.at).is_some_and(|&c| c != b'\n') {
                    self.at += 1;
                }
            } else if c.is_ascii_whitespace() {
                self.at += 1;
            } else {
                return true;
            }
        }
        false
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.src.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.at))
        }
    }

    fn word(&mut self) -> &str {
        self.skip_space();
        let start = self.at;
        while self.src.get(self.at).is_some_and(|&c| c.is_ascii_alphanumeric() || b"_-.?!/".contains(&c)) {
            self.at += 1;
        }
        std::str::from_utf8(&self.src[start..self.at]).unwrap_or_default()
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out = Vec::new();
        loop {
            match self.src.get(self.at) {
                None => return Err("an unterminated string".into()),
                Some(b'"') => break,
                Some(b'\\') => {
                    self.at += 1;
                    out.push(match self.src.get(self.at) {
                        Some(b'n') => b'\n',
                        Some(b't') => b'\t',
                        Some(b'r') => b'\r',
                        Some(b'0') => b'\0',
                        Some(&c) => c,
                        None => return Err("an unterminated string".into()),
                    });
                }
                Some(&c) => out.push(c),
            }
            self.at += 1;
        }
        self.at += 1;
        String::from_utf8(out).map_err(|e| e.to_string())
    }

    fn capture(&mut self) -> Result<u32, String> {
        self.expect(b'@')?;
        let name = self.word().to_owned();
        self.query.capture_index_for_name(&name).ok_or_else(|| format!("an unknown capture @{name}"))
    }

    fn field(&self, name: &str) -> Result<NonZeroU16, String> {
        self.grammar.field_id_for_name(name).ok_or_else(|| format!("an unknown field {name}"))
    }

    fn symbol(&self, name: &str, named: bool) -> Result<Kind, String> {
        match self.grammar.id_for_node_kind(name, named) {
            0 => Err(format!("an unknown node kind {name:?}")),
            id => Ok(Kind::Symbol(id)),
        }
    }

    /// One pattern node, with its quantifier and captures; predicates
    /// inside it go to `predicates`.
    fn item(&mut self, field: Option<NonZeroU16>, predicates: &mut Vec<Predicate>) -> Result<Item, String> {
        let body = match self.peek() {
            Some(b'(') => {
                self.at += 1;
                if matches!(self.peek(), Some(b'(' | b'"' | b'[')) {
                    return Err("a sibling group".into());
                }
                let name = self.word().to_owned();
                let kind = match name.as_str() {
                    "_" => Kind::Named,
                    "" => return Err(format!("a pattern without a node kind at byte {}", self.at)),
                    "ERROR" | "MISSING" => return Err(format!("({name})")),
                    n if n.contains('/') => return Err("a supertype".into()),
                    n => self.symbol(n, true)?,
                };
                let mut negated = Vec::new();
                let mut children = Vec::new();
                loop {
                    match self.peek() {
                        Some(b')') => {
                            self.at += 1;
                            break;
                        }
                        Some(b'.') => return Err("an anchor".into()),
                        Some(b'!') => {
                            self.at += 1;
                            let name = self.word().to_owned();
                            negated.push(self.field(&name)?);
                        }
                        Some(b'(') if self.src.get(self.at + 1) == Some(&b'#') => predicates.push(self.predicate()?),
                        Some(b'(' | b'[' | b'"') => children.push(self.item(None, predicates)?),
                        Some(c) if c.is_ascii_alphanumeric() || c == b'_' => {
                            let start = self.at;
                            let name = self.word().to_owned();
                            if self.peek() == Some(b':') {
                                self.at += 1;
                                let field = self.field(&name)?;
                                children.push(self.item(Some(field), predicates)?);
                            } else {
                                self.at = start;
                                children.push(self.item(None, predicates)?);
                            }
                        }
                        other => return Err(format!("unexpected {:?} at byte {}", other.map(char::from), self.at)),
                    }
                }
                Body::Node { kind, negated, children }
            }
            Some(b'[') => {
                self.at += 1;
                let mut alternatives = Vec::new();
                while self.peek() != Some(b']') {
                    if self.peek().is_none() {
                        return Err("an unterminated alternation".into());
                    }
                    alternatives.push(self.item(None, predicates)?);
                }
                self.at += 1;
                Body::Alternatives(alternatives)
            }
            Some(b'"') => {
                let token = self.string()?;
                Body::Node { kind: self.symbol(&token, false)?, negated: Vec::new(), children: Vec::new() }
            }
            Some(b'_') if self.word() == "_" => {
                Body::Node { kind: Kind::Any, negated: Vec::new(), children: Vec::new() }
            }
            other => return Err(format!("unexpected {:?} at byte {}", other.map(char::from), self.at)),
        };
        let mut optional = false;
        match self.src.get(self.at) {
            Some(b'?') => {
                self.at += 1;
                optional = true;
            }
            Some(b'*' | b'+') => return Err("a repetition".into()),
            _ => {}
        }
        let mut captures = Vec::new();
        while self.peek() == Some(b'@') {
            captures.push(self.capture()?);
        }
        Ok(Item { field, optional, captures, body })
    }

    fn predicate(&mut self) -> Result<Predicate, String> {
        self.expect(b'(')?;
        self.expect(b'#')?;
        let name = self.word().to_owned();
        let mut captures = Vec::new();
        let mut texts = Vec::new();
        loop {
            match self.peek() {
                Some(b')') => {
                    self.at += 1;
                    break;
                }
                Some(b'@') => captures.push(self.capture()?),
                Some(b'"') => texts.push(self.string()?),
                other => return Err(format!("unexpected {:?} in #{name}", other.map(char::from))),
            }
        }
        let (positive, test) = match name.strip_prefix("not-") {
            Some(test) => (false, test),
            None => (true, name.as_str()),
        };
        match (test, captures.as_slice(), texts.as_slice()) {
            ("eq?", [capture, other], []) => {
                Ok(Predicate::Eq { capture: *capture, other: Operand::Capture(*other), positive })
            }
            ("eq?", [capture], [text]) => {
                Ok(Predicate::Eq { capture: *capture, other: Operand::Text(text.clone()), positive })
            }
            ("match?", [capture], [pattern]) => {
                let regex = Regex::new(pattern).map_err(|e| e.to_string())?;
                Ok(Predicate::Match { capture: *capture, regex, positive })
            }
            ("any-of?", [capture], values) => {
                Ok(Predicate::AnyOf { capture: *capture, values: values.to_vec(), positive })
            }
            _ => Err(format!("the predicate #{name}")),
        }
    }
}
