//! The pipeline from an archive to answers, and the index it produces.
//!
//! `read → parse → graph → index`: each stage reports progress through the
//! caller's [`Observer`], which also supplies the clock, so this crate runs
//! the same natively and in a browser worker. Nothing here prints.

pub mod bundle;
pub mod card;
pub mod cost;
#[cfg(feature = "embed")]
pub mod embed;
pub mod export;
pub mod heap;
pub mod map;
mod navigate;
pub mod pipeline;
pub mod split;
pub mod store;
mod summary;
pub mod tests_for;

use std::collections::HashMap;

use fathom_archive::ArchiveError;
use fathom_graph::CodeGraph;
use fathom_model::{Language, SymbolKind};
use fathom_search::MatchKind;
use fathom_search::chunks::Sources;
use fathom_search::lexical::LineTerms;
use fathom_search::locate::Localiser;
use fathom_search::retrieval::{Ranking, Retrieval};
use fathom_search::snippet::{self, Snippet};
use serde::{Deserialize, Serialize};

pub use bundle::{BundleError, BundleHeader};
pub use fathom_archive::{Budget, Exclude, ExcludeError, Limits, OVER_BUDGET, SkipReason, Skipped, human_bytes};
pub use fathom_graph::{EdgeKind, Reason, Schema, schema};
pub use fathom_parse::set_clock as set_parse_clock;
pub use fathom_query::cypher::{CypherError, CypherErrorKind, DEFAULT_LIMIT as DEFAULT_LIMIT_ROWS, QueryResult};
pub use fathom_query::{Direction, Hop, MAX_DEPTH, NodeRef, QueryError, Reached, SymbolContext};
pub use fathom_scip::{Agreement, KindAgreement, ScipError, ScipIndex, ScipReport, read as read_scip};
pub use fathom_search::chunks::{Chunk, Part as ChunkPart};
pub use fathom_search::dense::HnswParams;
pub use fathom_search::retrieval::{
    ChunkVectors, Explain, Filter as SearchFilter, Mode as SearchMode, Params as SearchParams, SearchOptions,
    TestFilter, Weights,
};
pub use navigate::{
    Definition, FoundBy, HIGHLIGHT_CLASSES, Highlights, IdentifierAt, MAX_HIGHLIGHT_BYTES, MAX_HIGHLIGHT_SPANS,
    NavError, Reference,
};
pub use summary::{FileError, IndexSummary, MemoryReport, Timings};

/// How many chunks MiniLM reads for a question when its whole index is not
/// built ([`Index::candidates`]), and how much of their text: enough that
/// the answer is among them for most questions (on CoSQA, whose snippets
/// are short, 48 of them hold it for 80%), few enough to embed in about a
/// second on a CPU (24 chunks of MiniLM's full 256 word pieces).
pub const CANDIDATES: usize = 48;
pub const CANDIDATE_CHARS: usize = 24 * fathom_search::retrieval::READ_CHARS;

/// A step of the pipeline, as progress reports name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Read,
    Parse,
    Graph,
    Resolve,
    Index,
    /// Embedding chunks, after the index is searchable.
    Embed,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Read => "read",
            Stage::Parse => "parse",
            Stage::Graph => "graph",
            Stage::Resolve => "resolve",
            Stage::Index => "index",
            Stage::Embed => "embed",
        }
    }
}

/// What the caller provides to a running pipeline: a clock (browsers and
/// native builds tell time differently) and somewhere to report progress.
pub trait Observer {
    /// Milliseconds from any fixed origin.
    fn now_ms(&self) -> f64;
    /// `done` of `total` units of `stage` are finished.
    fn progress(&mut self, _stage: Stage, _done: usize, _total: usize) {}
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Options {
    pub limits: Limits,
    /// Paths left out (`--exclude`), reported as skipped.
    #[serde(default)]
    pub exclude: fathom_archive::Exclude,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Archive(#[from] ArchiveError),
}

/// A repository, read, parsed, graphed and indexed.
pub struct Index {
    graph: CodeGraph,
    retrieval: Retrieval,
    /// File texts by `FileId`.
    texts: Vec<String>,
    by_path: HashMap<String, u32>,
    summary: IndexSummary,
    /// What it was indexed with, recorded in bundles.
    options: Options,
    /// The model whose embeddings the vectors are, once the embedder says.
    embedding_model: Option<String>,
}

/// One end of an edge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeEnd {
    pub symbol: String,
    pub kind: SymbolKind,
    pub file: Option<String>,
    pub start_line: u32,
    pub is_external: bool,
}

/// An edge, with both ends cited and why it exists.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EdgeRecord {
    #[serde(rename = "type")]
    pub edge_type: fathom_graph::EdgeKind,
    pub from: EdgeEnd,
    pub to: EdgeEnd,
    pub confidence: f32,
    pub reason: fathom_graph::Reason,
    /// The line in `from`'s file where the call, use, import or decoration is.
    pub line: Option<u32>,
}

