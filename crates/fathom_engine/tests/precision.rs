//! The hand-judged call-edge samples of `tests/precision/` still describe the
//! graph Fathom builds of those pinned projects, and their precision holds.

mod common;

use std::collections::HashSet;
use std::path::PathBuf;

use common::index_dir;
use fathom_engine::EdgeKind;
use serde_json::Value;

/// Returns the sample's measured precision after checking every judged edge
/// is still in the graph.
fn check(corpus: &str) -> f64 {
    let path = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
        .join(format!("../../tests/precision/{corpus}.calls.json"));
    let sample: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let index = index_dir(&common::corpus(corpus));
    let present: HashSet<(String, String, u32)> = index
        .edges(&[EdgeKind::Calls])
        .into_iter()
        .map(|e| (e.from.symbol, e.to.symbol, e.line.unwrap_or(0)))
        .collect();
    let edges = sample["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 50);
    for edge in edges {
        let key = (
            edge["from"].as_str().unwrap().to_owned(),
            edge["to"].as_str().unwrap().to_owned(),
            edge["line"].as_u64().unwrap() as u32,
        );
        assert!(present.contains(&key), "judged edge no longer in the graph, judge a new sample: {key:?}");
    }
    let correct = edges.iter().filter(|e| e["correct"] == true).count();
    assert_eq!(correct as u64, sample["correct"].as_u64().unwrap());
    correct as f64 / edges.len() as f64
}

#[test]
fn flask_call_edges_are_at_least_90_percent_precise() {
    assert!(check("flask-3.0.3") >= 0.9);
}

#[test]
fn rxjs_call_edges_are_at_least_90_percent_precise() {
    assert!(check("rxjs-7.8.1") >= 0.9);
}
