//! Feature cards on the `mini-py-js` fixture, lexically (no model needed):
//! the symbols, the edges that connect them, tests, a summary that can be
//! checked against the graph, and Markdown that keeps to its budget.

mod common;

use common::{Recorder, fixture};
use fathom_engine::card::{MIN_BUDGET, estimate_tokens};
use fathom_engine::{Options, index_dir};

#[test]
fn a_card_cites_its_symbols_connects_them_and_names_their_tests() {
    let index = index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap();
    let card = index.feature_card("calculator running total add", None, 4000);
    let names: Vec<&str> = card.symbols.iter().map(|s| s.symbol.qualified_name.as_str()).collect();
    assert!(names.contains(&"pkg.calc.Calculator") || names.contains(&"pkg.calc.Calculator.add"), "{names:?}");
    assert!(card.symbols.len() <= 6);
    for s in &card.symbols {
        assert!(s.symbol.file.is_some() && s.symbol.start_line >= 1);
    }
    // Every edge joins two symbols of the card (or a connector).
    let on_card: Vec<u32> =
        card.symbols.iter().map(|s| s.symbol.id).chain(card.connectors.iter().map(|c| c.id)).collect();
    assert!(!card.edges.is_empty());
    for e in &card.edges {
        assert!(on_card.contains(&e.from.id) && on_card.contains(&e.to.id), "{e:?}");
    }
    assert!(card.tests.iter().any(|t| t.node.qualified_name.starts_with("test_calc.")), "{:?}", card.tests);
    assert!(card.summary[0].contains("`pkg/calc.py`"), "{:?}", card.summary);
    assert!(card.summary.iter().any(|s| s.contains("test")), "{:?}", card.summary);

    let md = &card.markdown;
    assert!(md.starts_with("# calculator running total add"));
    assert!(md.contains("## Relations") && md.contains("## Code") && md.contains("```python"));
    assert!(md.contains("pkg/calc.py:"), "every symbol is cited");
    assert_eq!(card.tokens, estimate_tokens(md));
    assert!(card.tokens <= card.budget);
}

#[test]
fn the_markdown_shrinks_to_the_budget_and_says_what_it_left_out() {
    let index = index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap();
    let roomy = index.feature_card("calculator running total add", None, 8000);
    let tight = index.feature_card("calculator running total add", None, MIN_BUDGET);
    assert!(tight.tokens <= MIN_BUDGET, "{} tokens", tight.tokens);
    assert!(tight.markdown.len() < roomy.markdown.len());
    assert!(!tight.omitted_code.is_empty() || tight.markdown.contains("more lines"));
    assert!(roomy.omitted_code.is_empty());

    let nothing = index.feature_card("qwxz zzyq plorb", None, 2000);
    assert!(nothing.symbols.is_empty());
    assert_eq!(nothing.summary, ["Nothing in the repository matches this question."]);
}

#[test]
fn a_card_of_tests_does_not_say_that_no_test_reaches_them() {
    let files = vec![(
        "tests/test_dates.py".to_owned(),
        b"def test_dates_parse():\n    assert True\n\n\ndef test_dates_format():\n    assert True\n".to_vec(),
    )];
    let index = fathom_engine::index_files("dates", files, &Options::default(), &mut Recorder::new());
    let card = index.feature_card("which tests parse and format dates", None, 4000);
    assert!(!card.symbols.is_empty());
    assert!(!card.summary.iter().any(|s| s.starts_with("No test reaches")), "{:?}", card.summary);
}

#[test]
fn overloads_are_one_entry_with_their_count() {
    let files = vec![(
        "src/main/java/demo/Codec.java".to_owned(),
        b"package demo;\n\n/** Turns values into JSON text. */\npublic class Codec {\n    /** Serializes a date to JSON. */\n    \
public String toJson(java.util.Date date) { return quote(date.toString()); }\n\n    /** Serializes a number to JSON. */\n    \
public String toJson(int number) { return Integer.toString(number); }\n\n    /** Serializes text to JSON. */\n    \
public String toJson(String text) { return quote(text); }\n\n    private String quote(String s) { return s; }\n}\n"
            .to_vec(),
    )];
    let index = fathom_engine::index_files("codec", files, &Options::default(), &mut Recorder::new());
    let card = index.feature_card("how is a value serialized to json with toJson", None, 4000);
    let to_json: Vec<_> = card.symbols.iter().filter(|s| s.symbol.qualified_name == "demo.Codec.toJson").collect();
    assert_eq!(to_json.len(), 1, "{:?}", card.symbols.iter().map(|s| &s.symbol.qualified_name).collect::<Vec<_>>());
    assert_eq!(to_json[0].overloads, 3);
    assert!(card.markdown.contains("1 of 3 overloads"), "{}", card.markdown);
    let mut sentences = card.summary.clone();
    sentences.sort();
    sentences.dedup();
    assert_eq!(sentences.len(), card.summary.len(), "{:?}", card.summary);
}