/// An indexed file, as a quick-open lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileInfo {
    pub path: String,
    pub language: Language,
    pub lines: u32,
    pub definitions: u32,
}

/// One search result, cited to exact lines.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// The qualified name.
    pub symbol: String,
    pub name: String,
    pub kind: SymbolKind,
    pub language: Language,
    pub file: String,
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
    pub score: f64,
    /// How the symbol's name matched the query, when it did.
    #[serde(rename = "match")]
    pub match_kind: Option<MatchKind>,
    pub explain: Explain,
    /// The lines that show why it matched, the query's words marked.
    pub snippet: Snippet,
}

/// A file, ranked by its symbols' scores, with its best symbols cited.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileHit {
    pub file: String,
    pub language: Option<Language>,
    pub score: f64,
    pub symbols: Vec<Citation>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Citation {
    pub symbol: String,
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
}

/// The answer to a search: ranked symbols, ranked files, and what produced them.
#[derive(Clone, Debug, Serialize)]
pub struct SearchResults {
    pub query: String,
    /// The mode that ran (hybrid falls back to lexical until embeddings are ready).
    pub mode: SearchMode,
    pub note: Option<String>,
    pub hits: Vec<SearchHit>,
    pub files: Vec<FileHit>,
    pub params: SearchParams,
}

/// Files for a bug report ([`Index::locate`]).
#[derive(Clone, Debug, Serialize)]
pub struct Localisation {
    /// Best first.
    pub files: Vec<LocatedFile>,
    /// How many traceback frames and names the report was read as holding.
    pub frames: usize,
    pub names: usize,
    /// Whether the embeddings' lane took part.
    pub dense: bool,
    /// Whose embeddings: MiniLM's or the static table's.
    pub meaning: Option<fathom_search::retrieval::Meaning>,
    pub weights: fathom_search::locate::Weights,
}

#[derive(Clone, Debug, Serialize)]
pub struct LocatedFile {
    pub file: String,
    pub language: Option<Language>,
    pub score: f64,
    /// What put it there, in words: the frame, the names, the phrases, the
    /// matched terms, the graph edge.
    pub reasons: Vec<String>,
    /// The definitions to open in it, each with why.
    pub symbols: Vec<LocatedSymbol>,
    /// The evidence as numbers, as the ranking read it.
    pub evidence: fathom_search::locate::FileEvidence,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocatedSymbol {
    pub symbol: String,
    pub kind: SymbolKind,
    pub start_line: u32,
    pub end_line: u32,
    pub why: Vec<String>,
}

/// How far embedding has come.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmbeddingStatus {
    pub chunks: usize,
    pub embedded: usize,
    /// Whether the dense index is built over the embedded chunks.
    pub dense_ready: bool,
    /// Whether every chunk has its static vector: the dense lane until
    /// MiniLM's index is ready.
    pub static_ready: bool,
    /// The static table a bundle's static vectors were made with, while they
    /// wait for it to be loaded (`build_static` then takes them as they are).
    pub static_stored: Option<String>,
}

/// Indexes an archive held in memory: a zip, a tar or a tar.gz, whichever
/// its first bytes say.
pub fn index_zip(
    name: &str,
    bytes: &[u8],
    options: &Options,
    observer: &mut dyn Observer,
) -> Result<Index, EngineError> {
    Ok(pipeline::stage_zip(name, bytes, options, observer)?.index(observer))
}

/// Indexes files handed over one by one, `(path, bytes)`: a folder dropped
/// on the page. The folder's own name, shared by every path, is stripped.
pub fn index_files(name: &str, files: Vec<(String, Vec<u8>)>, options: &Options, observer: &mut dyn Observer) -> Index {
    pipeline::stage_files(name, files, options, observer).index(observer)
}

