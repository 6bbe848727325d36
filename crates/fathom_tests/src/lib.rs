//! Tests in the graph. [`link`] adds a `TESTS` edge from each test to each
//! definition it exercises, weighing five kinds of evidence:
//!
//! - **calls**: the test calls it, directly or through helpers, up to three
//!   hops; each hop multiplies the edges' confidences and damps by
//!   [`HOP_DAMPING`];
//! - **imports**: the test's file imports it and the test's code names it;
//! - **naming**: `test_parse` ↔ `parse`, `ParserTest` ↔ `Parser`,
//!   `TestParser.test_feed` ↔ `Parser.feed`;
//! - **mirrored paths**: `tests/test_url.py` ↔ `url.py`,
//!   `src/test/a/BTest.java` ↔ `src/main/a/B.java`, `x.test.ts` ↔ `x.ts`;
//! - **mentions**: a line of the test that asserts (`assert`, `expect(`,
//!   `assertEquals`…) names it.
//!
//! Evidence for one (test, definition) pair is combined as independent
//! signals, `1 − Π(1 − cᵢ)`, into one edge whose `reason` is the strongest
//! kind and whose `line` is the test's first call to it, when it calls it.
//! The pass reads only the graph and the files' texts, so it also runs on a
//! graph restored from an older bundle.

pub mod change;
pub mod recommend;
pub mod scripts;

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use aho_corasick::AhoCorasick;

use rustc_hash::{FxHashMap, FxHashSet};

use fathom_graph::{CodeGraph, Edge, EdgeKind, FileId, NodeId, Reason};
use fathom_model::{Language, SymbolKind};
use fathom_search::retrieval::{TEST_DIRS, is_test_path};
use fathom_search::tokens::{in_word, word_runs};
use serde::Serialize;

/// Each hop past the first multiplies a call path's confidence by this.
pub const HOP_DAMPING: f32 = 0.6;
/// How far a test's calls are followed.
pub const MAX_CALL_HOPS: u32 = 3;
/// Evidence weaker than this is not kept.
pub const MIN_CONFIDENCE: f32 = 0.15;
/// At most this many nodes are visited from one test (generated tests with
/// huge fan-out stay bounded).
const VISIT_LIMIT: usize = 2_000;

/// What [`link`] added.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LinkStats {
    /// Tests found (functions, methods and classes marked as tests).
    pub tests: usize,
    /// `TESTS` edges added.
    pub edges: usize,
    /// Tests left with no edge.
    pub unlinked: usize,
}

/// One piece of evidence that `test` exercises a definition.
#[derive(Clone, Copy, Debug)]
struct Evidence {
    reason: Reason,
    confidence: f32,
    line: Option<u32>,
}

/// Adds `TESTS` edges; `texts[f]` is the text of file `f`. Existing `TESTS`
/// edges are left as they are, so run it once per graph.
pub fn link<S: AsRef<str>>(graph: &mut CodeGraph, texts: &[S]) -> LinkStats {
    let linker = Linker::new(graph, texts);
    let found = linker.evidence();
    let tests = linker.tests.len();
    let mut stats = LinkStats { tests, ..LinkStats::default() };
    let mut linked: FxHashSet<NodeId> = FxHashSet::default();
    // In test order, then target order; each pair's evidence as it came.
    for pair in found.chunk_by(|a, b| (a.test, a.target) == (b.test, b.target)) {
        let (test, target) = (pair[0].test, pair[0].target);
        let evidence = pair.iter().map(|found| found.evidence);
        let confidence = 1.0 - evidence.clone().map(|e| 1.0 - e.confidence).product::<f32>();
        if confidence < MIN_CONFIDENCE {
            continue;
        }
        let strongest = evidence.clone().max_by(|a, b| a.confidence.total_cmp(&b.confidence)).expect("non-empty");
        let line = evidence.filter(|e| e.reason == Reason::TestCalls).find_map(|e| e.line);
        let rounded = (confidence.min(0.99) * 100.0).round() / 100.0;
        graph.add_edge(test, target, Edge::inferred(EdgeKind::Tests, rounded, strongest.reason, line));
        linked.insert(test);
        stats.edges += 1;
    }
    stats.unlinked = tests - linked.len();
    stats
}

