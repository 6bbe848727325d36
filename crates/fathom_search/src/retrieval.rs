//! Hybrid retrieval: lanes of ranked symbols (BM25, dense, names, trace
//! locations) fused by reciprocal rank fusion, expanded one hop through the
//! graph, and explained.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use fathom_graph::{CodeGraph, EdgeKind, NodeId};
use fathom_model::{LineStarts, SymbolKind};
use serde::{Deserialize, Serialize};

use crate::chunks::{self, Chunk, Chunks, Piece, Sources};
use crate::dense::{Dense, HnswParams, StaticVectors, Vector};
use crate::hints::{self, Hints};
use crate::lexical::{Bm25Params, Input, Lexical, LineTerms, NAME_BOOST, Splitter, StoredLexical};
use crate::roles::{Family, Role};
use crate::{MatchKind, NameIndex};
use fathom_static::{Frequencies, StaticModel};

/// The factor on a hit in code that is not the project's own (vendored,
/// generated; an amalgamation's file then follows its best source, see
/// `query`): bench/PERFORMANCE.md, *Localisation → Every language*.
const FOREIGN: f64 = 0.5;
/// The factor on a hit in a tool's output (a protoc message, a generated
/// parser: what its header or Linguist says is generated, and no
/// amalgamation) that the query does not name: a fix is made in what the
/// tool reads, the grammar or the `.proto`, and a generated parser's
/// thousands of words match any question. A definition the query names
/// keeps `FOREIGN`: `HelloRequest` is found where protoc wrote it.
const TOOL_OUTPUT: f64 = 0.1;
/// The factor on a hit in a test, or in docs and examples, for a question
/// that does not ask for them: "how are dates serialized" wants the code
/// that serializes them first, and its tests share every word of the
/// question (`testDateSerialization`). Measured on `make eval`'s newcomer
/// questions: bench/PERFORMANCE.md, *Newcomer questions*.
const TEST_PRIOR: f64 = 0.1;
const ASIDE_PRIOR: f64 = 0.5;
/// The factor on a declaration whose definition the archive holds (a
/// prototype, a member declared in its class, a `.d.ts` declaration): a
/// name's body is what a reader goes to, its declaration one click away.
const DECLARATION_PRIOR: f64 = 0.5;
/// Reciprocal rank fusion's constant (Cormack et al.).
pub const RRF_K: f64 = 60.0;
/// How many chunks each lane reads before grouping them into symbols.
const LANE_DEPTH: usize = 200;
/// Ranks past this in one lane say little: with k = 60, rank 150 of a weak
/// lane would outweigh the gap between ranks 1 and 3 of a strong one. They
/// still count, at a twentieth, so a result found nowhere else stays listed.
const FUSION_DEPTH: usize = 30;

/// How the scores inside each lane shape its shares. Plain RRF reads ranks
/// only, so a dense lane whose first hit is at cosine 0.80 and its second at
/// 0.60 counts them as near equals (1/61 and 1/62), and a weak lane's first
/// rank outweighs a strong lane's clear winner. Each share is therefore
/// scaled by the hit's score relative to the lane's best, raised to an
/// exponent, and the dense lane's weight by its confidence: the best
/// similarity over a pivot, raised to a power and capped. The values were
/// chosen on `make eval`'s two sets and checked by two-fold cross-validation
/// (see ARCHITECTURE.md); every search records them in `params.fusion`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Fusion {
    pub lexical_score_exponent: f64,
    pub dense_score_exponent: f64,
    /// Best similarity at which the dense lane has its nominal weight.
    pub dense_confidence_pivot: f64,
    pub dense_confidence_exponent: f64,
    pub dense_confidence_cap: f64,
}

pub const FUSION: Fusion = Fusion {
    lexical_score_exponent: 2.0,
    dense_score_exponent: 4.0,
    dense_confidence_pivot: 0.6,
    dense_confidence_exponent: 4.0,
    dense_confidence_cap: 2.0,
};

/// The same shaping for the static lane. Its similarities run higher and
/// closer together than MiniLM's (the best match at 0.54-0.80 where the
/// tenth is at 0.44-0.68), so only its near-best matches count (exponent
/// 16), and it never outweighs the words (its confidence is capped at 1,
/// reached at a best similarity of 0.9). Chosen on `make eval`'s sets, where
/// every pivot from 0.9 beat lexical alone on all three (see
/// bench/PERFORMANCE.md).
pub const STATIC_FUSION: Fusion = Fusion {
    lexical_score_exponent: 2.0,
    dense_score_exponent: 16.0,
    dense_confidence_pivot: 0.9,
    dense_confidence_exponent: 4.0,
    dense_confidence_cap: 1.0,
};

impl Fusion {
    /// The dense lane's weight factor when its best similarity is `best`.
    fn dense_confidence(&self, best: f32) -> f64 {
        (f64::from(best) / self.dense_confidence_pivot)
            .powf(self.dense_confidence_exponent)
            .min(self.dense_confidence_cap)
    }
}

/// A lane's contribution for a 0-based rank, its weight already scaled.
fn rrf(weight: f64, rank: usize) -> f64 {
    let share = weight / (RRF_K + rank as f64 + 1.0);
    if rank < FUSION_DEPTH { share } else { share / 20.0 }
}

/// `score` relative to the lane's best, raised to `exponent`.
fn relative(score: f32, best: f32, exponent: f64) -> f64 {
    if best <= 0.0 { 1.0 } else { (f64::from(score) / f64::from(best)).clamp(0.0, 1.0).powf(exponent) }
}

/// How many fused results seed the graph expansion.
pub const EXPAND_SEEDS: usize = 20;
/// How many of each word's name matches the name lane reads.
pub const NAME_LANE_DEPTH: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// BM25, names and trace locations.
    Lexical,
    /// Embeddings only.
    Dense,
    /// Every lane; falls back to lexical while embeddings are missing.
    #[default]
    Hybrid,
}

/// The weight of each lane in the fusion, and of the graph expansion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Weights {
    pub lexical: f64,
    pub dense: f64,
    pub name: f64,
    pub trace: f64,
    /// A neighbour's share of the score of the hit it is reached from,
    /// times the edge's confidence.
    pub graph: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights { lexical: 1.0, dense: 1.0, name: 1.0, trace: 2.0, graph: 0.1 }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SearchOptions {
    pub k: usize,
    pub mode: Mode,
    pub weights: Weights,
    /// Expand through the graph (on by default; off measures the lanes alone).
    pub expand: bool,
    /// Dense matches below this cosine similarity are not matches: every
    /// query has nearest neighbours, but unrelated text scores under 0.2.
    pub min_similarity: f32,
    /// Which hits and files are kept (after ranking, before the cut to `k`).
    pub filter: Filter,
    /// Read a query shaped like a bug report (several lines, a traceback,
    /// a code block) as one: rank files by all it says ([`locate`]). Off,
    /// it is searched as any other text.
    pub read_report: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 10,
            mode: Mode::Hybrid,
            weights: Weights::default(),
            expand: true,
            min_similarity: 0.2,
            filter: Filter::default(),
            read_report: true,
        }
    }
}

/// Narrows a search: by language, kind, path and whether the code is a test.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Filter {
    /// Language names (`python`, `typescript`); empty keeps every language.
    pub languages: Vec<String>,
    /// Kind names (`function`, `class`); empty keeps every kind.
    pub kinds: Vec<String>,
    /// A glob over the file path (`src/**/*.py`, `*_test.go`), or, without
    /// glob characters, a substring of it.
    pub path: Option<String>,
    pub tests: TestFilter,
}

