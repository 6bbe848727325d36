//! `fathom`: the command-line face of the same core the browser runs.

mod batch;
mod embedding;
mod mcp;
mod memory;
mod output;
mod progress;
mod split_dir;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use fathom_engine::split::SplitReader;
use fathom_engine::tests_for::Change;
use fathom_engine::{Index, Options, SearchMode, SearchOptions, human_bytes};

/// The system allocator, counted: indexing measures what it holds and stops
/// admitting files near the memory budget (`memory`).
#[global_allocator]
static ALLOCATOR: fathom_engine::heap::Counted = fathom_engine::heap::Counted;

#[derive(Parser)]
#[command(name = "fathom", version, about = "Code comprehension for a repository archive or directory")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The memory an index may take, in MB. By default, what the system
    /// allows this process (its address-space and control-group limits, the
    /// memory available); files past it are left out, and said so first.
    #[arg(long, global = true, value_name = "MB")]
    memory: Option<u64>,
}

/// `--memory`, for every command that indexes.
static MEMORY: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();

/// The embeddings a bundle carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Vectors {
    Both,
    Static,
    Minilm,
    None,
}

#[derive(Subcommand)]
enum Command {
    /// Index a repository and summarise what was found, skipped and failed;
    /// with -o, write the index as a bundle (`.fathom`) for the browser, a
    /// static site or later commands.
    Index {
        /// A `.zip`, `.tar.gz` or `.tar` archive, or a directory (its `.gitignore` honoured).
        target: PathBuf,
        /// Write the index to this bundle file.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Which embeddings the bundle carries: the static table's (int8, a
        /// few hundred bytes a chunk, ready at once; a reader loads the
        /// table, a few MB, to embed queries), MiniLM's (embedded now, on
        /// the CPU), both, or none (searched by words only).
        #[arg(long, value_enum, default_value_t = Vectors::Both)]
        vectors: Vectors,
        /// The same as `--vectors none`.
        #[arg(long)]
        no_embed: bool,
        /// Write a split bundle: `-o` names a directory that a static host
        /// serves as it is (`root.fathom` and content-addressed items under
        /// `s/`), read in parts, on demand. It carries the static table's
        /// vectors (`--vectors static`, or `both`), read by a query's word
        /// pieces, or none; not MiniLM's.
        #[arg(long, requires = "output")]
        split: bool,
        /// Leave out paths matching a glob (repeatable): `docs/**`, `*.min.js`, `tests`.
        #[arg(long, value_name = "GLOB")]
        exclude: Vec<String>,
        /// A SCIP index of the same revision (repeatable: one per language
        /// or project), from scip-python, scip-typescript, rust-analyzer...:
        /// its references become edges with reason `scip`, and in the files
        /// it covers it confirms or replaces Fathom's inferred calls.
        #[arg(long, value_name = "FILE")]
        scip: Vec<PathBuf>,
        /// Print one JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// What an index or a bundle holds: files, symbols and edges by kind and
    /// language, what was skipped, and for a bundle its header.
    Stats {
        /// A bundle, an archive or a directory.
        target: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Export the graph for other tools: JSON, GraphML (Gephi, yEd, NetworkX)
    /// or CSV (`nodes.csv` and `edges.csv`).
    Export {
        /// A bundle, an archive or a directory.
        target: PathBuf,
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// The file to write (JSON, GraphML; stdout without it; SCIP:
        /// `index.scip` without it), or for CSV the directory that gets
        /// `nodes.csv` and `edges.csv` (default: here).
        #[arg(short, long, value_name = "PATH")]
        output: Option<PathBuf>,
    },
    /// Serve the repository to coding agents over the Model Context Protocol (stdio).
    Mcp {
        /// A bundle, an archive or a directory.
        target: PathBuf,
        /// Search by words only: load no model, embed nothing.
        #[arg(long)]
        lexical: bool,
        /// Read meaning with MiniLM instead of the static table: embeds
        /// every chunk first (minutes on a CPU for a large repository; the
        /// disk cache keeps them).
        #[arg(long, conflicts_with = "lexical")]
        minilm: bool,
    },
    /// Run a read-only Cypher query: {columns, rows, truncated}.
    Query {
        /// A `.zip` archive or a directory.
        target: PathBuf,
        /// The query, e.g. "MATCH (c:CLASS)-[:HAS_METHOD]->(m) RETURN c.name, count(m)".
        cypher: String,
        /// A `$parameter`, as name=JSON (e.g. names='["a","b"]'); a value that is not JSON is a string.
        #[arg(long = "param", value_parser = parse_param)]
        params: Vec<(String, serde_json::Value)>,
        #[arg(long)]
        json: bool,
        /// Over a split bundle (`DIR/`): the most the query may fetch, in MB. A query
        /// that would fetch more (one that matches nodes by no name reads the whole
        /// graph) stops first and says how much it needs.
        #[arg(long, default_value_t = split_dir::FETCH_MB)]
        fetch_limit: f64,
    },
    /// Who calls a symbol, up to --depth hops (1 to 4), with each edge's confidence.
    Callers(Traversal),
    /// What a symbol calls, up to --depth hops (1 to 4).
    Callees(Traversal),
    /// What depends on a symbol (callers, users, subclasses, importers), with paths.
    Impact(Traversal),
    /// The tests to run for a change, with their evidence; exit 1 when it abstains.
    TestsFor(TestsForArgs),
    /// The shortest chain of dependency edges from one symbol to another.
    Path {
        target: PathBuf,
        from: String,
        to: String,
        #[arg(long, default_value_t = fathom_engine::MAX_DEPTH)]
        depth: u32,
        #[arg(long)]
        json: bool,
    },
    /// The edges at a symbol.
    Neighbors {
        target: PathBuf,
        symbol: String,
        /// Only edges of these types (repeatable).
        #[arg(long = "type", value_parser = parse_edge_kind)]
        types: Vec<fathom_engine::EdgeKind>,
        /// outgoing, incoming or both.
        #[arg(long, default_value = "both", value_parser = parse_direction)]
        direction: fathom_engine::Direction,
        #[arg(long)]
        json: bool,
    },
    /// A symbol with its signature, docs, members, callers, callees, tests and code.
    Symbol {
        target: PathBuf,
        symbol: String,
        #[arg(long)]
        json: bool,
    },
    /// List edges with both ends cited, for review or other tools.
    Edges {
        /// A `.zip` archive or a directory.
        target: PathBuf,
        /// Only edges of these types, such as `CALLS` (repeatable).
        #[arg(long = "type", value_parser = parse_edge_kind)]
        types: Vec<fathom_engine::EdgeKind>,
        /// Print a JSON array instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Print the graph schema: node labels, properties, edge types, reasons.
    Schema {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Find the code a bug report is about: files best first, then the
    /// definitions to open in each, every one with the evidence that put it
    /// there (the traceback frame, the names the report uses, the phrases
    /// found as they are, the matched terms, the graph edge).
    Locate {
        /// A `.zip` archive, a directory or a bundle.
        target: PathBuf,
        /// The report: a file holding its title and text, `-` for stdin.
        #[arg(long, value_name = "FILE|-")]
        issue: PathBuf,
        /// How many files to list.
        #[arg(long, short, default_value_t = 10)]
        k: usize,
        /// Embed the chunks with MiniLM first (slow on a CPU for a large
        /// repository), as a bundle with embeddings already is. Reports are
        /// read by words; see `dense` in the output for whether meaning
        /// took part.
        #[arg(long)]
        embed: bool,
        /// Print JSON: {files: [{file, score, reasons, symbols, evidence}], frames, names, dense, weights}.
        #[arg(long)]
        json: bool,
    },
    /// Search code by description, error message, stack trace or identifier:
    /// BM25 and embeddings (the static table's with MiniLM over the
    /// question's best candidates, or MiniLM's over every chunk with
    /// `--minilm` or from a bundle) fused with RRF, expanded through the
    /// graph, every hit cited and explained.
    Search {
        /// A `.zip` archive or a directory.
        target: PathBuf,
        /// What to look for.
        #[arg(required_unless_present = "queries", conflicts_with = "queries")]
        query: Option<String>,
        /// Answer many queries against one index: a JSON Lines file of
        /// `{"id": ..., "query": "..."}`, `-` for stdin. Prints one JSON line
        /// per query with its `id`; a malformed line gets an `error` line.
        #[arg(long, value_name = "FILE.jsonl")]
        queries: Option<PathBuf>,
        /// How many hits (or files) to print.
        #[arg(long, short, default_value_t = 10)]
        k: usize,
        /// Rank files instead of symbols.
        #[arg(long)]
        files: bool,
        /// lexical (BM25, names, trace locations), dense (embeddings) or hybrid (both, fused).
        #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
        mode: ModeArg,
        /// Read meaning with MiniLM over every chunk, not only over the
        /// question's best candidates: embeds every chunk first (minutes on
        /// a CPU for a large repository; the disk cache keeps them). A
        /// bundle's MiniLM vectors are used without it.
        #[arg(long)]
        minilm: bool,
        /// Print JSON: {query, mode, note, hits | files, params}, each hit with `explain`.
        #[arg(long)]
        json: bool,
    },
}

/// What a change is, for `tests-for`: any mix of a diff, a description and symbols.
#[derive(clap::Args)]
struct TestsForArgs {
    /// A `.zip` archive or a directory (the code before the change).
    target: PathBuf,
    /// A unified diff (`git diff` output); `-` reads it from stdin.
    #[arg(long, value_name = "FILE")]
    diff: Option<PathBuf>,
    /// A description of the change: a ticket, a bug report.
    #[arg(long, value_name = "TEXT")]
    change: Option<String>,
    /// A changed symbol (repeatable).
    #[arg(long = "symbol", value_name = "QNAME")]
    symbols: Vec<String>,
    /// How many tests to list.
    #[arg(long, short, default_value_t = 20)]
    k: usize,
    /// Read a description by its words only: no embeddings, so no model
    /// (by default a description also ranks tests by meaning).
    #[arg(long)]
    lexical: bool,
    /// Print JSON: {changed, tests (each with its evidence path), impact, abstained, notes}.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ExportFormat {
    Json,
    Graphml,
    Csv,
    /// A SCIP index (protobuf) of the definitions and the edges resolved
    /// with confidence 0.9 or more, for tools that read SCIP.
    Scip,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModeArg {
    Lexical,
    Dense,
    Hybrid,
}

/// A traversal from one symbol.
#[derive(clap::Args)]
struct Traversal {
    /// A `.zip` archive or a directory.
    target: PathBuf,
    /// A qualified name, or a simple name that only one symbol has.
    #[arg(required_unless_present = "named", conflicts_with = "named")]
    symbol: Option<String>,
    /// The symbol, as an option: `--symbol QNAME`.
    #[arg(long = "symbol", id = "named", value_name = "QNAME")]
    named: Option<String>,
    /// Hops, 1 to 4.
    #[arg(long, default_value_t = 2)]
    depth: u32,
    /// Print JSON instead of lines.
    #[arg(long)]
    json: bool,
}

impl Traversal {
    fn symbol(&self) -> &str {
        self.symbol.as_deref().or(self.named.as_deref()).expect("clap requires one")
    }
}

fn main() -> ExitCode {
    fathom_engine::heap::count_tree_sitter();
    match run(Cli::parse()) {
        Ok(code) => code,
        // The reader closed the pipe (`fathom ... | head`): nothing is wrong.
        Err(err)
            if err.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("fathom: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    MEMORY.get_or_init(|| cli.memory);
    match cli.command {
        Command::Index { target, output, vectors, no_embed, split, exclude, scip, json } => {
            let vectors = if no_embed { Vectors::None } else { vectors };
            if split && vectors == Vectors::Minilm {
                anyhow::bail!(
                    "a split bundle carries the static table's vectors only: use `--vectors static` or `none`"
                );
            }
            let exclude = fathom_engine::Exclude::new(&exclude)?;
            let scip = read_scip(&scip);
            let mut index = open_with(&target, &Options { exclude, ..Options::default() }, scip)?;
            if let Some(dir) = output.as_ref().filter(|_| split) {
                // The static lane, read by a query's word pieces; MiniLM's
                // vectors are not split (`both` splits the static lane).
                if vectors == Vectors::None {
                    index.clear_static();
                } else {
                    drop(embedding::prepare(&mut index, false)?);
                }
                let split = index.to_split();
                split.write(dir).with_context(|| format!("cannot write the split bundle `{}`", dir.display()))?;
                let r = &split.report;
                eprintln!(
                    "fathom: wrote {} (split: {} items, {}; root {})",
                    dir.display(),
                    split.items.len(),
                    human_bytes(r.bytes()),
                    human_bytes(r.root_bytes)
                );
                for (name, family) in r.families() {
                    eprintln!(
                        "  {name:<10} {:>6} items {:>10} ({} inflated)",
                        family.items,
                        human_bytes(family.bytes),
                        human_bytes(family.plain)
                    );
                }
            } else if let Some(path) = output {
                match vectors {
                    Vectors::Both => drop(embedding::prepare(&mut index, true)?),
                    Vectors::Static => drop(embedding::prepare(&mut index, false)?),
                    Vectors::Minilm => {
                        embedding::prepare(&mut index, true)?;
                        index.clear_static();
                    }
                    Vectors::None => index.clear_static(),
                }
                let bytes = index.to_bundle();
                std::fs::write(&path, &bytes).with_context(|| format!("cannot write `{}`", path.display()))?;
                eprintln!("fathom: wrote {} ({})", path.display(), human_bytes(bytes.len() as u64));
            }
            if let Some(peak) = fathom_engine::heap::peak_since_mark() {
                index.note_heap_peak(peak);
            }
            if let Some(memory) = &index.summary().memory {
                memory::report(memory);
            }
            output::summary(index.summary(), json)?;
        }
        Command::Stats { target, json } if is_split(&target) => {
            let (summary, families) =
                split_ask(&target, |r| r.summary_step().map(|summary| (summary, placed_families(r.root()))))?;
            let root = std::fs::metadata(target.join(fathom_engine::split::ROOT))?.len();
            if json {
                let mut value = serde_json::to_value(&summary)?;
                let families: serde_json::Map<String, serde_json::Value> = families
                    .iter()
                    .map(|(name, items, bytes, files)| {
                        (name.to_string(), serde_json::json!({"items": items, "bytes": bytes, "files": files}))
                    })
                    .collect();
                value["split"] = serde_json::json!({"root_bytes": root, "placed": families});
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                output::summary(&summary, false)?;
                let families: Vec<String> = families
                    .iter()
                    .map(|(name, items, bytes, files)| match *files == *items as usize {
                        true => format!("{name} {items} items ({})", human_bytes(*bytes)),
                        false => format!(
                            "{name} {items} items in {files} pack{} ({})",
                            if *files == 1 { "" } else { "s" },
                            human_bytes(*bytes)
                        ),
                    })
                    .collect();
                println!("split bundle: root {}; {}", human_bytes(root), families.join(", "));
            }
        }
        Command::Stats { target, json } => {
            let (index, header) = if is_bundle(&target) {
                let (index, bytes) = load_bundle(&target)?;
                (index, Some((fathom_engine::bundle::read_header(&bytes)?, bytes.len())))
            } else {
                (open(&target)?, None)
            };
            if json {
                let mut value = serde_json::to_value(index.summary())?;
                if let Some((header, size)) = &header {
                    value["bundle"] = serde_json::json!({"bytes": size, "header": header});
                }
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                output::summary(index.summary(), false)?;
                if let Some((header, size)) = header {
                    println!(
                        "bundle: format {}, graph schema {}, written by fathom {}, {}, model {}, {} of {} chunks embedded, static vectors: {}",
                        header.format,
                        header.graph_schema,
                        header.engine,
                        human_bytes(size as u64),
                        header.model.as_deref().unwrap_or("none"),
                        header.counts.embedded,
                        header.counts.chunks,
                        header.static_table.as_deref().unwrap_or("none")
                    );
                }
            }
        }
        Command::Export { target, format, output } => {
            let index = open(&target)?;
            let write = |path: &Path, text: &str| {
                std::fs::write(path, text).with_context(|| format!("cannot write `{}`", path.display()))
            };
            let text = match format {
                ExportFormat::Json => serde_json::to_string_pretty(&index.export_graph())? + "\n",
                ExportFormat::Graphml => fathom_engine::export::graphml(&index.export_graph())? + "\n",
                ExportFormat::Scip => {
                    let exported = index.export_scip();
                    let path = output.unwrap_or_else(|| PathBuf::from("index.scip"));
                    std::fs::write(&path, &exported.bytes)
                        .with_context(|| format!("cannot write `{}`", path.display()))?;
                    eprintln!(
                        "fathom: wrote {} documents, {} definitions, {} references and {} relationships to {}",
                        exported.documents,
                        exported.definitions,
                        exported.references,
                        exported.relationships,
                        path.display()
                    );
                    return Ok(ExitCode::SUCCESS);
                }
                ExportFormat::Csv => {
                    let export = index.export_graph();
                    let dir = output.unwrap_or_else(|| PathBuf::from("."));
                    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
                    write(&dir.join("nodes.csv"), &fathom_engine::export::nodes_csv(&export)?)?;
                    write(&dir.join("edges.csv"), &fathom_engine::export::edges_csv(&export)?)?;
                    eprintln!(
                        "fathom: wrote {} nodes and {} edges to {}",
                        export.nodes.len(),
                        export.edges.len(),
                        dir.display()
                    );
                    return Ok(ExitCode::SUCCESS);
                }
            };
            match output {
                Some(path) => write(&path, &text)?,
                None => {
                    use std::io::Write;
                    std::io::stdout().lock().write_all(text.as_bytes())?;
                }
            }
        }
        Command::Mcp { target, lexical, minilm } if is_split(&target) => {
            if minilm {
                anyhow::bail!(
                    "a split bundle carries the static table's vectors only: serve it without --minilm, or serve a whole bundle"
                );
            }
            mcp::serve(mcp::Server::split(split_dir::SplitDir::open(&target, !lexical)?))?;
        }
        Command::Mcp { target, lexical, minilm } => {
            let mut index = open(&target)?;
            let embedder =
                if lexical { None } else { embedding::for_questions(embedding::prepare(&mut index, minilm)?) };
            mcp::serve(mcp::Server::new(index, embedder))?;
        }
        Command::Query { target, cypher, params, json, fetch_limit } => {
            let params = params.into_iter().collect();
            let result = if is_split(&target) {
                let limit = split_dir::megabytes(fetch_limit);
                match split_ask_within(&target, limit, false, |r| r.query_step(&cypher, &params))? {
                    Ok(answer) => answer?,
                    Err(costly) => {
                        anyhow::bail!(split_dir::refusal(&costly, &format!("--fetch-limit {fetch_limit} MB")))
                    }
                }
            } else {
                open(&target)?.query(&cypher, &params)?
            };
            output::query(&result, json)?;
        }
        // A split bundle's directory is read in parts: the symbol's names,
        // and the edges around it.
        Command::Callers(t) if is_split(&t.target) => {
            output::reached(&split_ask(&t.target, |r| r.callers_step(t.symbol(), t.depth))??, t.json)?
        }
        Command::Callees(t) if is_split(&t.target) => {
            output::reached(&split_ask(&t.target, |r| r.callees_step(t.symbol(), t.depth))??, t.json)?
        }
        Command::Impact(t) if is_split(&t.target) => {
            output::reached(&split_ask(&t.target, |r| r.impact_step(t.symbol(), t.depth))??, t.json)?
        }
        Command::Symbol { target, symbol, json } if is_split(&target) => {
            output::symbol(&split_ask(&target, |r| r.symbol_step(&symbol))??, json)?
        }
        Command::Callers(t) => output::reached(&open(&t.target)?.callers(t.symbol(), t.depth)?, t.json)?,
        Command::Callees(t) => output::reached(&open(&t.target)?.callees(t.symbol(), t.depth)?, t.json)?,
        Command::Impact(t) => output::reached(&open(&t.target)?.impact(t.symbol(), t.depth)?, t.json)?,
        Command::TestsFor(args) => {
            let diff = match &args.diff {
                Some(path) if path.as_os_str() == "-" => Some(std::io::read_to_string(std::io::stdin())?),
                Some(path) => {
                    Some(std::fs::read_to_string(path).with_context(|| format!("cannot read `{}`", path.display()))?)
                }
                None => None,
            };
            if diff.is_none() && args.change.is_none() && args.symbols.is_empty() {
                anyhow::bail!("say what changed: --diff FILE, --change TEXT or --symbol QNAME");
            }
            let change = Change { diff, text: args.change, symbols: args.symbols, k: Some(args.k) };
            let mut index = open(&args.target)?;
            // A description is also read by meaning, as a hybrid search is.
            let text = change.text.as_deref().map(str::trim).filter(|t| !t.is_empty());
            let query_vector = match text {
                Some(text) if !args.lexical => match embedding::prepare(&mut index, false)?.loaded() {
                    Some(embedder) => Some(embedder.embed_query(text)?),
                    None => None,
                },
                _ => None,
            };
            let found = index.tests_for(&change, query_vector.as_deref())?;
            output::tests_for(&found, args.json)?;
            if found.abstained {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Path { target, from, to, depth, json } => {
            output::path(open(&target)?.path(&from, &to, depth)?.as_deref(), json)?
        }
        Command::Neighbors { target, symbol, types, direction, json } => {
            output::hops(&open(&target)?.neighbors(&symbol, &types, direction)?, json)?
        }
        Command::Symbol { target, symbol, json } => output::symbol(&open(&target)?.symbol(&symbol)?, json)?,
        Command::Edges { target, types, json } => output::edges(&open(&target)?.edges(&types), json)?,
        Command::Schema { json } => output::schema(&fathom_engine::schema(), json)?,
        Command::Locate { target, issue, k, embed, json } => {
            let report = if issue.as_os_str() == "-" {
                std::io::read_to_string(std::io::stdin()).context("cannot read the report from stdin")?
            } else {
                std::fs::read_to_string(&issue).with_context(|| format!("cannot read `{}`", issue.display()))?
            };
            if report.trim().is_empty() {
                anyhow::bail!("the report is empty: give its title and text");
            }
            let mut index = open(&target)?;
            let embedder = embedding::prepare(&mut index, embed)?.loaded();
            let vector = embedder.map(|e| e.embed_query(&report)).transpose()?;
            let found = index.locate(&report, k.max(1), vector.as_deref());
            output::locate(&found, json)?;
            if found.files.is_empty() {
                return Ok(ExitCode::from(1));
            }
        }
        Command::Search { target, query, queries, k, files, mode, minilm, json } => {
            let mode = match mode {
                ModeArg::Lexical => SearchMode::Lexical,
                ModeArg::Dense => SearchMode::Dense,
                ModeArg::Hybrid => SearchMode::Hybrid,
            };
            let options = SearchOptions { k, mode, ..SearchOptions::default() };
            if is_split(&target) {
                let query = query.context("a split bundle is searched one query at a time: give the query")?;
                let meaning = mode != SearchMode::Lexical;
                let results = split_ask_within(&target, u64::MAX, meaning, |r| r.search_step(&query, &options))?
                    .expect("nothing costs more than everything");
                output::search(&results, files, json)?;
                return Ok(if results.hits.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS });
            }
            let input = queries.map(|path| batch::read(&path)).transpose()?;
            let mut index = open(&target)?;
            let embedder = if mode == SearchMode::Lexical {
                None
            } else {
                embedding::for_questions(embedding::prepare(&mut index, minilm)?)
            };
            let mut cache = embedder.as_ref().and_then(|_| embedding::cache());
            if let Some(lines) = input {
                return batch::run(&index, embedder.as_ref(), cache.as_mut(), &lines, &options, files);
            }
            let query = query.expect("clap requires a query or --queries");
            let results = match &embedder {
                Some(embedder) => fathom_engine::embed::search(&index, embedder, cache.as_mut(), &query, &options)?,
                None => index.search(&query, &options, None),
            };
            output::search(&results, files, json)?;
            if results.hits.is_empty() {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens a bundle, or indexes an archive or a directory.
fn open(target: &Path) -> Result<Index> {
    open_with(target, &Options::default(), Vec::new())
}

/// The SCIP indexes that read; one that does not is named, with its cause,
/// and left out: the graph is then Fathom's own.
fn read_scip(paths: &[PathBuf]) -> Vec<fathom_engine::ScipIndex> {
    let mut indexes = Vec::new();
    for path in paths {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| fathom_engine::read_scip(&name, &bytes).map_err(|e| e.to_string()))
        {
            Ok(index) => indexes.push(index),
            Err(why) => eprintln!("fathom: scip: `{}` is left out: {why}", path.display()),
        }
    }
    indexes
}

/// Asks a split bundle on disk a question, reading only the items it
/// needs, and says on stderr what it read.
fn split_ask<T>(dir: &Path, step: impl FnMut(&mut SplitReader) -> fathom_engine::split::Step<T>) -> Result<T> {
    Ok(split_ask_within(dir, u64::MAX, false, step)?.expect("nothing costs more than everything"))
}

/// [`split_ask`], fetching at most `allowed` bytes past the root: a wave
/// past it is not fetched, and the answer is what it would cost. With
/// `meaning`, a bundle with vectors is searched by meaning too
/// ([`split_dir::SplitDir::open`]).
fn split_ask_within<T>(
    dir: &Path,
    allowed: u64,
    meaning: bool,
    step: impl FnMut(&mut SplitReader) -> fathom_engine::split::Step<T>,
) -> Result<std::result::Result<T, fathom_engine::split::Costly>> {
    // Under FATHOM_MEMORY_TRACE, what the reader holds once open and once it answered.
    let trace = |when: &str| {
        if std::env::var_os("FATHOM_MEMORY_TRACE").is_some()
            && let Some((live, peak)) = fathom_engine::heap::counts()
        {
            eprintln!("fathom: memory: {when}, heap {} (peak {})", human_bytes(live), human_bytes(peak));
        }
    };
    let mut split = split_dir::SplitDir::open(dir, meaning)?;
    trace("the reader opened");
    let answer = split.ask(allowed, step)?;
    if answer.is_ok() {
        eprintln!("fathom: {}", split.report());
        trace("answered");
    }
    Ok(answer)
}

/// A split bundle's placed families, from its root: name, items, bytes,
/// and the files they are (their packs, for a packed family).
fn placed_families(root: &fathom_engine::split::Root) -> Vec<(&'static str, u32, u64, usize)> {
    root.families().map(|(name, _, placed)| (name, placed.count, placed.bytes, placed.files())).collect()
}

/// Whether the target is a split bundle's directory.
fn is_split(target: &Path) -> bool {
    target.join(fathom_engine::split::ROOT).is_file()
}

/// Whether the file starts as a `.fathom` bundle does.
fn is_bundle(target: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(target).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && magic == fathom_engine::bundle::MAGIC
}

/// A bundle's index, and its bytes (for its header).
fn load_bundle(target: &Path) -> Result<(Index, Vec<u8>)> {
    let bytes = std::fs::read(target).with_context(|| format!("cannot read `{}`", target.display()))?;
    let index = Index::from_bundle(&bytes).with_context(|| format!("cannot load the bundle `{}`", target.display()))?;
    Ok((index, bytes))
}

fn open_with(target: &Path, options: &Options, scip: Vec<fathom_engine::ScipIndex>) -> Result<Index> {
    if is_bundle(target) {
        return Ok(load_bundle(target)?.0);
    }
    // A split bundle's directory holds items, not source to index.
    if is_split(target) {
        anyhow::bail!(
            "`{}` is a split bundle, which `fathom search`, `query`, `stats`, `symbol`, `callers`, `callees`, `impact` and `mcp` read: \
             for this command, write a whole bundle \
             (`fathom index TARGET -o FILE`) or give the source",
            target.display()
        );
    }
    let budget = memory::budget(MEMORY.get().copied().flatten());
    let mut progress = progress::Progress::new();
    let mut planned = 0;
    let index = if target.is_dir() {
        // Canonical, so that `.` is named after the directory it stands for.
        let dir = target.canonicalize().with_context(|| format!("cannot open `{}`", target.display()))?;
        let options = with_budget(options, budget.as_ref(), 0);
        fathom_engine::pipeline::stage_dir(&dir, &options, &mut progress)
            .map(|staged| staged.with_scip(scip).index(&mut progress))
            .map_err(fathom_engine::EngineError::from)
    } else {
        let bytes = std::fs::read(target).with_context(|| format!("cannot read `{}`", target.display()))?;
        let name =
            target.file_name().map_or_else(|| target.display().to_string(), |n| n.to_string_lossy().into_owned());
        let options = with_budget(options, budget.as_ref(), bytes.len() as u64);
        if let Some(budget) = &budget {
            planned = say_what_is_left_out(&name, &bytes, &options, budget)?;
        }
        let staged = fathom_engine::pipeline::stage_zip(&name, &bytes, &options, &mut progress);
        drop(bytes);
        staged.map(|staged| staged.with_scip(scip).index(&mut progress))
    };
    progress.finish();
    let index = index?;
    // Files the plan could not foresee: those left out while reading a
    // directory, and those parsing measured over the budget.
    let left_out = index.summary().skipped.iter().filter(|s| s.detail.starts_with(fathom_engine::OVER_BUDGET)).count();
    if let (Some(budget), true) = (&budget, left_out > planned) {
        eprintln!(
            "fathom: memory: {} files were left out, over the budget of {}; they are listed as skipped (limit)",
            left_out - planned,
            budget.why
        );
    }
    Ok(index)
}

/// `options`, with what the memory budget lets reading keep.
fn with_budget(options: &Options, budget: Option<&memory::Budget>, archive_bytes: u64) -> Options {
    let mut options = options.clone();
    options.limits.budget =
        budget.map(|b| fathom_engine::pipeline::native_budget(b.bytes, archive_bytes, b.why.clone()));
    options
}

/// Before an archive is read: when indexing all of it would take more than
/// the budget, which files are left out. Its listing says, reading no file.
/// Returns how many.
fn say_what_is_left_out(name: &str, bytes: &[u8], options: &Options, budget: &memory::Budget) -> Result<usize> {
    let survey = fathom_engine::pipeline::plan_zip(name, bytes, options)?.survey;
    if survey.over_budget == 0 {
        return Ok(0);
    }
    let (files, source) = (survey.files + survey.over_budget, survey.bytes + survey.over_budget_bytes);
    let need = fathom_engine::pipeline::native_heap(files, source, bytes.len() as u64);
    eprintln!(
        "fathom: memory: all of `{name}` ({files} files, {}) would take about {} to index, over the budget of {}. \
         Indexing {} of its files ({}); the other {} ({}) are left out and listed as skipped (limit).",
        human_bytes(source),
        human_bytes(need),
        budget.why,
        survey.files,
        human_bytes(survey.bytes),
        survey.over_budget,
        human_bytes(survey.over_budget_bytes),
    );
    Ok(survey.over_budget)
}

fn parse_edge_kind(text: &str) -> Result<fathom_engine::EdgeKind, String> {
    fathom_engine::EdgeKind::ALL.into_iter().find(|k| k.label().eq_ignore_ascii_case(text)).ok_or_else(|| {
        let known: Vec<&str> = fathom_engine::EdgeKind::ALL.iter().map(|k| k.label()).collect();
        format!("unknown edge type `{text}`; known: {}", known.join(", "))
    })
}

fn parse_param(text: &str) -> Result<(String, serde_json::Value), String> {
    let (name, value) = text.split_once('=').ok_or_else(|| format!("`{text}` is not name=value"))?;
    let value = serde_json::from_str(value).unwrap_or_else(|_| serde_json::Value::String(value.to_owned()));
    Ok((name.trim_start_matches('$').to_owned(), value))
}

fn parse_direction(text: &str) -> Result<fathom_engine::Direction, String> {
    match text {
        "outgoing" | "out" => Ok(fathom_engine::Direction::Outgoing),
        "incoming" | "in" => Ok(fathom_engine::Direction::Incoming),
        "both" => Ok(fathom_engine::Direction::Both),
        other => Err(format!("unknown direction `{other}`; use outgoing, incoming or both")),
    }
}