/// One piece of evidence for one (test, definition) pair.
#[derive(Clone, Copy, Debug)]
struct Found {
    test: NodeId,
    target: NodeId,
    evidence: Evidence,
}

struct Linker<'g, S> {
    graph: &'g CodeGraph,
    texts: &'g [S],
    /// Tests: functions, methods and classes the parser marked, in id order.
    tests: Vec<NodeId>,
    /// Whether each file, by index, is test code (by its path or its
    /// contents): [`Linker::is_subject`] asks for every definition a test
    /// reaches.
    is_test_file: Vec<bool>,
    /// Each node's outgoing `CALLS` edges, oldest first, as (callee,
    /// confidence, line): a test's call search reads these alone, where
    /// each node's edges of every kind would be gathered and sorted.
    calls: CallLists,
    /// Definitions that can be tested (outside test code), by simple name.
    subjects_by_name: ByName<&'g str, Vec<NodeId>>,
    /// The same, by a case- and separator-blind key (`parse_url` = `parseUrl`).
    subjects_by_key: ByName<String, Vec<NodeId>>,
    /// Modules outside test code, by file name.
    modules_by_file_name: ByName<String, Vec<NodeId>>,
    /// Declarations whose definitions the archive holds: a test exercises
    /// the definition, not its prototype.
    declarations: HashSet<NodeId>,
}

impl<'g, S: AsRef<str>> Linker<'g, S> {
    fn new(graph: &'g CodeGraph, texts: &'g [S]) -> Self {
        let mut tests = Vec::new();
        let mut is_test_file: Vec<bool> = graph.files().iter().map(|file| is_test_path(&file.path)).collect();
        for (id, node) in graph.nodes() {
            if node.is_test() {
                tests.push(id);
                if let Some(file) = node.file {
                    is_test_file[file.0 as usize] = true;
                }
            }
        }
        let mut linker = Linker {
            graph,
            texts,
            tests,
            is_test_file,
            calls: CallLists::new(graph),
            subjects_by_name: ByName::default(),
            subjects_by_key: ByName::default(),
            modules_by_file_name: ByName::default(),
            declarations: graph.linked_declarations(),
        };
        for (id, node) in graph.nodes() {
            if !linker.is_subject(id) {
                continue;
            }
            if node.kind == SymbolKind::Module {
                let path = graph.path_of(id).unwrap_or_default();
                let file_name = path.rsplit('/').next().unwrap_or(path).to_owned();
                linker.modules_by_file_name.entry(file_name).or_default().push(id);
            } else {
                linker.subjects_by_name.entry(&node.name).or_default().push(id);
                linker.subjects_by_key.entry(name_key(&node.name)).or_default().push(id);
            }
        }
        linker
    }

    /// A definition in the archive, outside test code: something to test.
    fn is_subject(&self, id: NodeId) -> bool {
        let node = self.graph.node(id);
        !node.is_external
            && node.file.is_some_and(|f| !self.is_test_file[f.0 as usize])
            && matches!(node.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class | SymbolKind::Module)
            && !node.is_test()
            && !self.declarations.contains(&id)
    }

    /// Every test's evidence, ordered by test and then by definition; one
    /// pair's pieces in the order they were found.
    fn evidence(&self) -> Vec<Found> {
        let mut found: Vec<Found> = Vec::new();
        let mirrors: HashMap<FileId, Vec<NodeId>> = (0..self.is_test_file.len())
            .filter(|&at| self.is_test_file[at])
            .map(|at| FileId(at as u32))
            .map(|file| (file, self.mirrored_modules(file)))
            .collect();
        let mut imported = ImportedByModule::default();
        debug_assert!(self.tests.is_sorted(), "tests are found in id order");
        for &test in &self.tests {
            let from = found.len();
            let mut add = |target: NodeId, evidence: Evidence| {
                if evidence.confidence >= MIN_CONFIDENCE && test != target {
                    found.push(Found { test, target, evidence });
                }
            };
            self.evidence_of(test, &mirrors, &mut imported, &mut add);
            // Stable: a pair's pieces keep the order they were found in.
            found[from..].sort_by_key(|f| f.target);
        }
        found
    }

