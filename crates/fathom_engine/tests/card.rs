//! Feature cards on the `mini-py-js` fixture, lexically (no model needed):
//! the symbols, the edges that connect them, tests, a summary that can be
//! checked against the graph, and Markdown that keeps to its budget.

mod common;

use std::collections::HashSet;

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
    assert!(md.contains("## Relations") && md.contains("## Implementation") && md.contains("```python"));
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

/// A small shop: the pricing code a question is about, a public entry point
/// two calls above it, the settings it reads, and a test that shares every
/// word of the question.
fn shop() -> fathom_engine::Index {
    let files: Vec<(String, Vec<u8>)> = [
        ("src/shop/__init__.py", ""),
        ("src/shop/settings/__init__.py", ""),
        (
            "src/shop/pricing.py",
            "import os\nfrom shop.settings.config import DiscountSettings\n\n\ndef apply_discount(total, settings: DiscountSettings):\n    \"\"\"Apply the configured discount to an order's total.\"\"\"\n    if os.environ.get(\"SHOP_NO_DISCOUNT\"):\n        return total\n    rate = settings.config[\"discount_rate\"]\n    return total * (1 - rate)\n",
        ),
        (
            "src/shop/api.py",
            "from shop.pricing import apply_discount\nfrom shop.settings.config import DiscountSettings\n\n\ndef checkout(cart):\n    \"\"\"Check a cart out: its total, discounted.\"\"\"\n    return _total(cart)\n\n\ndef _total(cart):\n    return apply_discount(sum(cart), DiscountSettings())\n",
        ),
        (
            "src/shop/settings/config.py",
            "class DiscountSettings:\n    \"\"\"What the shop's discounts read.\"\"\"\n\n    def __init__(self):\n        self.config = {\"discount_rate\": 0.1}\n",
        ),
        (
            "tests/test_pricing.py",
            "from shop.pricing import apply_discount\nfrom shop.settings.config import DiscountSettings\n\n\ndef test_discount_applied_to_total():\n    \"\"\"The discount is applied to the total.\"\"\"\n    assert apply_discount(10, DiscountSettings()) < 10\n",
        ),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text.as_bytes().to_vec()))
    .collect();
    fathom_engine::index_files("shop", files, &Options::default(), &mut Recorder::new())
}

#[test]
fn a_card_leads_with_the_implementation_then_entry_points_settings_placement_and_tests_last() {
    let card = shop().feature_card("how is the discount applied to the total", None, 4000);
    let names: Vec<&str> = card.symbols.iter().map(|s| s.symbol.qualified_name.as_str()).collect();
    assert_eq!(names.first(), Some(&"shop.pricing.apply_discount"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("test_")), "the test is evidence, not the answer: {names:?}");
    // The test that shares the question's words is still there, last, as matching it.
    let test = card.tests.iter().find(|t| t.node.qualified_name.ends_with("test_discount_applied_to_total"));
    assert!(test.is_some(), "{:?}", card.tests);
    // `checkout` is public and nothing calls it; `_total` is private.
    let entry = card.entry_points.iter().find(|e| e.symbol.qualified_name == "shop.api.checkout");
    let entry = entry.unwrap_or_else(|| panic!("{:?}", card.entry_points));
    // It calls `_total` (on the card too), which calls `apply_discount`.
    assert_eq!(entry.calls, 1);
    assert!(entry.reaches.contains(&"shop.pricing.apply_discount".to_owned()), "{:?}", entry.reaches);
    assert!(!card.entry_points.iter().any(|e| e.symbol.name == "_total"), "{:?}", card.entry_points);
    // What the code reads, each at its line.
    let setting = |name: &str| card.settings.iter().find(|s| s.name == name);
    let env = setting("SHOP_NO_DISCOUNT").unwrap_or_else(|| panic!("{:?}", card.settings));
    assert_eq!((env.kind, env.file.as_str(), env.line), ("environment", "src/shop/pricing.py", 7));
    let key = setting("discount_rate").unwrap_or_else(|| panic!("{:?}", card.settings));
    assert_eq!((key.kind, key.line, key.used_by.as_str()), ("key", 9, "shop.pricing.apply_discount"));
    let kind = setting("shop.settings.config.DiscountSettings").map(|s| s.kind);
    assert_eq!(kind, Some("type"), "{:?}", card.settings);
    // Where it sits: its directory, and the one it depends on.
    let placement = card.placement.as_ref().expect("a placement");
    assert_eq!(placement.directory, "src/shop");
    assert_eq!(placement.files, 3);
    assert_eq!(placement.depends_on.first().map(|l| l.directory.as_str()), Some("src/shop/settings"));
    assert!(placement.used_by.iter().all(|l| !l.directory.starts_with("tests")), "{:?}", placement.used_by);
    // The Markdown in that order, with no sentence twice.
    let md = &card.markdown;
    let at = |heading: &str| md.find(heading).unwrap_or_else(|| panic!("{heading} in {md}"));
    let order = ["## Implementation", "## Entry points", "## Settings", "## Where it sits", "## Tests"].map(at);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}\n{md}");
    let lines: Vec<&str> = md.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(lines.iter().collect::<HashSet<_>>().len(), lines.len(), "{md}");
}

#[test]
fn a_question_about_tests_gets_the_tests() {
    let card = shop().feature_card("which test checks the discount", None, 4000);
    assert_eq!(
        card.symbols.first().map(|s| s.symbol.name.as_str()),
        Some("test_discount_applied_to_total"),
        "{:?}",
        card.symbols.iter().map(|s| &s.symbol.qualified_name).collect::<Vec<_>>()
    );
}
