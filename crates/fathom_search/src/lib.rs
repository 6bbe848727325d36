//! Retrieval over the code graph.
//!
//! [`retrieval::Retrieval`] holds the lexical (BM25) and dense (HNSW) indexes
//! over [`chunks`] of the graph's definitions, and ranks symbols by fusing
//! their lanes with names and trace locations ([`hints`]).
//!
//! [`NameIndex`], below, finds symbols by name.
//! A query matches a symbol's name, or its qualified name when the query
//! holds a dot or `::` (`Calculator.add`, `calc::Calculator::add`, either
//! way for either language). Matches fall into tiers: exact beats
//! prefix beats substring. Within a tier, closer matches (the query covers
//! more of the name, the case agrees) rank first; ties break on kind, then
//! on the shorter qualified name, then on file and line, so results are
//! stable from run to run.

pub mod chunks;
pub mod dense;
pub mod heuristics;
pub mod hints;
pub mod issue;
pub mod lexical;
pub mod locate;
pub mod parallel;
pub mod partition;
pub mod query;
pub mod retrieval;
pub mod roles;
pub mod snippet;
pub mod tokens;
pub mod traces;

use std::cmp::Ordering;

use fathom_graph::{CodeGraph, NodeId};
use fathom_model::SymbolKind;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    Substring,
    Prefix,
    Exact,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NameHit {
    pub node: NodeId,
    pub match_kind: MatchKind,
    /// The tier (exact 3, prefix 2, substring 1) plus a closeness in `[0, 1)`.
    pub score: f64,
}

/// The lowercased names of every node, kept so a query never lowercases the
/// whole graph again, and their order by name: a name's exact and prefix
/// matches are one run of it, found by binary search, so a query reads the
/// whole list only for the substrings it asks for (where its exact and
/// prefix matches are fewer than it wants), and a list cut into pages by
/// name serves any word from one page or a few.
pub struct NameIndex {
    /// In node order.
    entries: Vec<Entry>,
    /// Indices into `entries`, by name, then node.
    by_name: Vec<u32>,
}

/// A node's names in lower case, for matching: the qualified name, with the
/// simple name read off its end, where a name almost always is, so that each
/// node holds one copy, not two.
struct Entry {
    node: NodeId,
    /// Where the simple name starts in `qualified`, or `u32::MAX` when it is
    /// not its end (then `apart` holds it).
    name_at: u32,
    qualified: Box<str>,
    apart: Option<Box<str>>,
}

impl Entry {
    fn new(node: NodeId, name: &str, qualified: &str) -> Entry {
        let (name, qualified) = (name.to_lowercase(), dotted(&qualified.to_lowercase()).into_owned());
        match qualified.strip_suffix(name.as_str()) {
            Some(head) => Entry { node, name_at: head.len() as u32, qualified: qualified.into(), apart: None },
            None => Entry { node, name_at: u32::MAX, qualified: qualified.into(), apart: Some(name.into()) },
        }
    }

    fn name(&self) -> &str {
        match &self.apart {
            Some(name) => name,
            None => &self.qualified[self.name_at as usize..],
        }
    }
}

impl NameIndex {
    pub fn build(graph: &CodeGraph) -> NameIndex {
        let entries = graph
            .nodes()
            // A node of no name matches no query: a sparse graph's
            // placeholders are not listed.
            .filter(|(_, n)| !n.is_external && !n.name.is_empty())
            .map(|(node, n)| Entry::new(node, &n.name, &n.qualified_name))
            .collect::<Vec<Entry>>();
        let mut by_name: Vec<u32> = (0..entries.len() as u32).collect();
        by_name.sort_by(|&a, &b| entries[a as usize].name().cmp(entries[b as usize].name()).then(a.cmp(&b)));
        NameIndex { entries, by_name }
    }