    /// One test's evidence, handed to `add`: a function of its own, never
    /// inlined, for V8 to tier it up between tests (see `fathom_resolve::resolve`).
    #[inline(never)]
    fn evidence_of(
        &self,
        test: NodeId,
        mirrors: &HashMap<FileId, Vec<NodeId>>,
        imported: &mut ImportedByModule<'g>,
        add: &mut dyn FnMut(NodeId, Evidence),
    ) {
        let node = self.graph.node(test);
        if matches!(node.kind, SymbolKind::Function | SymbolKind::Method) {
            for (target, evidence) in self.calls(test) {
                add(target, evidence);
            }
            for (target, evidence) in self.words_of(test, imported) {
                add(target, evidence);
            }
        }
        for (target, evidence) in self.naming(test, mirrors) {
            add(target, evidence);
        }
        if let Some(modules) = node.file.and_then(|f| mirrors.get(&f)) {
            let confidence = if modules.len() == 1 { 0.5 } else { 0.3 };
            for &module in modules {
                add(module, Evidence { reason: Reason::TestMirroredPath, confidence, line: None });
            }
        }
    }

    /// Definitions the test reaches through calls, each by its most
    /// confident path of at most [`MAX_CALL_HOPS`] hops.
    fn calls(&self, test: NodeId) -> Vec<(NodeId, Evidence)> {
        let mut best: FxHashMap<NodeId, (f32, Option<u32>)> = FxHashMap::default();
        let mut frontier: Vec<(NodeId, f32, Option<u32>)> = vec![(test, 1.0, None)];
        let mut visited = 0usize;
        for hop in 1..=MAX_CALL_HOPS {
            let mut next = Vec::new();
            for &(from, confidence, first_line) in &frontier {
                for &(to, edge_confidence, edge_line) in self.calls.of(from) {
                    if to == test {
                        continue;
                    }
                    visited += 1;
                    if visited > VISIT_LIMIT {
                        break;
                    }
                    let damping = if hop == 1 { 1.0 } else { HOP_DAMPING };
                    let reached = confidence * edge_confidence * damping;
                    let line = first_line.or(edge_line);
                    if best.get(&to).is_some_and(|&(c, _)| c >= reached) || reached < MIN_CONFIDENCE {
                        continue;
                    }
                    best.insert(to, (reached, line));
                    next.push((to, reached, line));
                }
            }
            frontier = next;
        }
        best.into_iter()
            .filter(|&(to, _)| self.is_subject(to))
            .map(|(to, (confidence, line))| (to, Evidence { reason: Reason::TestCalls, confidence, line }))
            .collect()
    }

