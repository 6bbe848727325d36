//! TESTS edges: each test linked to what it exercises, with the evidence
//! and a confidence, across languages.

mod common;

use std::collections::BTreeMap;

use common::Recorder;
use fathom_engine::tests_for::Change;
use fathom_engine::{Index, Options};

fn index(files: &[(&str, &str)]) -> Index {
    let files = files.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    fathom_engine::index_files("tests", files, &Options::default(), &mut Recorder::new())
}

/// (test, target) → (reason, confidence), from a Cypher query over TESTS edges.
fn tests_edges(index: &Index) -> BTreeMap<(String, String), (String, f64)> {
    let result = index
        .query(
            "MATCH (t)-[e:TESTS]->(s) RETURN t.qualified_name, s.qualified_name, e.reason, e.confidence",
            &BTreeMap::new(),
        )
        .unwrap();
    result
        .rows
        .iter()
        .map(|row| {
            let text = |i: usize| row[i].as_str().unwrap().to_owned();
            ((text(0), text(1)), (text(2), row[3].as_f64().unwrap()))
        })
        .collect()
}

const PY_SOURCE: &str = "\
class Parser:
    def feed(self, data):
        return tokenize(data)

def tokenize(text):
    return normalize(text).split()

def normalize(text):
    return text.strip()

def unrelated():
    return 1
";

const PY_TESTS: &str = "\
from app.parser import Parser, tokenize


def make_parser():
    return Parser()


def test_feed():
    parser = make_parser()
    assert parser.feed('a b') == ['a', 'b']


def test_tokenize():
    assert tokenize(' x ') == ['x']


class TestParser:
    def test_feed_empty(self):
        assert Parser().feed('') == []
";

#[test]
fn python_tests_link_by_calls_naming_mirrored_paths_and_assertions() {
    let index = index(&[
        ("app/__init__.py", ""),
        ("app/parser.py", PY_SOURCE),
        ("tests/__init__.py", ""),
        ("tests/test_parser.py", PY_TESTS),
    ]);
    let edges = tests_edges(&index);
    let get = |test: &str, target: &str| edges.get(&(test.to_owned(), target.to_owned())).cloned();

    // Direct call, named after it too.
    let (reason, confidence) =
        get("tests.test_parser.test_tokenize", "app.parser.tokenize").expect("test_tokenize → tokenize");
    assert!(confidence >= 0.9, "calls and naming agree: {confidence}");
    assert!(["test-calls", "test-naming"].contains(&reason.as_str()), "{reason}");
    // Two hops through a helper in the test file, damped below a direct call.
    let (_, through_helper) =
        get("tests.test_parser.test_feed", "app.parser.Parser").expect("make_parser() → Parser()");
    let (_, transitive) = get("tests.test_parser.test_tokenize", "app.parser.normalize").expect("tokenize → normalize");
    assert!(transitive < confidence, "one more hop is less certain: {transitive} vs {confidence}");
    assert!(through_helper > 0.0);
    // A test method of TestParser asserting on Parser().feed(...): Parser.feed.
    assert!(get("tests.test_parser.TestParser.test_feed_empty", "app.parser.Parser.feed").is_some());
    // The test class TestParser is named after Parser.
    assert_eq!(get("tests.test_parser.TestParser", "app.parser.Parser").map(|e| e.0).as_deref(), Some("test-naming"));
    // Every test in tests/test_parser.py mirrors app/parser.py.
    assert_eq!(get("tests.test_parser.test_feed", "app.parser").map(|e| e.0).as_deref(), Some("test-mirrored-path"));
    // Nothing reaches `unrelated`, and helpers are not tests.
    assert!(edges.keys().all(|(_, target)| target != "app.parser.unrelated"));
    assert!(edges.keys().all(|(test, _)| test != "tests.test_parser.make_parser"));
}

#[test]
fn typescript_and_go_tests_link_too() {
    let ts_source = "export function formatPrice(cents: number): string {\n  return (cents / 100).toFixed(2);\n}\n";
    let ts_test = "import { formatPrice } from './format';\n\ndescribe('formatPrice', () => {\n  it('formats cents', () => {\n    expect(formatPrice(150)).toBe('1.50');\n  });\n});\n";
    let go_source = "package cart\n\nfunc Total(items []int) int {\n\tsum := 0\n\tfor _, i := range items {\n\t\tsum += i\n\t}\n\treturn sum\n}\n";
    let go_test = "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n";
    let index = index(&[
        ("web/format.ts", ts_source),
        ("web/format.test.ts", ts_test),
        ("cart/cart.go", go_source),
        ("cart/cart_test.go", go_test),
    ]);
    let edges = tests_edges(&index);
    let targets_of = |prefix: &str| -> Vec<&str> {
        edges.keys().filter(|(t, _)| t.starts_with(prefix)).map(|(_, s)| s.as_str()).collect()
    };
    assert!(targets_of("web/format.test").contains(&"web/format.formatPrice"), "{edges:?}");
    assert!(targets_of("cart").iter().any(|s| s.ends_with("Total") && !s.ends_with("TestTotal")), "{edges:?}");
}

