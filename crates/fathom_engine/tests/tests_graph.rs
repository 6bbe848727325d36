//! TESTS edges: each test linked to what it exercises, with the evidence
//! and a confidence, across languages.

mod common;

use std::collections::BTreeMap;

use common::Recorder;
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