    /// What the test's own words say, from one pass over them: the imports
    /// of its module that it names (in import order), then the definitions
    /// that its lines that assert name, in its language family (in the order
    /// they are first named).
    fn words_of(&self, test: NodeId, imported: &mut ImportedByModule<'g>) -> Vec<(NodeId, Evidence)> {
        // A module's imports are gathered once, not once for each of its tests.
        let imports: Option<&Imported<'g>> = self.graph.module_of(test).map(|module| {
            &*imported.entry(module).or_insert_with(|| {
                Imported::new(
                    self.graph
                        .outgoing(module)
                        .filter(|(edge, to)| {
                            edge.kind == EdgeKind::Imports
                                && self.is_subject(*to)
                                && self.graph.node(*to).kind != SymbolKind::Module
                        })
                        .map(|(edge, to)| (to, self.graph.node(to).name.as_str(), edge.confidence))
                        .collect(),
                )
            })
        });
        let ours = family(self.graph.node(test).language);
        let mut mentioned = Vec::new();
        // Names are looked up before they are remembered: most words name
        // nothing, and are hashed once instead of twice.
        let mut seen: HashSet<&str, ahash::RandomState> = HashSet::default();
        let found = scan_words(self.text_of(test), imports, &mut |word| {
            if word.len() < 4 {
                return;
            }
            let Some(candidates) = self.subjects_by_name.get(word) else { return };
            if !seen.insert(word) {
                return;
            }
            let candidates: Vec<NodeId> =
                candidates.iter().copied().filter(|&c| family(self.graph.node(c).language) == ours).collect();
            if candidates.is_empty() || candidates.len() > 3 {
                return;
            }
            let confidence = if candidates.len() == 1 { 0.5 } else { 0.3 };
            mentioned.extend(
                candidates.iter().map(|&c| (c, Evidence { reason: Reason::TestMention, confidence, line: None })),
            );
        });
        let mut out: Vec<(NodeId, Evidence)> = imports
            .into_iter()
            .flat_map(|imports| imports.named(&found))
            .map(|(to, confidence)| {
                (to, Evidence { reason: Reason::TestImports, confidence: 0.6 * confidence, line: None })
            })
            .collect();
        out.extend(mentioned);
        out
    }

    /// Definitions the test is named after, preferring those in its mirrored file.
    fn naming(&self, test: NodeId, mirrors: &HashMap<FileId, Vec<NodeId>>) -> Vec<(NodeId, Evidence)> {
        let node = self.graph.node(test);
        let Some(subject) = subject_name(&node.name) else { return Vec::new() };
        let kinds: &[SymbolKind] = if node.kind == SymbolKind::Class {
            &[SymbolKind::Class]
        } else {
            &[SymbolKind::Function, SymbolKind::Method, SymbolKind::Class]
        };
        let mut candidates: Vec<NodeId> = self
            .subjects_by_name
            .get(subject)
            .or_else(|| self.subjects_by_key.get(&name_key(subject)))
            .map(|c| {
                let family = family(node.language);
                c.iter()
                    .copied()
                    .filter(|&c| {
                        kinds.contains(&self.graph.node(c).kind) && self::family(self.graph.node(c).language) == family
                    })
                    .collect()
            })
            .unwrap_or_default();
        // A test method in `TestParser` or `ParserTest` names a method of `Parser`.
        let class = self.graph.parent(test).filter(|&p| self.graph.node(p).kind == SymbolKind::Class);
        if let Some(class_subject) = class.and_then(|c| subject_name(&self.graph.node(c).name)) {
            let owned: Vec<NodeId> = candidates
                .iter()
                .copied()
                .filter(|&c| self.graph.parent(c).is_some_and(|p| self.graph.node(p).name == class_subject))
                .collect();
            if !owned.is_empty() {
                candidates = owned;
            }
        }
        if candidates.len() > 1 {
            let mirrored: &[NodeId] = node.file.and_then(|f| mirrors.get(&f)).map_or(&[], Vec::as_slice);
            let near: Vec<NodeId> = candidates
                .iter()
                .copied()
                .filter(|&c| self.graph.module_of(c).is_some_and(|m| mirrored.contains(&m)))
                .collect();
            if !near.is_empty() {
                candidates = near;
            }
        }
        if candidates.is_empty() || candidates.len() > 5 {
            return Vec::new();
        }
        let confidence = if candidates.len() == 1 { 0.7 } else { 0.45 };
        candidates.into_iter().map(|c| (c, Evidence { reason: Reason::TestNaming, confidence, line: None })).collect()
    }

    /// The modules a test file mirrors: same file name once the test affixes
    /// are gone, the one sharing the most trailing directories first.
    fn mirrored_modules(&self, file: FileId) -> Vec<NodeId> {
        let path = &self.graph.file(file).path;
        let Some(name) = mirrored_file_name(path) else { return Vec::new() };
        let Some(candidates) = self.modules_by_file_name.get(&name) else { return Vec::new() };
        // Test and source roots say nothing about which module is meant.
        let dirs = |p: &str| -> Vec<String> {
            p.split('/').rev().skip(1).filter(|s| !TEST_DIRS.contains(s) && *s != "src").map(str::to_owned).collect()
        };
        let ours = dirs(path);
        let shared = |module: NodeId| {
            let theirs = dirs(self.graph.path_of(module).unwrap_or_default());
            ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count()
        };
        let best = candidates.iter().map(|&m| shared(m)).max().unwrap_or(0);
        candidates.iter().copied().filter(|&m| shared(m) == best).collect()
    }

    fn text_of(&self, id: NodeId) -> &str {
        let node = self.graph.node(id);
        let Some(text) = node.file.and_then(|f| self.texts.get(f.0 as usize)) else { return "" };
        let text = text.as_ref();
        let (start, end) = (node.span.start_byte as usize, node.span.end_byte as usize);
        text.get(start..end.min(text.len())).unwrap_or("")
    }
}

