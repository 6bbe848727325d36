//! `make bench`: indexes a pinned Django sdist natively and measures query
//! latency on it, printing a table and writing `bench/report.json`.
//!
//! Issue 9 extends this harness with indexing throughput against its
//! references (native tree-sitter parse-only, web-tree-sitter in Chromium),
//! memory, reopening, HNSW recall and the 50,000-file scale run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use fathom_engine::{Index, Observer, Options};
use fathom_model::SymbolKind;
use serde_json::json;

const CORPUS: &str = "Django-5.0.6";

struct Clock(Instant);

impl Observer for Clock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}

fn main() {
    let corpora = std::env::var_os("FATHOM_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/fathom/corpora"));
    let dir = corpora.join(CORPUS);
    assert!(dir.is_dir(), "{} is missing: run scripts/corpora.sh", dir.display());

    let started = Instant::now();
    let index =
        fathom_engine::index_dir(&dir, &Options::default(), &mut Clock(Instant::now())).expect("Django indexes");
    let index_s = started.elapsed().as_secs_f64();
    let summary = index.summary();

    let names = sample_names(&index);
    let search = time_each(&names.search, |q| {
        index.search(q, &fathom_engine::SearchOptions { k: 20, ..Default::default() }, None);
    });
    let callers = time_each(&names.callers, |symbol| {
        index.callers(symbol, 2).expect("sampled symbols resolve");
    });
    let queries = [
        "MATCH (c:CLASS {name: 'QuerySet'})-[:HAS_METHOD]->(m:METHOD) MATCH (m)-[:CALLS]->(t:METHOD) MATCH (t)<-[:HAS_METHOD]-(o:CLASS) RETURN o.name, count(t) AS n ORDER BY n DESC LIMIT 5",
        "MATCH (m:MODULE {name: 'django.db.models.query'}) MATCH (m)-[:CONTAINS]->(c:CLASS) MATCH (c)-[:INHERITS]->(b:CLASS) RETURN c.name, b.name",
        "MATCH (f:FUNCTION {name: 'get_object_or_404'}) MATCH (caller)-[:CALLS]->(f) MATCH (mod:MODULE)-[:CONTAINS*1..3]->(caller) RETURN mod.name, count(caller)",
    ];
    let repeated: Vec<&str> = queries.iter().flat_map(|q| std::iter::repeat_n(*q, 10)).collect();
    let matches = time_each(&repeated, |q| {
        index.query(q, &BTreeMap::new()).unwrap_or_else(|e| panic!("{q}\n{e}"));
    });

    let report = json!({
        "corpus": CORPUS.to_lowercase(),
        "native_index": {
            "files": summary.files,
            "symbols": summary.symbols,
            "edges": summary.edges,
            "seconds": round(index_s),
            "stage_ms": summary.timings_ms,
        },
        "query_latency_ms": {
            "search_p50": search.0, "search_p95": search.1,
            "callers_2hop_p50": callers.0, "callers_2hop_p95": callers.1,
            "match_3_patterns_p50": matches.0, "match_3_patterns_p95": matches.1,
        },
        "samples": { "search": names.search.len(), "callers_2hop": names.callers.len(), "match_3_patterns": repeated.len() },
    });
    println!(
        "Fathom bench: {CORPUS} ({} files, {} symbols, {} edges), native, one thread",
        summary.files, summary.symbols, summary.edges
    );
    println!("  index                  {:>9.2} s", index_s);
    println!(
        "  search           p50 {:>8.3} ms   p95 {:>8.3} ms   ({} queries)",
        search.0,
        search.1,
        names.search.len()
    );
    println!(
        "  callers, 2 hops  p50 {:>8.3} ms   p95 {:>8.3} ms   ({} symbols)",
        callers.0,
        callers.1,
        names.callers.len()
    );
    println!("  MATCH, 3 patterns p50 {:>7.3} ms   p95 {:>8.3} ms   ({} runs)", matches.0, matches.1, repeated.len());
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/report.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    println!("report: bench/report.json");
}

struct Samples {
    search: Vec<String>,
    callers: Vec<String>,
}

/// A fixed, spread sample: every k-th symbol name for search, and every k-th
/// uniquely named method that has callers for the traversal.
fn sample_names(index: &Index) -> Samples {
    let graph = index.graph();
    let mut names: Vec<String> = graph.nodes().filter(|(_, n)| !n.is_external).map(|(_, n)| n.name.clone()).collect();
    names.sort();
    names.dedup();
    let step = (names.len() / 200).max(1);
    let search = names.iter().step_by(step).take(200).cloned().collect();
    let mut methods: Vec<String> = graph
        .nodes()
        .filter(|(id, n)| n.kind == SymbolKind::Method && graph.fan_in(*id) > 0)
        .map(|(_, n)| n.qualified_name.clone())
        .collect();
    methods.sort();
    methods.dedup();
    let step = (methods.len() / 100).max(1);
    let callers = methods.iter().step_by(step).take(100).filter(|q| index.callers(q, 1).is_ok()).cloned().collect();
    Samples { search, callers }
}

/// Median and 95th percentile, in milliseconds, of `run` over `inputs`.
fn time_each<T: ?Sized>(inputs: &[impl AsRef<T>], mut run: impl FnMut(&T)) -> (f64, f64) {
    let mut ms: Vec<f64> = inputs
        .iter()
        .map(|input| {
            let start = Instant::now();
            run(input.as_ref());
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms.get(((ms.len() as f64 - 1.0) * q).round() as usize).copied().map_or(0.0, round);
    (at(0.5), at(0.95))
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