impl Filter {
    /// Whether it keeps everything: no language, kind or path, and tests
    /// included.
    pub fn is_empty(&self) -> bool {
        self.languages.is_empty()
            && self.kinds.is_empty()
            && self.path.as_deref().is_none_or(|p| p.trim().is_empty())
            && self.tests == TestFilter::Include
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestFilter {
    #[default]
    Include,
    Exclude,
    /// Test code: tests, and the helpers, fixtures and frameworks in test
    /// files.
    Only,
    /// The tests alone: a definition the parser marked a test, or code
    /// inside one. A test folder's helpers and the test framework a project
    /// vendors there (`test/thirdparty/catch/catch.hpp`) are not, however
    /// many of a change's words they hold.
    Runnable,
}

/// A [`Filter`] made ready to test nodes.
pub(crate) struct Accept {
    filter: Filter,
    path: PathMatch,
}

enum PathMatch {
    Any,
    Substring(String),
    Glob(globset::GlobMatcher),
}

impl Accept {
    /// Fails with the cause when the path glob does not parse.
    pub(crate) fn new(filter: &Filter) -> Result<Accept, String> {
        let path = match filter.path.as_deref().map(str::trim) {
            None | Some("") => PathMatch::Any,
            Some(p) if p.contains(['*', '?', '[', '{']) => {
                let glob = globset::GlobBuilder::new(p)
                    .literal_separator(false)
                    .build()
                    .map_err(|e| format!("the path filter `{p}` is not a valid glob: {}", e.kind()))?;
                PathMatch::Glob(glob.compile_matcher())
            }
            Some(p) => PathMatch::Substring(p.to_owned()),
        };
        Ok(Accept { filter: filter.clone(), path })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.filter.is_empty()
    }

    fn path(&self, path: &str) -> bool {
        match &self.path {
            PathMatch::Any => true,
            PathMatch::Substring(s) => path.contains(s.as_str()),
            PathMatch::Glob(glob) => glob.is_match(path),
        }
    }

    pub(crate) fn node(&self, graph: &CodeGraph, id: NodeId) -> bool {
        let node = graph.node(id);
        let f = &self.filter;
        let path = graph.path_of(id).unwrap_or_default();
        (f.languages.is_empty() || f.languages.iter().any(|l| l == node.language.name()))
            && (f.kinds.is_empty() || f.kinds.iter().any(|k| k == node.kind.name()))
            && self.path(path)
            && match f.tests {
                TestFilter::Include => true,
                TestFilter::Exclude => !is_test(graph, id),
                TestFilter::Only => is_test(graph, id),
                TestFilter::Runnable => is_runnable_test(graph, id),
            }
    }
}

/// A test, or inside one, or in a test file: the parser's own marks (pytest,
/// JUnit, Jest... names and annotations), then the conventions of test paths.
pub fn is_test(graph: &CodeGraph, id: NodeId) -> bool {
    is_runnable_test(graph, id) || graph.path_of(id).is_some_and(is_test_path)
}

/// A test by the parser's own marks, or inside one (eight levels up at
/// most), wherever its file is.
pub fn is_runnable_test(graph: &CodeGraph, id: NodeId) -> bool {
    let mut at = Some(id);
    for _ in 0..8 {
        let Some(node) = at else { break };
        if graph.node(node).is_test() {
            return true;
        }
        at = graph.parent(node);
    }
    false
}

/// Directory names that hold tests.
pub const TEST_DIRS: [&str; 6] = ["test", "tests", "__tests__", "spec", "specs", "testing"];

/// `tests/…`, `__tests__/…`, `test_x.py`, `x_test.go`, `x.test.ts`,
/// `x.spec.js`, `XTest.java`, `XTests.cs`, `x_spec.rb`, and a folder
/// whose name is made of words one of which is "test" or "tests"
/// (`src/integration-test/`, `src/integrationTest/`, `test-support/`,
/// `SelfTest/`: [`is_test_dir`]).
pub fn is_test_path(path: &str) -> bool {
    let mut segments = path.split('/').rev();
    let file = segments.next().unwrap_or_default();
    if segments.any(is_test_dir) {
        return true;
    }
    let stem = file.split('.').next().unwrap_or_default();
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_spec")
        || stem.ends_with("Test")
        || stem.ends_with("Tests")
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// A folder that holds tests: one of [`TEST_DIRS`], or a name made of words
/// (split at `-`, `_`, `.` and lower-to-upper case changes) one of which is
/// "test" or "tests": Gradle's `integrationTest` source set, Maven's
/// `integration-test`, a `test-utils` crate. `latest`, `contest` and
/// `testdata` are one word each and hold no such word.
pub fn is_test_dir(segment: &str) -> bool {
    if TEST_DIRS.contains(&segment) {
        return true;
    }
    let mut words: Vec<String> = Vec::new();
    let mut previous: Option<char> = None;
    for c in segment.chars() {
        let split = matches!(c, '-' | '_' | '.');
        let boundary = c.is_uppercase() && previous.is_some_and(char::is_lowercase);
        if split || boundary || words.is_empty() {
            words.push(String::new());
        }
        if !split {
            words.last_mut().expect("a word was started").push(c.to_ascii_lowercase());
        }
        previous = Some(c);
    }
    words.len() > 1 && words.iter().any(|w| w == "test" || w == "tests")
}

/// Why a hit is where it is.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Explain {
    /// 1-based rank of the symbol in each lane that found it.
    pub lexical_rank: Option<u32>,
    pub dense_rank: Option<u32>,
    pub name_rank: Option<u32>,
    pub trace_rank: Option<u32>,
    /// BM25 score of the best lexical chunk.
    pub bm25: Option<f64>,
    /// Cosine similarity of the best chunk to the query.
    pub similarity: Option<f64>,
    /// Query terms found in the best lexical chunk.
    pub matched_terms: Vec<String>,
    /// Each lane's share of the score.
    pub lanes: LaneScores,
    pub graph: Option<GraphContribution>,
    /// The lines of the chunk that matched best (a window of a long body).
    pub chunk_lines: Option<[u32; 2]>,
    /// The hit's file's role, where it is not the project's own source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaneScores {
    pub lexical: f64,
    /// The dense lane's share: MiniLM's or the static table's, or both
    /// where MiniLM read the question's candidates alone.
    pub dense: f64,
    pub name: f64,
    pub trace: f64,
}

/// Score that reached a hit through an edge from another hit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphContribution {
    pub from: String,
    pub edge: EdgeKind,
    /// `true` when the edge points from `from` to this hit.
    pub outgoing: bool,
    pub confidence: f32,
    pub score: f64,
}

/// A definition as an amalgamation copies it: its name, kind and owner.
type CopyKey<'g> = (&'g str, SymbolKind, Option<&'g str>);

impl Retrieval {
    /// An amalgamation's hit stands for the definition it copies: each
    /// definition of the same name, kind and owner in the files the
    /// amalgamation is made from scores at least what the copy scored, with
    /// the lanes that found the copy. The copy then ranks below its source
    /// as generated code, and the reader is led to the file a fix is made in.
    fn copies_stand_in(&self, graph: &CodeGraph, fused: &mut HashMap<NodeId, RankedHit>) {
        // The class a definition is in, or names (`void Session::run()`).
        let owner = |node: NodeId| {
            let class = graph.parent(node).filter(|&p| graph.node(p).kind == SymbolKind::Class);
            class.map(|p| graph.node(p).name.as_str()).or_else(|| {
                let owner = graph.node(node).details.as_ref()?.owner.as_deref()?;
                Some(owner.rsplit("::").next().unwrap_or(owner))
            })
        };
        // (name, kind, owner) → the copy's hit, and the files copied from.
        let mut copies: HashMap<CopyKey<'_>, (RankedHit, &[String])> = HashMap::new();
        for hit in fused.values() {
            let Some(path) = graph.path_of(hit.node) else { continue };
            let sources = self.roles.sources_of(path);
            let node = graph.node(hit.node);
            if sources.is_empty() || matches!(node.kind, SymbolKind::Module | SymbolKind::Package) {
                continue;
            }
            let key = (node.name.as_str(), node.kind, owner(hit.node));
            if copies.get(&key).is_none_or(|(best, _)| best.score < hit.score) {
                copies.insert(key, (hit.clone(), sources));
            }
        }
        if copies.is_empty() {
            return;
        }
        // One pass over the graph, asking only a namesake of a copy for its
        // owner and its file.
        let names: HashSet<&str> = copies.keys().map(|&(name, _, _)| name).collect();
        let mut stand_ins: Vec<(NodeId, RankedHit)> = Vec::new();
        for (id, node) in graph.nodes() {
            let Some(file) = node.file.filter(|_| names.contains(node.name.as_str())) else { continue };
            let Some((copy, sources)) = copies.get(&(node.name.as_str(), node.kind, owner(id))) else { continue };
            if sources.iter().any(|s| s.as_str() == graph.file(file).path) {
                stand_ins.push((id, copy.clone()));
            }
        }
        for (node, copy) in stand_ins {
            let hit = fused.entry(node).or_insert_with(|| RankedHit {
                node,
                score: 0.0,
                name_match: None,
                explain: Explain::default(),
            });
            if hit.score < copy.score {
                hit.score = copy.score;
                hit.name_match = hit.name_match.or(copy.name_match);
                hit.explain = Explain { chunk_lines: None, graph: None, role: None, ..copy.explain };
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct RankedHit {
    pub node: NodeId,
    pub score: f64,
    pub name_match: Option<MatchKind>,
    pub explain: Explain,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FileRank {
    pub file: String,
    pub score: f64,
    /// The file's best hits, best first.
    pub symbols: Vec<NodeId>,
}

/// Everything a search used, so results can be reproduced and compared.
#[derive(Clone, Debug, Serialize)]
pub struct Params {
    pub rrf_k: f64,
    pub weights: Weights,
    pub bm25: Bm25Params,
    pub hnsw: Option<HnswParams>,
    pub fusion: Fusion,
    pub chunks: usize,
    pub embedded: usize,
    /// Which embeddings served the dense lane: MiniLM's, the static
    /// table's, or none (a lexical search).
    pub meaning: Option<Meaning>,
}

/// The embeddings behind a search's dense lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Meaning {
    /// MiniLM's vectors, through the HNSW graph.
    Minilm,
    /// The static table's, by exact scan.
    Static,
    /// MiniLM's, for the question's candidates alone (see
    /// [`Retrieval::candidates`]), by exact scan.
    MinilmCandidates,
}

/// About as many characters of code as MiniLM reads of a chunk (its 256
/// word pieces); what follows does not change its vector.
pub const READ_CHARS: usize = 1_024;

/// MiniLM's vectors for some chunks, each with its chunk's index: a
/// question's candidates, embedded by the caller or found in its cache.
pub type ChunkVectors = [(usize, Vec<f32>)];

/// The static lane over a retrieval index's chunks: the table, how often
/// each word piece occurs in the chunks (its weights come from there), and
/// every chunk's vector.
pub struct StaticLane {
    model: Arc<StaticModel>,
    corpus: Frequencies,
    vectors: StaticVectors,
}

/// The static lane as a bundle holds it: the vectors (int8, a scale each)
/// and the word-piece counts, without the table, which the reader loads
/// (it embeds the queries); `table` names the table they were made with
/// (its file and hash), so that another table never reads them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredStatic {
    pub table: String,
    pub corpus: Frequencies,
    pub vectors: StaticVectors,
}

impl StaticLane {
    /// Embeds every chunk: tokenised once (on every core natively), counted,
    /// then weighted by the counts.
    fn build(sources: &Prepared<'_>, chunks: &[Chunk], model: Arc<StaticModel>) -> Result<StaticLane, String> {
        let pieces: Vec<Result<Vec<u32>, String>> =
            crate::parallel::map_init(chunks, fathom_static::Words::default, |words, chunk| {
                model.chunk_ids(&chunks::text(sources, chunk), words).map_err(|e| e.to_string())
            });
        let pieces = pieces.into_iter().collect::<Result<Vec<_>, _>>()?;
        let mut corpus = Frequencies::new(model.vocabulary());
        pieces.iter().for_each(|ids| corpus.add(ids));
        let embedded = crate::parallel::map(&pieces, |ids| model.embed_ids(ids, Some(&corpus)));
        let mut vectors = StaticVectors::new(model.dim());
        embedded.iter().for_each(|v| vectors.push(v));
        Ok(StaticLane { model, corpus, vectors })
    }

    /// A query's (or a whole report's) vector, weighted by this corpus;
    /// `None` for a query with no word the table knows whole (gibberish).
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        self.model.embed_query(text, Some(&self.corpus)).ok().flatten()
    }

    pub fn vectors(&self) -> &StaticVectors {
        &self.vectors
    }

    pub fn model(&self) -> &StaticModel {
        &self.model
    }

    /// How often each word piece occurs in the chunks: the weights.
    pub fn corpus(&self) -> &Frequencies {
        &self.corpus
    }

    /// The table the vectors were made with, as [`StaticModel::id`] names it.
    pub fn table(&self) -> &str {
        self.model.id()
    }

    pub fn search(&self, vector: &[f32], limit: usize) -> Vec<(u32, f32)> {
        self.vectors.search(vector, limit)
    }
}

/// A query's dense lane, as a search reads it.
pub(crate) enum Lane<'r> {
    Minilm(&'r Dense, &'r [f32]),
    Static(&'r StaticLane, Vec<f32>),
    /// MiniLM over the candidates a caller embedded: the query's vector
    /// against each of theirs.
    Candidates(&'r ChunkVectors, &'r [f32]),
}

impl Lane<'_> {
    pub(crate) fn search(&self, limit: usize) -> Vec<(u32, f32)> {
        match self {
            Lane::Minilm(dense, vector) => dense.search(vector, limit),
            Lane::Static(lane, vector) => lane.search(vector, limit),
            Lane::Candidates(candidates, vector) => {
                let mut scored: Vec<(u32, f32)> = candidates
                    .iter()
                    .filter(|(_, v)| v.len() == vector.len())
                    .map(|(chunk, v)| (*chunk as u32, crate::dense::dot(v, vector)))
                    .collect();
                scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                scored.truncate(limit);
                scored
            }
        }
    }

    pub(crate) fn fusion(&self) -> Fusion {
        match self {
            Lane::Minilm(..) | Lane::Candidates(..) => FUSION,
            Lane::Static(..) => STATIC_FUSION,
        }
    }

    pub(crate) fn meaning(&self) -> Meaning {
        match self {
            Lane::Minilm(..) => Meaning::Minilm,
            Lane::Static(..) => Meaning::Static,
            Lane::Candidates(..) => Meaning::MinilmCandidates,
        }
    }
}

/// What a query reads before it weighs anything ([`Retrieval::query_reads`]):
/// its terms' hashes, the words its name lane looks up (lower case, each
/// with whether only exact matches count), and whether it names a file and
/// line.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryReads {
    pub terms: Vec<u32>,
    pub names: Vec<(String, bool)>,
    pub locations: bool,
}

pub struct Ranking {
    /// The mode that ran: hybrid asked before embeddings are ready runs as
    /// lexical.
    pub mode: Mode,
    pub note: Option<String>,
    pub hits: Vec<RankedHit>,
    pub files: Vec<FileRank>,
    pub params: Params,
}

/// Symbols ranked by the lanes, before files are ranked: what
/// [`crate::query::search`] builds its answer from.
pub(crate) struct Symbols<'r> {
    pub mode: Mode,
    pub note: Option<String>,
    /// Every hit, fused, expanded and filtered, best first.
    pub hits: Vec<RankedHit>,
    /// The dense lane the query had, where it had one.
    pub lane: Option<Lane<'r>>,
    /// Each lexical hit's best chunk.
    pub best_chunk: HashMap<NodeId, usize>,
    /// Each dense hit's best chunk.
    pub dense_chunk: HashMap<NodeId, usize>,
    /// The hits whose neighbours expansion reached, with their scores
    /// before it.
    pub seeds: Vec<(NodeId, f64)>,
}