type ImportedByModule<'g> = FxHashMap<NodeId, Imported<'g>>;

/// Keyed by names the repository spells: hashed with random keys, so that
/// no file can choose names that collide.
type ByName<K, V> = HashMap<K, V, ahash::RandomState>;

/// A test module's imports of subjects (not modules), oldest first, and
/// their names, which [`scan_words`] finds in a test's text in one pass over
/// its words (a module imports a few dozen names, and each of its tests
/// asks for all of them).
struct Imported<'g> {
    /// Each import's target, its name's number in `names`, and its edge's
    /// confidence.
    subjects: Vec<(NodeId, Option<usize>, f32)>,
    /// The distinct names that can be words (see `is_word`), numbered.
    names: ByName<&'g str, usize>,
    /// Bit `n` is set when a name is `n` bytes long (bit 63: 63 or more).
    lengths: u64,
    /// Bit `b` is set when a name starts with byte `b`.
    firsts: [u64; 4],
}

impl<'g> Imported<'g> {
    fn new(imports: Vec<(NodeId, &'g str, f32)>) -> Imported<'g> {
        let mut names: ByName<&'g str, usize> = ByName::default();
        let (mut lengths, mut firsts) = (0u64, [0u64; 4]);
        let subjects = imports
            .into_iter()
            .map(|(to, name, confidence)| {
                let next = names.len();
                let number = is_word(name).then(|| {
                    lengths |= 1 << name.len().min(63);
                    let first = name.as_bytes()[0];
                    firsts[usize::from(first >> 6)] |= 1 << (first & 63);
                    *names.entry(name).or_insert(next)
                });
                (to, number, confidence)
            })
            .collect();
        Imported { subjects, names, lengths, firsts }
    }

    /// The number of the name that `word` (one of [`words`]) is. Most
    /// words of a test name no import, and most of them differ from every
    /// name in length or first byte, which is checked before hashing.
    fn number(&self, word: &str) -> Option<usize> {
        let first = *word.as_bytes().first()?;
        let maybe = self.lengths >> word.len().min(63) & 1 == 1
            && self.firsts[usize::from(first >> 6)] >> (first & 63) & 1 == 1;
        if maybe { self.names.get(word).copied() } else { None }
    }

    /// The imports whose names' numbers are marked in `found`, in import order.
    fn named<'a>(&'a self, found: &'a [bool]) -> impl Iterator<Item = (NodeId, f32)> + 'a {
        self.subjects
            .iter()
            .filter(move |(_, number, _)| number.is_some_and(|n| found[n]))
            .map(|&(to, _, confidence)| (to, confidence))
    }
}

/// One pass over the [`words`] of a test's text: returns which of
/// `imports`' names (by number) are among them, and hands each word on a
/// line that asserts ([`assertion_lines`]) to `asserted`, in order.
fn scan_words<'t>(text: &'t str, imports: Option<&Imported<'_>>, asserted: &mut dyn FnMut(&'t str)) -> Vec<bool> {
    let names = imports.map_or(0, |imports| imports.names.len());
    let mut found = vec![false; names];
    let offset = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
    let mut lines = assertion_lines(text)
        .map(|line| {
            let start = offset(line);
            (start, start + line.len())
        })
        .peekable();
    if names == 0 && lines.peek().is_none() {
        return found;
    }
    for word in words(text) {
        if let Some(number) = imports.and_then(|imports| imports.number(word)) {
            found[number] = true;
        }
        // No word spans two lines, so a word asserts if its start does.
        let at = offset(word);
        while lines.next_if(|&(_, end)| end <= at).is_some() {}
        if lines.peek().is_some_and(|&(start, _)| start <= at) {
            asserted(word);
        }
    }
    found
}

