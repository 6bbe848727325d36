//! Test recommendation on real history (`tests/eval/history.json`).
//!
//! Each pair of consecutive releases of a project is one change. The query
//! is the unified diff of its non-test Python code, old → new, as
//! `git diff` would print it; the index is the old release, as a user would
//! have it before applying the patch. The relevant items are the test files
//! of the old release that the same pair modified: the tests its authors
//! touched along with the code. Test files the pair added cannot be ranked
//! from the old index; they are counted, not scored. Pairs with no code
//! change or no such test file are listed as skipped.
//!
//! Methods, each a ranking of test files:
//! - `bm25`: the baseline, BM25 over test code with the diff's text as the query;
//! - `graph`: the graph lane alone (changed definitions → dependents → `TESTS`);
//! - `full`: `Index::tests_for`, the graph lane fused with BM25 (RRF, k = 60).
//!
//! `full` abstaining counts as an empty ranking, a miss.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use fathom_archive::{Exclude, Limits, ReadOptions};
use fathom_engine::tests_for::Change;
use fathom_engine::{Index, Options, SearchFilter, SearchMode, SearchOptions, TestFilter};
use fathom_search::retrieval::is_test_path;
use serde_json::{Value, json};
use similar::TextDiff;

use crate::{Clock, Metrics};

pub const METHODS: [&str; 3] = ["bm25", "graph", "full"];
/// How many tests each method returns.
const DEPTH: usize = 100;
/// A description of something neither project has: the full method must abstain.
const IMAGINARY: &str = "render the quarterly invoice as a PDF with a barcode";

/// A release's Python files that can be changed or tested: not its docs or
/// examples. Read as the index reads a directory (its skip rules too).
/// Keyed by the path without a leading `src/`, so a move into `src/`
/// (requests 2.32) reads as edits, not as deletions and additions.
fn python_files(dir: &Path) -> BTreeMap<String, (String, String)> {
    let exclude = Exclude::new(&["docs/**".into(), "examples/**".into()]).expect("valid globs");
    let options = ReadOptions {
        limits: Limits::default(),
        accept: &|p| p.ends_with(".py"),
        read_cap: &fathom_archive::no_cap,
        exclude: &exclude,
    };
    let archive = fathom_archive::read_dir(dir, &options).expect("a release unpacks to a readable directory");
    archive
        .files
        .into_iter()
        .map(|f| (f.path.strip_prefix("src/").unwrap_or(&f.path).to_owned(), (f.path, f.text)))
        .collect()
}

/// One release pair as a change: the diff of its code and the test files it touched.
struct Pair {
    old: String,
    new: String,
    diff: String,
    /// The diff's lines, without markers or headers: the baseline's query.
    words: String,
    code_files: usize,
    relevant: HashSet<String>,
    added_tests: usize,
}