fn parser_index() -> Index {
    index(&[
        ("app/__init__.py", ""),
        ("app/parser.py", PY_SOURCE),
        ("tests/__init__.py", ""),
        ("tests/test_parser.py", PY_TESTS),
    ])
}

/// The parser's repository and a module that no test touches or resembles.
fn index_with_lonely_module() -> Index {
    index(&[
        ("app/__init__.py", ""),
        ("app/parser.py", PY_SOURCE),
        ("app/zebra_codec.py", "def rot_thirteen(text):\n    return text[::-1]\n"),
        ("tests/__init__.py", ""),
        ("tests/test_parser.py", PY_TESTS),
    ])
}

fn test_names(found: &fathom_engine::tests_for::TestsFor) -> Vec<&str> {
    found.tests.iter().map(|t| t.test.qualified_name.as_str()).collect()
}

#[test]
fn a_diff_leads_to_the_tests_of_what_it_changed_with_the_path_as_evidence() {
    let index = parser_index();
    let diff = "--- a/app/parser.py\n+++ b/app/parser.py\n@@ -8,2 +8,2 @@ def normalize(text):\n def normalize(text):\n-    return text.strip()\n+    return text.strip().lower()\n";
    let change = Change { diff: Some(diff.into()), ..Change::default() };
    let found = index.tests_for(&change, None).unwrap();
    assert!(!found.abstained, "{:?}", found.notes);
    assert_eq!(
        found.changed.iter().map(|c| c.symbol.qualified_name.as_str()).collect::<Vec<_>>(),
        ["app.parser.normalize"]
    );
    let names = test_names(&found);
    assert!(names.contains(&"tests.test_parser.test_tokenize"), "{names:?}");
    let best = &found.tests[0];
    assert!(best.graph_rank.is_some() && best.score > 0.0);
    let last = best.path.last().expect("an evidence path");
    assert_eq!(last.edge, fathom_engine::EdgeKind::Tests);
    assert_eq!(last.from.qualified_name, best.test.qualified_name);
    // What else could break: tokenize calls normalize, in app/.
    let dependents: Vec<&str> =
        found.impact.iter().flat_map(|g| g.dependents.iter().map(|d| d.node.qualified_name.as_str())).collect();
    assert!(dependents.contains(&"app.parser.tokenize"), "{dependents:?}");
    assert_eq!(found.impact[0].package, "app");
}

#[test]
fn symbols_and_descriptions_work_and_weak_evidence_abstains() {
    let index = parser_index();
    let by_symbol =
        index.tests_for(&Change { symbols: vec!["app.parser.Parser.feed".into()], ..Change::default() }, None).unwrap();
    assert!(test_names(&by_symbol).contains(&"tests.test_parser.test_feed"), "{:?}", by_symbol.tests);

    let described =
        index.tests_for(&Change { text: Some("tokenize text into words".into()), ..Change::default() }, None).unwrap();
    assert!(!described.abstained, "{:?}", described.notes);
    assert!(test_names(&described).contains(&"tests.test_parser.test_tokenize"), "{:?}", described.tests);

    // Changed code no test calls, in a module that has tests: the module's
    // tests reach it, through the module or by their file's name, and say how.
    let untested =
        index.tests_for(&Change { symbols: vec!["app.parser.unrelated".into()], ..Change::default() }, None).unwrap();
    assert!(!untested.abstained, "{:?}", untested.notes);
    assert!(!untested.tests.is_empty());
    assert!(
        untested.tests.iter().all(|t| t.test.file.as_deref() == Some("tests/test_parser.py")),
        "{:?}",
        untested.tests
    );
    let through_module =
        untested.tests[0].path.first().is_some_and(|hop| hop.edge == fathom_engine::EdgeKind::Contains);
    let by_name = untested.notes.iter().any(|n| n.contains("no test is linked") && n.contains("named like its files"));
    assert!(through_module || by_name, "{:?} {:?}", untested.tests[0].path, untested.notes);

    // Changed code that nothing reaches, by graph, name or words: said
    // plainly, no guesses.
    let lonely = index_with_lonely_module();
    let unreached = lonely
        .tests_for(&Change { symbols: vec!["app.zebra_codec.rot_thirteen".into()], ..Change::default() }, None)
        .unwrap();
    assert!(unreached.abstained && unreached.tests.is_empty(), "{:?}", unreached.tests);
    assert!(unreached.notes.iter().any(|n| n.contains("no test is linked")), "{:?}", unreached.notes);

    // A feature that does not exist.
    let imaginary = index
        .tests_for(&Change { text: Some("quantum teleportation of flux capacitors".into()), ..Change::default() }, None)
        .unwrap();
    assert!(imaginary.abstained && imaginary.tests.is_empty(), "{:?}", imaginary.tests);
    // The note quotes the description's own words, not their stems.
    assert!(
        imaginary.notes.iter().any(|n| n.ends_with("top matches: quantum, teleportation, flux, capacitors")),
        "{:?}",
        imaginary.notes
    );

    // Unknown symbols are named; a malformed diff is refused with the cause.
    let unknown = index.tests_for(&Change { symbols: vec!["app.nothing".into()], ..Change::default() }, None).unwrap();
    assert!(unknown.abstained && unknown.notes.iter().any(|n| n.contains("app.nothing")));
    let error = index.tests_for(&Change { diff: Some("not a diff".into()), ..Change::default() }, None).unwrap_err();
    assert!(error.to_string().contains("no hunk"));
}