/// Every node's outgoing `CALLS` edges in one list, each node's a slice of
/// it, oldest first as [`CodeGraph::outgoing`] gives them.
struct CallLists {
    /// Where each node's slice starts; one more entry than nodes.
    starts: Vec<u32>,
    calls: Vec<(NodeId, f32, Option<u32>)>,
}

impl CallLists {
    fn new(graph: &CodeGraph) -> CallLists {
        let is_call = |edge: &Edge| edge.kind == EdgeKind::Calls;
        let mut starts = vec![0u32; graph.node_count() + 1];
        for (_, from, ..) in graph.edges().filter(|(.., e)| is_call(e)) {
            starts[from.index() + 1] += 1;
        }
        for at in 1..starts.len() {
            starts[at] += starts[at - 1];
        }
        let mut filled = starts.clone();
        let mut calls = vec![(NodeId::default(), 0.0, None); starts[starts.len() - 1] as usize];
        // Edges come in id order, which is age order.
        for (_, from, to, edge) in graph.edges().filter(|(.., e)| is_call(e)) {
            let at = &mut filled[from.index()];
            calls[*at as usize] = (to, edge.confidence, edge.line);
            *at += 1;
        }
        CallLists { starts, calls }
    }

    fn of(&self, node: NodeId) -> &[(NodeId, f32, Option<u32>)] {
        &self.calls[self.starts[node.index()] as usize..self.starts[node.index() + 1] as usize]
    }
}

/// Languages whose tests can exercise each other's code.
fn family(language: Language) -> u8 {
    match language {
        Language::Python => 0,
        Language::JavaScript | Language::TypeScript | Language::Tsx => 1,
        Language::Java | Language::Kotlin => 2,
        Language::CSharp => 3,
        Language::Go => 4,
        Language::Rust => 5,
        Language::C | Language::Cpp => 6,
        Language::Ruby => 7,
        Language::Php => 8,
        Language::Text => 9,
    }
}

/// The name of the thing a test is named after: `test_parse_url` →
/// `parse_url`, `testParse` → `Parse`, `ParserTest`/`TestParser`/`ParserTests`/
/// `ParserSpec` → `Parser`. `None` for names that say nothing (`test`,
/// sentences from `it('...')`).
fn subject_name(name: &str) -> Option<&str> {
    if name.contains(char::is_whitespace) {
        return None;
    }
    let stripped = name
        .strip_prefix("test_")
        .or_else(|| name.strip_prefix("Test").filter(|r| r.starts_with(|c: char| c.is_uppercase() || c == '_')))
        .or_else(|| name.strip_prefix("test").filter(|r| r.starts_with(|c: char| c.is_uppercase())))
        .or_else(|| ["Tests", "Test", "Spec", "_test", "_spec"].iter().find_map(|s| name.strip_suffix(s)))?;
    let stripped = stripped.trim_start_matches('_');
    (stripped.len() >= 3).then_some(stripped)
}

/// Case- and separator-blind: `parse_url`, `parseUrl` and `ParseURL` agree.
fn name_key(name: &str) -> String {
    name.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect()
}

/// The file name a test file mirrors: `test_url.py` → `url.py`,
/// `url_test.go` → `url.go`, `url.test.ts` → `url.ts`, `UrlTest.java` →
/// `Url.java`, `url_spec.rb` → `url.rb`.
fn mirrored_file_name(path: &str) -> Option<String> {
    let file = path.rsplit('/').next()?;
    let (stem, extension) = file.split_once('.')?;
    if let Some(rest) = extension.strip_prefix("test.").or_else(|| extension.strip_prefix("spec.")) {
        return Some(format!("{stem}.{rest}"));
    }
    let subject = stem
        .strip_prefix("test_")
        .or_else(|| stem.strip_suffix("_test"))
        .or_else(|| stem.strip_suffix("_spec"))
        .or_else(|| stem.strip_suffix("Tests"))
        .or_else(|| stem.strip_suffix("Test"))?;
    (!subject.is_empty()).then(|| format!("{subject}.{extension}"))
}

/// What a line that asserts holds, anywhere in it.
const ASSERTION_MARKS: [&str; 9] = [
    "assert!",
    "assert_eq!",
    "expect(",
    ".assert",
    "Assert.",
    "assertThat",
    ".should",
    "pytest.raises",
    "assertRaises",
];

