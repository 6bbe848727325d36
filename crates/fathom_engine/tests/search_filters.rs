//! Search filters (language, kind, path, tests) and snippets on the
//! `mini-py-js` fixture, lexically (no model needed).

mod common;

use common::{Recorder, fixture};
use fathom_engine::{Index, Options, SearchFilter, SearchMode, SearchOptions, TestFilter, index_dir};

fn index() -> Index {
    index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap()
}

fn search(index: &Index, query: &str, filter: SearchFilter) -> fathom_engine::SearchResults {
    index.search(query, &SearchOptions { k: 50, mode: SearchMode::Lexical, filter, ..SearchOptions::default() }, None)
}

#[test]
fn filters_narrow_hits_and_files_by_language_kind_path_and_tests() {
    let index = index();
    let all = search(&index, "total", SearchFilter::default());
    assert!(all.hits.iter().any(|h| h.language.name() == "python"));
    assert!(all.hits.iter().any(|h| h.language.name() != "python"));
    assert!(all.hits.iter().any(|h| h.file.starts_with("tests/")));

    let python = search(&index, "total", SearchFilter { languages: vec!["python".into()], ..SearchFilter::default() });
    assert!(!python.hits.is_empty() && python.hits.iter().all(|h| h.language.name() == "python"));
    assert!(python.files.iter().all(|f| f.file.ends_with(".py")));

    let methods = search(&index, "total", SearchFilter { kinds: vec!["method".into()], ..SearchFilter::default() });
    assert!(!methods.hits.is_empty() && methods.hits.iter().all(|h| h.kind.name() == "method"));

    let glob = search(&index, "total", SearchFilter { path: Some("web/**/*.js".into()), ..SearchFilter::default() });
    assert!(!glob.hits.is_empty() && glob.hits.iter().all(|h| h.file.starts_with("web/") && h.file.ends_with(".js")));
    let substring = search(&index, "total", SearchFilter { path: Some("calc".into()), ..SearchFilter::default() });
    assert!(!substring.hits.is_empty() && substring.hits.iter().all(|h| h.file.contains("calc")));

    let only = search(&index, "total", SearchFilter { tests: TestFilter::Only, ..SearchFilter::default() });
    assert!(!only.hits.is_empty() && only.hits.iter().all(|h| h.file.starts_with("tests/")));
    let without = search(&index, "total", SearchFilter { tests: TestFilter::Exclude, ..SearchFilter::default() });
    assert!(!without.hits.is_empty() && without.hits.iter().all(|h| !h.file.starts_with("tests/")));

    // A bad glob keeps the results and says why it was not applied.
    let bad = search(&index, "total", SearchFilter { path: Some("src/[a".into()), ..SearchFilter::default() });
    assert_eq!(bad.hits.len(), all.hits.len());
    assert!(bad.note.as_deref().is_some_and(|n| n.contains("not a valid glob")), "{:?}", bad.note);
}

#[test]
fn each_hit_carries_a_snippet_with_the_query_words_marked() {
    let index = index();
    let results = search(&index, "compute total", SearchFilter::default());
    let hit = results.hits.iter().find(|h| h.symbol == "pkg.calc.compute_total").unwrap();
    let s = &hit.snippet;
    assert_eq!(s.start_line, hit.start_line);
    assert_eq!(s.lines[0], "def compute_total(values):");
    // `compute_total` holds both words: one mark over the whole identifier.
    assert!(s.marks.contains(&[0, 4, 17]), "{:?}", s.marks);
}

#[test]
fn a_filtered_search_is_not_crowded_out_by_what_the_filter_leaves_out() {
    // 300 functions say the query's words more often than the one test
    // does: BM25's best 200 chunks overall are all code. A search of tests
    // still finds the test, as the best of the chunks that pass.
    let mut files: Vec<(String, Vec<u8>)> = (0..300)
        .map(|i| {
            let body =
                format!("def f{i}(ledger):\n    ledger.balance(ledger.balance, ledger)\n    return ledger.balance\n");
            (format!("src/m{i}.py"), body.into_bytes())
        })
        .collect();
    files.push((
        "tests/test_reconcile.py".into(),
        b"def test_reconciles():\n    assert reconcile(make()) == 0  # the ledger's balance\n".to_vec(),
    ));
    let index = fathom_engine::index_files("crowd", files, &Options::default(), &mut Recorder::new());
    let tests = search(&index, "ledger balance", SearchFilter { tests: TestFilter::Only, ..SearchFilter::default() });
    let found: Vec<&str> = tests.hits.iter().map(|h| h.symbol.as_str()).collect();
    assert_eq!(found.first(), Some(&"test_reconcile.test_reconciles"), "{found:?}");
    assert!(tests.hits.iter().all(|h| h.file == "tests/test_reconcile.py"), "{found:?}");
}