/// A command-line tool tested as jq is: scripts in `tests/` run the built
/// program, one of them on a file of cases.
fn cli_tool_index() -> Index {
    index(&[
        (
            "src/builtin.c",
            "static int f_ltrimstr(int input, int prefix) {\n  return input - prefix;\n}\n\nstatic int f_ascii_downcase(int input) {\n  return input + 32;\n}\n",
        ),
        ("src/main.c", "int main(int argc, char **argv) {\n  int seq = argc > 1;\n  return seq;\n}\n"),
        (
            "tests/jqtest",
            "#!/bin/sh\n. \"${0%/*}/setup\" \"$@\"\n$VALGRIND $JQ --run-tests $JQTESTDIR/jq.test\n$JQ . $JQTESTDIR/corpus.json\n",
        ),
        (
            "tests/jq.test",
            "# Tests are groups of three lines: program, input, expected output\n\n[.[]|ltrimstr(\"foo\")]\n[\"fo\", \"foo\", \"foobar\"]\n[\"fo\",\"\",\"bar\"]\n\nascii_downcase\n\"OK\"\n\"ok\"\n",
        ),
        ("tests/shtest", "#!/bin/sh -x\n# Options of the command line\nif $JQ --seq . < /dev/null; then echo ok; fi\n"),
        ("tests/CMakeLists.txt", "add_test(NAME cases COMMAND jq --run-tests)\n"),
        ("tests/data/input.json", "{\"ltrimstr\": 1}\n"),
        // Too large to be a case a person writes: not read at all.
        ("tests/corpus.json", HUGE_CASES.as_str()),
    ])
}

/// 300 KB, past the 256 KB a test script or case file may have.
static HUGE_CASES: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| "[1, 2, 3]\n".repeat(30_000));

#[test]
fn a_test_folders_scripts_and_the_case_files_they_run_are_tests() {
    let index = cli_tool_index();
    let tests: Vec<(&str, &str)> = index
        .graph()
        .nodes()
        .filter(|(_, n)| n.is_test())
        .map(|(_, n)| (n.name.as_str(), n.file.map_or("", |f| index.graph().files()[f.0 as usize].path.as_str())))
        .collect();
    assert_eq!(tests.len(), 3, "{tests:?}");
    for file in ["tests/jqtest", "tests/jq.test", "tests/shtest"] {
        assert!(tests.iter().any(|(_, f)| *f == file), "{file} in {tests:?}");
    }
    // Neither a script nor a file a script names: left out, and said so.
    let skipped = &index.summary().skipped;
    let why = skipped.iter().find(|s| s.path == "tests/CMakeLists.txt").map(|s| s.detail.as_str());
    assert_eq!(why, Some("no supported language for this file, and no test script runs it"));
    assert!(index.file_text("tests/data/input.json").is_none());
    let why = skipped.iter().find(|s| s.path == "tests/corpus.json").map(|s| s.detail.as_str()).unwrap_or_default();
    assert!(why.contains("larger") && why.contains("than a test script"), "{why}");

    // A change to a builtin: its cases are the tests to run, by their words.
    let diff = "--- a/src/builtin.c\n+++ b/src/builtin.c\n@@ -1,3 +1,3 @@\n static int f_ltrimstr(int input, int prefix) {\n-  return input - prefix;\n+  return prefix > input ? input : input - prefix;\n }\n";
    let found = index.tests_for(&Change { diff: Some(diff.into()), ..Change::default() }, None).unwrap();
    assert!(!found.abstained, "{:?}", found.notes);
    let first = &found.tests[0];
    assert_eq!(first.test.file.as_deref(), Some("tests/jq.test"), "{:?}", found.tests);
    assert_eq!(first.test.qualified_name, "tests/jq.test");
    assert!(first.matched_terms.iter().any(|t| t == "ltrimstr"), "{:?}", first.matched_terms);

    // A change to the command line: the script that passes options.
    let diff = "--- a/src/main.c\n+++ b/src/main.c\n@@ -1,3 +1,3 @@\n int main(int argc, char **argv) {\n-  int seq = argc > 1;\n+  int seq = argc > 2;\n   return seq;\n";
    let found = index.tests_for(&Change { diff: Some(diff.into()), ..Change::default() }, None).unwrap();
    assert_eq!(found.tests.first().and_then(|t| t.test.file.as_deref()), Some("tests/shtest"), "{:?}", found.tests);
}