/// Indexes a directory on disk, honouring `.gitignore`.
#[cfg(feature = "fs")]
pub fn index_dir(path: &std::path::Path, options: &Options, observer: &mut dyn Observer) -> Result<Index, EngineError> {
    Ok(pipeline::stage_dir(path, options, observer)?.index(observer))
}

/// The graph and its files' texts, as chunking and ranking read them.
struct GraphTexts<'a> {
    graph: &'a CodeGraph,
    texts: &'a [String],
    /// Each file's lines split into lexical terms, while indexing.
    line_terms: Option<&'a [LineTerms]>,
    /// Each node's name split into lexical terms, by node, while indexing.
    name_terms: &'a [Option<&'a [u32]>],
}

impl Sources for GraphTexts<'_> {
    fn graph(&self) -> &CodeGraph {
        self.graph
    }

    fn file_text(&self, file: usize) -> &str {
        self.texts.get(file).map_or("", String::as_str)
    }

    fn line_terms(&self, file: usize) -> Option<&LineTerms> {
        self.line_terms?.get(file)
    }

    fn name_terms(&self, node: fathom_graph::NodeId) -> Option<&[u32]> {
        *self.name_terms.get(node.index())?
    }
}

impl Index {
    /// Notes the heap's peak since parsing ended, for the summary's
    /// memory report.
    pub fn note_heap_peak(&mut self, peak: u64) {
        if let Some(memory) = &mut self.summary.memory {
            memory.peak = Some(peak);
        }
    }

    pub fn summary(&self) -> &IndexSummary {
        &self.summary
    }

    pub fn graph(&self) -> &CodeGraph {
        &self.graph
    }

    /// A node's source text, read from its file by its span: the `code`
    /// property, never stored twice. `None` for external nodes.
    pub fn code(&self, id: fathom_graph::NodeId) -> Option<&str> {
        let node = self.graph.node(id);
        let text = self.texts.get(node.file?.0 as usize)?;
        text.get(node.span.start_byte as usize..node.span.end_byte as usize)
    }

    /// Runs a read-only Cypher query with its `$parameters`.
    pub fn query(
        &self,
        text: &str,
        params: &std::collections::BTreeMap<String, serde_json::Value>,
    ) -> Result<QueryResult, CypherError> {
        fathom_query::cypher::run(self, text, params)
    }

    /// The functions and methods that call `symbol`, up to `depth` hops away.
    pub fn callers(&self, symbol: &str, depth: u32) -> Result<Vec<Reached>, QueryError> {
        fathom_query::callers(&self.graph, &fathom_query::find_symbol(&self.graph, symbol)?, depth)
    }

    /// What `symbol` calls, up to `depth` hops away.
    pub fn callees(&self, symbol: &str, depth: u32) -> Result<Vec<Reached>, QueryError> {
        fathom_query::callees(&self.graph, &fathom_query::find_symbol(&self.graph, symbol)?, depth)
    }

    /// Everything that depends on `symbol` or what it contains, with paths.
    pub fn impact(&self, symbol: &str, depth: u32) -> Result<Vec<Reached>, QueryError> {
        fathom_query::impact(&self.graph, &fathom_query::find_symbol(&self.graph, symbol)?, depth)
    }

    /// The shortest chain of dependency edges from one symbol to another.
    pub fn path(&self, from: &str, to: &str, depth: u32) -> Result<Option<Vec<Hop>>, QueryError> {
        let (from, to) = (fathom_query::find_symbol(&self.graph, from)?, fathom_query::find_symbol(&self.graph, to)?);
        fathom_query::path(&self.graph, &from, &to, depth)
    }

    /// The edges at `symbol`, of the given types (all when empty).
    pub fn neighbors(&self, symbol: &str, kinds: &[EdgeKind], direction: Direction) -> Result<Vec<Hop>, QueryError> {
        let ids = fathom_query::find_symbol(&self.graph, symbol)?;
        Ok(ids.into_iter().flat_map(|id| fathom_query::neighbors(&self.graph, id, kinds, direction)).collect())
    }