/// A retrieval index as an index bundle holds it, read back. The name index
/// is not stored: it is rebuilt from the graph, which is quick and exact.
pub struct StoredParts {
    pub chunks: Vec<Chunk>,
    pub lexical: StoredLexical<'static>,
    /// Vectors the dense index does not hold, by chunk.
    pub vectors: Vec<(u32, Vec<f32>)>,
    pub dense: Option<Dense>,
    /// The static lane's vectors, waiting for their table.
    pub statics: Option<StoredStatic>,
}

/// What ranking weighs of a symbol known only in brief (a split bundle's
/// reader has its postings or its name, not its file): its file's role,
/// whether that file is made from others, whether the symbol declares a
/// definition elsewhere, and, for a symbol known by name, the name of what
/// holds it and its file's path (which a typed name's qualifier is matched
/// against).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    pub role: Role,
    pub has_sources: bool,
    pub declared: bool,
    pub parent: Option<Box<str>>,
    pub path: Option<Box<str>>,
}

/// The lexical and dense indexes over a graph's chunks.
pub struct Retrieval {
    chunks: Chunks,
    lexical: Lexical,
    names: NameIndex,
    /// Each chunk's vector; once the dense index is built, the same
    /// allocations as its points.
    vectors: Vec<Option<Arc<[f32]>>>,
    dense: Option<Dense>,
    statics: Option<StaticLane>,
    /// A bundle's static vectors, until their table is loaded.
    stored_statics: Option<StoredStatic>,
    /// What each file is: the project's own source, a test, docs, …
    roles: crate::roles::FileRoles,
    /// Symbols known in brief, in a sparse index ([`Retrieval::sparse`]):
    /// what ranking reads of them, where the graph does not hold it (a
    /// reader notes one for each symbol its postings name: a fast hash).
    facts: HashMap<NodeId, Facts, ahash::RandomState>,
    /// The facts of symbols known only from their postings (no names), by
    /// id, in a sparse index: a common term's postings name most symbols,
    /// and three bytes each cost a tenth of a hash entry.
    briefs: Vec<Option<Brief>>,
}

/// [`Facts`] without names.
#[derive(Clone, Copy, Debug)]
struct Brief {
    role: Role,
    has_sources: bool,
    declared: bool,
}

impl Retrieval {
    /// Chunks the graph and builds the lexical index; the dense index waits
    /// for vectors.
    pub fn build(sources: &dyn Sources) -> Retrieval {
        let sources = &Prepared::new(sources);
        let chunks = chunks::chunk_all(sources);
        let graph = sources.graph();
        let lexical = Lexical::build_from(chunks.len(), |i, input| lexical_pieces(sources, &chunks[i], input));
        Retrieval::of(graph, chunks, lexical, crate::roles::FileRoles::build(sources))
    }

    /// An index of these parts, with no vector yet.
    fn of(graph: &CodeGraph, chunks: Vec<Chunk>, lexical: Lexical, roles: crate::roles::FileRoles) -> Retrieval {
        let vectors = vec![None; chunks.len()];
        Retrieval {
            chunks: Chunks::Whole(chunks),
            lexical,
            names: NameIndex::build(graph),
            vectors,
            dense: None,
            statics: None,
            stored_statics: None,
            roles,
            facts: HashMap::default(),
            briefs: Vec::new(),
        }
    }