fn pair(old_dir: &Path, new_dir: &Path, old: &str, new: &str) -> Pair {
    let (before, after) = (python_files(old_dir), python_files(new_dir));
    let mut diff = String::new();
    let mut code_files = 0;
    let mut relevant = HashSet::new();
    let mut added_tests = 0;
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in keys {
        let (a, b) = (before.get(key), after.get(key));
        if a.map(|x| &x.1) == b.map(|x| &x.1) {
            continue;
        }
        if is_test_path(key) {
            match a {
                Some((path, _)) if b.is_some() => {
                    relevant.insert(path.clone());
                }
                None => added_tests += 1,
                Some(_) => {} // a deleted test file is not run
            }
            continue;
        }
        code_files += 1;
        let old_path = a.map_or("/dev/null".to_owned(), |(p, _)| format!("a/{p}"));
        let new_path = b.map_or("/dev/null".to_owned(), |(p, _)| format!("b/{p}"));
        let (old_text, new_text) = (a.map_or("", |x| x.1.as_str()), b.map_or("", |x| x.1.as_str()));
        diff.push_str(
            &TextDiff::from_lines(old_text, new_text)
                .unified_diff()
                .context_radius(3)
                .header(&old_path, &new_path)
                .to_string(),
        );
    }
    let words = diff
        .lines()
        .filter(|l| !(l.starts_with("---") || l.starts_with("+++") || l.starts_with("@@")))
        .map(|l| l.get(1..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    Pair { old: old.to_owned(), new: new.to_owned(), diff, words, code_files, relevant, added_tests }
}

/// Test files in the order their first test is ranked.
fn files_of<'a>(ranked: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut seen = HashSet::new();
    ranked.filter(|f| seen.insert(*f)).map(str::to_owned).collect()
}

/// Each method's ranking of test files for one change.
fn rankings(index: &Index, pair: &Pair) -> (BTreeMap<&'static str, Vec<String>>, bool, usize) {
    let options = SearchOptions {
        k: DEPTH,
        mode: SearchMode::Lexical,
        expand: false,
        filter: SearchFilter { tests: TestFilter::Only, ..Default::default() },
        // The baseline is BM25 alone: a diff is not read as a bug report.
        read_report: false,
        ..SearchOptions::default()
    };
    let bm25 = index.search(&pair.words, &options, None).files.into_iter().map(|f| f.file).collect();
    let found = index
        .tests_for(&Change { diff: Some(pair.diff.clone()), k: Some(500), ..Change::default() }, None)
        .expect("a diff written by `similar` parses");
    let mut by_graph: Vec<_> = found.tests.iter().filter_map(|t| Some((t.graph_rank?, t))).collect();
    by_graph.sort_by_key(|(rank, _)| *rank);
    let graph = files_of(by_graph.iter().filter_map(|(_, t)| t.test.file.as_deref()));
    let full = files_of(found.tests.iter().filter_map(|t| t.test.file.as_deref())).into_iter().take(DEPTH).collect();
    (BTreeMap::from([("bm25", bm25), ("graph", graph), ("full", full)]), found.abstained, found.changed.len())
}

/// The release pairs of every project, scored; `corpora/history/<name>-<version>`.
pub fn evaluate(root: &Path, corpora: &Path) -> Value {
    let set: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("tests/eval/history.json")).unwrap()).unwrap();
    let mut totals: BTreeMap<&str, Metrics> = METHODS.iter().map(|m| (*m, Metrics::default())).collect();
    let mut projects = json!({});
    let mut imaginary = json!({});
    for project in set["projects"].as_array().unwrap() {
        let name = project["name"].as_str().unwrap();
        let versions: Vec<&str> = project["versions"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let dir = |v: &str| -> PathBuf { corpora.join(format!("history/{name}-{v}")) };
        let mut metrics: BTreeMap<&str, Metrics> = METHODS.iter().map(|m| (*m, Metrics::default())).collect();
        let mut changes = Vec::new();
        let mut skipped = Vec::new();
        let started = Instant::now();
        for window in versions.windows(2) {
            let (old, new) = (window[0], window[1]);
            let pair = pair(&dir(old), &dir(new), old, new);
            if pair.code_files == 0 || pair.relevant.is_empty() {
                skipped.push(json!({"old": old, "new": new, "code_files": pair.code_files,
                    "why": if pair.code_files == 0 { "no code change" } else { "no existing test file touched" }}));
                continue;
            }
            let index = fathom_engine::index_dir(&dir(old), &Options::default(), &mut Clock(Instant::now()))
                .expect("a release indexes");
            let (ranked, abstained, changed) = rankings(&index, &pair);
            let mut first = json!({});
            let mut top10 = json!({});
            for (method, ranking) in &ranked {
                metrics.get_mut(method).unwrap().add(ranking, &pair.relevant);
                totals.get_mut(method).unwrap().add(ranking, &pair.relevant);
                first[*method] = json!(ranking.iter().position(|f| pair.relevant.contains(f)).map(|p| p + 1));
                top10[*method] = json!(ranking.iter().take(10).filter(|f| pair.relevant.contains(*f)).count());
            }
            let mut relevant: Vec<&String> = pair.relevant.iter().collect();
            relevant.sort();
            changes.push(json!({
                "old": pair.old, "new": pair.new, "code_files": pair.code_files, "diff_lines": pair.diff.lines().count(),
                "changed_definitions": changed, "relevant": relevant, "added_test_files": pair.added_tests,
                "abstained": abstained, "first_relevant_rank": first, "relevant_in_top_10": top10,
            }));
        }
        let latest = fathom_engine::index_dir(
            &dir(versions[versions.len() - 1]),
            &Options::default(),
            &mut Clock(Instant::now()),
        )
        .expect("a release indexes");
        let said = latest.tests_for(&Change { text: Some(IMAGINARY.into()), ..Change::default() }, None).unwrap();
        imaginary[name] = json!({"abstained": said.abstained, "tests": said.tests.len(), "notes": said.notes});
        let mut scores = json!({});
        for (method, m) in &metrics {
            scores[*method] = m.json();
        }
        projects[name] = json!({"changes": changes, "skipped": skipped, "scores": scores,
            "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0});
    }
    let mut overall = json!({});
    for (method, m) in &totals {
        overall[*method] = m.json();
    }
    json!({"description": IMAGINARY, "imaginary": imaginary, "projects": projects, "overall": overall})
}