    /// A symbol with its signature, docs, members, callers, callees, tests and code.
    pub fn symbol(&self, symbol: &str) -> Result<SymbolContext, QueryError> {
        // Of an overload set, the first written stands for the symbol; a
        // definition before its own declarations (a method's body before
        // its line in the class, a function's before its prototype).
        let id = self.symbol_id(&fathom_query::find_symbol(&self.graph, symbol)?);
        let mut context = fathom_query::symbol(&self.graph, id);
        context.code = self.code(id).map(str::to_owned);
        Ok(context)
    }

    /// The node of an overload set that stands for it (see [`Index::symbol`]).
    pub(crate) fn symbol_id(&self, found: &[fathom_graph::NodeId]) -> fathom_graph::NodeId {
        found.iter().copied().find(|&id| self.graph.declared(id).is_none()).unwrap_or(found[0])
    }

    /// Every edge of the given types (all when empty), with both ends cited.
    pub fn edges(&self, kinds: &[fathom_graph::EdgeKind]) -> Vec<EdgeRecord> {
        let end = |id| {
            let node = self.graph.node(id);
            EdgeEnd {
                symbol: node.qualified_name.clone(),
                kind: node.kind,
                file: self.graph.path_of(id).map(str::to_owned),
                start_line: node.span.start_line,
                is_external: node.is_external,
            }
        };
        self.graph
            .edges()
            .filter(|(_, _, _, e)| kinds.is_empty() || kinds.contains(&e.kind))
            .map(|(_, from, to, e)| EdgeRecord {
                edge_type: e.kind,
                from: end(from),
                to: end(to),
                confidence: (e.confidence * 100.0).round() / 100.0,
                reason: e.reason,
                line: e.line,
            })
            .collect()
    }

    /// The language the file at `path` was read as, if it is indexed.
    pub fn language_of(&self, path: &str) -> Option<Language> {
        self.by_path.get(path).and_then(|&at| self.graph.files().get(at as usize)).map(|f| f.language)
    }

    /// The text of an indexed file.
    pub fn file_text(&self, path: &str) -> Option<&str> {
        self.by_path.get(path).map(|&at| self.texts[at as usize].as_str())
    }