    /// The lexical index's postings, for storing.
    pub fn stored_lexical(&self) -> StoredLexical<'_> {
        self.lexical.stored()
    }

    /// The vectors that the dense index does not hold as they are, by chunk:
    /// none, once [`Retrieval::build_dense`] has run after the last
    /// [`Retrieval::set_vector`]. A bundle stores only these beside the
    /// dense index, whose points are the rest.
    pub fn loose_vectors(&self) -> Vec<(u32, &[f32])> {
        let mut held = vec![false; self.vectors.len()];
        if let Some(dense) = &self.dense {
            for (chunk, point) in dense.points() {
                let chunk = chunk as usize;
                held[chunk] = self.vectors[chunk].as_ref().is_some_and(|v| Arc::ptr_eq(v, &point.0) || **v == *point.0);
            }
        }
        self.vectors
            .iter()
            .enumerate()
            .filter_map(|(i, v)| Some((i as u32, v.as_deref()?)))
            .filter(|(i, _)| !held[*i as usize])
            .collect()
    }

    /// The index a bundle stored, over the graph of `sources`. Every chunk,
    /// vector and point must refer to what exists. Postings computed by
    /// another build's terms or constants are rebuilt from the text.
    pub fn restore(sources: &dyn Sources, parts: StoredParts) -> Result<Retrieval, String> {
        let StoredParts { chunks, lexical, vectors: loose, dense, statics: stored_statics } = parts;
        let graph = sources.graph();
        let nodes = graph.node_count();
        if let Some(chunk) = chunks.iter().find(|c| c.node.index() >= nodes) {
            return Err(format!("a chunk is of node {} of {nodes}", chunk.node.index()));
        }
        // Chunk texts are read from the node's file.
        if let Some(chunk) = chunks.iter().find(|c| graph.node(c.node).file.is_none()) {
            return Err(format!("a chunk is of node {}, which is in no file", chunk.node.index()));
        }
        if lexical.postings.len() != chunks.len() {
            return Err(format!("{} chunks have {} postings lists", chunks.len(), lexical.postings.len()));
        }
        let mut vectors: Vec<Option<Arc<[f32]>>> = vec![None; chunks.len()];
        if let Some(dense) = &dense {
            dense.check(chunks.len())?;
            for (chunk, point) in dense.points() {
                vectors[chunk as usize] = Some(Arc::clone(&point.0));
            }
        }
        for (chunk, vector) in loose {
            let slot =
                vectors.get_mut(chunk as usize).ok_or(format!("a vector is of chunk {chunk} of {}", chunks.len()))?;
            *slot = Some(vector.into());
        }
        let lexical = if lexical.is_current() {
            Lexical::from_stored(lexical)
        } else {
            let sources = &Prepared::new(sources);
            Lexical::build_from(chunks.len(), |i, input| lexical_pieces(sources, &chunks[i], input))
        };
        if let Some(stored) = &stored_statics {
            stored.vectors.check(chunks.len())?;
            if stored.corpus.documents() as usize != chunks.len() {
                return Err(format!(
                    "static word counts of {} texts for {} chunks",
                    stored.corpus.documents(),
                    chunks.len()
                ));
            }
        }
        Ok(Retrieval {
            chunks: Chunks::Whole(chunks),
            lexical,
            names: NameIndex::build(graph),
            vectors,
            dense,
            statics: None,
            stored_statics,
            roles: crate::roles::FileRoles::build(sources),
            facts: HashMap::default(),
            briefs: Vec::new(),
        })
    }

    pub fn chunks(&self) -> &Chunks {
        &self.chunks
    }

    /// What each file is ([`crate::roles`]).
    pub fn roles(&self) -> &crate::roles::FileRoles {
        &self.roles
    }

    pub fn names(&self) -> &NameIndex {
        &self.names
    }

    /// A retrieval index over a sparse graph ([`CodeGraph::sparse`]): every
    /// chunk in place, the postings of no term yet ([`Lexical::sparse`]),
    /// and no file's role. A split bundle's reader puts the parts a query
    /// needs in, then searches it as it would the whole index.
    pub fn sparse(graph: &CodeGraph, chunks: usize, lexical: Lexical) -> Retrieval {
        let mut retrieval = Retrieval::of(graph, Vec::new(), lexical, crate::roles::FileRoles::default());
        retrieval.chunks = Chunks::sparse(chunks);
        retrieval.briefs = vec![None; graph.node_count()];
        // No chunk of a sparse index is embedded here (its text is not), so
        // it holds no place for a vector: none is pending, none set.
        retrieval.vectors = Vec::new();
        retrieval
    }

    /// The parts of a sparse index, to put in what arrives. Call
    /// [`Retrieval::rebuild_names`] once the graph has its new nodes.
    pub fn sparse_parts(&mut self) -> (&mut Chunks, &mut Lexical, &mut crate::roles::FileRoles) {
        (&mut self.chunks, &mut self.lexical, &mut self.roles)
    }

    /// Gives a sparse index a static lane that knows nothing yet: the
    /// table's rows, the pieces' counts and the chunks' vectors are put in
    /// as they arrive ([`Retrieval::sparse_static`]), and a query's lane
    /// scans the vectors in.
    pub fn set_sparse_static(&mut self, model: StaticModel, documents: u32) {
        let corpus = Frequencies::sparse(model.vocabulary(), documents);
        let vectors = StaticVectors::sparse(self.chunks.len(), model.dim());
        self.statics = Some(StaticLane { model: Arc::new(model), corpus, vectors });
    }

    /// A sparse static lane's parts, to put in what arrives.
    pub fn sparse_static(&mut self) -> Option<(&mut StaticModel, &mut Frequencies, &mut StaticVectors)> {
        let lane = self.statics.as_mut()?;
        Some((Arc::get_mut(&mut lane.model)?, &mut lane.corpus, &mut lane.vectors))
    }

    /// Notes what ranking weighs of a symbol known in brief; `None` once
    /// the graph holds it whole.
    pub fn set_facts(&mut self, node: NodeId, facts: Option<Facts>) {
        let brief = self.briefs.get_mut(node.index());
        match (facts, brief) {
            (Some(Facts { role, has_sources, declared, parent: None, path: None }), Some(brief)) => {
                *brief = Some(Brief { role, has_sources, declared });
                self.facts.remove(&node);
            }
            (Some(facts), brief) => {
                brief.map(|b| b.take());
                self.facts.insert(node, facts);
            }
            (None, brief) => {
                brief.map(|b| b.take());
                self.facts.remove(&node);
            }
        }
    }

    /// What is noted of a symbol known in brief.
    pub fn facts(&self, node: NodeId) -> Option<Cow<'_, Facts>> {
        if let Some(facts) = self.facts.get(&node) {
            return Some(Cow::Borrowed(facts));
        }
        let Brief { role, has_sources, declared } = (*self.briefs.get(node.index())?)?;
        Some(Cow::Owned(Facts { role, has_sources, declared, parent: None, path: None }))
    }

    /// A symbol's file's role, and whether that file is made from others.
    pub fn file_role(&self, graph: &CodeGraph, node: NodeId) -> Option<(Role, bool)> {
        if let Some(facts) = self.facts(node) {
            return Some((facts.role, facts.has_sources));
        }
        let path = graph.path_of(node)?;
        Some((self.roles.of(path).role, !self.roles.sources_of(path).is_empty()))
    }

    /// Whether a symbol declares a definition the archive holds.
    fn declares(&self, graph: &CodeGraph, node: NodeId) -> bool {
        match self.facts(node) {
            Some(facts) => facts.declared,
            None => graph.declared(node).is_some(),
        }
    }

    /// Lists the graph's names again, after nodes were put in place.
    pub fn rebuild_names(&mut self, graph: &CodeGraph) {
        self.names = NameIndex::build(graph);
    }

    /// What ranking `query` reads before it weighs anything: the query's
    /// terms (by hash), the words its name lane looks up (lower case), and
    /// whether it names a file and line (the trace lane, which reads every
    /// path).
    pub fn query_reads(&self, query: &str) -> QueryReads {
        let hints = hints::analyze(query);
        QueryReads {
            terms: self.lexical.query_terms(query),
            names: name_words(&hints, query).into_iter().map(|(w, exact)| (w.trim().to_lowercase(), exact)).collect(),
            locations: !hints.locations.is_empty(),
        }
    }

    pub(crate) fn lexical(&self) -> &Lexical {
        &self.lexical
    }

    /// Chunks still without a vector.
    pub fn pending(&self) -> impl Iterator<Item = usize> + '_ {
        self.vectors.iter().enumerate().filter(|(_, v)| v.is_none()).map(|(i, _)| i)
    }

    pub fn embedded(&self) -> usize {
        self.vectors.iter().filter(|v| v.is_some()).count()
    }

    /// Records a chunk's vector. The dense index is rebuilt by
    /// [`Retrieval::build_dense`].
    pub fn set_vector(&mut self, chunk: usize, vector: Vec<f32>) {
        if let Some(slot) = self.vectors.get_mut(chunk) {
            *slot = Some(vector.into());
        }
    }

    /// Forgets every vector and the dense index.
    pub fn clear_vectors(&mut self) {
        self.vectors.iter_mut().for_each(|v| *v = None);
        self.dense = None;
    }

    pub fn vector(&self, chunk: usize) -> Option<&[f32]> {
        self.vectors.get(chunk)?.as_deref()
    }

    /// Builds the HNSW graph over every chunk that has a vector.
    pub fn build_dense(&mut self) -> Option<HnswParams> {
        let points = self.points();
        if points.is_empty() {
            self.dense = None;
            return None;
        }
        let dense = Dense::build(points);
        let params = dense.params();
        self.dense = Some(dense);
        Some(params)
    }

    pub fn points(&self) -> Vec<(u32, Vector)> {
        self.vectors.iter().enumerate().filter_map(|(i, v)| Some((i as u32, Vector(Arc::clone(v.as_ref()?))))).collect()
    }

    pub fn dense(&self) -> Option<&Dense> {
        self.dense.as_ref()
    }

    /// Gives every chunk a vector from the static table: the dense lane
    /// until MiniLM's vectors are in, and wherever no query vector is given.
    /// A bundle's vectors made with the same table are taken as they are;
    /// with another table, the chunks are embedded again.
    pub fn build_static(&mut self, sources: &dyn Sources, model: Arc<StaticModel>) -> Result<(), String> {
        match self.stored_statics.take() {
            Some(StoredStatic { table, corpus, vectors }) if table == model.id() && vectors.dim() == model.dim() => {
                self.statics = Some(StaticLane { model, corpus, vectors });
            }
            _ => self.statics = Some(StaticLane::build(&Prepared::new(sources), self.chunks.whole(), model)?),
        }
        Ok(())
    }

    /// The static lane's vectors as a bundle stores them: the lane's, or
    /// those a bundle brought that wait for their table.
    pub fn stored_static(&self) -> Option<StoredStatic> {
        match (&self.statics, &self.stored_statics) {
            (Some(lane), _) => Some(StoredStatic {
                table: lane.table().to_owned(),
                corpus: lane.corpus.clone(),
                vectors: lane.vectors.clone(),
            }),
            (None, stored) => stored.clone(),
        }
    }

    pub fn clear_static(&mut self) {
        self.statics = None;
        self.stored_statics = None;
    }

    /// The table a bundle's static vectors were made with, while they wait
    /// for it.
    pub fn stored_static_table(&self) -> Option<&str> {
        self.stored_statics.as_ref().map(|s| s.table.as_str())
    }

    pub fn static_lane(&self) -> Option<&StaticLane> {
        self.statics.as_ref()
    }

    /// The dense lane a query gets: MiniLM's where its index is built and
    /// the query was embedded; else MiniLM's over the question's candidates
    /// where the caller embedded them; else the static table's where it is
    /// built.
    pub(crate) fn lane<'r>(
        &'r self,
        query: &str,
        query_vector: Option<&'r [f32]>,
        candidates: Option<&'r ChunkVectors>,
    ) -> Option<Lane<'r>> {
        match (&self.dense, query_vector, candidates, &self.statics) {
            (Some(dense), Some(vector), _, _) => Some(Lane::Minilm(dense, vector)),
            (None, Some(vector), Some(candidates), _) if !candidates.is_empty() => {
                Some(Lane::Candidates(candidates, vector))
            }
            (_, _, _, Some(statics)) => statics.embed(query).map(|v| Lane::Static(statics, v)),
            _ => None,
        }
    }

    /// The chunks MiniLM should read for a question, best first, at most
    /// `limit` and about `budget` characters (each chunk counted up to
    /// [`READ_CHARS`], as MiniLM reads no further): the best hits of its
    /// words, names and static table, one chunk each (the one that
    /// matched). The first is always taken. Empty where MiniLM's whole index
    /// already serves, for a lexical search, and for a bug report read as
    /// one (the localiser ranks those, and MiniLM was measured not to help
    /// it). The caller embeds them (or finds them in its cache by content
    /// hash) and passes them to the search as [`ChunkVectors`].
    pub fn candidates(
        &self,
        sources: &dyn Sources,
        query: &str,
        options: &SearchOptions,
        limit: usize,
        budget: usize,
    ) -> Vec<usize> {
        if self.dense.is_some()
            || options.mode == Mode::Lexical
            || (options.read_report && crate::issue::Issue::is_report(query))
        {
            return Vec::new();
        }
        let options = SearchOptions { expand: false, ..options.clone() };
        let Symbols { hits, best_chunk, dense_chunk, .. } = self.rank_symbols(sources, query, &options, None, None);
        let mut out: Vec<usize> = Vec::new();
        let mut spent = 0;
        for hit in hits {
            if out.len() == limit {
                break;
            }
            let chunk = best_chunk
                .get(&hit.node)
                .or_else(|| dense_chunk.get(&hit.node))
                .copied()
                .or_else(|| (0..self.chunks.len()).position(|c| self.chunks.node(c) == hit.node));
            let Some((at, chunk)) = chunk.filter(|c| !out.contains(c)).and_then(|c| Some((c, self.chunks.get(c)?)))
            else {
                continue;
            };
            let cost = crate::chunks::text(sources, &chunk).len().min(READ_CHARS);
            if !out.is_empty() && spent + cost > budget {
                break;
            }
            spent += cost;
            out.push(at);
        }
        out
    }

    pub fn params(&self, weights: Weights) -> Params {
        Params {
            rrf_k: RRF_K,
            weights,
            bm25: self.lexical.params(),
            hnsw: self.dense.as_ref().map(Dense::params),
            fusion: FUSION,
            chunks: self.chunks.len(),
            embedded: self.embedded(),
            meaning: None,
        }
    }

    /// Ranks symbols for `query` by its lanes, fused, expanded and
    /// filtered, all of them (the caller cuts them to `options.k`).
    /// `query_vector` is the query's embedding, needed by the dense lane.
    pub(crate) fn rank_symbols<'r>(
        &'r self,
        sources: &dyn Sources,
        query: &str,
        options: &SearchOptions,
        query_vector: Option<&'r [f32]>,
        candidates: Option<&'r ChunkVectors>,
    ) -> Symbols<'r> {
        let graph = sources.graph();
        let w = options.weights;
        let mut note = None;
        let lane = if options.mode == Mode::Lexical { None } else { self.lane(query, query_vector, candidates) };
        let mode = match (options.mode, &lane) {
            (Mode::Lexical, _) => Mode::Lexical,
            (mode, Some(_)) => mode,
            (mode, None) => {
                let why = if self.statics.is_some() {
                    "no word of the query is one the static table knows whole".to_owned()
                } else if self.dense.is_none() {
                    format!("embeddings are not ready ({} of {} chunks)", self.embedded(), self.chunks.len())
                } else {
                    "the query was not embedded".to_owned()
                };
                note = Some(format!("{why}; ran {} as lexical", mode_name(mode)));
                Mode::Lexical
            }
        };
        let hints = hints::analyze(query);
        let mut fused: HashMap<NodeId, RankedHit> = HashMap::new();
        fn entry(fused: &mut HashMap<NodeId, RankedHit>, node: NodeId) -> &mut RankedHit {
            fused.entry(node).or_insert_with(|| RankedHit {
                node,
                score: 0.0,
                name_match: None,
                explain: Explain::default(),
            })
        }

        let mut best_chunk: HashMap<NodeId, usize> = HashMap::new();
        let mut dense_chunk: HashMap<NodeId, usize> = HashMap::new();
        // The filter, read once: BM25 searches within it, and every lane's
        // hits are kept to it at the end.
        let filter = Accept::new(&options.filter);
        let accept = filter.as_ref().ok().filter(|a| !a.is_empty());
        if mode != Mode::Dense {
            // BM25, grouped to symbols by their best chunk.
            // A filtered search takes the best chunks that pass the filter,
            // not those that pass among the best of all: a search of tests
            // is not crowded out by the code they share words with.
            let matches = match &accept {
                Some(accept) => self
                    .lexical
                    .search_where(query, LANE_DEPTH, |chunk| accept.node(graph, self.chunks.node(chunk as usize))),
                None => self.lexical.search(query, LANE_DEPTH),
            };
            let lexical: Vec<(NodeId, usize, f32)> = by_symbol(&self.chunks, matches).collect();
            // How much of the query the best lexical match holds. When the
            // words of a question are not the words of the code (a
            // description of behaviour), BM25's order is weak evidence, and
            // in hybrid mode its lanes count for less: `coverage` of their
            // weight. An error message or a name is covered fully.
            let coverage = if mode == Mode::Hybrid {
                let terms: std::collections::HashSet<String> = self.lexical.terms(query).into_iter().collect();
                let matched = lexical.first().map_or(0, |&(_, chunk, _)| self.matched_terms(query, chunk).len());
                if terms.is_empty() { 1.0 } else { matched as f64 / terms.len() as f64 }
            } else {
                1.0
            };
            let best = lexical.first().map_or(0.0, |&(_, _, score)| score);
            let exponent = if mode == Mode::Hybrid { FUSION.lexical_score_exponent } else { 0.0 };
            for (rank, (node, chunk, bm25)) in lexical.into_iter().enumerate() {
                let hit = entry(&mut fused, node);
                let share = rrf(coverage * w.lexical * relative(bm25, best, exponent), rank);
                hit.explain.lexical_rank = Some(rank as u32 + 1);
                hit.explain.bm25 = Some((f64::from(bm25) * 1000.0).round() / 1000.0);
                hit.explain.lanes.lexical = share;
                hit.explain.chunk_lines = Some(self.chunks.lines(chunk));
                best_chunk.insert(node, chunk);
                hit.score += share;
            }
            for (rank, (node, kind)) in self.name_lane(graph, &hints, query).into_iter().enumerate() {
                let hit = entry(&mut fused, node);
                let share = rrf(coverage * w.name, rank);
                hit.explain.name_rank = Some(rank as u32 + 1);
                hit.explain.lanes.name = share;
                hit.name_match = Some(kind);
                hit.score += share;
            }
            for (rank, node) in trace_lane(sources, &hints).into_iter().enumerate() {
                let hit = entry(&mut fused, node);
                let share = rrf(w.trace, rank);
                hit.explain.trace_rank = Some(rank as u32 + 1);
                hit.explain.lanes.trace = share;
                hit.score += share;
            }
        }
        if mode != Mode::Lexical
            && let Some(lane) = &lane
        {
            let matches: Vec<(u32, f32)> =
                lane.search(LANE_DEPTH).into_iter().filter(|(_, s)| *s >= options.min_similarity).collect();
            let fusion = lane.fusion();
            let shares = meaning_shares(&self.chunks, matches, w.dense, (mode == Mode::Hybrid).then_some(&fusion));
            for (rank, (node, chunk, similarity, share)) in shares.into_iter().enumerate() {
                let hit = entry(&mut fused, node);
                hit.explain.dense_rank = Some(rank as u32 + 1);
                hit.explain.lanes.dense = share;
                hit.explain.similarity = Some((f64::from(similarity) * 1000.0).round() / 1000.0);
                hit.explain.chunk_lines.get_or_insert(self.chunks.lines(chunk));
                dense_chunk.insert(node, chunk);
                hit.score += share;
            }
        }
        // MiniLM over the candidates reads only those: the static table
        // still reads every chunk beside it, as it would alone. On `make
        // eval`'s sets the two together beat MiniLM's candidates alone on
        // Flask (files MRR 0.937 against 0.923) for 0.002 of CoSQA's.
        if mode == Mode::Hybrid
            && let Some(Lane::Candidates(..)) = &lane
            && let Some(statics) = &self.statics
            && let Some(vector) = statics.embed(query)
        {
            let matches: Vec<(u32, f32)> =
                statics.search(&vector, LANE_DEPTH).into_iter().filter(|(_, s)| *s >= options.min_similarity).collect();
            for (node, _, _, share) in meaning_shares(&self.chunks, matches, w.dense, Some(&STATIC_FUSION)) {
                let hit = entry(&mut fused, node);
                hit.explain.lanes.dense += share;
                hit.score += share;
            }
        }

        self.copies_stand_in(graph, &mut fused);
        let mut hits: Vec<RankedHit> = fused.into_values().collect();
        // A file's role is evidence here too: code that is not the
        // project's own (vendored, generated) ranks below it, and every hit
        // outside the project's source says what its file is. A question
        // that does not ask for tests or examples gets the implementation
        // first; its tests and examples follow as evidence. A bug report is
        // read by the localiser, with its own priors, and a search filtered
        // to tests or away from them has nothing to weigh apart.
        let intent = (options.filter.tests == TestFilter::Include
            && !(options.read_report && crate::issue::Issue::is_report(query)))
        .then(|| Intent::of(query));
        // A definition the query names is what it asks for, whatever it is
        // (named as code, or alone), unless the project's own source defines
        // the name too: then the public definition comes before its tests'
        // namesakes, fakes and documentation copies.
        let names = |hit: &RankedHit| {
            hit.name_match == Some(MatchKind::Exact) && names_as_code(&hints, query, &graph.node(hit.node).name)
        };
        let source_named = hits.iter().any(|hit| {
            names(hit) && self.file_role(graph, hit.node).is_some_and(|(role, _)| role.family() == Family::Own)
        });
        let typed = typed_name(query);
        for hit in &mut hits {
            let Some((role, has_sources)) = self.file_role(graph, hit.node) else { continue };
            if role != Role::Source {
                hit.explain.role = Some(role);
            }
            let named = names(hit) && (!source_named || role.family() == Family::Own);
            if let Some(typed) = &typed {
                hit.score *= typed.factor(graph, self.facts(hit.node).as_deref(), hit.node);
            }
            let tool_output = role == Role::Generated && !has_sources;
            hit.score *= match (role.family(), &intent) {
                (Family::Foreign, _) if tool_output && !names(hit) => TOOL_OUTPUT,
                (Family::Foreign, _) => FOREIGN,
                (Family::Test, Some(intent)) if !intent.tests && !named => TEST_PRIOR,
                (Family::Aside, Some(intent)) if !intent.examples && !named => ASIDE_PRIOR,
                _ => 1.0,
            };
            if self.declares(graph, hit.node) {
                hit.score *= DECLARATION_PRIOR;
            }
        }
        sort(graph, &mut hits);
        let seeds: Vec<(NodeId, f64)> = hits.iter().take(EXPAND_SEEDS).map(|h| (h.node, h.score)).collect();
        if options.expand && w.graph > 0.0 {
            expand(graph, &mut hits, w.graph);
            sort(graph, &mut hits);
        }
        if let Some(accept) = accept {
            hits.retain(|h| accept.node(graph, h.node));
        }
        if let Err(why) = &filter {
            note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
        }
        Symbols { mode, note, hits, lane, best_chunk, dense_chunk, seeds }
    }

    /// Names in the query: exact and prefix matches of its code-shaped
    /// words, and exact matches of its other words.
    fn name_lane(&self, graph: &CodeGraph, hints: &Hints, query: &str) -> Vec<(NodeId, MatchKind)> {
        let mut out: Vec<(NodeId, MatchKind)> = Vec::new();
        for (word, exact_only) in name_words(hints, query) {
            for hit in self.names.named(graph, word, NAME_LANE_DEPTH) {
                if (hit.match_kind == MatchKind::Exact || (!exact_only && hit.match_kind == MatchKind::Prefix))
                    && !out.iter().any(|(n, _)| *n == hit.node)
                {
                    out.push((hit.node, hit.match_kind));
                }
            }
        }
        out.truncate(LANE_DEPTH);
        out
    }

    /// The query's terms the chunk holds, in the query's order: those whose
    /// postings list it, which is what BM25 scored. (A reader of a split
    /// bundle holds the query's postings, not the chunk's text.)
    pub(crate) fn matched_terms(&self, query: &str, chunk: usize) -> Vec<String> {
        let mut matched: Vec<String> = Vec::new();
        for term in self.lexical.terms(query) {
            if !matched.contains(&term) && self.lexical.holds(&term, chunk as u32) {
                matched.push(term);
            }
        }
        matched
    }
}

