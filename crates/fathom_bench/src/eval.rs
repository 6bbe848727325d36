//! `make eval`: search quality of the lexical, dense and hybrid modes, bug
//! localisation, the quality of test recommendation for a change, and the
//! resolver against SCIP indexes.
//!
//! The sets (`fathom-eval search` runs the first two, `locate` the third,
//! `tests` the fourth, `questions` the fifth, `resolver` the sixth,
//! `definitions` the seventh, `typed` the eighth; no argument runs all):
//! - CoSQA's development split (`../shared/data/cosqa`): 500 web queries, each
//!   answered by one of 6,267 Python functions. The functions become files of
//!   a synthetic repository, indexed by the same pipeline as any archive, and
//!   the file ranking is scored. Skipped, saying so, when the folder is absent.
//! - A repository-level set written for Flask 3.0.3
//!   (`tests/eval/flask-3.0.3.queries.json`): questions with the files and
//!   symbols that answer them, scored on the symbol and the file rankings.
//! - Real bug reports (`../shared/data/swe-dev`, Python, and
//!   `../shared/data/swe-poly`, six more languages): see `locate`.
//! - Real release history of requests and Flask (`tests/eval/history.json`):
//!   each release pair's code diff is a change, and the test files it touched
//!   are its relevant tests; see `history`.
//! - A newcomer's questions, generated from the guides of 19 projects of
//!   those sets at pinned commits (`tests/eval/questions.json`): each
//!   section heading a question, the files defining the API its code
//!   mentions the gold; see `questions`.
//! - Pinned projects indexed by pinned SCIP indexers
//!   (`tests/eval/resolver.json`): see `resolver`.
//! - The question set's projects and the pinned corpora against
//!   universal-ctags, file by file: see `ctags`.
//! - Typed names: the API names those projects' guides mention, as typed,
//!   answered by their definitions by universal-ctags; see `typed`.
//!
//! Metrics: MRR, Recall@1/5/10 and nDCG@10 with binary relevance (gain
//! 2^r - 1). Prints a table and writes `bench/eval.json`.

mod ctags;
mod fit;
mod history;
mod locate;
mod questions;
mod resolver;
mod root;
mod typed;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use fathom_embed::cache::DiskCache;
use fathom_embed::{Embedder, asset};
use fathom_engine::{Index, Observer, Options, SearchMode, SearchOptions, SearchResults, Weights};
use fathom_static::StaticModel;
use serde_json::{Value, json};

/// The lanes alone, their fusion, and the fusion expanded through the graph
/// (the product's default), each with whether it reads MiniLM's vectors.
/// `static` and `lexical+static` are given no query vector, so the static
/// table serves their dense lane. The bar compares `hybrid` with the lanes,
/// and `lexical+static` with `lexical`.
const MODES: [(SearchMode, bool, bool, &str); 6] = [
    (SearchMode::Lexical, false, false, "lexical"),
    (SearchMode::Dense, false, false, "static"),
    (SearchMode::Hybrid, false, false, "lexical+static"),
    (SearchMode::Dense, false, true, "dense"),
    (SearchMode::Hybrid, false, true, "hybrid"),
    (SearchMode::Hybrid, true, true, "hybrid+graph"),
];
/// How deep each ranking is read: ranks past this count as misses.
const DEPTH: usize = 100;

struct Clock(Instant);

impl Observer for Clock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}

#[derive(Default, Clone, Copy)]
struct Metrics {
    n: usize,
    rr: f64,
    r1: f64,
    r5: f64,
    r10: f64,
    ndcg10: f64,
}

impl Metrics {
    /// Adds one query: its ranking and the set of relevant items.
    fn add(&mut self, ranking: &[String], relevant: &HashSet<String>) {
        self.n += 1;
        if let Some(first) = ranking.iter().position(|r| relevant.contains(r)) {
            self.rr += 1.0 / (first + 1) as f64;
        }
        let found = |k: usize| {
            ranking.iter().take(k).filter(|r| relevant.contains(*r)).count() as f64 / relevant.len().max(1) as f64
        };
        self.r1 += found(1);
        self.r5 += found(5);
        self.r10 += found(10);
        let dcg: f64 = ranking
            .iter()
            .take(10)
            .enumerate()
            .filter(|(_, r)| relevant.contains(*r))
            .map(|(i, _)| 1.0 / (i as f64 + 2.0).log2())
            .sum();
        let ideal: f64 = (0..relevant.len().min(10)).map(|i| 1.0 / (i as f64 + 2.0).log2()).sum();
        self.ndcg10 += if ideal > 0.0 { dcg / ideal } else { 0.0 };
    }

