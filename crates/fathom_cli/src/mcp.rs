//! `fathom mcp`: the graph and the search, served to coding agents over the
//! Model Context Protocol (stdio), with the official Rust SDK (`rmcp`).
//!
//! The repository is indexed (or its bundle loaded) once, at start; a split
//! bundle's directory is read in parts instead, each tool fetching what its
//! question needs and keeping it for the next ([`crate::split_dir`]). Each tool
//! answers with the compact text the CLI prints, whose `path:line` citations
//! an agent can open, cut at [`MAX_CHARS`] with a note saying how to narrow
//! the question. Failures the agent can fix (an unknown symbol, a Cypher
//! syntax error) come back as tool errors carrying the cause.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use fathom_embed::Embedder;
use fathom_embed::cache::DiskCache;
use fathom_engine::tests_for::Change;
use fathom_engine::{Index, SearchMode, SearchOptions};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::output;
use crate::split_dir::SplitDir;

/// The most characters one answer holds; longer answers are cut at a line.
pub const MAX_CHARS: usize = 16_000;

/// The most heap the server holds with a split bundle's reader before the
/// reader forgets what it read and starts again from the root.
const SPLIT_HELD: u64 = 256 << 20;

/// The tools a split bundle cannot answer: each reads the whole index
/// (every file's terms for a report, every test's reach for a change).
const WHOLE_ONLY: [&str; 2] = ["locate", "tests_for"];

#[derive(Clone)]
pub struct Server {
    source: Source,
    /// The model and its disk cache: it re-ranks each question's
    /// candidates, or embeds the query where the index has every vector.
    minilm: Option<Arc<Mutex<Minilm>>>,
    tool_router: ToolRouter<Self>,
}

/// What the tools read: an index in memory, or a split bundle in parts.
#[derive(Clone)]
enum Source {
    Whole(Arc<Index>),
    Split(Arc<Mutex<SplitDir>>),
}

struct Minilm {
    embedder: Embedder,
    cache: Option<DiskCache>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// What to find: a description ("where are sessions saved"), an
    /// identifier, an error message or a stack trace.
    pub query: String,
    /// How many results (default 10, at most 50).
    pub k: Option<usize>,
    /// Rank files instead of symbols.
    #[serde(default)]
    pub files: bool,
}

