//! Fathom's resolver against SCIP indexes (issue 31): for each project of
//! `tests/eval/resolver.json`, indexed by `scripts/scip-corpora.sh` with a
//! pinned indexer, the folder is indexed with the index, and the report's
//! agreement (`fathom_scip::Agreement`: measured before the index changes
//! the graph) gives the precision and recall of Fathom's own `CALLS` and
//! `IMPORTS`, with each disagreement put down to a cause.

use std::path::Path;
use std::time::Instant;

use fathom_engine::{Options, pipeline, read_scip};
use serde_json::{Value, json};

use crate::Clock;

/// The goal of issue 31 for each project's `CALLS`.
pub const GOAL_PRECISION: f64 = 0.95;
pub const GOAL_RECALL: f64 = 0.85;

fn ratio(x: Option<f64>) -> Value {
    x.map_or(Value::Null, |x| json!((x * 10_000.0).round() / 10_000.0))
}

pub fn evaluate(root: &Path, corpora: &Path) -> Value {
    let set: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/eval/resolver.json")).expect("tests/eval/resolver.json reads"),
    )
    .expect("tests/eval/resolver.json parses");
    let dir = corpora.join("scip");
    let mut projects = serde_json::Map::new();
    let mut skipped = Vec::new();
    for project in set["projects"].as_array().into_iter().flatten() {
        let name = project["name"].as_str().unwrap();
        let (folder, scip) = (dir.join(name), dir.join(format!("{name}.scip")));
        if !folder.is_dir() || !scip.is_file() {
            let why = format!("{} or its index is absent (scripts/scip-corpora.sh makes them)", folder.display());
            eprintln!("eval: {why}; skipping {name}");
            skipped.push(json!({"project": name, "why": why}));
            continue;
        }
        let bytes = std::fs::read(&scip).unwrap();
        let index = match read_scip(&format!("{name}.scip"), &bytes) {
            Ok(index) => index,
            Err(e) => {
                eprintln!("eval: {e}; skipping {name}");
                skipped.push(json!({"project": name, "why": e.to_string()}));
                continue;
            }
        };
        let started = Instant::now();
        let indexed = pipeline::stage_dir(&folder, &Options::default(), &mut Clock(Instant::now()))
            .expect("the project reads")
            .with_scip(vec![index])
            .index(&mut Clock(Instant::now()));
        let seconds = started.elapsed().as_secs_f64();
        let report = indexed.summary().scip.clone().expect("indexed with a SCIP index");
        let kind = |k: &fathom_engine::KindAgreement| {
            json!({"precision": ratio(k.precision()), "recall": ratio(k.recall()),
                   "judged": k.judged, "agreed": k.agreed, "ambiguous": k.ambiguous,
                   "ambiguous_agreed": k.ambiguous_agreed, "index_edges": k.index_edges, "found": k.found,
                   "references_elsewhere": k.references_elsewhere,
                   "wrong_by_cause": k.wrong_by_cause, "missed_by_cause": k.missed_by_cause})
        };
        let (tool, version) = report.sources.first().map_or(("", ""), |s| (s.tool.as_str(), s.version.as_str()));
        projects.insert(
            name.to_owned(),
            json!({"language": project["language"], "indexer": format!("{tool} {version}"),
                   "documents_used": report.sources.first().map_or(0, |s| s.matched),
                   "covered_files": report.covered.len(), "seconds": (seconds * 100.0).round() / 100.0,
                   "calls": kind(&report.agreement.calls), "imports": kind(&report.agreement.imports)}),
        );
    }
    // Pooled by language: the sites and references of its projects together.
    let mut languages = serde_json::Map::new();
    for p in projects.values() {
        let language = p["language"].as_str().unwrap_or("").to_owned();
        let entry = languages.entry(language).or_insert_with(|| json!({}));
        for kind in ["calls", "imports"] {
            for key in ["judged", "agreed", "index_edges", "found"] {
                let sum = entry[kind][key].as_u64().unwrap_or(0) + p[kind][key].as_u64().unwrap_or(0);
                entry[kind][key] = json!(sum);
            }
        }
    }
    for entry in languages.values_mut() {
        for kind in ["calls", "imports"] {
            let k = &entry[kind];
            let of = |a: &str, b: &str| {
                let (a, b) = (k[a].as_u64().unwrap_or(0), k[b].as_u64().unwrap_or(0));
                ratio((b > 0).then(|| a as f64 / b as f64))
            };
            let (precision, recall) = (of("agreed", "judged"), of("found", "index_edges"));
            entry[kind]["precision"] = precision;
            entry[kind]["recall"] = recall;
        }
    }
    json!({"goal": {"calls_precision": GOAL_PRECISION, "calls_recall": GOAL_RECALL},
           "projects": projects, "languages": languages, "skipped": skipped})
}

pub fn print_table(report: &Value) {
    println!(
        "{:<18} {:<11} {:>6} {:>6} {:>7} {:>9} {:>6} {:>6}   causes (wrong | missed)",
        "resolver vs SCIP", "edges", "P", "R", "judged", "ambiguous", "index", "found"
    );
    for (name, p) in report["projects"].as_object().into_iter().flatten() {
        for kind in ["calls", "imports"] {
            let k = &p[kind];
            let causes = |key: &str| {
                k[key]
                    .as_object()
                    .map(|m| m.iter().map(|(c, n)| format!("{c} {n}")).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default()
            };
            println!(
                "{name:<18} {:<11} {:>6.3} {:>6.3} {:>7} {:>9} {:>6} {:>6}   {} | {}",
                kind.to_uppercase(),
                k["precision"].as_f64().unwrap_or(f64::NAN),
                k["recall"].as_f64().unwrap_or(f64::NAN),
                k["judged"],
                k["ambiguous"],
                k["index_edges"],
                k["found"],
                causes("wrong_by_cause"),
                causes("missed_by_cause")
            );
        }
    }
    for (language, l) in report["languages"].as_object().into_iter().flatten() {
        for kind in ["calls", "imports"] {
            let k = &l[kind];
            println!(
                "{:<18} {:<11} {:>6.3} {:>6.3} {:>7} {:>9} {:>6} {:>6}",
                format!("all {language}"),
                kind.to_uppercase(),
                k["precision"].as_f64().unwrap_or(f64::NAN),
                k["recall"].as_f64().unwrap_or(f64::NAN),
                k["judged"],
                "",
                k["index_edges"],
                k["found"]
            );
        }
    }
    for (name, p) in report["projects"].as_object().into_iter().flatten() {
        let (precision, recall) =
            (p["calls"]["precision"].as_f64().unwrap_or(0.0), p["calls"]["recall"].as_f64().unwrap_or(0.0));
        if precision < GOAL_PRECISION || recall < GOAL_RECALL {
            println!(
                "resolver: {name}'s CALLS are below the goal (precision {precision:.3} of {GOAL_PRECISION}, recall {recall:.3} of {GOAL_RECALL})"
            );
        }
    }
}
