//! Extraction on small inline sources, one behaviour per test.

mod common;

use common::{parse, render};
use fathom_model::{Language, SymbolKind};

#[test]
fn python_definitions_carry_their_properties() {
    let source = r#"import functools
from typing import overload

RATE: float = 0.2


class Calculator(Base, metaclass=Meta):
    """Keeps a running total."""

    precision = 2

    def __init__(self, start: int = 0) -> None:
        self.total = start

    @functools.lru_cache(maxsize=2)
    async def add(self, amount: float) -> "Calculator":
        if amount > 0 and amount < 10:
            self.total += amount
        elif amount < 0:
            raise ValueError("negative")
        return self

    def _reset(self):
        def inner():
            return 0
        self.total = inner()


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> int: ...
def parse(x):
    return int(x)
"#;
    insta::assert_snapshot!(render(&parse(Language::Python, "calc.py", source)));
}

#[test]
fn python_tests_follow_pytest_and_unittest_conventions() {
    let source = "import unittest\n\ndef test_adds():\n    assert 1\n\ndef helper():\n    pass\n\nclass TestCalc:\n    def test_sub(self):\n        pass\n\nclass CalcCase(unittest.TestCase):\n    def test_mul(self):\n        pass\n    def setUp(self):\n        pass\n";
    let parsed = parse(Language::Python, "tests/test_calc.py", source);
    let tests: Vec<&str> = parsed.facts.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["test_adds", "TestCalc", "test_sub", "CalcCase", "test_mul"]);
    let outside = parse(Language::Python, "src/calc.py", "def test_like_name():\n    pass\n");
    assert!(!outside.facts.definitions[0].is_test, "outside test files, a test-like name is not a test");
}

#[test]
fn javascript_and_typescript_definitions_and_references() {
    let js = r#"import { formatPrice as fmt } from "./format.js";
import Store, * as all from "./store";
export { Cart } from "./cart";
export * from "./util";
const legacy = require("./legacy");

/** A cart. */
export class CartStore extends Store {
  #items = [];
  static count = 0;
  constructor() { super(); this.#items = []; }
  addItem(item) {
    if (item && item.price > 0) { this.#items.push(item); }
    return fmt(item.price);
  }
  onChange = (listener) => { this.listener = listener; };
}

describe("cart", () => {
  it("adds an item", () => {
    const store = new CartStore();
    store.addItem({ price: 1 });
  });
});
"#;
    insta::assert_snapshot!("javascript", render(&parse(Language::JavaScript, "cart.js", js)));

    let ts = r#"import type { Money } from "./money";

export interface Repo<T> extends Base {
  find(id: string): T;
  readonly size: number;
}

export abstract class UserRepo implements Repo<User>, Disposable {
  constructor(private readonly db: Database, name: string) { super(); }
  @Cached()
  public async find(id: string): Promise<User> {
    const user: User = await this.db.get(id);
    return user ?? this.fallback(id);
  }
  protected abstract fallback(id: string): User;
}

export function parse(x: string): number;
export function parse(x: number): number;
export function parse(x: any): number { return Number(x); }
export const LIMIT: number = 10;
"#;
    insta::assert_snapshot!("typescript", render(&parse(Language::TypeScript, "repo.ts", ts)));
}

#[test]
fn broken_syntax_is_reported_and_the_rest_is_still_extracted() {
    let source =
        "def fine():\n    return 1\n\ndef broken(:\n    pass\n\nclass Still:\n    def there(self):\n        pass\n";
    let parsed = parse(Language::Python, "x.py", source);
    assert_eq!(parsed.syntax_errors.first().map(|e| e.line), Some(4));
    let names: Vec<_> = parsed.facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"fine") && names.contains(&"Still") && names.contains(&"there"), "{names:?}");
}

#[test]
fn a_line_nested_past_the_query_depth_keeps_the_definitions_around_it() {
    // 70,000 nested additions: deeper than tree-sitter's query cursor copes
    // with (65,536 levels), so no match starts that deep; the functions
    // before and after it, and their calls, are still found, and the code
    // view shows the file as plain text.
    let deep = vec!["a"; 70_000].join("+");
    let source =
        format!("function before() {{ after(); }}\nvar x = {deep};\nfunction after() {{ return before(); }}\n");
    let parsed = parse(Language::JavaScript, "deep.js", &source);
    let names: Vec<_> = parsed.facts.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"before") && names.contains(&"after"), "{names:?}");
    let calls: Vec<_> = parsed.facts.calls.iter().map(|c| parsed.facts.name(c.name)).collect();
    assert!(calls.contains(&"before") && calls.contains(&"after"), "{calls:?}");
    let highlights = fathom_parse::highlight(Language::JavaScript, &source);
    assert!(highlights.truncated && highlights.spans.is_empty());
    let shallow = fathom_parse::highlight(Language::JavaScript, "function f() { return 1 + 2; }\n");
    assert!(!shallow.truncated && !shallow.spans.is_empty());
}