#[derive(Deserialize, JsonSchema)]
pub struct LocateArgs {
    /// The bug report as written: its title and text, with any traceback,
    /// code and error output.
    pub issue: String,
    /// How many files (default 10, at most 50).
    pub k: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct CypherArgs {
    /// A read-only Cypher query, e.g. `MATCH (c:CLASS)-[:HAS_METHOD]->(m:METHOD) WHERE c.name = $name RETURN m.name, m.file, m.start_line`.
    pub query: String,
    /// Values for `$parameters` in the query.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// Over a split bundle only: the most the query may fetch, in MB
    /// (default 5). A query that would fetch more is refused with what it
    /// would cost; name the nodes it starts from, or raise this.
    pub fetch_mb: Option<f64>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SymbolArgs {
    /// A qualified name (`pkg.module.Class.method`), a dotted suffix
    /// (`Class.method`) or a simple name only one symbol has.
    pub symbol: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct TraversalArgs {
    /// A qualified name (`pkg.module.Class.method`), a dotted suffix
    /// (`Class.method`) or a simple name only one symbol has.
    pub symbol: String,
    /// Hops, 1 to 4 (default 1 for callers and callees, 2 for impact).
    pub depth: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
pub struct TestsForArgs {
    /// A unified diff (`git diff` output) against the indexed code.
    pub diff: Option<String>,
    /// A description of the change: a ticket, a bug report.
    pub change: Option<String>,
    /// Changed symbols, by qualified name.
    #[serde(default)]
    pub symbols: Vec<String>,
    /// How many tests (default 10).
    pub k: Option<usize>,
}

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

/// An answer: the text, cut at a line past [`MAX_CHARS`] with a note.
fn answer(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(bounded(text))])
}

fn failure(message: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}

pub fn bounded(text: String) -> String {
    if text.len() <= MAX_CHARS {
        return text;
    }
    let mut cut = MAX_CHARS;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = text[..cut].rfind('\n').map_or(cut, |at| at + 1);
    let left = text[cut..].lines().count();
    format!("{}… {left} more lines cut; narrow the question (a smaller k or depth, a LIMIT)\n", &text[..cut])
}

fn cypher_description() -> String {
    let schema = output::render(|out| output::write_schema(out, &fathom_engine::schema()));
    format!(
        "Run a read-only Cypher query over the repository's code graph and get a table. \
         Use it for structural questions: all methods of a class, subclasses, who imports a module, \
         functions without tests, call chains. MATCH, OPTIONAL MATCH, WHERE, WITH, RETURN, ORDER BY, \
         SKIP, LIMIT, count/collect and variable-length paths up to 4 hops are supported; writes are refused. \
         Rows are capped (LIMIT 100 by default, at most 2,000). Every node has qualified_name, name, file, \
         start_line and end_line, so rows can cite code. Every edge has confidence (0 to 1) and reason.\n\n{schema}"
    )
}

#[tool_router]
impl Server {
    pub fn new(index: Index, embedder: Option<Embedder>) -> Server {
        Server {
            source: Source::Whole(Arc::new(index)),
            minilm: embedder
                .map(|embedder| Arc::new(Mutex::new(Minilm { embedder, cache: crate::embedding::cache() }))),
            tool_router: Self::tool_router(),
        }
    }

    /// A server over a split bundle's directory: the tools that read the
    /// whole index ([`WHOLE_ONLY`]) are not offered.
    pub fn split(dir: SplitDir) -> Server {
        let mut tool_router = Self::tool_router();
        for name in WHOLE_ONLY {
            tool_router.remove_route(name);
        }
        Server { source: Source::Split(Arc::new(Mutex::new(dir))), minilm: None, tool_router }
    }

    /// Answers a question of a split bundle, fetching at most `allowed`
    /// bytes for it, and forgets what the reader holds past [`SPLIT_HELD`].
    fn ask_split<T>(
        dir: &Mutex<SplitDir>,
        allowed: u64,
        step: impl FnMut(&mut fathom_engine::split::SplitReader) -> fathom_engine::split::Step<T>,
    ) -> Result<std::result::Result<T, fathom_engine::split::Costly>, String> {
        let mut dir = dir.lock().map_err(|_| "an earlier question failed while reading the split bundle".to_owned())?;
        let answer = dir.ask(allowed, step).map_err(|e| format!("{e:#}"))?;
        eprintln!("fathom: {}", dir.report());
        dir.forget_past(SPLIT_HELD).map_err(|e| format!("{e:#}"))?;
        Ok(answer)
    }

    /// [`Server::ask_split`] with no limit.
    fn ask_all<T>(
        dir: &Mutex<SplitDir>,
        step: impl FnMut(&mut fathom_engine::split::SplitReader) -> fathom_engine::split::Step<T>,
    ) -> Result<T, String> {
        Ok(Self::ask_split(dir, u64::MAX, step)?.expect("nothing costs more than everything"))
    }

    /// The whole index, for the tools only it answers ([`WHOLE_ONLY`]).
    fn whole(&self) -> Result<&Index, CallToolResult> {
        match &self.source {
            Source::Whole(index) => Ok(index),
            Source::Split(_) => Err(failure(
                "this tool reads the whole index, and a split bundle is read in parts: serve a whole bundle (`fathom index TARGET -o FILE`) or the source",
            )),
        }
    }

    /// A query's embedding, when the index has vectors and the model is loaded.
    fn query_vector(&self, index: &Index, query: &str) -> Option<Vec<f32>> {
        if !index.embedding_status().dense_ready {
            return None;
        }
        let minilm = self.minilm.as_ref()?.lock().ok()?;
        minilm.embedder.embed_query(query).ok()
    }

    /// Search the repository for code: BM25 over identifiers (split and whole), docstrings
    /// and paths, fused with semantic search (MiniLM over the best candidates, or over every
    /// chunk when the index has its vectors), then
    /// expanded one hop through the graph. Each line is a symbol with its kind, its
    /// `path:start-end` citation and why it matched. Start here to find where something lives.
    #[tool]
    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> CallToolResult {
        let k = args.k.unwrap_or(10).clamp(1, 50);
        let options = SearchOptions { k, ..SearchOptions::default() };
        let results = match &self.source {
            Source::Whole(index) => {
                let reranked = self.minilm.as_ref().and_then(|minilm| {
                    let mut minilm = minilm.lock().ok()?;
                    let Minilm { embedder, cache } = &mut *minilm;
                    fathom_engine::embed::search(index, embedder, cache.as_mut(), &args.query, &options).ok()
                });
                reranked.unwrap_or_else(|| index.search(&args.query, &options, None))
            }
            Source::Split(dir) => match Self::ask_all(dir, |r| r.search_step(&args.query, &options)) {
                Ok(results) => results,
                Err(e) => return failure(e),
            },
        };
        let mut text = output::render(|out| {
            if let Some(note) = &results.note {
                writeln!(out, "note: {note}")?;
            }
            output::write_search(out, &results, args.files)
        });
        if results.hits.is_empty() {
            text.push_str("no match\n");
        }
        let mode = match results.mode {
            SearchMode::Hybrid => "hybrid",
            SearchMode::Dense => "dense",
            SearchMode::Lexical => "lexical",
        };
        answer(format!("{mode} search, {} results\n{text}", results.hits.len()))
    }

    /// Find the code a bug report is about. Give the whole report: title, text, traceback,
    /// code and error output. Answers files best first, each with the evidence that put it
    /// there (traceback frame, names the report uses, error messages found as they are,
    /// matched terms, graph edge), then the definitions to open in it with `path:start-end`.
    #[tool]
    fn locate(&self, Parameters(args): Parameters<LocateArgs>) -> CallToolResult {
        let index = match self.whole() {
            Ok(index) => index,
            Err(refused) => return refused,
        };
        let k = args.k.unwrap_or(10).clamp(1, 50);
        let vector = self.query_vector(index, &args.issue);
        let found = index.locate(&args.issue, k, vector.as_deref());
        let mut text = output::render(|out| output::write_locate(out, &found));
        if found.files.is_empty() {
            text.push_str("no file matches the report\n");
        }
        answer(format!(
            "{} files for the report{}\n{text}",
            found.files.len(),
            if found.dense { " (words and meaning)" } else { "" }
        ))
    }

    #[tool(description = cypher_description())]
    fn cypher(&self, Parameters(args): Parameters<CypherArgs>) -> CallToolResult {
        let result = match &self.source {
            Source::Whole(index) => index.query(&args.query, &args.params),
            Source::Split(dir) => {
                let mb = args.fetch_mb.unwrap_or(crate::split_dir::FETCH_MB).max(0.0);
                let allowed = crate::split_dir::megabytes(mb);
                match Self::ask_split(dir, allowed, |r| r.query_step(&args.query, &args.params)) {
                    Ok(Ok(result)) => result,
                    Ok(Err(costly)) => return failure(crate::split_dir::refusal(&costly, &format!("fetch_mb {mb}"))),
                    Err(e) => return failure(e),
                }
            }
        };
        match result {
            Ok(result) => answer(output::render(|out| output::write_query(out, &result))),
            Err(e) => failure(e),
        }
    }

    /// One symbol in full: its kind and `path:line`, signature, first docstring line,
    /// complexity and size, fan-in and fan-out, callers and callees (with each edge's
    /// confidence and reason), members and the tests that exercise it.
    #[tool]
    fn symbol(&self, Parameters(args): Parameters<SymbolArgs>) -> CallToolResult {
        let context = match &self.source {
            Source::Whole(index) => index.symbol(&args.symbol),
            Source::Split(dir) => match Self::ask_all(dir, |r| r.symbol_step(&args.symbol)) {
                Ok(context) => context,
                Err(e) => return failure(e),
            },
        };
        match context {
            Ok(context) => answer(output::render(|out| output::write_symbol(out, &context))),
            Err(e) => failure(e),
        }
    }

    /// The functions and methods that call a symbol, up to `depth` hops (1 to 4), each
    /// with its `path:line`, the path's confidence and the call edges that lead to it.
    #[tool]
    fn callers(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        let depth = args.depth.unwrap_or(1);
        self.reached(|index| index.callers(&args.symbol, depth), |r| r.callers_step(&args.symbol, depth))
    }

    /// What a symbol calls, up to `depth` hops (1 to 4), each with its `path:line` and
    /// the call edges that lead to it.
    #[tool]
    fn callees(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        let depth = args.depth.unwrap_or(1);
        self.reached(|index| index.callees(&args.symbol, depth), |r| r.callees_step(&args.symbol, depth))
    }

    /// What could break if a symbol changes: everything that depends on it or on its
    /// members (callers, users, subclasses, importers, tests), up to `depth` hops (1 to 4,
    /// default 2), with the dependency path and its confidence.
    #[tool]
    fn impact(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        let depth = args.depth.unwrap_or(2);
        self.reached(|index| index.impact(&args.symbol, depth), |r| r.impact_step(&args.symbol, depth))
    }

    /// Which tests to run for a change, best first: give a unified diff, a description,
    /// changed symbols, or a mix. Each test comes with its evidence (the edge path from the
    /// change, ending in a TESTS edge, and the matched terms), followed by the impact by
    /// package. When the evidence is weak it says "no recommendation" and why, instead of
    /// guessing.
    #[tool]
    fn tests_for(&self, Parameters(args): Parameters<TestsForArgs>) -> CallToolResult {
        let index = match self.whole() {
            Ok(index) => index,
            Err(refused) => return refused,
        };
        if args.diff.is_none() && args.change.is_none() && args.symbols.is_empty() {
            return failure("say what changed: `diff`, `change` or `symbols`");
        }
        let change =
            Change { diff: args.diff, text: args.change, symbols: args.symbols, k: Some(args.k.unwrap_or(10)) };
        match index.tests_for(&change, None) {
            Ok(found) => answer(output::render(|out| output::write_tests_for(out, &found))),
            Err(e) => failure(e),
        }
    }

    /// The code graph's schema: node labels with their properties, edge types, and the
    /// reasons an inferred edge can give. Read it before writing Cypher.
    #[tool]
    fn schema(&self, Parameters(_): Parameters<NoArgs>) -> CallToolResult {
        answer(output::render(|out| output::write_schema(out, &fathom_engine::schema())))
    }
}

type Reached = Result<Vec<fathom_engine::Reached>, fathom_engine::QueryError>;

impl Server {
    /// A traversal's answer: `whole` over an index, `step` over a split
    /// bundle (which fetches the symbol's neighbourhood).
    fn reached(
        &self,
        whole: impl FnOnce(&Index) -> Reached,
        step: impl FnMut(&mut fathom_engine::split::SplitReader) -> fathom_engine::split::Step<Reached>,
    ) -> CallToolResult {
        let found = match &self.source {
            Source::Whole(index) => whole(index),
            Source::Split(dir) => match Self::ask_all(dir, step) {
                Ok(found) => found,
                Err(e) => return failure(e),
            },
        };
        match found {
            Ok(reached) => answer(output::render(|out| output::write_reached(out, &reached))),
            Err(e) => failure(e),
        }
    }

    /// What the index holds, from the index or the split bundle's root
    /// and its summary's item.
    fn summary(&self) -> Result<fathom_engine::IndexSummary, String> {
        match &self.source {
            Source::Whole(index) => Ok(index.summary().clone()),
            Source::Split(dir) => Self::ask_all(dir, |r| r.summary_step()),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let about = match self.summary() {
            Ok(summary) => format!(
                "the code of {} ({} files, {} symbols, {} edges)",
                summary.archive, summary.files, summary.symbols, summary.edges
            ),
            Err(why) => format!("a repository (its summary does not read: {why})"),
        };
        let split = match self.source {
            Source::Whole(_) => "",
            Source::Split(_) => {
                " This is a split bundle, read in parts as questions need them: `locate` and `tests_for` \
                 are not offered, and a Cypher query that would read more than `fetch_mb` (5 MB) is refused \
                 with its cost."
            }
        };
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fathom", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Fathom answers questions about {about} from its \
                 code graph and search index. Use `search` to find code, `symbol` to read one definition \
                 with its callers and callees, `callers`/`callees`/`impact` to follow dependencies, \
                 `tests_for` before changing code, and `cypher` (see `schema`) for structural questions. \
                 Answers cite `path:line`.{split}"
            ))
    }
}

/// Serves `server` over stdin and stdout until the client closes stdin.
pub fn serve(server: Server) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let service = server.serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    })
}