/// The words the name lane looks up, each with whether only its exact
/// matches count: the query's code-shaped words (`self.x` and `this.x`
/// name a member `x`), then, in a query of at most three other words, each
/// of those. A one-word query is typed as a name (search as you type): its
/// prefixes count. Words of a short phrase count only as whole names.
fn name_words<'q>(hints: &'q Hints, query: &'q str) -> Vec<(&'q str, bool)> {
    let mut out: Vec<(&str, bool)> = hints
        .identifiers
        .iter()
        .map(|ident| (ident.strip_prefix("self.").or_else(|| ident.strip_prefix("this.")).unwrap_or(ident), false))
        .collect();
    let words: Vec<&str> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.len() >= 3 && !hints.identifiers.iter().any(|i| i == w))
        .collect();
    let single = words.len() == 1;
    if words.len() <= 3 {
        out.extend(words.into_iter().map(|w| (w, !single)));
    }
    out
}

/// What a question asks for besides the implementation: its tests (a word
/// of testing: "test", "spec", "fixture", "mock", "assert"), or its
/// examples and docs ("example", "demo", "tutorial", "docs").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Intent {
    pub tests: bool,
    pub examples: bool,
}

impl Intent {
    pub fn of(query: &str) -> Intent {
        let mut intent = Intent::default();
        for word in query.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let word = word.to_lowercase();
            let stem = word.trim_end_matches('s');
            intent.tests |= matches!(
                stem,
                "test"
                    | "tested"
                    | "testing"
                    | "unittest"
                    | "pytest"
                    | "spec"
                    | "fixture"
                    | "mock"
                    | "mocking"
                    | "mocked"
                    | "stub"
                    | "assert"
                    | "assertion"
            );
            intent.examples |=
                matches!(stem, "example" | "demo" | "sample" | "tutorial" | "doc" | "documentation" | "benchmark");
        }
        intent
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Lexical => "lexical",
        Mode::Dense => "dense",
        Mode::Hybrid => "hybrid",
    }
}