    fn json(&self) -> Value {
        let n = self.n.max(1) as f64;
        let r = |x: f64| (x / n * 10_000.0).round() / 10_000.0;
        json!({"queries": self.n, "mrr": r(self.rr), "recall_at_1": r(self.r1), "recall_at_5": r(self.r5),
               "recall_at_10": r(self.r10), "ndcg_at_10": r(self.ndcg10)})
    }
}

fn main() {
    let root = root::repo_root();
    // `fathom-eval search`, `fathom-eval tests`, or both (the default).
    let sets: Vec<String> = std::env::args().skip(1).collect();
    let wants = |set: &str| sets.is_empty() || sets.iter().any(|s| s == set);
    let mut report = json!({"depth": DEPTH});
    // Embedding every chunk with MiniLM on the CPU takes long on a small
    // machine the first time: FATHOM_EVAL_DENSE=0 skips MiniLM's modes (the
    // static lane's, a table lookup, always run).
    let minilm = std::env::var("FATHOM_EVAL_DENSE").map_or(true, |v| v != "0");
    // The static table: every set but localisation needs it; localisation
    // runs without it (its modes that read it are then left out), so that
    // `fathom-eval locate` works before `make model` has.
    let loaded_static = fathom_engine::embed::load_static(&asset::default_dir());
    let statics = || loaded_static.as_ref().map(Arc::clone).expect("the static table: run `make model`");
    report["static_table"] = json!(loaded_static.as_ref().ok().map(|s| s.id().to_owned()));
    // MiniLM, loaded once wherever its asset is, with the disk cache of its
    // vectors: search and the questions re-rank each question's candidates
    // with it; unless FATHOM_EVAL_DENSE=0, search embeds the whole corpus and
    // localisation reads reports with it.
    let mut loaded: Option<(Embedder, Option<DiskCache>)> = None;
    if ["search", "locate", "questions"].iter().any(|set| wants(set)) {
        match asset::read_dir(&asset::default_dir()) {
            Ok((weights, tokenizer)) => {
                let embedder = Embedder::cpu(&weights, &tokenizer).expect("the model loads");
                loaded = Some((embedder, DiskCache::open(&DiskCache::default_dir()).ok()));
            }
            Err(e) if minilm => panic!("the model asset: run `make model`: {e}"),
            Err(e) => eprintln!("eval: {e}; MiniLM's modes are left out"),
        }
    }
    if wants("search") {
        if let Some((embedder, _)) = &loaded {
            report["model"] = json!(fathom_embed::MODEL_ID);
            report["backend"] = json!(embedder.backend().as_str());
        }
        let mut models = Models {
            statics: statics(),
            minilm: loaded.as_mut().map(|(e, cache)| (&*e, cache.as_mut())),
            whole: minilm,
        };
        let cosqa = root.join("../shared/data/cosqa");
        report["cosqa"] = if cosqa.join("cosqa-retrieval-dev-500.json").is_file() {
            cosqa_eval(&cosqa, &root, &mut models)
        } else {
            eprintln!("eval: {} is absent; skipping CoSQA", cosqa.display());
            json!({"skipped": format!("{} is absent", cosqa.display())})
        };
        report["flask"] = flask_eval(&root, &mut models);
        print_table(&report);
    }
    if wants("locate") {
        // `FATHOM_EVAL_LOCATE_SET=DIR[:DIR…]`: other sets in the same format
        // (an `instances.jsonl` each), for checking that what was tuned on
        // the development sets holds elsewhere; `make eval` reads swe-dev
        // and swe-poly together.
        let sets: Vec<PathBuf> = match std::env::var_os("FATHOM_EVAL_LOCATE_SET") {
            Some(dirs) => std::env::split_paths(&dirs).collect(),
            None => ["swe-dev", "swe-poly"].iter().map(|s| root.join("../shared/data").join(s)).collect(),
        };
        let instances = locate::instances(&sets);
        report["localisation"] = if !instances.is_empty() {
            let embedder = loaded.as_mut().filter(|_| minilm).map(|(e, cache)| (&*e, cache.as_mut()));
            let report = locate::evaluate(
                &instances,
                &corpora_dir().join("swe-dev"),
                loaded_static.as_ref().ok().cloned(),
                embedder,
            );
            locate::print_table(&report);
            report
        } else {
            eprintln!("eval: no localisation set in {sets:?}; skipping localisation");
            json!({"skipped": format!("no localisation set in {sets:?}")})
        };
    }
    if wants("questions") {
        report["questions"] = questions::evaluate(
            &root,
            &corpora_dir().join("swe-dev"),
            loaded_static.as_ref().ok().cloned(),
            loaded.as_mut().map(|(e, cache)| (&*e, cache.as_mut())),
        );
        questions::print_table(&report["questions"]);
    }
    if wants("definitions") {
        report["definitions"] = ctags::evaluate(&root, &corpora_dir());
        ctags::print_table(&report["definitions"]);
    }
    if wants("typed") {
        report["typed"] = typed::evaluate(&root, &corpora_dir(), loaded_static.as_ref().ok().cloned());
        typed::print_table(&report["typed"]);
    }
    if wants("resolver") {
        report["resolver"] = resolver::evaluate(&root, &corpora_dir());
        resolver::print_table(&report["resolver"]);
    }
    if wants("tests") {
        report["tests_for"] = history::evaluate(&root, &corpora_dir());
        print_tests_table(&report["tests_for"]);
    }

    let out = root.join("bench/eval.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    println!("wrote {}", out.display());
    let mut failed = false;
    for set in ["cosqa", "flask"] {
        for level in ["files", "symbols"] {
            let Some(m) = report[set].get(level) else { continue };
            let score = |mode: &str, key: &str| m[mode][key].as_f64().unwrap_or(0.0);
            // The bar: hybrid beats each lane on MRR and nDCG@10 (Recall@10 is
            // reported; near its ceiling one file decides it), and so does
            // lexical with the static lane beat lexical alone.
            for key in ["mrr", "ndcg_at_10"] {
                let hybrid = score("hybrid", key);
                if m.get("hybrid").is_some() && (hybrid <= score("lexical", key) || hybrid <= score("dense", key)) {
                    eprintln!("eval: on {set} {level}, hybrid {key} {hybrid} does not beat both lanes");
                    failed = true;
                }
                let fused = score("lexical+static", key);
                if fused <= score("lexical", key) {
                    eprintln!("eval: on {set} {level}, lexical+static {key} {fused} does not beat lexical alone");
                    failed = true;
                }
            }
        }
    }
    if let Some(tests) = report.get("tests_for") {
        // The bar: the full method beats BM25 alone on Recall@10 and MRR, and
        // abstains on a feature that does not exist.
        for key in ["recall_at_10", "mrr"] {
            let (full, bm25) = (tests["overall"]["full"][key].as_f64(), tests["overall"]["bm25"][key].as_f64());
            if full <= bm25 {
                eprintln!("eval: test recommendation {key}: full {full:?} does not beat BM25 {bm25:?}");
                failed = true;
            }
        }
        for (project, said) in tests["imaginary"].as_object().into_iter().flatten() {
            if said["abstained"] != true {
                eprintln!("eval: on {project}, an imaginary feature got tests instead of an abstention");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}

/// `$FATHOM_CORPORA`, else the cache beside the model's.
fn corpora_dir() -> PathBuf {
    std::env::var_os("FATHOM_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| DiskCache::default_dir().parent().unwrap().join("corpora"))
}

/// MRR, R@1, R@5, R@10 and nDCG@10 of one row, aligned under the headers.
fn metric_cells(v: &Value) -> String {
    let m = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
    format!(
        "{:>7.4} {:>7.4} {:>7.4} {:>7.4} {:>8.4}",
        m("mrr"),
        m("recall_at_1"),
        m("recall_at_5"),
        m("recall_at_10"),
        m("ndcg_at_10")
    )
}

fn print_tests_table(tests: &Value) {
    println!(
        "{:<22} {:<6} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "tests for a change", "method", "MRR", "R@1", "R@5", "R@10", "nDCG@10"
    );
    let projects = tests["projects"].as_object().cloned().unwrap_or_default();
    let rows = projects
        .iter()
        .map(|(name, p)| (format!("{name} ({} changes)", p["changes"].as_array().map_or(0, Vec::len)), &p["scores"]))
        .chain(std::iter::once(("all".to_owned(), &tests["overall"])))
        .collect::<Vec<_>>();
    for (label, scores) in rows {
        for method in history::METHODS {
            println!("{label:<22} {method:<6} {}", metric_cells(&scores[method]));
        }
    }
}

/// The embeddings an evaluation reads: the static table always, MiniLM
/// (with its disk cache) unless FATHOM_EVAL_DENSE=0.
struct Models<'m> {
    statics: Arc<StaticModel>,
    minilm: Option<(&'m Embedder, Option<&'m mut DiskCache>)>,
    /// Whether MiniLM embeds the whole corpus too (not with
    /// FATHOM_EVAL_DENSE=0): its `dense`, `hybrid` and `hybrid+graph` modes.
    whole: bool,
}

/// Indexes a directory and builds its static lane.
fn prepare(dir: &Path, models: &Models<'_>) -> (Index, Value) {
    let started = Instant::now();
    let mut index = fathom_engine::index_dir(dir, &Options::default(), &mut Clock(Instant::now())).expect("indexes");
    let index_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    index.build_static(Arc::clone(&models.statics)).expect("the static lane builds");
    let static_s = started.elapsed().as_secs_f64();
    let chunks = index.chunks().len();
    let stats = json!({
        "files": index.summary().files, "chunks": chunks, "index_s": index_s, "static_s": static_s,
        "static_chunks_per_s": chunks as f64 / static_s,
    });
    eprintln!("eval: {} {stats}", dir.display());
    (index, stats)
}

/// Embeds the whole corpus with MiniLM, through the disk cache, and says
/// how long it took in `stats`.
fn embed_corpus(index: &mut Index, embedder: &Embedder, cache: Option<&mut DiskCache>, stats: &mut Value) {
    let started = Instant::now();
    let report = fathom_engine::embed::embed_index(index, embedder, cache, &mut Clock(Instant::now())).expect("embeds");
    let embed_s = started.elapsed().as_secs_f64();
    stats["from_cache"] = json!(report.from_cache);
    stats["embedded"] = json!(report.embedded);
    stats["embed_s"] = json!(embed_s);
    stats["chunks_per_s"] = json!(if report.embedded > 0 { report.embedded as f64 / embed_s } else { f64::NAN });
}

fn embed_queries(embedder: &Embedder, queries: &[String]) -> Vec<Vec<f32>> {
    queries
        .chunks(32)
        .flat_map(|batch| {
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            embedder.embed(&refs).expect("queries embed")
        })
        .collect()
}

/// A ranking read off a search's results: its files or its symbols.
type Level = (&'static str, fn(&SearchResults) -> Vec<String>);

const FILES: Level = ("files", |r| r.files.iter().map(|f| f.file.clone()).collect());
const SYMBOLS: Level = ("symbols", |r| r.hits.iter().map(|h| h.symbol.clone()).collect());

/// Runs every query with `options` and scores each level's ranking against
/// that level's relevant items, one set per query.
/// `vectors` are the queries' MiniLM embeddings; without them the static
/// lane serves the dense one.
fn evaluate(
    index: &Index,
    texts: &[String],
    vectors: Option<&[Vec<f32>]>,
    options: &SearchOptions,
    levels: &[(Level, &[HashSet<String>])],
) -> Value {
    score(texts, levels, |i, text| index.search(text, options, vectors.map(|v| v[i].as_slice())))
}

/// Runs `search` on every query (its number and text) and scores each
/// level's ranking against that level's relevant items, with the mean time
/// a query took.
fn score(
    texts: &[String],
    levels: &[(Level, &[HashSet<String>])],
    mut search: impl FnMut(usize, &str) -> SearchResults,
) -> Value {
    let mut metrics = vec![Metrics::default(); levels.len()];
    let started = Instant::now();
    for (i, text) in texts.iter().enumerate() {
        let results = search(i, text);
        for (m, ((_, rank), relevant)) in metrics.iter_mut().zip(levels) {
            m.add(&rank(&results), &relevant[i]);
        }
    }
    let ms = started.elapsed().as_secs_f64() * 1000.0 / texts.len().max(1) as f64;
    let mut out = json!({});
    for (m, ((name, _), _)) in metrics.iter().zip(levels) {
        out[*name] = m.json();
        out[*name]["ms_per_query"] = json!((ms * 1000.0).round() / 1000.0);
    }
    out
}

/// Every mode, then the hybrid fusion with the lexical lane's weight varied
/// (dense fixed at 1), so the defaults' choice can be seen. The modes
/// without MiniLM run first, then MiniLM over each question's candidates
/// (`rerank`, the product's default search where the corpus is not
/// embedded), then, where `models.whole`, the corpus is embedded for the
/// modes that read all of it.
fn evaluate_all(
    index: &mut Index,
    stats: &mut Value,
    texts: &[String],
    models: &mut Models<'_>,
    levels: &[(Level, &[HashSet<String>])],
) -> Value {
    let mut out = json!({});
    for ((name, _), _) in levels {
        out[*name] = json!({});
    }
    if let Some(dir) = std::env::var_os("FATHOM_EVAL_DUMP").filter(|_| !models.whole) {
        dump(index, texts, None, levels, Path::new(&dir));
    }
    for (mode, expand, minilm, mode_name) in MODES {
        if minilm {
            continue;
        }
        let options = SearchOptions { k: DEPTH, mode, expand, ..SearchOptions::default() };
        let scores = evaluate(index, texts, None, &options, levels);
        for ((name, _), _) in levels {
            out[*name][mode_name] = scores[*name].clone();
        }
    }
    let Some((embedder, cache)) = &mut models.minilm else { return out };
    let options = SearchOptions { k: DEPTH, ..SearchOptions::default() };
    let scores = evaluate_reranked(index, embedder, cache.as_deref_mut(), texts, &options, levels);
    for ((name, _), _) in levels {
        out[*name]["rerank"] = scores[*name].clone();
    }
    if !models.whole {
        return out;
    }
    embed_corpus(index, embedder, cache.as_deref_mut(), stats);
    let vectors = embed_queries(embedder, texts);
    if let Some(dir) = std::env::var_os("FATHOM_EVAL_DUMP") {
        dump(index, texts, Some(&vectors), levels, Path::new(&dir));
    }
    for (mode, expand, minilm, mode_name) in MODES {
        if !minilm {
            continue;
        }
        let options = SearchOptions { k: DEPTH, mode, expand, ..SearchOptions::default() };
        let scores = evaluate(index, texts, Some(&vectors), &options, levels);
        for ((name, _), _) in levels {
            out[*name][mode_name] = scores[*name].clone();
        }
    }
    let mut sweep = json!({});
    for lexical in [0.25, 0.5, 0.75, 1.0, 1.5] {
        let weights = Weights { lexical, name: lexical, ..Weights::default() };
        let options =
            SearchOptions { k: DEPTH, mode: SearchMode::Hybrid, expand: false, weights, ..SearchOptions::default() };
        sweep[format!("lexical_weight_{lexical}")] = evaluate(index, texts, Some(&vectors), &options, levels);
    }
    out["hybrid_weight_sweep"] = sweep;
    out
}

/// [`evaluate`] for the product's default search without MiniLM's index:
/// each question's candidates embedded (or read from the disk cache) and
/// re-ranked (`fathom_engine::embed::search`).
fn evaluate_reranked(
    index: &Index,
    embedder: &Embedder,
    mut cache: Option<&mut DiskCache>,
    texts: &[String],
    options: &SearchOptions,
    levels: &[(Level, &[HashSet<String>])],
) -> Value {
    score(texts, levels, |_, text| {
        fathom_engine::embed::search(index, embedder, cache.as_deref_mut(), text, options).expect("embeds")
    })
}

/// Writes every query's lanes (`FATHOM_EVAL_DUMP=DIR`), one JSON line per
/// query, for studying fusion functions offline.
fn dump(
    index: &Index,
    texts: &[String],
    vectors: Option<&[Vec<f32>]>,
    levels: &[(Level, &[HashSet<String>])],
    dir: &Path,
) {
    std::fs::create_dir_all(dir).unwrap();
    let name = if levels.len() == 1 { "cosqa" } else { "flask" };
    let options = SearchOptions { k: 2000, mode: SearchMode::Hybrid, expand: false, ..SearchOptions::default() };
    let mut out = String::new();
    for (i, text) in texts.iter().enumerate() {
        let results = index.search(text, &options, vectors.map(|v| v[i].as_slice()));
        let relevant: Vec<Vec<&String>> = levels.iter().map(|(_, r)| r[i].iter().collect()).collect();
        let hits: Vec<Value> = results
            .hits
            .iter()
            .map(|h| {
                let e = &h.explain;
                json!([
                    h.symbol,
                    h.file,
                    e.lexical_rank,
                    e.name_rank,
                    e.trace_rank,
                    e.dense_rank,
                    e.bm25,
                    e.similarity,
                    e.lanes.lexical,
                    e.lanes.name
                ])
            })
            .collect();
        out.push_str(&json!({"q": text, "relevant": relevant, "hits": hits}).to_string());
        out.push('\n');
    }
    std::fs::write(dir.join(format!("{name}.jsonl")), out).unwrap();
}

fn cosqa_eval(data: &Path, root: &Path, models: &mut Models<'_>) -> Value {
    let queries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(data.join("cosqa-retrieval-dev-500.json")).unwrap()).unwrap();
    let code: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(data.join("code_idx_map.txt")).unwrap()).unwrap();
    // One file per snippet; the ranking of files is the ranking of snippets.
    let dir = DiskCache::default_dir().parent().unwrap().join("eval/cosqa");
    let corpus = dir.join("snippets");
    if std::fs::read_dir(&corpus).map_or(0, |d| d.count()) != code.len() {
        let _ = std::fs::remove_dir_all(&corpus);
        std::fs::create_dir_all(&corpus).unwrap();
        for (text, idx) in &code {
            std::fs::write(corpus.join(format!("s{:05}.py", idx.as_u64().unwrap())), text).unwrap();
        }
    }
    let (mut index, mut stats) = prepare(&dir, models);
    let texts: Vec<String> = queries.iter().map(|q| q["doc"].as_str().unwrap().to_owned()).collect();
    let relevant: Vec<HashSet<String>> = queries
        .iter()
        .map(|q| HashSet::from([format!("snippets/s{:05}.py", q["retrieval_idx"].as_u64().unwrap())]))
        .collect();
    let mut out = evaluate_all(&mut index, &mut stats, &texts, models, &[(FILES, &relevant)]);
    out["corpus"] = json!(code.len());
    out["index"] = stats;
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/eval/cosqa-reference.json")).unwrap()).unwrap();
    let minilm_mrr = reference["mrr"].as_f64().unwrap();
    if let Some(dense) = out["files"]["dense"]["mrr"].as_f64() {
        out["dense_mrr_minus_python"] = json!(((dense - minilm_mrr) * 10_000.0).round() / 10_000.0);
    }
    // The static lane against its teacher (the reference is MiniLM's exact
    // ranking, which Fathom's dense lane matches to within its recall).
    let static_mrr = out["files"]["static"]["mrr"].as_f64().unwrap_or(f64::NAN);
    out["static_mrr_over_minilm"] = json!((static_mrr / minilm_mrr * 1000.0).round() / 1000.0);
    out["python_reference"] = reference;
    out
}

fn flask_eval(root: &Path, models: &mut Models<'_>) -> Value {
    let set: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/eval/flask-3.0.3.queries.json")).unwrap())
            .unwrap();
    let dir = corpora_dir().join(set["corpus"].as_str().unwrap());
    let (mut index, mut stats) = prepare(&dir, models);
    let queries = set["queries"].as_array().unwrap();
    let texts: Vec<String> = queries.iter().map(|q| q["q"].as_str().unwrap().to_owned()).collect();
    let relevant = |key: &str| -> Vec<HashSet<String>> {
        queries
            .iter()
            .map(|q| q[key].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect())
            .collect()
    };
    let (files, symbols) = (relevant("files"), relevant("symbols"));
    let mut out = evaluate_all(&mut index, &mut stats, &texts, models, &[(FILES, &files), (SYMBOLS, &symbols)]);
    out["corpus"] = set["corpus"].clone();
    out["index"] = stats;
    out
}

fn print_table(report: &Value) {
    println!(
        "{:<8} {:<8} {:<8} {:>7} {:>7} {:>7} {:>7} {:>8}",
        "set", "level", "mode", "MRR", "R@1", "R@5", "R@10", "nDCG@10"
    );
    for set in ["cosqa", "flask"] {
        for level in ["files", "symbols"] {
            let Some(m) = report[set].get(level) else { continue };
            for mode in MODES.iter().map(|(_, _, _, mode)| *mode).chain(["rerank"]) {
                if m.get(mode).is_none() {
                    continue;
                }
                println!("{set:<8} {level:<8} {mode:<14} {}", metric_cells(&m[mode]));
            }
        }
    }
    if let Some(reference) = report["cosqa"].get("python_reference") {
        println!(
            "cosqa python reference (sentence-transformers, exact cosine): MRR {:.4}; Fathom dense minus reference: {}",
            reference["mrr"].as_f64().unwrap_or(f64::NAN),
            report["cosqa"]["dense_mrr_minus_python"]
        );
    }
}