    /// The entries whose name starts with `lowered`, in node order: a run of
    /// [`NameIndex::by_name`].
    fn starting_with(&self, lowered: &str) -> Vec<u32> {
        let name = |i: &u32| self.entries[*i as usize].name();
        let from = self.by_name.partition_point(|i| name(i) < lowered);
        let to = from + self.by_name[from..].partition_point(|i| name(i).starts_with(lowered));
        let mut run = self.by_name[from..to].to_vec();
        run.sort_unstable();
        run
    }

    /// The symbols that can be among [`NameIndex::named`]'s best `per`
    /// exact matches of `key` (a name in lower case), however a reader
    /// types it: the best `per` of each spelling of the name, and the best
    /// `per` of them all, in the order equal scores take. Whoever holds
    /// these symbols finds any exact search of the key as one who holds
    /// every name does: a spelling typed as written scores above the rest,
    /// and the rest follow in that order.
    pub fn exact_digest(&self, graph: &CodeGraph, key: &str, per: usize) -> Vec<NodeId> {
        let mut run: Vec<u32> = self.starting_with(key);
        run.retain(|&i| self.entries[i as usize].name() == key);
        // Stable: equal entries stay in node order, as a search keeps them.
        run.sort_by(|&a, &b| self.tie_break(graph, self.entries[a as usize].node, self.entries[b as usize].node));
        let node = |i: &u32| self.entries[*i as usize].node;
        let mut out: Vec<NodeId> = run.iter().take(per).map(node).collect();
        let mut taken: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for i in &run {
            let count = taken.entry(graph.node(node(i)).name.as_str()).or_default();
            if *count < per {
                *count += 1;
                out.push(node(i));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The best `limit` matches for `query`, best first.
    pub fn search(&self, graph: &CodeGraph, query: &str, limit: usize) -> Vec<NameHit> {
        self.matches(graph, query, limit, Candidates::Best)
    }

    /// [`NameIndex::search`]'s exact and prefix matches alone: the same
    /// hits, less its substrings, found without reading every name where
    /// the query is not dotted.
    pub fn named(&self, graph: &CodeGraph, query: &str, limit: usize) -> Vec<NameHit> {
        let mut hits = self.matches(graph, query, limit, Candidates::Named);
        hits.retain(|h| h.match_kind != MatchKind::Substring);
        hits
    }

    /// What a search finds reading every name: the reference the sorted
    /// run is held to.
    #[cfg(test)]
    fn matches_reading_all(&self, graph: &CodeGraph, query: &str, limit: usize) -> Vec<NameHit> {
        self.matches(graph, query, limit, Candidates::All)
    }

    fn matches(&self, graph: &CodeGraph, query: &str, limit: usize, wanted: Candidates) -> Vec<NameHit> {
        let query = dotted(query.trim());
        if query.is_empty() || limit == 0 {
            return Vec::new();
        }
        let lowered = query.to_lowercase();
        let is_dotted = query.contains('.');
        // Exact and prefix matches outrank every substring: where there are
        // `limit` of them, or substrings are not asked for, no other name is
        // read. The entries are read in node order either way, so equal hits
        // keep the order they had.
        let candidates: Vec<u32> = if is_dotted {
            (0..self.entries.len() as u32).collect()
        } else {
            let named = || self.starting_with(&lowered);
            match wanted {
                Candidates::All => (0..self.entries.len() as u32).collect(),
                Candidates::Named => named(),
                Candidates::Best => {
                    let named = named();
                    if named.len() >= limit { named } else { (0..self.entries.len() as u32).collect() }
                }
            }
        };
        let mut hits: Vec<NameHit> = candidates
            .into_iter()
            .map(|i| &self.entries[i as usize])
            .filter_map(|entry| {
                let node = graph.node(entry.node);
                let haystack = if is_dotted { &*entry.qualified } else { entry.name() };
                let match_kind = match_kind(haystack, &lowered, is_dotted)?;
                let coverage = lowered.len() as f64 / haystack.len().max(1) as f64;
                let original = if is_dotted { dotted(&node.qualified_name) } else { node.name.as_str().into() };
                let same_case = if original.contains(&*query) { 1.0 } else { 0.0 };
                let closeness = 0.8 * coverage.min(1.0) + 0.19 * same_case;
                Some(NameHit { node: entry.node, match_kind, score: tier(match_kind) + closeness })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score.partial_cmp(&a.score).unwrap_or(Ordering::Equal).then_with(|| self.tie_break(graph, a.node, b.node))
        });
        hits.truncate(limit);
        hits
    }

    fn tie_break(&self, graph: &CodeGraph, a: NodeId, b: NodeId) -> Ordering {
        let (a, b) = (graph.node(a), graph.node(b));
        kind_rank(a.kind)
            .cmp(&kind_rank(b.kind))
            .then_with(|| a.qualified_name.len().cmp(&b.qualified_name.len()))
            .then_with(|| a.file.cmp(&b.file))
            .then_with(|| a.span.start_line.cmp(&b.span.start_line))
    }
}

/// Which names a search reads: every one; those that could be among its
/// best (its exact and prefix matches, or every name where those are too
/// few); or its exact and prefix matches alone.
#[derive(Clone, Copy)]
enum Candidates {
    #[cfg_attr(not(test), allow(dead_code))]
    All,
    Best,
    Named,
}

/// A qualified name with `::` (Rust, C++, PHP) written as a dot, as
/// queries and reports may write it either way.
fn dotted(name: &str) -> std::borrow::Cow<'_, str> {
    if name.contains("::") { name.replace("::", ".").into() } else { name.into() }
}

fn match_kind(haystack: &str, query: &str, dotted: bool) -> Option<MatchKind> {
    // A dotted query names a path of symbols: `calc.Calculator.add` also
    // matches `pkg.calc.Calculator.add` exactly, as a suffix on a dot.
    let exact = haystack == query || (dotted && haystack.ends_with(&format!(".{query}")));
    if exact {
        Some(MatchKind::Exact)
    } else if haystack.starts_with(query) {
        Some(MatchKind::Prefix)
    } else if haystack.contains(query) {
        Some(MatchKind::Substring)
    } else {
        None
    }
}

fn tier(kind: MatchKind) -> f64 {
    match kind {
        MatchKind::Exact => 3.0,
        MatchKind::Prefix => 2.0,
        MatchKind::Substring => 1.0,
    }
}

/// Definitions people look for first: types and free functions, then
/// methods, then state, then containers.
fn kind_rank(kind: SymbolKind) -> u8 {
    match kind {
        SymbolKind::Class => 0,
        SymbolKind::Function => 1,
        SymbolKind::Method => 2,
        SymbolKind::Annotation => 3,
        SymbolKind::GlobalVariable => 4,
        SymbolKind::Field => 5,
        SymbolKind::Module => 6,
        SymbolKind::Package => 7,
    }
}

#[cfg(test)]
mod tests {
    use fathom_graph::FileInput;
    use fathom_model::{Definition, FileFacts, Language, Span};

    use super::*;

    fn def(kind: SymbolKind, name: &str, parent: Option<usize>, line: u32) -> Definition {
        Definition::new(kind, name, parent, Span { start_line: line, end_line: line, start_byte: 0, end_byte: 0 })
    }

    fn ranked(graph: &CodeGraph, query: &str) -> Vec<(String, MatchKind)> {
        let index = NameIndex::build(graph);
        let hits = index.search(graph, query, 10);
        hits.iter().map(|h| (graph.node(h.node).qualified_name.clone(), h.match_kind)).collect()
    }

    fn graph() -> CodeGraph {
        let calc = vec![
            def(SymbolKind::Class, "Calculator", None, 1),
            def(SymbolKind::Method, "add", Some(0), 2),
            def(SymbolKind::Method, "add_all", Some(0), 3),
            def(SymbolKind::Function, "readd", None, 4),
            def(SymbolKind::Function, "ADD", None, 5),
        ];
        let util = vec![def(SymbolKind::Function, "add", None, 1), def(SymbolKind::Function, "address_of", None, 2)];
        let calc = FileFacts { definitions: calc, ..FileFacts::default() };
        let util = FileFacts { definitions: util, ..FileFacts::default() };
        let inputs = [
            FileInput { path: "calc.py", language: Language::Python, text: "", facts: &calc },
            FileInput { path: "util.py", language: Language::Python, text: "", facts: &util },
        ];
        CodeGraph::build(&inputs, &mut |_, _| {}).0
    }

    #[test]
    fn exact_then_prefix_then_substring() {
        let names = ranked(&graph(), "add");
        let kinds: Vec<_> = names.iter().map(|(_, k)| *k).collect();
        let mut sorted = kinds.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(kinds, sorted, "tiers are in order: {names:?}");
        assert_eq!(names[0], ("util.add".into(), MatchKind::Exact), "a free function outranks a same-named method");
        assert_eq!(names[1], ("calc.Calculator.add".into(), MatchKind::Exact));
        assert_eq!(names[2], ("calc.ADD".into(), MatchKind::Exact), "case-insensitive exact comes after case-exact");
        assert_eq!(names[3], ("calc.Calculator.add_all".into(), MatchKind::Prefix), "the closer prefix first");
        assert_eq!(names[4], ("util.address_of".into(), MatchKind::Prefix));
        assert_eq!(names[5], ("calc.readd".into(), MatchKind::Substring));
        assert_eq!(names.len(), 6, "the module names hold no `add`");
    }

    #[test]
    fn a_dotted_query_matches_qualified_names_by_suffix() {
        let names = ranked(&graph(), "Calculator.add");
        assert_eq!(names[0], ("calc.Calculator.add".into(), MatchKind::Exact));
        assert_eq!(names[1], ("calc.Calculator.add_all".into(), MatchKind::Substring));
    }

    #[test]
    fn a_path_written_with_colons_matches_either_way() {
        let node = NodeId::new(0);
        let rust = Entry::new(node, "lock", "tokio/src/sync/mutex::Mutex::lock");
        assert_eq!((&*rust.qualified, rust.name()), ("tokio/src/sync/mutex.mutex.lock", "lock"));
        assert_eq!(match_kind(&rust.qualified, &dotted("mutex::lock"), true), Some(MatchKind::Exact));
        assert_eq!(match_kind(&rust.qualified, "mutex.lock", true), Some(MatchKind::Exact));
        assert_eq!(ranked(&graph(), "Calculator::add")[0], ("calc.Calculator.add".into(), MatchKind::Exact));
    }

    /// The graph of Python files of these facts at these paths.
    fn python_graph(files: &[FileFacts], paths: &[String]) -> CodeGraph {
        let inputs: Vec<FileInput> = files
            .iter()
            .zip(paths)
            .map(|(facts, path)| FileInput { path, language: Language::Python, text: "", facts })
            .collect();
        CodeGraph::build(&inputs, &mut |_, _| {}).0
    }

    /// Every name of a graph whose names share prefixes, cases and
    /// lengths, searched every way: the run found by binary search gives what
    /// reading every name gave, in the same order.
    #[test]
    fn the_sorted_run_finds_what_reading_every_name_finds() {
        let words =
            ["add", "Add", "ADD", "address", "adder", "add_all", "readd", "a", "ad", "addr", "b", "Bad", "badd"];
        let files: Vec<FileFacts> = (0..6)
            .map(|f| {
                let mut definitions = vec![def(SymbolKind::Class, words[f % words.len()], None, 1)];
                for (i, word) in words.iter().enumerate().skip(f % 3) {
                    let kind = [SymbolKind::Method, SymbolKind::Field, SymbolKind::Function][i % 3];
                    let parent = (kind != SymbolKind::Function).then_some(0);
                    definitions.push(def(kind, word, parent, 2 + i as u32));
                }
                FileFacts { definitions, ..FileFacts::default() }
            })
            .collect();
        let paths: Vec<String> = (0..files.len()).map(|f| format!("m{}/n{f}.py", f % 2)).collect();
        let graph = python_graph(&files, &paths);
        let index = NameIndex::build(&graph);
        for query in words.iter().copied().chain(["", "ad", "dd", "z", "m0.n2.add", "add.", "A"]) {
            for limit in [1, 3, 10, 64] {
                let all = index.matches_reading_all(&graph, query, limit);
                assert_eq!(index.search(&graph, query, limit), all, "{query:?} at {limit}");
                let named: Vec<NameHit> = all.into_iter().filter(|h| h.match_kind != MatchKind::Substring).collect();
                assert_eq!(index.named(&graph, query, limit), named, "{query:?} at {limit}, named");
            }
        }
    }

    /// A name that many symbols share, in several spellings: a name index
    /// over the digest's symbols alone finds what one over every symbol
    /// finds, for each spelling typed.
    #[test]
    fn a_names_digest_answers_its_exact_searches() {
        let spellings = ["get", "Get", "GET"];
        let files: Vec<FileFacts> = (0..30)
            .map(|f| {
                let kind = [SymbolKind::Function, SymbolKind::Method, SymbolKind::Class][f % 3];
                let parent = (kind == SymbolKind::Method).then_some(0);
                let mut definitions = vec![def(SymbolKind::Class, "Holder", None, 1)];
                definitions.push(def(kind, spellings[f % 3], parent, 2 + (f % 4) as u32));
                FileFacts { definitions, ..FileFacts::default() }
            })
            .collect();
        let paths: Vec<String> = (0..files.len()).map(|f| format!("{}/m{f}.py", "d".repeat(1 + f % 5))).collect();
        let graph = python_graph(&files, &paths);
        let index = NameIndex::build(&graph);
        let exact = index.named(&graph, "get", 64).iter().filter(|h| h.match_kind == MatchKind::Exact).count();
        assert_eq!(exact, 30);
        let digest = index.exact_digest(&graph, "get", 4);
        assert!(digest.len() < 30 && digest.len() >= 4, "{}", digest.len());
        // A graph that holds only the digest's symbols by name.
        let mut sparse = CodeGraph::sparse(graph.node_count(), graph.files().to_vec());
        for &id in &digest {
            sparse.put_node(id, graph.node(id).clone());
        }
        let held = NameIndex::build(&sparse);
        for typed in spellings.iter().copied().chain(["gEt"]) {
            let exact = |index: &NameIndex, graph: &CodeGraph| -> Vec<NodeId> {
                index
                    .named(graph, typed, 4)
                    .into_iter()
                    .filter(|h| h.match_kind == MatchKind::Exact)
                    .map(|h| h.node)
                    .collect()
            };
            assert_eq!(exact(&held, &sparse), exact(&index, &graph), "typed {typed:?}");
        }
    }

    #[test]
    fn an_empty_query_finds_nothing() {
        assert!(ranked(&graph(), "   ").is_empty());
    }

    #[test]
    fn a_name_is_read_off_the_end_of_its_qualified_name_or_kept_apart() {
        let node = NodeId::new(0);
        let tail = Entry::new(node, "Add", "calc.Calculator.Add");
        assert_eq!((tail.name(), &*tail.qualified, tail.apart.is_none()), ("add", "calc.calculator.add", true));
        // An overload's qualified name ends in its parameters, not its name.
        let overload = Entry::new(node, "findBy", "repo.Users.findBy(String)");
        assert_eq!((overload.name(), overload.apart.is_some()), ("findby", true));
    }
}
