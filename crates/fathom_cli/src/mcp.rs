//! `fathom mcp`: the graph and the search, served to coding agents over the
//! Model Context Protocol (stdio), with the official Rust SDK (`rmcp`).
//!
//! The repository is indexed (or its bundle loaded) once, at start. Each tool
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

/// The most characters one answer holds; longer answers are cut at a line.
pub const MAX_CHARS: usize = 16_000;

#[derive(Clone)]
pub struct Server {
    index: Arc<Index>,
    /// The model and its disk cache: it re-ranks each question's
    /// candidates, or embeds the query where the index has every vector.
    minilm: Option<Arc<Mutex<Minilm>>>,
    tool_router: ToolRouter<Self>,
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
            index: Arc::new(index),
            minilm: embedder
                .map(|embedder| Arc::new(Mutex::new(Minilm { embedder, cache: crate::embedding::cache() }))),
            tool_router: Self::tool_router(),
        }
    }

    /// A query's embedding, when the index has vectors and the model is loaded.
    fn query_vector(&self, query: &str) -> Option<Vec<f32>> {
        if !self.index.embedding_status().dense_ready {
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
        let reranked = self.minilm.as_ref().and_then(|minilm| {
            let mut minilm = minilm.lock().ok()?;
            let Minilm { embedder, cache } = &mut *minilm;
            fathom_engine::embed::search(&self.index, embedder, cache.as_mut(), &args.query, &options).ok()
        });
        let results = reranked.unwrap_or_else(|| self.index.search(&args.query, &options, None));
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
        let k = args.k.unwrap_or(10).clamp(1, 50);
        let vector = self.query_vector(&args.issue);
        let found = self.index.locate(&args.issue, k, vector.as_deref());
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
        match self.index.query(&args.query, &args.params) {
            Ok(result) => answer(output::render(|out| output::write_query(out, &result))),
            Err(e) => failure(e),
        }
    }

    /// One symbol in full: its kind and `path:line`, signature, first docstring line,
    /// complexity and size, fan-in and fan-out, callers and callees (with each edge's
    /// confidence and reason), members and the tests that exercise it.
    #[tool]
    fn symbol(&self, Parameters(args): Parameters<SymbolArgs>) -> CallToolResult {
        match self.index.symbol(&args.symbol) {
            Ok(context) => answer(output::render(|out| output::write_symbol(out, &context))),
            Err(e) => failure(e),
        }
    }

    /// The functions and methods that call a symbol, up to `depth` hops (1 to 4), each
    /// with its `path:line`, the path's confidence and the call edges that lead to it.
    #[tool]
    fn callers(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        reached(self.index.callers(&args.symbol, args.depth.unwrap_or(1)))
    }

    /// What a symbol calls, up to `depth` hops (1 to 4), each with its `path:line` and
    /// the call edges that lead to it.
    #[tool]
    fn callees(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        reached(self.index.callees(&args.symbol, args.depth.unwrap_or(1)))
    }

    /// What could break if a symbol changes: everything that depends on it or on its
    /// members (callers, users, subclasses, importers, tests), up to `depth` hops (1 to 4,
    /// default 2), with the dependency path and its confidence.
    #[tool]
    fn impact(&self, Parameters(args): Parameters<TraversalArgs>) -> CallToolResult {
        reached(self.index.impact(&args.symbol, args.depth.unwrap_or(2)))
    }

    /// Which tests to run for a change, best first: give a unified diff, a description,
    /// changed symbols, or a mix. Each test comes with its evidence (the edge path from the
    /// change, ending in a TESTS edge, and the matched terms), followed by the impact by
    /// package. When the evidence is weak it says "no recommendation" and why, instead of
    /// guessing.
    #[tool]
    fn tests_for(&self, Parameters(args): Parameters<TestsForArgs>) -> CallToolResult {
        if args.diff.is_none() && args.change.is_none() && args.symbols.is_empty() {
            return failure("say what changed: `diff`, `change` or `symbols`");
        }
        let change =
            Change { diff: args.diff, text: args.change, symbols: args.symbols, k: Some(args.k.unwrap_or(10)) };
        match self.index.tests_for(&change, None) {
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

fn reached(found: Result<Vec<fathom_engine::Reached>, fathom_engine::QueryError>) -> CallToolResult {
    match found {
        Ok(reached) => answer(output::render(|out| output::write_reached(out, &reached))),
        Err(e) => failure(e),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let summary = self.index.summary();
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fathom", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Fathom answers questions about the code of {} ({} files, {} symbols, {} edges) from its \
                 code graph and search index. Use `search` to find code, `symbol` to read one definition \
                 with its callers and callees, `callers`/`callees`/`impact` to follow dependencies, \
                 `tests_for` before changing code, and `cypher` (see `schema`) for structural questions. \
                 Answers cite `path:line`.",
                summary.archive, summary.files, summary.symbols, summary.edges
            ))
    }
}

/// Serves `index` over stdin and stdout until the client closes stdin.
pub fn serve(index: Index, embedder: Option<Embedder>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let service = Server::new(index, embedder).serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        Ok(())
    })
}