    /// Every indexed file with its language, line count and number of
    /// definitions, in path order: what a quick-open lists.
    pub fn file_list(&self) -> Vec<FileInfo> {
        let mut definitions = vec![0u32; self.graph.files().len()];
        for (_, node) in self.graph.nodes() {
            if let Some(file) = node.file
                && !matches!(node.kind, SymbolKind::Module | SymbolKind::Package)
            {
                definitions[file.0 as usize] += 1;
            }
        }
        let mut files: Vec<FileInfo> = self
            .graph
            .files()
            .iter()
            .enumerate()
            .map(|(i, f)| FileInfo {
                path: f.path.clone(),
                language: f.language,
                lines: self.file_text(&f.path).map_or(0, |t| t.lines().count() as u32),
                definitions: definitions[i],
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// The repository as a map: positions, levels of detail, colour groups
    /// and edges, as column arrays.
    pub fn map(&self) -> map::GraphMap {
        let roles = self.retrieval.roles();
        map::build(&self.graph, |path| roles.of(path).role.family() == fathom_search::roles::Family::Test)
    }

    /// The graph and the files' texts as chunking and ranking read them:
    /// for whoever rebuilds or restores a retrieval index by hand.
    pub fn sources(&self) -> impl Sources + '_ {
        GraphTexts { graph: &self.graph, texts: &self.texts, line_terms: None, name_terms: &[] }
    }

    /// Searches symbols: BM25, names and trace locations, plus embeddings
    /// when `query_vector` (the query's embedding) is given and the dense
    /// index is built; fused, expanded through the graph, explained.
    /// The ranking behind [`Index::search`], by node id, before citations
    /// and snippets: for callers inside the engine that work on nodes.
    /// `candidates` as for [`Index::search_with`].
    fn rank(
        &self,
        query: &str,
        options: &SearchOptions,
        query_vector: Option<&[f32]>,
        candidates: Option<&ChunkVectors>,
    ) -> Ranking {
        fathom_search::query::search_with(&self.retrieval, &self.sources(), query, options, query_vector, candidates)
    }

    pub fn search(&self, query: &str, options: &SearchOptions, query_vector: Option<&[f32]>) -> SearchResults {
        self.search_with(query, options, query_vector, None)
    }

    /// The chunks MiniLM should read for a question where its whole index
    /// is not built: the best [`CANDIDATES`] of its words, names and static
    /// table, one chunk each, within [`CANDIDATE_CHARS`]. Empty where it adds nothing: MiniLM's index
    /// is built, the search is lexical, or the query is a bug report. Embed
    /// them ([`Index::chunk_text`], cached by [`Index::chunk_hash`], as
    /// whole-repository embedding caches them) and pass them to
    /// [`Index::search_with`]; `fathom_engine::embed::search` does it all
    /// natively.
    pub fn candidates(&self, query: &str, options: &SearchOptions) -> Vec<usize> {
        self.retrieval.candidates(&self.sources(), query, options, CANDIDATES, CANDIDATE_CHARS)
    }

    /// [`Index::search`], with MiniLM's vectors for the question's
    /// [`Index::candidates`] serving its dense lane (`query_vector` is then
    /// MiniLM's for the query).
    pub fn search_with(
        &self,
        query: &str,
        options: &SearchOptions,
        query_vector: Option<&[f32]>,
        candidates: Option<&ChunkVectors>,
    ) -> SearchResults {
        let Ranking { mode, note, hits, files, params } = fathom_search::query::search_with(
            &self.retrieval,
            &self.sources(),
            query,
            options,
            query_vector,
            candidates,
        );
        let terms = fathom_search::tokens::Terms::default();
        let hits = hits
            .into_iter()
            .map(|hit| {
                let node = self.graph.node(hit.node);
                let [first, last] = hit.explain.chunk_lines.unwrap_or([node.span.start_line, node.span.end_line]);
                let text = node.file.and_then(|f| self.texts.get(f.0 as usize)).map_or("", String::as_str);
                SearchHit {
                    snippet: snippet::snippet(text, first, last, query, &terms),
                    symbol: node.qualified_name.clone(),
                    name: node.name.clone(),
                    kind: node.kind,
                    language: node.language,
                    file: self.graph.path_of(hit.node).unwrap_or_default().to_owned(),
                    start_line: node.span.start_line,
                    end_line: node.span.end_line,
                    start_byte: node.span.start_byte,
                    end_byte: node.span.end_byte,
                    score: round5(hit.score),
                    match_kind: hit.name_match,
                    explain: round_explain(hit.explain),
                }
            })
            .collect();
        let files = files
            .into_iter()
            .take(options.k)
            .map(|f| FileHit {
                language: self.language_of(&f.file),
                file: f.file,
                score: round5(f.score),
                symbols: f
                    .symbols
                    .into_iter()
                    .map(|id| {
                        let node = self.graph.node(id);
                        Citation {
                            symbol: node.qualified_name.clone(),
                            kind: node.kind,
                            start_line: node.span.start_line,
                            end_line: node.span.end_line,
                        }
                    })
                    .collect(),
            })
            .collect();
        SearchResults { query: query.to_owned(), mode, note, hits, files, params }
    }

    /// "Where is the code this bug report is about?": files, best first, at
    /// most `k`, each with what put it there and the definitions to open
    /// in it. `query_vector`, the report's embedding (in segments, see
    /// `fathom_embed::Embedder::embed_query`), adds the dense lane.
    pub fn locate(&self, report: &str, k: usize, query_vector: Option<&[f32]>) -> Localisation {
        let vector = query_vector.filter(|_| self.embedding_status().dense_ready);
        let sources = self.sources();
        let (issue, meaning, explained) = Localiser::new(&self.retrieval, &sources).locate(report, vector, k);
        let files = explained
            .into_iter()
            .map(|e| LocatedFile {
                language: self.language_of(&e.file),
                symbols: e
                    .symbols
                    .into_iter()
                    .map(|s| {
                        let node = self.graph.node(s.node);
                        LocatedSymbol {
                            symbol: node.qualified_name.clone(),
                            kind: node.kind,
                            start_line: node.span.start_line,
                            end_line: node.span.end_line,
                            why: s.why,
                        }
                    })
                    .collect(),
                file: e.file,
                score: round5(e.score),
                reasons: e.reasons,
                evidence: e.evidence,
            })
            .collect();
        Localisation {
            frames: issue.frames.len(),
            names: issue.mentions.len(),
            dense: meaning.is_some(),
            meaning,
            files,
            weights: fathom_search::locate::WEIGHTS,
        }
    }

    /// The chunks both search indexes hold, in index order: none of a
    /// split bundle's reader's, which holds most by their symbol alone
    /// ([`fathom_search::chunks::Chunks`]).
    pub fn chunks(&self) -> &[Chunk] {
        self.retrieval.chunks().whole()
    }

    /// The text of a chunk: what is embedded.
    pub fn chunk_text(&self, chunk: usize) -> Option<String> {
        let chunk = self.retrieval.chunks().get(chunk)?;
        Some(fathom_search::chunks::text(&self.sources(), &chunk))
    }

    /// A chunk's key in the embedding cache ([`fathom_search::chunks::hash`]),
    /// computed now: indexing leaves hashing to the embedding that needs it.
    pub fn chunk_hash(&self, chunk: usize) -> Option<String> {
        let chunk = self.retrieval.chunks().get(chunk)?;
        Some(fathom_search::chunks::hash(&self.sources(), &chunk))
    }

    /// Chunks that have no vector yet.
    pub fn pending_chunks(&self) -> Vec<usize> {
        self.retrieval.pending().collect()
    }

    /// Records a chunk's embedding; call [`Index::build_dense`] when a batch
    /// of them is in.
    pub fn set_vector(&mut self, chunk: usize, vector: Vec<f32>) {
        self.retrieval.set_vector(chunk, vector);
    }

    pub fn vector(&self, chunk: usize) -> Option<&[f32]> {
        self.retrieval.vector(chunk)
    }

    /// Gives every chunk its vector from the static table (a lookup and a
    /// mean per chunk): search fuses meaning with words from then on, and
    /// MiniLM's lane takes over once its index is built.
    pub fn build_static(&mut self, model: std::sync::Arc<fathom_static::StaticModel>) -> Result<(), String> {
        let sources = GraphTexts { graph: &self.graph, texts: &self.texts, line_terms: None, name_terms: &[] };
        self.retrieval.build_static(&sources, model)
    }

    /// Leaves the static lane out (a bundle that carries MiniLM's vectors
    /// alone).
    pub fn clear_static(&mut self) {
        self.retrieval.clear_static();
    }

    /// Builds the HNSW index over every embedded chunk.
    pub fn build_dense(&mut self) -> Option<HnswParams> {
        self.retrieval.build_dense()
    }

    /// Names the model the vectors come from (set by whoever embeds); a
    /// bundle records it, so a reader can tell whether its own model's query
    /// vectors are comparable.
    pub fn set_embedding_model(&mut self, model: impl Into<String>) {
        self.embedding_model = Some(model.into());
    }

    pub fn embedding_model(&self) -> Option<&str> {
        self.embedding_model.as_deref()
    }

    /// Forgets every vector and the dense index, as after a bundle written
    /// with another model is loaded: search is lexical until the chunks are
    /// embedded again.
    pub fn clear_embeddings(&mut self) {
        self.retrieval.clear_vectors();
        self.embedding_model = None;
    }

    /// What it was indexed with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    pub fn embedding_status(&self) -> EmbeddingStatus {
        EmbeddingStatus {
            chunks: self.retrieval.chunks().len(),
            embedded: self.retrieval.embedded(),
            dense_ready: self.retrieval.dense().is_some(),
            static_ready: self.retrieval.static_lane().is_some(),
            static_stored: self.retrieval.stored_static_table().map(str::to_owned),
        }
    }

    pub fn retrieval(&self) -> &Retrieval {
        &self.retrieval
    }
}

/// Fused scores are small (1/61 is a first rank): five decimals keep their
/// order and keep output readable and stable.
fn round5(x: f64) -> f64 {
    (x * 1e5).round() / 1e5
}

fn round_explain(mut explain: Explain) -> Explain {
    let lanes = &mut explain.lanes;
    for v in [&mut lanes.lexical, &mut lanes.dense, &mut lanes.name, &mut lanes.trace] {
        *v = round5(*v);
    }
    if let Some(graph) = explain.graph.as_mut() {
        graph.score = round5(graph.score);
    }
    explain
}

impl fathom_query::cypher::Source for Index {
    fn graph(&self) -> &CodeGraph {
        &self.graph
    }

    fn code(&self, id: fathom_graph::NodeId) -> Option<&str> {
        Index::code(self, id)
    }
}