#[test]
fn a_cpp_type_alias_carries_its_receivers_calls_to_the_class() {
    let index = index(&[
        (
            "include/json.hpp",
            "template<typename T = int>\nclass basic_json {\n  public:\n    void push_back(T value) {\n        size_ += 1;\n    }\n    int size_ = 0;\n};\n\nusing json = basic_json<>;\n",
        ),
        // Another class's method of the same name: the name alone does not tell.
        ("include/ordered_map.hpp", "class ordered_map {\n  public:\n    void push_back(int value) {}\n};\n"),
        // The same alias again, in a single-header copy, stands for the same.
        ("single_include/json.hpp", "template<typename T = int>\nclass basic_json {};\nusing json = basic_json<>;\n"),
        (
            "tests/unit-modifiers.cpp",
            "#include \"doctest.h\"\n#include \"json.hpp\"\n\nTEST_CASE(\"modifiers\")\n{\n    json j;\n    j.push_back(1);\n    CHECK(j.size_ == 1);\n}\n",
        ),
    ]);
    let edges = tests_edges(&index);
    let targets: Vec<&str> =
        edges.keys().filter(|(test, _)| test.contains("modifiers")).map(|(_, target)| target.as_str()).collect();
    assert!(targets.contains(&"include/json::basic_json::push_back"), "{edges:?}");
    assert!(!targets.iter().any(|t| t.contains("ordered_map")), "{edges:?}");
}

/// A header-only library's tests: Catch2-style cases in `test/src`, the
/// framework itself vendored in `test/thirdparty`, and no call the resolver
/// links from a case to the changed function.
fn vendored_framework_index() -> Index {
    // The framework: many chunks that spell the change's words, none a test.
    let framework: String = (0..300)
        .map(|i| {
            format!(
                "inline int pointer_token_helper_{i}(int json_pointer, int token) {{ return json_pointer + token; }}\n"
            )
        })
        .collect();
    let mut files: Vec<(String, String)> = vec![
        (
            "include/json_pointer.hpp".into(),
            "inline int split_pointer_token(int json_pointer, int token) {\n    return json_pointer - token;\n}\n"
                .into(),
        ),
        ("include/lexer.hpp".into(), "inline int scan_number(int input) {\n    return input * 10;\n}\n".into()),
        ("test/thirdparty/catch/catch.hpp".into(), framework),
        (
            "test/src/unit-json_pointer.cpp".into(),
            "#include \"json_pointer.hpp\"\nTEST_CASE(\"pointers\") {\n    CHECK(1 == 1);\n}\n".into(),
        ),
    ];
    // Other cases, on other code.
    for name in ["lexer", "numbers", "parser"] {
        files.push((
            format!("test/src/unit-{name}.cpp"),
            format!("#include \"lexer.hpp\"\nTEST_CASE(\"{name} tokens\") {{\n    CHECK(scan_number(1) == 10);\n}}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    index(&files)
}

#[test]
fn a_vendored_test_framework_does_not_crowd_the_tests_out_of_the_word_lane() {
    let index = vendored_framework_index();
    let diff = "--- a/include/json_pointer.hpp\n+++ b/include/json_pointer.hpp\n@@ -1,3 +1,3 @@\n inline int split_pointer_token(int json_pointer, int token) {\n-    return json_pointer - token;\n+    return token - json_pointer;\n }\n";
    let found = index.tests_for(&Change { diff: Some(diff.into()), ..Change::default() }, None).unwrap();
    assert!(!found.abstained, "{:?}", found.notes);
    let files: Vec<&str> = found.tests.iter().filter_map(|t| t.test.file.as_deref()).collect();
    // The test named like the changed file leads; the framework is not a test.
    assert_eq!(files.first(), Some(&"test/src/unit-json_pointer.cpp"), "{files:?}");
    assert!(!files.iter().any(|f| f.contains("thirdparty")), "{files:?}");
    // More than one test is offered: the lane was not filled by the framework.
    assert!(files.len() >= 2, "{files:?}");
}
