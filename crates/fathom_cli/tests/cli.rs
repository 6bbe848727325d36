//! The `fathom` binary's JSON contract and exit codes, on the mini-py-js fixture.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fixture() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/mini-py-js")
}

fn fathom(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fathom")).args(args).output().expect("the binary runs")
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

#[test]
fn index_json_reports_counts_skips_errors_and_stage_times() {
    let summary = json(&fathom(&["index", fixture().to_str().unwrap(), "--json"]));
    assert_eq!(summary["archive"], "mini-py-js");
    assert_eq!(summary["files"], 9);
    assert_eq!(summary["symbols"], 40);
    let by_language: u64 =
        summary["symbols_by_language"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(by_language, 40, "every symbol is counted under its language");
    assert_eq!(summary["symbols_by_language"]["python"], 20);
    let kinds = &summary["kinds"];
    assert_eq!(
        (kinds["class"].as_u64(), kinds["method"].as_u64(), kinds["field"].as_u64()),
        (Some(7), Some(11), Some(6))
    );
    for edge_type in ["CONTAINS", "HAS_METHOD", "HAS_FIELD", "INHERITS", "IMPORTS", "CALLS", "USES", "DECORATES"] {
        assert!(summary["edge_types"][edge_type].as_u64().is_some_and(|n| n > 0), "{edge_type} edges");
    }
    let edge_sum: u64 = summary["edge_types"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(summary["edges"].as_u64(), Some(edge_sum));
    assert_eq!(summary["languages"], serde_json::json!({"javascript": 1, "python": 6, "tsx": 1, "typescript": 1}));
    let skipped = summary["skipped"].as_array().unwrap();
    let reason_of = |path: &str| skipped.iter().find(|s| s["path"] == path).map(|s| s["reason"].clone());
    assert_eq!(reason_of("node_modules/"), Some("vendored".into()));
    assert_eq!(reason_of("pkg/_native.py"), Some("binary".into()));
    assert_eq!(reason_of("web/src/vendor.min.js"), Some("generated".into()));
    assert!(skipped.iter().all(|s| s["detail"].as_str().is_some_and(|d| !d.is_empty())));
    assert_eq!(summary["errors"][0]["path"], "broken/half_written.py");
    for stage in ["read", "parse", "graph", "index", "total"] {
        assert!(summary["timings_ms"][stage].as_f64().is_some_and(|ms| ms >= 0.0), "{stage}");
    }
}

#[test]
fn lexical_search_json_prints_ranked_hits_with_citations() {
    let out =
        json(&fathom(&["search", fixture().to_str().unwrap(), "total", "--k", "6", "--mode", "lexical", "--json"]));
    assert_eq!(out["mode"], "lexical");
    assert_eq!(out["params"]["rrf_k"], 60.0);
    assert_eq!(out["params"]["bm25"]["k1"].as_f64(), Some(1.2f32 as f64));
    let hits = out["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 6);
    // The exact name match is first: a name lane hit and a BM25 hit at once.
    assert_eq!(hits[0]["symbol"], "web/src/store.CartStore.total");
    assert_eq!(hits[0]["kind"], "method");
    assert_eq!(
        (hits[0]["file"].as_str(), hits[0]["start_line"].as_u64(), hits[0]["end_line"].as_u64()),
        (Some("web/src/store.js"), Some(11), Some(13))
    );
    assert_eq!(hits[0]["match"], "exact");
    assert_eq!(hits[0]["explain"]["name_rank"], 1);
    assert!(hits[0]["explain"]["matched_terms"].as_array().unwrap().contains(&"total".into()));
    assert!(hits[0]["explain"]["dense_rank"].is_null(), "no dense lane in lexical mode");
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "ranked: {scores:?}");
    let symbols: Vec<&str> = hits.iter().map(|h| h["symbol"].as_str().unwrap()).collect();
    // A name typed alone: every definition named exactly so comes before
    // the longer names that hold it.
    let named: Vec<&str> = hits.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(named[..3], ["total", "total", "total"], "{symbols:?}");
    for expected in ["pkg.calc.Calculator.total", "pkg.util.strings.format_total", "web/src/store.renderTotal"] {
        assert!(symbols.contains(&expected), "{expected} in {symbols:?}");
    }
}

#[test]
fn hybrid_search_finds_by_meaning_and_explains_each_lane() {
    let dir = fixture();
    let search = |extra: &[&str]| {
        let mut args = vec!["search", dir.to_str().unwrap(), "add an amount to the running sum", "--json"];
        args.extend_from_slice(extra);
        json(&fathom(&args))
    };
    let out = search(&["--k", "5"]);
    assert_eq!(out["mode"], "hybrid", "{}", out["note"]);
    // By default MiniLM reads the question's best candidates, beside the
    // static table: no MiniLM index is built and the index holds no vector.
    assert_eq!(out["params"]["meaning"], "minilm_candidates");
    assert!(out["params"]["hnsw"].is_null() && out["params"]["embedded"] == 0);
    let top = &out["hits"][0];
    assert_eq!(top["symbol"], "pkg.calc.Calculator.add");
    assert_eq!(top["explain"]["dense_rank"], 1);
    assert!(top["explain"]["lanes"]["dense"].as_f64().unwrap() > 0.0);

    // With --minilm every chunk is embedded and MiniLM's lane serves.
    let out = search(&["--k", "5", "--minilm"]);
    assert_eq!(out["params"]["meaning"], "minilm", "{}", out["note"]);
    assert!(out["params"]["hnsw"]["points"].as_u64().unwrap() > 10);
    let top = &out["hits"][0];
    assert_eq!(top["symbol"], "pkg.calc.Calculator.add");
    assert_eq!(top["explain"]["dense_rank"], 1);
    assert!(top["explain"]["similarity"].as_f64().unwrap() > 0.4);

    let files = search(&["--files"]);
    assert!(files.get("hits").is_none());
    assert_eq!(files["files"][0]["file"], "pkg/calc.py");
    assert_eq!(files["files"][0]["symbols"][0]["symbol"], "pkg.calc.Calculator.add");
}

#[test]
fn batch_search_answers_each_line_in_order_and_reports_malformed_lines() {
    let input = std::env::temp_dir().join(format!("fathom-cli-batch-{}.jsonl", std::process::id()));
    std::fs::write(
        &input,
        concat!(
            r#"{"id": "sum", "query": "add an amount to the running sum"}"#,
            "\n",
            "\n",
            "not json\n",
            r#"{"id": 2, "query": "compute_total"}"#,
            "\n",
        ),
    )
    .unwrap();
    let out = fathom(&["search", fixture().to_str().unwrap(), "--queries", input.to_str().unwrap(), "--k", "3"]);
    std::fs::remove_file(&input).ok();
    assert_eq!(out.status.code(), Some(2), "a malformed line exits 2 after the rest are answered");
    let lines: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], "sum");
    assert_eq!(lines[0]["mode"], "hybrid");
    assert_eq!(lines[0]["hits"][0]["symbol"], "pkg.calc.Calculator.add");
    assert_eq!(lines[0]["hits"].as_array().unwrap().len(), 3);
    assert_eq!(lines[1]["line"], 3);
    assert!(lines[1]["error"].as_str().unwrap().starts_with("not JSON"));
    assert_eq!(lines[2]["id"], 2);
    assert_eq!(lines[2]["hits"][0]["symbol"], "pkg.calc.compute_total");

    let neither = fathom(&["search", fixture().to_str().unwrap()]);
    assert_eq!(neither.status.code(), Some(2), "a query or --queries is required");
}

#[test]
fn a_stack_trace_points_at_the_frames_it_names() {
    let trace = "Traceback (most recent call last):\n  File \"/srv/app/pkg/calc.py\", line 39, in compute_total\nValueError: bad amount";
    let out = json(&fathom(&["search", fixture().to_str().unwrap(), trace, "--mode", "lexical", "--json"]));
    assert_eq!(out["hits"][0]["symbol"], "pkg.calc.compute_total");
    assert_eq!(out["hits"][0]["explain"]["trace_rank"], 1);
}

#[test]
fn search_with_no_hits_exits_1_and_a_bad_archive_exits_2_naming_the_cause() {
    // No term of the index, and no chunk within cosine 0.2 of it.
    let none = fathom(&["search", fixture().to_str().unwrap(), "qwxz zzyq plorb", "--json"]);
    assert_eq!(none.status.code(), Some(1), "no term matches and nothing is similar enough");
    let none: Value = serde_json::from_slice(&none.stdout).unwrap();
    assert_eq!(none["hits"], serde_json::json!([]));

    let bad = std::env::temp_dir().join(format!("fathom-cli-test-{}.zip", std::process::id()));
    std::fs::write(&bad, b"PK\x03\x04 this is not really a zip").unwrap();
    let out = fathom(&["index", bad.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not a readable zip"), "{stderr}");

    let missing = fathom(&["index", "/no/such/archive.zip"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/archive.zip"));
}

#[test]
fn schema_lists_every_label_edge_type_and_reason() {
    let schema = json(&fathom(&["schema", "--json"]));
    let labels: Vec<&str> =
        schema["node_labels"].as_array().unwrap().iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["MODULE", "PACKAGE", "CLASS", "FUNCTION", "METHOD", "FIELD", "GLOBAL_VARIABLE", "ANNOTATION"]);
    let edges: Vec<&str> =
        schema["edge_types"].as_array().unwrap().iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        edges,
        [
            "CONTAINS",
            "HAS_METHOD",
            "HAS_FIELD",
            "INHERITS",
            "IMPLEMENTS",
            "IMPORTS",
            "CALLS",
            "USES",
            "DECORATES",
            "OVERRIDES",
            "TESTS",
            "DECLARES"
        ]
    );
    let reasons: Vec<&str> =
        schema["reasons"].as_array().unwrap().iter().map(|r| r["reason"].as_str().unwrap()).collect();
    for reason in
        ["import-resolved", "receiver-typed", "same-file", "unique-name", "ambiguous-name", "test-calls", "test-naming"]
    {
        assert!(reasons.contains(&reason), "{reason}");
    }
    let calls = schema["edge_types"].as_array().unwrap().iter().find(|e| e["type"] == "CALLS").unwrap();
    assert!(calls["properties"].as_array().unwrap().iter().any(|p| p == "line"));
}

fn lang_python() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/lang-python")
}

#[test]
fn callers_json_cites_each_caller_with_its_path_and_confidence() {
    let callers = json(&fathom(&["callers", lang_python().to_str().unwrap(), "Order.add", "--depth", "1", "--json"]));
    let callers = callers.as_array().unwrap();
    assert_eq!(callers.len(), 2);
    let first = &callers[0];
    assert_eq!(first["node"]["qualified_name"], "shop.service.build_order");
    assert_eq!((first["node"]["file"].as_str(), first["depth"].as_u64()), (Some("shop/service.py"), Some(1)));
    let hop = &first["path"][0];
    assert_eq!(
        (hop["type"].as_str(), hop["reason"].as_str(), hop["line"].as_u64()),
        (Some("CALLS"), Some("receiver-typed"), Some(20))
    );
    assert!(first["confidence"].as_f64().is_some_and(|c| c > 0.0 && c <= 1.0));
}

#[test]
fn an_ambiguous_symbol_exits_2_listing_the_candidates() {
    let out = fathom(&["callers", lang_python().to_str().unwrap(), "render"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("shop.views.OrderView.render") && stderr.contains("shop.views.ReceiptView.render"),
        "{stderr}"
    );
}

#[test]
fn query_json_prints_columns_rows_and_whether_they_were_cut() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/query-mixed");
    let query = "MATCH (c:CLASS {name: $name})-[:HAS_METHOD]->(m) RETURN m.name ORDER BY m.name";
    let result = json(&fathom(&["query", dir.to_str().unwrap(), query, "--param", "name=Calculator", "--json"]));
    assert_eq!(result["columns"], serde_json::json!(["m.name"]));
    assert_eq!(result["rows"], serde_json::json!([["__init__"], ["add"], ["subtract"]]));
    assert_eq!(result["truncated"], false);

    let refused = fathom(&["query", dir.to_str().unwrap(), "MATCH (n) DELETE n"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("DELETE is not allowed"));
}

#[test]
fn impact_takes_the_symbol_as_an_argument_or_an_option() {
    let target = fixture();
    let target = target.to_str().unwrap();
    let named = json(&fathom(&["impact", target, "--symbol", "pkg.calc.Calculator.add", "--depth", "3", "--json"]));
    let positional = json(&fathom(&["impact", target, "pkg.calc.Calculator.add", "--depth", "3", "--json"]));
    assert_eq!(named, positional);
    let reached: Vec<(&str, u64)> = named
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["node"]["qualified_name"].as_str().unwrap(), r["depth"].as_u64().unwrap()))
        .collect();
    assert!(reached.contains(&("pkg.calc.compute_total", 1)), "{reached:?}");
    // Two hops up: the test that calls compute_total, with the path that leads there.
    assert!(reached.contains(&("test_calc.test_compute_total", 2)), "{reached:?}");
    let both = fathom(&["impact", target, "pkg.calc.Calculator.add", "--symbol", "x"]);
    assert_eq!(both.status.code(), Some(2));
}

#[test]
fn tests_for_a_diff_a_symbol_and_an_imaginary_feature() {
    let dir = fixture();
    let target = dir.to_str().unwrap();
    let diff = std::env::temp_dir().join(format!("fathom-cli-{}.diff", std::process::id()));
    std::fs::write(
        &diff,
        "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -37,2 +37,2 @@ def compute_total(values):\n     calc = Calculator()\n-    for value in values:\n+    for value in sorted(values):\n",
    )
    .unwrap();
    let found = json(&fathom(&["tests-for", target, "--diff", diff.to_str().unwrap(), "--json"]));
    std::fs::remove_file(&diff).ok();
    assert_eq!(found["abstained"], false);
    assert_eq!(found["changed"][0]["symbol"]["qualified_name"], "pkg.calc.compute_total");
    let tests: Vec<&str> =
        found["tests"].as_array().unwrap().iter().map(|t| t["test"]["qualified_name"].as_str().unwrap()).collect();
    assert_eq!(tests.first(), Some(&"test_calc.test_compute_total"), "{tests:?}");
    assert_eq!(found["tests"][0]["path"].as_array().unwrap().last().unwrap()["type"], "TESTS");

    let by_symbol = fathom(&["tests-for", target, "--symbol", "pkg.calc.Calculator.add"]);
    assert!(by_symbol.status.success());
    assert!(String::from_utf8_lossy(&by_symbol.stdout).contains("tests/test_calc.py"));

    let imaginary = fathom(&["tests-for", target, "--change", "quantum teleportation of flux capacitors", "--json"]);
    assert_eq!(imaginary.status.code(), Some(1), "abstaining exits 1");
    let said: Value = serde_json::from_slice(&imaginary.stdout).unwrap();
    assert_eq!(said["abstained"], true);
    assert!(said["tests"].as_array().unwrap().is_empty());

    let nothing = fathom(&["tests-for", target]);
    assert_eq!(nothing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("--diff"));
}

#[test]
fn a_bundle_written_by_index_answers_like_the_directory_and_says_what_it_holds() {
    let dir = fixture();
    let target = dir.to_str().unwrap();
    let bundle = std::env::temp_dir().join(format!("fathom-cli-{}.fathom", std::process::id()));
    let path = bundle.to_str().unwrap();
    // Excluded paths are reported with the pattern that left them out.
    let narrowed = json(&fathom(&["index", target, "--exclude", "docs", "--exclude", "*.ts", "--json"]));
    let skipped: Vec<(&str, &str)> = narrowed["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["reason"] == "excluded")
        .map(|s| (s["path"].as_str().unwrap(), s["detail"].as_str().unwrap()))
        .collect();
    assert!(skipped.contains(&("docs/guide.txt", "excluded by `docs`")), "{skipped:?}");
    assert!(skipped.iter().any(|(p, d)| p.ends_with(".ts") && *d == "excluded by `*.ts`"), "{skipped:?}");
    assert!(narrowed["languages"].get("typescript").is_none());

    // `docs` holds no code, so this bundle's graph is the directory's.
    let written = json(&fathom(&["index", target, "-o", path, "--no-embed", "--exclude", "docs", "--json"]));

    // Every command reads the bundle as it reads the directory it came from.
    let cypher = "MATCH (c:CLASS)-[:HAS_METHOD]->(m) RETURN c.name, m.name ORDER BY c.name, m.name";
    let from_bundle = json(&fathom(&["query", path, cypher, "--json"]));
    let from_dir = json(&fathom(&["query", target, cypher, "--json"]));
    assert_eq!(from_bundle, from_dir);
    let search = |t: &str| {
        json(&fathom(&["search", t, "compute_total", "--mode", "lexical", "--json"]))["hits"][0]["symbol"].clone()
    };
    assert_eq!(search(path), search(target));

    let stats = json(&fathom(&["stats", path, "--json"]));
    std::fs::remove_file(&bundle).ok();
    assert_eq!(stats["files"], written["files"]);
    let header = &stats["bundle"]["header"];
    assert_eq!(header["format"], 2);
    assert_eq!(header["counts"]["embedded"], 0);
    assert_eq!(header["static_table"], serde_json::Value::Null, "--no-embed: no static vectors either");
    assert_eq!(header["options"]["exclude"], serde_json::json!(["docs"]));
    assert!(stats["bundle"]["bytes"].as_u64().unwrap() > 1000);

    // Anything else that is not a bundle, an archive or a directory is refused.
    let bad = std::env::temp_dir().join(format!("fathom-cli-{}.bad", std::process::id()));
    std::fs::write(&bad, b"\x89FATHOM\ntruncated").unwrap();
    let refused = fathom(&["stats", bad.to_str().unwrap()]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("bundle"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let glob = fathom(&["index", target, "--exclude", "a["]);
    assert_eq!(glob.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&glob.stderr).contains("bad exclude pattern `a[`"));
}

#[test]
fn export_writes_json_graphml_and_csv_of_the_same_graph() {
    let dir = fixture();
    let target = dir.to_str().unwrap();
    let summary = json(&fathom(&["index", target, "--json"]));
    let exported = json(&fathom(&["export", target, "--format", "json"]));
    let (nodes, edges) = (exported["nodes"].as_array().unwrap(), exported["edges"].as_array().unwrap());
    assert_eq!(edges.len() as u64, summary["edges"].as_u64().unwrap());
    let add = nodes.iter().find(|n| n["qualified_name"] == "pkg.calc.Calculator.add").unwrap();
    assert_eq!(
        (add["label"].as_str(), add["file"].as_str(), add["start_line"].as_u64()),
        (Some("METHOD"), Some("pkg/calc.py"), Some(14))
    );
    let calls_add = edges
        .iter()
        .any(|e| e["type"] == "CALLS" && e["target"] == add["id"] && e["confidence"].as_f64().unwrap() > 0.5);
    assert!(calls_add);

    let graphml = fathom(&["export", target, "--format", "graphml"]);
    assert!(graphml.status.success());
    let xml = String::from_utf8(graphml.stdout).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert_eq!(xml.matches("<node id=").count(), nodes.len());
    assert_eq!(xml.matches("<edge id=").count(), edges.len());
    assert!(xml.contains("<data key=\"node_qualified_name\">pkg.calc.Calculator.add</data>"));

    let out = std::env::temp_dir().join(format!("fathom-cli-csv-{}", std::process::id()));
    let csv = fathom(&["export", target, "--format", "csv", "-o", out.to_str().unwrap()]);
    assert!(csv.status.success(), "{}", String::from_utf8_lossy(&csv.stderr));
    let node_rows = std::fs::read_to_string(out.join("nodes.csv")).unwrap();
    let edge_rows = std::fs::read_to_string(out.join("edges.csv")).unwrap();
    std::fs::remove_dir_all(&out).ok();
    assert!(
        node_rows.starts_with("id,label,name,qualified_name,language,file,start_line,end_line,is_external,is_test\n")
    );
    assert!(edge_rows.starts_with("source,target,type,confidence,reason,line\n"));
    assert_eq!(node_rows.lines().count(), nodes.len() + 1);
    assert_eq!(edge_rows.lines().count(), edges.len() + 1);
}

#[test]
fn export_writes_a_scip_index_that_index_reads_back_confirmed() {
    let dir = fixture();
    let target = dir.to_str().unwrap();
    let out = std::env::temp_dir().join(format!("fathom-cli-scip-{}.scip", std::process::id()));
    let written = fathom(&["export", target, "--format", "scip", "-o", out.to_str().unwrap()]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    assert!(String::from_utf8_lossy(&written.stderr).contains("references"));
    let back = json(&fathom(&["index", target, "--scip", out.to_str().unwrap(), "--vectors", "none", "--json"]));
    std::fs::remove_file(&out).ok();
    let scip = &back["scip"];
    assert_eq!(scip["sources"][0]["tool"], "fathom", "{scip:#}");
    assert!(scip["confirmed"].as_u64().unwrap() > 0, "{scip:#}");
    assert_eq!(scip["dropped"], 0, "{scip:#}");
    assert_eq!(scip["agreement"]["calls"]["agreed"], scip["agreement"]["calls"]["judged"], "{scip:#}");
}

#[test]
fn locate_reads_a_report_from_stdin_and_prints_files_with_their_evidence() {
    use std::io::Write;
    let report = "Adding to the calculator fails\n\nTraceback (most recent call last):\n  File \"/srv/pkg/calc.py\", line 39, in compute_total\n    calc.add(value)\n  File \"/srv/pkg/calc.py\", line 15, in add\n    self.total += amount\nTypeError: unsupported operand\n";
    let mut child = Command::new(env!("CARGO_BIN_EXE_fathom"))
        .args(["locate", fixture().to_str().unwrap(), "--issue", "-", "--k", "3", "--json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(report.as_bytes()).unwrap();
    let out = json(&child.wait_with_output().unwrap());
    assert_eq!(out["files"][0]["file"], "pkg/calc.py");
    assert_eq!(out["frames"], 2);
    assert_eq!(out["dense"], false, "a directory has no embeddings, and none were asked for");
    assert!(out["files"].as_array().unwrap().len() <= 3);
    let reasons: Vec<&str> =
        out["files"][0]["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(reasons.contains(&"a traceback frame, where it raised"), "{reasons:?}");
    let add = out["files"][0]["symbols"].as_array().unwrap().iter().find(|s| s["symbol"] == "pkg.calc.Calculator.add");
    assert!(add.is_some_and(|s| s["why"][0] == "traceback line 15"), "{}", out["files"][0]["symbols"]);
    assert!(out["weights"]["word"].as_f64().is_some(), "the weights are recorded");

    // An empty report is refused, naming the cause; a missing file too.
    let empty = Command::new(env!("CARGO_BIN_EXE_fathom"))
        .args(["locate", fixture().to_str().unwrap(), "--issue", "/dev/null"])
        .output()
        .unwrap();
    assert!(!empty.status.success());
    assert!(String::from_utf8_lossy(&empty.stderr).contains("the report is empty"));
    let missing = fathom(&["locate", fixture().to_str().unwrap(), "--issue", "/no/such/report.txt"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/report.txt"));
}

#[test]
fn a_missing_model_is_said_once_and_search_still_answers() {
    let dir = fixture();
    let missing = std::env::temp_dir().join("fathom-no-model-here");
    let out = Command::new(env!("CARGO_BIN_EXE_fathom"))
        .args(["search", dir.to_str().unwrap(), "add an amount to the running sum", "--minilm", "--json"])
        .env("FATHOM_MODEL_DIR", &missing)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // `--minilm` asked for it; the question's candidates would have too.
    assert_eq!(stderr.matches("minilm-l6-v2.f16.safetensors").count(), 1, "{stderr}");
    assert!(!stderr.contains("questions are read through"), "{stderr}");
    let found = json(&out);
    assert!(!found["hits"].as_array().unwrap().is_empty(), "{found}");
}

/// `fathom index --split` writes a directory a static host serves as it is;
/// `fathom search DIR` (and `query`, `symbol`, `callers`, `callees`, `impact`) reads
/// only what the question needs from it and answers as the whole bundle
/// does; a damaged item is named, and so is a bundle
/// asked to carry vectors it cannot.
#[test]
fn a_split_bundle_is_written_and_searched_in_parts() {
    let dir = std::env::temp_dir().join(format!("fathom-split-{}", std::process::id()));
    let bundle = std::env::temp_dir().join(format!("fathom-whole-{}.fathom", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let target = fixture();
    let written =
        fathom(&["index", target.to_str().unwrap(), "--split", "--vectors", "none", "-o", dir.to_str().unwrap()]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    assert!(dir.join("root.fathom").is_file());
    let items: Vec<_> = std::fs::read_dir(dir.join("s")).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(items.len() > 4 && items.iter().all(|p| p.extension().is_some_and(|e| e == "bin")));
    let whole = fathom(&["index", target.to_str().unwrap(), "--vectors", "none", "-o", bundle.to_str().unwrap()]);
    assert!(whole.status.success());

    let search = |source: &std::path::Path| {
        fathom(&["search", source.to_str().unwrap(), "total", "--mode", "lexical", "--json"])
    };
    let split = search(&dir);
    assert_eq!(json(&split), json(&search(&bundle)), "the split bundle answers as the whole one");
    let said = String::from_utf8_lossy(&split.stderr);
    assert!(said.contains("items") && said.contains("waves"), "it says what it read: {said}");

    // Graph questions read it too, and answer as the whole bundle does.
    let total = "pkg.calc.Calculator.total";
    for args in [["callers", total], ["callees", total], ["impact", total], ["symbol", total]] {
        let ask = |source: &std::path::Path| fathom(&[args[0], source.to_str().unwrap(), args[1], "--json"]);
        let split = ask(&dir);
        assert!(split.status.success(), "{args:?}: {}", String::from_utf8_lossy(&split.stderr));
        assert_eq!(json(&split), json(&ask(&bundle)), "{args:?}");
        assert!(String::from_utf8_lossy(&split.stderr).contains("waves"), "{args:?}");
    }
    // A name several symbols share is refused alike, naming them.
    let shared = |source: &std::path::Path| fathom(&["callers", source.to_str().unwrap(), "total"]);
    let (split, whole) = (shared(&dir), shared(&bundle));
    assert!(!split.status.success());
    let last = |out: &Output| String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or_default().to_owned();
    assert_eq!(last(&split), last(&whole));
    assert!(last(&split).contains("pkg.calc.ScientificCalculator.total (pkg/calc.py:32)"), "{}", last(&split));
    // Cypher: a query that names its nodes answers as the whole bundle; one
    // that reads every node past --fetch-limit stops, saying what it needs.
    let cypher = |source: &std::path::Path, text: &str, limit: &str| {
        fathom(&["query", source.to_str().unwrap(), text, "--json", "--fetch-limit", limit])
    };
    for text in [
        "MATCH (m {name: 'total'})<-[:HAS_METHOD]-(c) RETURN c.qualified_name, m.start_line ORDER BY c.qualified_name",
        "MATCH (n:CLASS) RETURN n.name ORDER BY n.name",
    ] {
        let split = cypher(&dir, text, "5");
        assert!(split.status.success(), "{text}: {}", String::from_utf8_lossy(&split.stderr));
        assert_eq!(json(&split), json(&cypher(&bundle, text, "5")), "{text}");
    }
    let costly = cypher(&dir, "MATCH (n:CLASS) RETURN n.name", "0.0001");
    assert!(!costly.status.success());
    let said = String::from_utf8_lossy(&costly.stderr);
    assert!(said.contains("would fetch at least") && said.contains("--fetch-limit 0.0001 MB"), "{said}");
    // Stats: the whole bundle's summary, its files skipped and errors from
    // the summary's item, and the split bundle's own families.
    let stats = |source: &std::path::Path| fathom(&["stats", source.to_str().unwrap(), "--json"]);
    let (mut split, mut whole) = (json(&stats(&dir)), json(&stats(&bundle)));
    assert!(split["split"]["placed"]["postings"]["items"].as_u64().unwrap() > 0, "{split}");
    assert!(split["split"]["root_bytes"].as_u64().unwrap() > 0, "{split}");
    // Each was indexed on its own, so their times differ.
    assert!(split["timings_ms"]["total"].as_f64().unwrap() > 0.0, "{split}");
    for key in ["split", "timings_ms"] {
        split.as_object_mut().unwrap().remove(key);
    }
    for key in ["bundle", "timings_ms"] {
        whole.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(split, whole);
    // What does not read a split bundle yet says so, rather than index its items as source.
    let edges = fathom(&["edges", dir.to_str().unwrap()]);
    assert!(!edges.status.success());
    let said = String::from_utf8_lossy(&edges.stderr);
    assert!(said.contains("is a split bundle") && said.contains("for this command, write a whole bundle"), "{said}");

    // Every item damaged: the search names the one it met.
    for item in &items {
        let mut bytes = std::fs::read(item).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(item, bytes).unwrap();
    }
    let damaged = search(&dir);
    assert_eq!(damaged.status.code(), Some(2), "{}", String::from_utf8_lossy(&damaged.stderr));
    let said = String::from_utf8_lossy(&damaged.stderr);
    assert!(said.contains("was altered") && said.contains("s/"), "{said}");

    let refused =
        fathom(&["index", target.to_str().unwrap(), "--split", "--vectors", "minilm", "-o", dir.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("the static table's vectors only"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&bundle);
}