/// The lines of `text` (as `str::lines` cuts them) that assert something:
/// each starts with `assert`, or holds one of [`ASSERTION_MARKS`]. The marks
/// are looked for in one pass over the whole text, not one per line (every
/// line of every test is asked); no mark spans two lines.
fn assertion_lines(text: &str) -> impl Iterator<Item = &str> {
    static MARKS: LazyLock<AhoCorasick> =
        LazyLock::new(|| AhoCorasick::new(ASSERTION_MARKS).expect("fixed, valid patterns"));
    let mut marks = MARKS.find_iter(text).map(|m| m.start()).peekable();
    text.lines().filter(move |line| {
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        while marks.next_if(|&at| at < start).is_some() {}
        let marked = marks.peek().is_some_and(|&at| at < start + line.len());
        marked || line.trim_start().starts_with("assert")
    })
}

/// Whether `word` is shaped like the [`words`] of a text.
fn is_word(word: &str) -> bool {
    word.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && word.chars().all(in_word)
}

/// Whether no word character touches `text[start..end]`.
#[cfg(test)]
fn stands_alone(text: &str, start: usize, end: usize) -> bool {
    !text[..start].chars().next_back().is_some_and(in_word) && !text[end..].chars().next().is_some_and(in_word)
}

/// Whether `word` is one of [`words`] of `text`: found where no word
/// character touches it.
#[cfg(test)]
fn has_word(text: &str, word: &str) -> bool {
    is_word(word) && text.match_indices(word).any(|(at, _)| stands_alone(text, at, at + word.len()))
}