/// What BM25 reads for a chunk before its text: the name, boosted, and
/// the path, whose segments it splits.
struct Heading<'g> {
    name: &'g str,
    /// How many times the name is read.
    times: usize,
    path: &'g str,
}

fn heading<'g>(graph: &'g CodeGraph, chunk: &Chunk) -> Heading<'g> {
    Heading {
        name: &graph.node(chunk.node).name,
        times: NAME_BOOST,
        path: graph.path_of(chunk.node).unwrap_or_default(),
    }
}

/// The sources as building the index reads them: what every chunk of a
/// file reads is found once per file, not once per chunk: where its lines
/// start, and its path's terms.
struct Prepared<'s> {
    sources: &'s dyn Sources,
    line_starts: Vec<LineStarts>,
    path_terms: Vec<Box<[u32]>>,
}

impl<'s> Prepared<'s> {
    fn new(sources: &'s dyn Sources) -> Prepared<'s> {
        let files: Vec<usize> = (0..sources.graph().files().len()).collect();
        let line_starts = crate::parallel::map(&files, |&file| LineStarts::of(sources.file_text(file)));
        let mut splitter = Splitter::default();
        let path_terms = sources.graph().files().iter().map(|file| splitter.terms(&file.path)).collect();
        Prepared { sources, line_starts, path_terms }
    }
}

impl Sources for Prepared<'_> {
    fn graph(&self) -> &CodeGraph {
        self.sources.graph()
    }

