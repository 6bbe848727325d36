//! The definitions extracted from small sources in each language, rendered
//! one per line as `kind name lines parent` and compared with snapshots.

use fathom_model::Language;
use fathom_parse::{ParsedFile, Parsers};

fn outline(language: Language, text: &str) -> String {
    let parsed = Parsers::new().parse(language, text).expect("grammar loads");
    render(&parsed)
}

fn render(parsed: &ParsedFile) -> String {
    let mut out = String::new();
    for d in &parsed.definitions {
        let kind = match d.class_kind {
            Some(class_kind) => format!("{class_kind:?}").to_lowercase(),
            None => d.kind.name().to_owned(),
        };
        let parent = d.parent.map_or(String::new(), |p| format!(" in {}", parsed.definitions[p].name));
        out += &format!("{kind} {} L{}-{}{parent}\n", d.name, d.span.start_line, d.span.end_line);
    }
    for e in &parsed.syntax_errors {
        out += &format!("error L{}:{} {}\n", e.line, e.column, e.message);
    }
    out
}

#[test]
fn python_classes_methods_decorators_and_nested_functions() {
    let source = r#"import functools

class Calculator:
    """Adds things."""

    def __init__(self):
        self.total = 0

    @functools.lru_cache
    def add(self, x):
        def helper(y):
            return y
        return helper(x)

    class Inner:
        def deep(self):
            pass

def top_level():
    return Calculator().add(1)
"#;
    insta::assert_snapshot!(outline(Language::Python, source));
}

#[test]
fn javascript_declarations_expressions_and_object_methods() {
    let source = r#"export class Store extends Base {
  #items = [];
  constructor() { super(); }
  get size() { return this.#items.length; }
  onChange = (event) => this.emit(event);
  static create() { return new Store(); }
}
export function makeStore() { return new Store(); }
const helper = () => 42;
function* ids() { yield 1; }
module.exports.legacy = function () {};
const Anonymous = class { run() {} };
"#;
    insta::assert_snapshot!(outline(Language::JavaScript, source));
}

#[test]
fn typescript_interfaces_enums_abstract_classes_and_overloads() {
    let source = r#"export interface Repo {
  find(id: string): User;
}
export enum Color { Red, Green }
export abstract class Base<T> implements Repo {
  abstract find(id: string): User;
  protected log = (msg: string): void => {};
}
export function parse(x: string): number;
export function parse(x: number): number;
export function parse(x: any): number { return Number(x); }
"#;
    insta::assert_snapshot!(outline(Language::TypeScript, source));
}

#[test]
fn tsx_components_are_functions() {
    let source = "export function App(props: Props) {\n  return <div onClick={() => go()}>{props.title}</div>;\n}\nexport const Item = ({ label }: { label: string }) => <li>{label}</li>;\n";
    insta::assert_snapshot!(outline(Language::Tsx, source));
}

#[test]
fn broken_syntax_is_reported_and_the_rest_is_still_extracted() {
    let source =
        "def fine():\n    return 1\n\ndef broken(:\n    pass\n\nclass Still:\n    def there(self):\n        pass\n";
    let parsed = Parsers::new().parse(Language::Python, source).unwrap();
    assert!(!parsed.syntax_errors.is_empty(), "the broken signature is reported");
    assert_eq!(parsed.syntax_errors[0].line, 4);
    let names: Vec<_> = parsed.definitions.iter().map(|d| d.name.as_str()).collect();
    assert!(names.contains(&"fine") && names.contains(&"Still") && names.contains(&"there"), "{names:?}");
}

#[test]
fn spans_are_exact_bytes_of_the_definition() {
    let source = "x = 1\n\ndef f():\n    return x\n";
    let parsed = Parsers::new().parse(Language::Python, source).unwrap();
    let f = &parsed.definitions[0];
    assert_eq!(&source[f.span.start_byte as usize..f.span.end_byte as usize], "def f():\n    return x");
    assert_eq!((f.span.start_line, f.span.end_line), (3, 4));
}

#[test]
fn every_language_query_compiles_against_its_grammar() {
    let mut parsers = Parsers::new();
    for language in Language::ALL {
        parsers.parse(language, "").unwrap_or_else(|e| panic!("{e}"));
    }
}