/// The identifier-shaped words of a text, in order, repeats included: runs
/// of letters, digits and underscores that do not start with a digit.
fn words(text: &str) -> impl Iterator<Item = &str> {
    word_runs(text).filter(|w| w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `has_word` answers what collecting the words and looking one up does.
    #[test]
    fn a_word_is_found_where_no_word_character_touches_it() {
        let text = "from app import parse_url\nself.assertEqual(parse_url(x), Straße)  # _private 2fast naïve_x url";
        for word in [
            "parse_url",
            "parse",
            "url",
            "assertEqual",
            "self",
            "Straße",
            "_private",
            "fast",
            "2fast",
            "naïve",
            "naïve_x",
            "x",
            "",
            "a b",
            "rl",
        ] {
            assert_eq!(has_word(text, word), words(text).any(|w| w == word), "{word:?}");
        }
    }

    /// One pass over the marks answers what asking each line for each in
    /// turn does.
    #[test]
    fn assertion_lines_are_those_with_a_mark() {
        let each = |line: &str| {
            let line = line.trim_start();
            line.starts_with("assert") || ASSERTION_MARKS.iter().any(|mark| line.contains(mark))
        };
        let lines = [
            "    assert x == 1",
            "self.assertEqual(a, b)",
            "assert_eq!(a, b);",
            "expect(f()).toBe(1)",
            "Assert.Equal(1, x)",
            "assertThat(x).isEqualTo(1)",
            "x.should.equal(1)",
            "with pytest.raises(ValueError):",
            "with self.assertRaises(ValueError):",
            "x = assertion_helper()",
            "return expected",
            "",
            "  ",
            "expect(a).toBe(expect(b)); x.should",
            "pytest.rai",
            "ses(x)",
        ];
        // Every order of the lines, with both line endings: a mark near a
        // line's end or start is counted in its own line only.
        for ending in ["\n", "\r\n"] {
            for rotation in 0..lines.len() {
                let mut rotated = lines.to_vec();
                rotated.rotate_left(rotation);
                let text = rotated.join(ending);
                let found: Vec<&str> = assertion_lines(&text).collect();
                let each: Vec<&str> = text.lines().filter(|l| each(l)).collect();
                assert_eq!(found, each, "{text:?}");
                assert!(!found.is_empty());
            }
        }
    }

    /// A module importing `names`, the `n`th as node `n`, each with confidence 1.
    fn imported<'n>(names: &[&'n str]) -> Imported<'n> {
        Imported::new(names.iter().enumerate().map(|(at, &name)| (NodeId::new(at), name, 1.0)).collect())
    }

    /// A module's imported names are found in one pass as `has_word` finds
    /// each, names inside other names and repeated names included.
    #[test]
    fn imported_names_are_found_as_words() {
        let text = "def test_x(self):\n    parse_url(u); Parser().feed(x)  # url naïve";
        let names = ["parse", "parse_url", "Parser", "feed", "url", "naïve", "parse_url", "x y", "", "Straße", "u"];
        let imported = imported(&names);
        let found = scan_words(text, Some(&imported), &mut |_| {});
        let found: Vec<usize> = imported.named(&found).map(|(id, _)| id.index()).collect();
        let each: Vec<usize> = (0..names.len()).filter(|&at| has_word(text, names[at])).collect();
        assert_eq!(found, each);
        assert_eq!(each, [1, 2, 3, 4, 5, 6, 10]);
    }

    /// The one pass hands on the words of the lines that assert, in order,
    /// as taking those lines and then their words does, and finds the same
    /// names whether or not any line asserts.
    #[test]
    fn the_words_of_lines_that_assert_are_found_in_the_same_pass() {
        let lines = [
            "def test_feed(self):",
            "    parser = Parser(strict=True)",
            "    self.assertEqual(parser.feed(data), 3)",
            "    assert parse_url(u).host == 'naïve.example'",
            "x = feed_all(Parser)  # not asserting",
            "expect(render(tree)).toBe(1); check(Straße)",
            "",
            "with pytest.raises(ValueError): parse_url(None)",
        ];
        let names = ["Parser", "feed", "parse_url", "render", "check", "Straße", "missing", "data"];
        for ending in ["\n", "\r\n"] {
            for rotation in 0..lines.len() {
                for skip in 0..lines.len() {
                    let mut rotated = lines.to_vec();
                    rotated.rotate_left(rotation);
                    rotated.remove(skip);
                    let text = rotated.join(ending);
                    let imported = imported(&names);
                    let mut asserted = Vec::new();
                    let found = scan_words(&text, Some(&imported), &mut |word| asserted.push(word));
                    let each: Vec<&str> = assertion_lines(&text).flat_map(words).collect();
                    assert_eq!(asserted, each, "{text:?}");
                    let found: Vec<usize> = imported.named(&found).map(|(id, _)| id.index()).collect();
                    let named: Vec<usize> = (0..names.len()).filter(|&at| has_word(&text, names[at])).collect();
                    assert_eq!(found, named, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn subject_names() {
        assert_eq!(subject_name("test_parse_url"), Some("parse_url"));
        assert_eq!(subject_name("testParse"), Some("Parse"));
        assert_eq!(subject_name("ParserTest"), Some("Parser"));
        assert_eq!(subject_name("ParserTests"), Some("Parser"));
        assert_eq!(subject_name("TestParser"), Some("Parser"));
        assert_eq!(subject_name("Test_parser"), Some("parser"));
        assert_eq!(subject_name("test"), None);
        assert_eq!(subject_name("testing"), None);
        assert_eq!(subject_name("parses a url"), None);
        assert_eq!(subject_name("Testament"), None);
    }

    #[test]
    fn mirrored_file_names() {
        assert_eq!(mirrored_file_name("tests/test_url.py").as_deref(), Some("url.py"));
        assert_eq!(mirrored_file_name("pkg/url_test.go").as_deref(), Some("url.go"));
        assert_eq!(mirrored_file_name("src/url.test.ts").as_deref(), Some("url.ts"));
        assert_eq!(mirrored_file_name("src/url.spec.js").as_deref(), Some("url.js"));
        assert_eq!(mirrored_file_name("src/test/java/a/UrlTest.java").as_deref(), Some("Url.java"));
        assert_eq!(mirrored_file_name("spec/url_spec.rb").as_deref(), Some("url.rb"));
        assert_eq!(mirrored_file_name("tests/conftest.py"), None);
    }

    #[test]
    fn keys_ignore_case_and_separators() {
        assert_eq!(name_key("parse_url"), name_key("parseUrl"));
        assert_eq!(name_key("ParseURL"), name_key("parse_url"));
    }
}