    fn file_text(&self, file: usize) -> &str {
        self.sources.file_text(file)
    }

    fn line_terms(&self, file: usize) -> Option<&LineTerms> {
        self.sources.line_terms(file)
    }

    fn name_terms(&self, node: NodeId) -> Option<&[u32]> {
        self.sources.name_terms(node)
    }

    fn line_starts(&self, file: usize) -> Option<&LineStarts> {
        self.line_starts.get(file)
    }
}

/// What BM25 reads for a chunk, in pieces: the [`heading`] (its name split
/// once), then the chunk's text in [`chunks::pieces`], each of its file's
/// lines as the terms parsing split when there are any.
fn lexical_pieces(sources: &Prepared<'_>, chunk: &Chunk, input: &mut dyn FnMut(Input<'_>)) {
    let graph = sources.graph();
    let heading = heading(graph, chunk);
    match sources.name_terms(chunk.node) {
        Some(terms) => (0..heading.times.max(1)).for_each(|_| input(Input::Terms(terms))),
        None => input(Input::Repeated(heading.name, heading.times)),
    }
    let file = graph.node(chunk.node).file.map(|file| file.0 as usize);
    match file.and_then(|file| sources.path_terms.get(file)) {
        Some(terms) => input(Input::Terms(terms)),
        None => input(Input::Text(heading.path)),
    }
    let split = file.and_then(|file| sources.line_terms(file));
    chunks::pieces(sources, chunk, &mut |piece| match piece {
        Piece::Text(text) => input(Input::Text(text)),
        Piece::Line(at, line) => match split.and_then(|split| split.line(at)) {
            Some(terms) => input(Input::Terms(terms)),
            None => input(Input::Text(line)),
        },
        Piece::Name(node, name) => match sources.name_terms(node) {
            Some(terms) => input(Input::Terms(terms)),
            None => input(Input::Text(name)),
        },
    });
}

/// Whether `query` names `name` as code: a code-shaped word of it ends in the
/// name (`Schema.load`, `load()`, `make_dates`), or the query is the name
/// alone. A plain word of a phrase (`simple` in "usage, simple reading")
/// matches names too, but does not ask for that definition, whatever it is.
/// A query that is one name as a reader types it: `Flask`, `Schema.load`,
/// `serde_json::from_str`, `Router#route`. Its last part is the name; the
/// part before it, where there is one, the qualifier.
struct TypedName<'q> {
    name: &'q str,
    qualifier: Option<&'q str>,
}

/// The factor on a definition named exactly as typed (the case as typed):
/// it comes before a longer name or one of another case that BM25 or a
/// prefix match ranks with it (`Request` before `RequestContext`, `Pluck`
/// before `pluck`).
const TYPED_EXACT: f64 = 2.0;
/// The further factor where the definition also sits in what the
/// qualifier names (`JsonReader.setLenient`: the `setLenient` of
/// `JsonReader`, not `GsonBuilder`'s).
const TYPED_QUALIFIED: f64 = 1.5;

fn typed_name(query: &str) -> Option<TypedName<'_>> {
    let query = query.trim().trim_end_matches("()");
    let is_name = !query.is_empty()
        && query.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | ':' | '#'))
        && query.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
    if !is_name {
        return None;
    }
    match query.rfind(['.', ':', '#']) {
        Some(at) => {
            let name = &query[at + 1..];
            let qualifier = query[..at].trim_end_matches(':');
            (!name.is_empty() && !qualifier.is_empty()).then_some(TypedName { name, qualifier: Some(qualifier) })
        }
        None => Some(TypedName { name: query, qualifier: None }),
    }
}

impl TypedName<'_> {
    /// `facts`, where the symbol is known in brief, say what holds it and
    /// where its file is.
    fn factor(&self, graph: &CodeGraph, facts: Option<&Facts>, node: NodeId) -> f64 {
        let n = graph.node(node);
        if n.name != self.name {
            return 1.0;
        }
        let Some(qualifier) = self.qualifier else { return TYPED_EXACT };
        // The qualifier's last part names the class, module, namespace or
        // file the definition sits in.
        let last = qualifier.rsplit(['.', ':', '#']).next().unwrap_or(qualifier);
        let parent = match facts {
            Some(facts) => facts.parent.as_deref(),
            None => graph.parent(node).map(|p| graph.node(p).name.as_str()),
        };
        let path = match facts {
            Some(facts) => facts.path.as_deref(),
            None => graph.path_of(node),
        };
        let in_it = parent == Some(last)
            || path.is_some_and(|path| {
                let file = path.rsplit('/').next().unwrap_or(path);
                file.split('.').next() == Some(last) || path.split('/').any(|folder| folder == last)
            });
        if in_it { TYPED_EXACT * TYPED_QUALIFIED } else { TYPED_EXACT }
    }
}

fn names_as_code(hints: &Hints, query: &str, name: &str) -> bool {
    query.trim() == name
        || hints.identifiers.iter().any(|i| i.trim_end_matches("()").rsplit(['.', ':']).next() == Some(name))
}

/// A meaning lane's matches (chunks, best first), one per symbol, each with
/// its share of the fused score: RRF of the lane's `weight`, scaled, where
/// `fusion` is given (hybrid mode), by the lane's confidence in its best
/// match and each match's similarity relative to the best (see `Fusion`).
fn meaning_shares(
    chunks: &Chunks,
    matches: Vec<(u32, f32)>,
    weight: f64,
    fusion: Option<&Fusion>,
) -> Vec<(NodeId, usize, f32, f64)> {
    let best = matches.first().map_or(0.0, |&(_, s)| s);
    let (confidence, exponent) = fusion.map_or((1.0, 0.0), |f| (f.dense_confidence(best), f.dense_score_exponent));
    by_symbol(chunks, matches)
        .enumerate()
        .map(|(rank, (node, chunk, similarity))| {
            (node, chunk, similarity, rrf(weight * confidence * relative(similarity, best, exponent), rank))
        })
        .collect()
}

/// Chunk results grouped into symbols in order of each symbol's best chunk:
/// `(symbol, best chunk, its score)`.
fn by_symbol(chunks: &Chunks, ranked: Vec<(u32, f32)>) -> impl Iterator<Item = (NodeId, usize, f32)> {
    let mut seen = std::collections::HashSet::new();
    ranked.into_iter().filter_map(move |(chunk, score)| {
        let node = chunks.node(chunk as usize);
        seen.insert(node).then_some((node, chunk as usize, score))
    })
}

/// The innermost function, method or class around each `path:line` the
/// query names, in the order the query names them.
fn trace_lane(sources: &dyn Sources, hints: &Hints) -> Vec<NodeId> {
    let graph = sources.graph();
    let mut out = Vec::new();
    for location in &hints.locations {
        let wanted = location.path.replace('\\', "/");
        let Some(file) = file_named(graph, wanted.trim_start_matches("./")) else { continue };
        let innermost = innermost(graph, &file.path, location.line).unwrap_or(file.module);
        if !out.contains(&innermost) {
            out.push(innermost);
        }
    }
    out
}

/// The indexed file that a path as written names (see [`path_matches`]):
/// of several, the one sharing the most trailing segments, then the
/// shortest.
pub(crate) fn file_named<'g>(graph: &'g CodeGraph, wanted: &str) -> Option<&'g fathom_graph::FileEntry> {
    graph
        .files()
        .iter()
        .filter(|f| path_matches(&f.path, wanted))
        .max_by_key(|f| (shared_segments(&f.path, wanted), std::cmp::Reverse(f.path.len())))
}