#[test]
fn a_file_past_its_budget_is_given_up_with_the_reason_and_the_next_file_parses() {
    // Kotlin's scanner looks ahead for generics at each `<`: 20,000 of them
    // on one line took 8 s (and 40,000 longer still), most of it between two parser operations, so
    // the time budget, not the work count, stops it.
    let slow = format!("val x = {}\n", "a < b > c ".repeat(40_000));
    let mut parsers = fathom_parse::Parsers::new();
    let err = parsers.parse(Language::Kotlin, "slow.kt", &slow).expect_err("given up");
    let message = err.to_string();
    assert!(message.starts_with("parsing this file took more than its time budget ("), "{message}");
    // The code view shows it as plain text, after the same budget.
    let highlights = fathom_parse::highlight(Language::Kotlin, &slow);
    assert!(highlights.truncated && highlights.spans.is_empty());
    // The same parser, reset, parses the next file.
    let parsed = parsers.parse(Language::Kotlin, "ok.kt", "fun ok() = 1\n").unwrap();
    assert_eq!(parsed.facts.definitions[0].name, "ok");
}

#[test]
fn spans_are_exact_bytes_of_the_definition() {
    let source = "x = 1\n\ndef f():\n    return x\n";
    let parsed = parse(Language::Python, "x.py", source);
    let f = parsed.facts.definitions.iter().find(|d| d.name == "f").unwrap();
    assert_eq!(&source[f.span.start_byte as usize..f.span.end_byte as usize], "def f():\n    return x");
    assert_eq!((f.span.start_line, f.span.end_line), (3, 4));
    assert_eq!(&source[f.name_span.start_byte as usize..f.name_span.end_byte as usize], "f");
}

#[test]
fn deeply_nested_code_does_not_overflow_the_stack() {
    let depth = 3000;
    let source = format!("def f():\n    return {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let parsed = parse(Language::Python, "deep.py", &source);
    let f = &parsed.facts.definitions[0];
    assert_eq!((f.kind, f.name.as_str()), (SymbolKind::Function, "f"));
    let nested_ifs: String = (0..500).map(|i| format!("{}if x:\n", "    ".repeat(i + 1))).collect();
    let source = format!("def g(x):\n{nested_ifs}{}pass\n", "    ".repeat(501));
    let parsed = parse(Language::Python, "deep.py", &source);
    assert_eq!(parsed.facts.definitions[0].complexity, Some(501));
}

#[test]
fn every_language_query_compiles_against_its_grammar() {
    let mut parsers = fathom_parse::Parsers::new();
    for language in Language::ALL {
        parsers.parse(language, "empty", "").unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn names_and_receivers_are_spelled_once_per_file() {
    let source = "class Cart:\n    def add(self, item):\n        self.items.append(item)\n        self.total += item.price\n        self.save()\n\n    def save(self):\n        self.store.put(self.items)\n";
    let facts = parse(Language::Python, "cart.py", source).facts;
    // Every spelling is in the table once, and every name points into it.
    let mut spelled = facts.names.clone();
    spelled.sort();
    spelled.dedup();
    assert_eq!(spelled.len(), facts.names.len(), "a name is spelled twice: {:?}", facts.names);
    let selves = facts.uses.iter().filter_map(|u| u.receiver).chain(facts.calls.iter().filter_map(|c| c.receiver));
    let selves: Vec<_> = selves.filter(|&r| facts.name(r) == "self").collect();
    assert!(selves.len() >= 5, "{selves:?}");
    assert!(selves.windows(2).all(|w| w[0] == w[1]), "`self` has one Name: {selves:?}");
    let calls: Vec<(Option<&str>, &str)> =
        facts.calls.iter().map(|c| (c.receiver.map(|r| facts.name(r)), facts.name(c.name))).collect();
    assert!(calls.contains(&(Some("self.items"), "append")), "{calls:?}");
    assert!(calls.contains(&(Some("self"), "save")), "{calls:?}");
}

/// A call's arity counts its arguments, never a comment among them, nor
/// one inside a nested call's arguments or after the list.
#[test]
fn a_calls_arguments_are_counted_without_comments() {
    let cases: [(Language, &str, &str); 6] = [
        (Language::Python, "a.py", "f(1, 2)\ng(1, # one\n  2)\nh(k(# inner\n  1), 3)  # after\nm()\n"),
        (Language::JavaScript, "a.js", "f(1, 2);\ng(1, /* one */ 2);\nh(k(/* inner */ 1), 3); // after\nm();\n"),
        (Language::TypeScript, "a.ts", "f(1, 2);\ng(1, // one\n  2);\nh(k(/* inner */ 1), 3); /* after */\nm();\n"),
        (Language::Rust, "a.rs", "fn x() { f(1, 2); g(1, /* one */ 2); h(k(/* inner */ 1), 3); // after\n m(); }\n"),
        (
            Language::Java,
            "A.java",
            "class A { void x() { f(1, 2); g(1, /* one */ 2); h(k(/* inner */ 1), 3); // after\n m(); } }\n",
        ),
        (
            Language::Go,
            "a.go",
            "package a\nfunc x() { f(1, 2); g(1, /* one */ 2); h(k(/* inner */ 1), 3) // after\n m() }\n",
        ),
    ];
    for (language, path, source) in cases {
        let parsed = parse(language, path, source);
        let names = &parsed.facts.names;
        let mut arity: Vec<(&str, u32)> =
            parsed.facts.calls.iter().map(|c| (names[c.name.0 as usize].as_str(), c.arguments)).collect();
        arity.sort();
        assert_eq!(arity, [("f", 2), ("g", 2), ("h", 2), ("k", 1), ("m", 0)], "{}", language.name());
    }
}
