//! A question's intent: "how does X work" wants the code that does X first,
//! with its tests after it as evidence; a question about tests, or naming a
//! test helper, still gets them first.

mod common;

use common::Recorder;
use fathom_engine::{Index, Options, SearchMode, SearchOptions};

const IMPLEMENTATION: &str = r#"import json


class DateSerializer:
    """Turns a date into JSON text."""

    def serialize(self, value):
        return json.dumps(value.isoformat())
"#;

/// Tests say the question's words in every name, more often than the code.
const TESTS: &str = r#"from dates import DateSerializer


def test_dates_serialized_to_json():
    assert DateSerializer().serialize(date(2020, 1, 2)) == '"2020-01-02"'


def test_serialized_dates_json_round_trip():
    dates = [date(2020, 1, 1), date(2021, 2, 2)]
    assert [DateSerializer().serialize(d) for d in dates]


def test_json_dates_serialized_in_lists():
    assert DateSerializer().serialize(date(1999, 12, 31))


class TestSimple:
    def simple(self):
        assert DateSerializer().serialize(date(2000, 1, 1))
"#;

const HELPER: &str = r#"def make_dates_for_json():
    """Builds the dates the JSON tests serialize."""
    return [date(2020, 1, 1)]
"#;

fn index() -> Index {
    let files = [("src/dates.py", IMPLEMENTATION), ("tests/test_dates.py", TESTS), ("tests/helpers.py", HELPER)];
    let files = files.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    fathom_engine::index_files("dates", files, &Options::default(), &mut Recorder::new())
}

fn files(index: &Index, query: &str) -> Vec<String> {
    let options = SearchOptions { mode: SearchMode::Lexical, ..SearchOptions::default() };
    index.search(query, &options, None).files.into_iter().map(|f| f.file).collect()
}

#[test]
fn a_how_question_gets_the_implementation_before_its_tests() {
    let index = index();
    let found = files(&index, "how are dates serialized to JSON?");
    assert_eq!(found.first().map(String::as_str), Some("src/dates.py"), "{found:?}");
    // The tests stay in the answer, as evidence.
    assert!(found.iter().any(|f| f == "tests/test_dates.py"), "{found:?}");
}

#[test]
fn a_plain_word_of_the_question_that_names_a_test_does_not_ask_for_it() {
    // `simple` is a test's name and a word of the question: the question is
    // about how serializing is used, not about that test.
    let index = index();
    let found = files(&index, "usage, simple serialize");
    assert_eq!(found.first().map(String::as_str), Some("src/dates.py"), "{found:?}");
    // Named as code, or alone, it is asked for.
    let found = files(&index, "TestSimple.simple");
    assert_eq!(found.first().map(String::as_str), Some("tests/test_dates.py"), "{found:?}");
}

#[test]
fn a_question_about_tests_or_naming_a_helper_still_gets_them_first() {
    let index = index();
    let found = files(&index, "which tests check that dates are serialized to JSON");
    assert_eq!(found.first().map(String::as_str), Some("tests/test_dates.py"), "{found:?}");
    let found = files(&index, "make_dates_for_json");
    assert_eq!(found.first().map(String::as_str), Some("tests/helpers.py"), "{found:?}");
}

/// A project's public `Client`, a test's fake of the same name, and a
/// longer name that shares every word.
fn client_index() -> Index {
    let files = [
        (
            "src/client.py",
            "class Client:\n    \"\"\"Talks to the server.\"\"\"\n\n    def send(self, request):\n        return request\n",
        ),
        (
            "src/pool.py",
            "class ClientPool:\n    \"\"\"Many Client objects: client pool of Client.\"\"\"\n\n    def send(self, request):\n        return request\n",
        ),
        (
            "tests/test_client.py",
            "class Client:\n    \"\"\"A fake Client for the tests.\"\"\"\n\n    def send(self, request):\n        return None\n\n\ndef test_client_sends():\n    assert Client().send(1) is None\n",
        ),
    ];
    let files = files.iter().map(|(p, t)| ((*p).to_owned(), t.as_bytes().to_vec())).collect();
    fathom_engine::index_files("client", files, &Options::default(), &mut Recorder::new())
}

#[test]
fn a_typed_name_gets_the_public_definition_named_so_first() {
    let index = client_index();
    let options = SearchOptions::default();
    let hits = index.search("Client", &options, None).hits;
    let first = hits.first().expect("a hit");
    assert_eq!((first.file.as_str(), first.name.as_str()), ("src/client.py", "Client"), "{hits:?}");
    // A qualifier picks the class a method belongs to.
    let hits = index.search("ClientPool.send", &options, None).hits;
    let first = hits.first().expect("a hit");
    assert_eq!((first.file.as_str(), first.name.as_str()), ("src/pool.py", "send"), "{hits:?}");
    // The fake is still found, after the public definition.
    assert!(index.search("Client", &options, None).hits.iter().any(|h| h.file == "tests/test_client.py"));
}