/// The innermost function, method or class of the file at `path` around `line`.
pub(crate) fn innermost(graph: &CodeGraph, path: &str, line: u32) -> Option<NodeId> {
    graph
        .nodes()
        .filter(|(id, n)| {
            graph.path_of(*id) == Some(path)
                && matches!(n.kind, SymbolKind::Function | SymbolKind::Method | SymbolKind::Class)
                && n.span.start_line <= line
                && line <= n.span.end_line
        })
        .min_by_key(|(_, n)| n.span.end_line - n.span.start_line)
        .map(|(id, _)| id)
}

/// The definition a traceback frame is in: the frame's function by name,
/// the one holding the line or else the nearest to it, since a report's
/// lines come from the version it ran and the tree may be another; the
/// innermost definition at the line where the frame names no function or
/// the file has none of that name.
pub(crate) fn frame_symbol(graph: &CodeGraph, path: &str, line: u32, function: Option<&str>) -> Option<NodeId> {
    let named = function.and_then(|function| {
        graph
            .nodes()
            .filter(|(id, n)| {
                n.name == function
                    && matches!(n.kind, SymbolKind::Function | SymbolKind::Method)
                    && graph.path_of(*id) == Some(path)
            })
            .min_by_key(|(_, n)| {
                let (start, end) = (n.span.start_line, n.span.end_line);
                if (start..=end).contains(&line) { 0 } else { start.abs_diff(line).min(end.abs_diff(line)) }
            })
            .map(|(id, _)| id)
    });
    named.or_else(|| innermost(graph, path, line))
}

/// How many trailing path segments two paths share.
fn shared_segments(a: &str, b: &str) -> usize {
    a.rsplit('/').zip(b.rsplit('/')).take_while(|(x, y)| x == y).count()
}

/// `src/flask/app.py` is named by `app.py`, `flask/app.py` and
/// `/srv/site-packages/flask/app.py` (two segments agree), but not by
/// `other/app.py` or `papp.py`.
pub(crate) fn path_matches(path: &str, wanted: &str) -> bool {
    let shared = shared_segments(path, wanted);
    shared >= 1 && (shared == wanted.split('/').count() || shared == path.split('/').count() || shared >= 2)
}

fn sort(graph: &CodeGraph, hits: &mut [RankedHit]) {
    hits.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| graph.node(a.node).qualified_name.cmp(&graph.node(b.node).qualified_name))
            // Overloads share a qualified name; without this their order
            // would follow the hash order of the fused map.
            .then_with(|| a.node.cmp(&b.node))
    });
}

/// Adds to each one-hop neighbour of the top hits a damped share of the
/// hit's score, along calls, containment, inheritance and imports. A
/// neighbour reached from several hits keeps the largest share.
fn expand(graph: &CodeGraph, hits: &mut Vec<RankedHit>, damping: f64) {
    let mut best: HashMap<NodeId, GraphContribution> = HashMap::new();
    for seed in hits.iter().take(EXPAND_SEEDS) {
        let from = &graph.node(seed.node).qualified_name;
        let edges = graph
            .outgoing(seed.node)
            .map(|(e, n)| (e, n, true))
            .chain(graph.incoming(seed.node).map(|(e, n)| (e, n, false)));
        for (edge, neighbour, outgoing) in edges {
            let followed = matches!(
                edge.kind,
                EdgeKind::Calls | EdgeKind::Contains | EdgeKind::HasMethod | EdgeKind::Inherits | EdgeKind::Imports
            );
            let node = graph.node(neighbour);
            if !followed || node.is_external || node.kind == SymbolKind::Package || neighbour == seed.node {
                continue;
            }
            let score = damping * seed.score * f64::from(edge.confidence);
            if best.get(&neighbour).is_none_or(|c| c.score < score) {
                best.insert(
                    neighbour,
                    GraphContribution {
                        from: from.clone(),
                        edge: edge.kind,
                        outgoing,
                        confidence: edge.confidence,
                        score,
                    },
                );
            }
        }
    }
    for (node, contribution) in best {
        match hits.iter_mut().find(|h| h.node == node) {
            Some(hit) => {
                hit.score += contribution.score;
                hit.explain.graph = Some(contribution);
            }
            None => hits.push(RankedHit {
                node,
                score: contribution.score,
                name_match: None,
                explain: Explain { graph: Some(contribution), ..Explain::default() },
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_name_is_one_name_with_its_qualifier() {
        let parts = |q| typed_name(q).map(|t| (t.qualifier, t.name));
        assert_eq!(parts("Flask"), Some((None, "Flask")));
        assert_eq!(parts("Schema.load"), Some((Some("Schema"), "load")));
        assert_eq!(parts("serde_json::from_str()"), Some((Some("serde_json"), "from_str")));
        assert_eq!(parts("Router#route"), Some((Some("Router"), "route")));
        assert_eq!(parts("how are dates serialized"), None, "a phrase is not a name");
        assert_eq!(parts("Schema."), None);
        assert_eq!(parts("404"), None);
    }

    #[test]
    fn a_question_asks_for_tests_or_examples_by_their_words() {
        assert_eq!(Intent::of("how are dates serialized to JSON?"), Intent::default());
        assert!(Intent::of("which tests cover the parser").tests);
        assert!(Intent::of("the fixture for a temporary app").tests);
        assert!(Intent::of("Mocking the HTTP client").tests);
        assert!(Intent::of("an example of streaming").examples);
        assert!(!Intent::of("testimony of latest contests").tests, "words, not substrings");
    }

    #[test]
    fn a_clear_dense_winner_outranks_a_weak_lanes_first_rank() {
        // `a`: dense rank 1 at cosine 0.80, no lexical match. `b`: dense
        // rank 2 at 0.60 and BM25's first. Plain RRF puts `b` first (1/62 +
        // 1/61 against 1/61); the similarity gap says `a`.
        let plain = (rrf(1.0, 0), rrf(1.0, 1) + rrf(1.0, 0));
        assert!(plain.1 > plain.0);
        let f = FUSION;
        let confidence = f.dense_confidence(0.80);
        let a = rrf(confidence * relative(0.80, 0.80, f.dense_score_exponent), 0);
        let b = rrf(confidence * relative(0.60, 0.80, f.dense_score_exponent), 1)
            + rrf(relative(12.0, 12.0, f.lexical_score_exponent), 0);
        assert!(a > b, "{a} {b}");
        // An unsure dense lane (best 0.45) leaves BM25's first on top.
        let confidence = f.dense_confidence(0.45);
        let a = rrf(confidence, 0);
        let b = rrf(confidence * relative(0.44, 0.45, f.dense_score_exponent), 1) + rrf(1.0, 0);
        assert!(b > a, "{a} {b}");
        // Confidence is capped, and relative scores stay in 0..=1.
        assert_eq!(f.dense_confidence(0.99), f.dense_confidence_cap);
        assert_eq!(relative(5.0, 0.0, 2.0), 1.0);
        assert!(relative(3.0, 12.0, 2.0) < relative(6.0, 12.0, 2.0));
    }

    #[test]
    fn test_paths_follow_each_ecosystems_conventions() {
        for path in [
            "tests/test_app.py",
            "pkg/__tests__/a.js",
            "a/test_x.py",
            "x_test.go",
            "src/a.test.ts",
            "b.spec.js",
            "src/test/java/a/BTest.java",
            "CTests.cs",
            "spec/d_spec.rb",
            "jib-cli/src/integration-test/java/a/Command.java",
            "app/src/integrationTest/kotlin/A.kt",
            "tokio-test/src/io.rs",
            "tests/SelfTest/UsageTests/Misc.tests.cpp",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "src/app.py",
            "latest.py",
            "contest/a.py",
            "attestation.rs",
            "src/Testing.java",
            "src/_pytest/main.py",
            "latest-release/a.go",
            "src/testkit/a.rs",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }

    #[test]
    fn a_path_filter_is_a_glob_or_a_substring_and_a_bad_glob_is_named() {
        let accept = |p: &str| Accept::new(&Filter { path: Some(p.to_owned()), ..Filter::default() });
        let glob = accept("src/**/*.py").unwrap();
        assert!(glob.path("src/a/b.py") && !glob.path("src/a/b.js") && !glob.path("lib/b.py"));
        let substring = accept("flask/").unwrap();
        assert!(substring.path("src/flask/app.py") && !substring.path("src/app.py"));
        let Err(why) = accept("src/[a") else { panic!("`src/[a` parsed") };
        assert!(why.contains("src/[a") && why.contains("not a valid glob"), "{why}");
        assert!(Accept::new(&Filter::default()).unwrap().is_empty());
    }

    #[test]
    fn paths_match_on_whole_segments() {
        assert!(path_matches("src/flask/app.py", "app.py"));
        assert!(path_matches("src/flask/app.py", "flask/app.py"));
        assert!(path_matches("src/flask/app.py", "/srv/lib/python3.12/site-packages/flask/app.py"));
        assert!(!path_matches("src/flask/app.py", "papp.py"));
        assert!(!path_matches("src/flask/app.py", "other/app.py"));
    }
}
