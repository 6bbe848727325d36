//! Code navigation on the fixtures: highlighting in every language,
//! go-to-definition and find-references.

mod common;

use std::io::Write;

use common::{Recorder, fixture, index_dir};
use fathom_engine::{Definition, EdgeKind, FoundBy, Index, Options, QueryError, Reason};

/// Where `needle` first starts in `path`: its line and UTF-16 column.
fn position(index: &Index, path: &str, needle: &str) -> (u32, u32) {
    let text = index.file_text(path).unwrap_or_else(|| panic!("no file {path}"));
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` is not in {path}"));
    let line = text[..at].matches('\n').count() as u32 + 1;
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..at].encode_utf16().count() as u32)
}

/// The class of the span that covers the first character of `needle`.
fn class_at(index: &Index, path: &str, needle: &str) -> Option<&'static str> {
    let (line, column) = position(index, path, needle);
    let highlights = index.highlight(path).unwrap();
    highlights
        .spans
        .iter()
        .find(|s| s[0] == line && s[1] <= column && column < s[2])
        .map(|s| highlights.classes[s[3] as usize])
}

/// A file of a fixture and what its needles' first characters are classed.
type Case = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

fn assert_classes(index: &Index, path: &str, expected: &[(&str, &str)]) {
    let highlights = index.highlight(path).unwrap();
    assert!(!highlights.truncated, "{path}");
    assert!(
        highlights.spans.windows(2).all(|w| (w[0][0], w[0][2]) <= (w[1][0], w[1][1])),
        "{path}: spans are ordered and do not overlap"
    );
    for (needle, class) in expected {
        assert_eq!(class_at(index, path, needle), Some(*class), "{path}: `{needle}`");
    }
}

#[test]
fn every_language_highlights_keywords_strings_and_comments() {
    let cases: [Case; 12] = [
        (
            "lang-c",
            "src/counter.c",
            &[("struct counter {", "keyword"), ("\"shape.h\"", "string"), ("/* Resets", "comment")],
        ),
        (
            "lang-cpp",
            "src/canvas.cpp",
            &[("using namespace", "keyword"), ("\"canvas.hpp\"", "string"), ("// The main", "comment")],
        ),
        (
            "lang-csharp",
            "src/Geometry/Calculator.cs",
            &[
                ("namespace Acme", "keyword"),
                ("\"Use Total\"", "string"),
                ("/// <summary>Adds two integers", "comment"),
            ],
        ),
        ("lang-go", "cart/cart.go", &[("func New", "keyword"), ("\"EUR\"", "string"), ("// Currency of", "comment")]),
        (
            "lang-java",
            "src/main/java/com/acme/shapes/Shape.java",
            &[("class Shape", "keyword"), ("\" of area \"", "string"), ("/** Pi", "comment"), ("3.14159", "number")],
        ),
        (
            "lang-kotlin",
            "src/main/kotlin/com/acme/shapes/Shape.kt",
            &[
                ("class Shape", "keyword"),
                ("override fun", "keyword"),
                ("\"$label", "string"),
                ("/** Pi", "comment"),
                ("// Compares", "comment"),
                ("3.14159", "number"),
                ("PI: Double", "constant"),
                ("area(): Double", "function"),
            ],
        ),
        (
            "lang-php",
            "src/Model/Entity.php",
            &[("class Entity", "keyword"), ("'entities'", "string"), ("/**", "comment")],
        ),
        (
            "lang-python",
            "shop/service.py",
            &[("def checkout", "keyword"), ("\"o-1\"", "string"), ("import Order", "keyword")],
        ),
        (
            "lang-ruby",
            "lib/shop.rb",
            &[("module Shop", "keyword"), ("\"json\"", "string"), ("# Entry point", "comment")],
        ),
        (
            "lang-rust",
            "src/shapes/square.rs",
            &[("pub struct", "keyword"), ("impl Shape", "keyword"), ("/// A square", "comment")],
        ),
        (
            "lang-typescript",
            "src/core/entity.ts",
            &[("export abstract class", "keyword"), ("`${this", "string"), ("/** Something", "comment")],
        ),
        (
            "mini-py-js",
            "web/src/Cart.tsx",
            &[
                ("import {", "keyword"),
                ("\"./store.js\"", "string"),
                ("div className", "tag"),
                ("function CartView", "keyword"),
            ],
        ),
    ];
    for (repository, path, expected) in cases {
        assert_classes(&index_dir(&fixture(repository)), path, expected);
    }
    let mini = index_dir(&fixture("mini-py-js"));
    assert_classes(&mini, "web/src/store.js", &[("class CartStore", "keyword"), ("\"./format.js\"", "string")]);
    assert_classes(&mini, "pkg/calc.py", &[("\"\"\"Arithmetic", "string"), ("class Calculator", "keyword")]);
    assert_classes(
        &index_dir(&fixture("lang-rust")),
        "src/shapes/mod.rs",
        &[("\"{:?}\"", "string"), ("/// Anything", "comment")],
    );
    assert_eq!(mini.highlight("no/such/file.py"), None);
}

/// A repository written here, for what the fixtures lack: comments in Python
/// and JavaScript, and names after non-ASCII text.
fn unicode_repository() -> Index {
    let files = [
        ("app/__init__.py", ""),
        ("app/util.py", "# Helpers: café ☕ and a crab 🦀.\ndef add(a, b):\n    return a + b\n"),
        ("app/main.py", "from app.util import add\n\nlabel = \"héllo 🦀\"; total = add(1, 2)  # é\n"),
        ("web/a.js", "// A comment.\nexport function f() {\n  return 'x';\n}\n"),
    ];
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, text) in files {
        writer.start_file(path, zip::write::SimpleFileOptions::default()).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
    }
    let bytes = writer.finish().unwrap().into_inner();
    fathom_engine::index_zip("unicode.zip", &bytes, &Options::default(), &mut Recorder::new()).unwrap()
}

#[test]
fn columns_are_utf16_units_after_non_ascii_text() {
    let index = unicode_repository();
    assert_classes(&index, "app/util.py", &[("# Helpers", "comment"), ("def add", "keyword")]);
    assert_classes(&index, "web/a.js", &[("// A comment", "comment"), ("'x'", "string"), ("return", "keyword")]);
    // `é` is one UTF-16 unit (two bytes), `🦀` two (four bytes): the call to
    // `add` is at byte 31 but at column 28.
    let (line, column) = position(&index, "app/main.py", "add(1");
    assert_eq!((line, column), (3, 28));
    assert_eq!(class_at(&index, "app/main.py", "1, 2"), Some("number"));
    let spans = index.highlight("app/main.py").unwrap().spans;
    let string = spans.iter().find(|s| s[0] == 3 && s[3] == 1).unwrap();
    assert_eq!(string[1..3], [8, 18], "\"héllo 🦀\" is 10 units wide");
    let comment = spans.iter().find(|s| s[0] == 3 && s[3] == 2).unwrap();
    assert_eq!(comment[1..3], [39, 42], "# é");

    let found = index.definition_at("app/main.py", line, column + 1).unwrap();
    assert_eq!(symbols(&found), ["app.util.add"]);
    assert_eq!(
        (found[0].found_by, found[0].edge_type, found[0].edge_line),
        (FoundBy::Edge, Some(EdgeKind::Calls), Some(3))
    );
    assert!(index.definition_at("app/main.py", 3, 32).unwrap().is_empty(), "byte 32 is in `add`, column 32 is `1`");
}

fn symbols(found: &[Definition]) -> Vec<&str> {
    found.iter().map(|d| d.symbol.as_str()).collect()
}

#[test]
fn a_call_site_leads_to_the_callee_in_another_file() {
    let index = index_dir(&fixture("mini-py-js"));
    let (line, column) = position(&index, "pkg/calc.py", "format_total(label()");
    let found = index.definition_at("pkg/calc.py", line, column + 3).unwrap();
    assert_eq!(symbols(&found), ["pkg.util.strings.format_total"]);
    let best = &found[0];
    assert_eq!(best.file.as_deref(), Some("pkg/util/strings.py"));
    assert_eq!(
        (best.found_by, best.edge_type, best.reason),
        (FoundBy::Edge, Some(EdgeKind::Calls), Reason::ImportResolved)
    );
    assert!(best.start_line >= 1 && best.end_line >= best.start_line && best.confidence > 0.8);

    // A method on a typed receiver, in the same file.
    let (line, column) = position(&index, "pkg/calc.py", "add(value)");
    assert_eq!(symbols(&index.definition_at("pkg/calc.py", line, column).unwrap()), ["pkg.calc.Calculator.add"]);

    // TypeScript, across files: `formatPrice` from store.js.
    let (line, column) = position(&index, "web/src/store.js", "formatPrice(store");
    let found = index.definition_at("web/src/store.js", line, column).unwrap();
    assert!(found.iter().all(|d| d.file.as_deref() == Some("web/src/format.ts")), "{found:?}");
    assert_eq!(found[0].name, "formatPrice");
}

#[test]
fn a_private_method_call_leads_to_the_private_method() {
    let source =
        "export class Client {\n  #spawn(): number { return 1; }\n  start(): number { return this.#spawn(); }\n}\n";
    let files = vec![("client.ts".to_owned(), source.as_bytes().to_vec())];
    let index = fathom_engine::index_files("private", files, &Options::default(), &mut Recorder::new());
    let (line, column) = position(&index, "client.ts", "#spawn();");
    let found = index.definition_at("client.ts", line, column + 2).unwrap();
    assert_eq!(symbols(&found), ["client.Client.#spawn"]);
    assert_eq!((found[0].found_by, found[0].edge_type), (FoundBy::Edge, Some(EdgeKind::Calls)));
    let callers: Vec<_> = index.references("client.Client.#spawn").unwrap().into_iter().map(|r| r.from).collect();
    assert_eq!(callers, ["client.Client.start"]);
}

#[test]
fn an_alias_and_an_import_lead_to_what_they_name() {
    let index = index_dir(&fixture("lang-python"));
    // `apply_discount` is `discount`, renamed on import.
    let (line, column) = position(&index, "shop/service.py", "apply_discount(order");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    assert!(!found.is_empty() && found.iter().all(|d| d.symbol == "shop.pricing.discount"), "{found:?}");
    assert_eq!(found[0].edge_type, Some(EdgeKind::Calls));

    // On the import line itself.
    let (line, column) = position(&index, "shop/service.py", "LineItem\n");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    assert_eq!(symbols(&found), ["shop.models.LineItem"]);
    assert_eq!((found[0].edge_type, found[0].file.as_deref()), (Some(EdgeKind::Imports), Some("shop/models.py")));

    // A module imported by name.
    let (line, column) = position(&index, "shop/service.py", "views\n");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    assert_eq!(symbols(&found), ["shop.views"]);
}

#[test]
fn a_definition_name_leads_to_itself() {
    let index = index_dir(&fixture("lang-python"));
    let (line, column) = position(&index, "shop/pricing.py", "discount(amount, code):");
    let found = index.definition_at("shop/pricing.py", line, column + 2).unwrap();
    assert_eq!(found.len(), 1);
    let itself = &found[0];
    assert_eq!((itself.symbol.as_str(), itself.start_line), ("shop.pricing.discount", 10), "the one written there");
    assert_eq!((itself.found_by, itself.reason, itself.confidence), (FoundBy::Definition, Reason::Syntax, 1.0));

    // Nothing under the cursor: a keyword, blank space, a line past the end.
    assert!(index.definition_at("shop/pricing.py", line, 0).unwrap().is_empty());
    assert!(index.definition_at("shop/pricing.py", 2, 0).unwrap().is_empty());
    assert!(index.definition_at("shop/pricing.py", 999, 0).unwrap().is_empty());
    assert!(index.definition_at("nope.py", 1, 0).is_err(), "an unknown file is an error");
}

#[test]
fn an_ambiguous_name_gives_every_candidate_best_first() {
    let index = index_dir(&fixture("lang-python"));
    // `view` has no known type: both `render` methods are candidates.
    let (line, column) = position(&index, "shop/service.py", "render(order)\n\n\ndef build");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    let mut names = symbols(&found);
    names.sort();
    assert_eq!(names, ["shop.views.OrderView.render", "shop.views.ReceiptView.render"], "{found:?}");
    assert!(found.iter().all(|d| d.confidence < 0.5), "{found:?}");
    assert!(found.windows(2).all(|w| w[0].confidence >= w[1].confidence));

    // Go: a method on a field whose type the resolver could not follow,
    // declared in two files of another package.
    let index = index_dir(&fixture("lang-go"));
    let (line, column) = position(&index, "cart/cart.go", "Save(item.Sku");
    let found = index.definition_at("cart/cart.go", line, column).unwrap();
    let mut places: Vec<(&str, &str)> = found.iter().map(|d| (d.symbol.as_str(), d.file.as_deref().unwrap())).collect();
    places.sort();
    assert_eq!(places, [("store.Save", "store/memory.go"), ("store.Store.Save", "store/store.go")]);
}

#[test]
fn a_declaration_gives_way_to_its_definition_and_stays_one_step_away() {
    // C: `shape_area` is declared in include/shape.h and defined in src/shape.c.
    let index = index_dir(&fixture("lang-c"));
    let (line, column) = position(&index, "tests/test_circle.c", "shape_area(&c");
    let found = index.definition_at("tests/test_circle.c", line, column).unwrap();
    assert_eq!(found[0].file.as_deref(), Some("src/shape.c"), "{found:?}");
    assert!(found.iter().all(|d| d.file.as_deref() != Some("include/shape.h")), "{found:?}");
    // On the prototype itself: the definition first, then the prototype.
    let (line, column) = position(&index, "include/shape.h", "shape_area(const");
    let found = index.definition_at("include/shape.h", line, column).unwrap();
    let places: Vec<(Option<&str>, FoundBy)> = found.iter().map(|d| (d.file.as_deref(), d.found_by)).collect();
    assert_eq!(places, [(Some("src/shape.c"), FoundBy::Edge), (Some("include/shape.h"), FoundBy::Definition)]);
    assert_eq!((found[0].edge_type, found[0].reason), (Some(EdgeKind::Declares), Reason::Declared));
    let context = index.symbol(&found[0].symbol).unwrap();
    assert_eq!(context.symbol.file.as_deref(), Some("src/shape.c"));
    let declared: Vec<&str> = context.declarations.iter().filter_map(|d| d.file.as_deref()).collect();
    assert_eq!(declared, ["include/shape.h"]);
    // Its callers are found through the definition, the prototype's included.
    let callers: Vec<String> = context.callers.iter().map(|h| h.from.qualified_name.clone()).collect();
    assert!(callers.iter().any(|c| c.contains("test_circle")), "{callers:?}");

    // C++: a member declared in its class and defined outside it.
    let index = index_dir(&fixture("lang-cpp"));
    let (line, column) = position(&index, "src/canvas.hpp", "total() const;");
    let found = index.definition_at("src/canvas.hpp", line, column).unwrap();
    assert_eq!(found[0].file.as_deref(), Some("src/canvas.cpp"), "{found:?}");
    assert_eq!(found[0].edge_type, Some(EdgeKind::Declares));
    let context = index.symbol(&found[0].symbol).unwrap();
    assert_eq!(context.symbol.file.as_deref(), Some("src/canvas.cpp"));
    assert!(context.declarations.iter().any(|d| d.file.as_deref() == Some("src/canvas.hpp")));

    // TypeScript: a `.d.ts` declares what a source file defines.
    let files = vec![
        ("types/parse.d.ts".to_owned(), b"export declare function parse(text: string): number;\n".to_vec()),
        (
            "src/parse.ts".to_owned(),
            b"export function parse(text: string): number {\n  return text.length;\n}\n".to_vec(),
        ),
        ("src/main.ts".to_owned(), b"import { parse } from './parse';\nexport const size = parse('abc');\n".to_vec()),
    ];
    let index = fathom_engine::index_files("typed", files, &Options::default(), &mut Recorder::new());
    let (line, column) = position(&index, "types/parse.d.ts", "parse(text");
    let found = index.definition_at("types/parse.d.ts", line, column).unwrap();
    assert_eq!(found[0].file.as_deref(), Some("src/parse.ts"), "{found:?}");
    let edges = index.edges(&[EdgeKind::Declares]);
    assert_eq!(edges.len(), 1, "one declaration, one definition");
}

#[test]
fn a_name_with_no_edge_falls_back_to_lookups() {
    let index = index_dir(&fixture("lang-python"));
    // A type annotation records no edge; `Order` is imported.
    let (line, column) = position(&index, "shop/service.py", "Order, code");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    assert_eq!(symbols(&found), ["shop.models.Order"], "{found:?}");
    assert_eq!((found[0].found_by, found[0].reason), (FoundBy::Name, Reason::ImportResolved));
    assert!(found[0].confidence < 0.6);
}

#[test]
fn references_list_call_sites_and_imports_by_file_and_line() {
    let index = index_dir(&fixture("lang-python"));
    let references = index.references("shop.pricing.discount").unwrap();
    let places: Vec<(&str, u32, EdgeKind, &str)> =
        references.iter().map(|r| (r.file.as_str(), r.line, r.edge_type, r.from.as_str())).collect();
    assert_eq!(
        places,
        [
            ("shop/service.py", 5, EdgeKind::Imports, "shop.service"),
            ("shop/service.py", 10, EdgeKind::Calls, "shop.service.checkout"),
        ]
    );
    let call = &references[1];
    assert_eq!(call.column, None, "the call writes the alias, not `discount`");
    assert!(call.confidence > 0.0 && call.confidence <= 1.0);

    let adds = index.references("Order.add").unwrap();
    let calls: Vec<(&str, u32, Option<u32>)> =
        adds.iter().filter(|r| r.edge_type == EdgeKind::Calls).map(|r| (r.file.as_str(), r.line, r.column)).collect();
    assert_eq!(calls, [("shop/service.py", 20, Some(10)), ("tests/test_service.py", 6, Some(25))]);

    // A class: its bases' lines, constructors' calls and imports.
    let order = index.references("shop.models.Order").unwrap();
    assert!(order.windows(2).all(|w| (&w[0].file, w[0].line) <= (&w[1].file, w[1].line)), "ordered");
    assert!(
        order.iter().any(|r| r.file == "shop/service.py" && r.line == 19 && r.edge_type == EdgeKind::Calls),
        "{order:?}"
    );

    assert!(matches!(index.references("render"), Err(QueryError::AmbiguousSymbol { .. })));
    assert!(matches!(index.references("no_such_thing"), Err(QueryError::UnknownSymbol(_))));
}

#[test]
fn references_of_a_base_and_a_decorator() {
    let index = index_dir(&fixture("mini-py-js"));
    let calculator = index.references("pkg.calc.Calculator").unwrap();
    let inherits = calculator.iter().find(|r| r.edge_type == EdgeKind::Inherits).expect("ScientificCalculator");
    assert_eq!((inherits.from.as_str(), inherits.line), ("pkg.calc.ScientificCalculator", 30));
    assert_eq!(inherits.column, Some(27));
    let call = calculator.iter().find(|r| r.edge_type == EdgeKind::Calls).expect("Calculator()");
    assert_eq!((call.from.as_str(), call.line), ("pkg.calc.compute_total", 37));

    // A decorator is referred to where it is applied: its DECORATES edges
    // run from it to the method.
    let index = index_dir(&fixture("lang-typescript"));
    let sealed = index.references("Sealed").unwrap();
    let places: Vec<(&str, u32, EdgeKind, &str)> =
        sealed.iter().map(|r| (r.file.as_str(), r.line, r.edge_type, r.from.as_str())).collect();
    assert!(
        places.contains(&(
            "src/orders/service.ts",
            7,
            EdgeKind::Decorates,
            "src/orders/service.CheckoutService.checkout"
        )),
        "{places:?}"
    );
    assert!(places.contains(&("src/orders/service.ts", 1, EdgeKind::Imports, "src/orders/service")), "{places:?}");
}

#[test]
fn results_serialise_as_documented() {
    let index = index_dir(&fixture("lang-python"));
    let (line, column) = position(&index, "shop/service.py", "LineItem\n");
    let found = index.definition_at("shop/service.py", line, column).unwrap();
    let json = serde_json::to_value(&found[0]).unwrap();
    assert_eq!(json["symbol"], "shop.models.LineItem");
    assert_eq!(json["kind"], "class");
    assert_eq!(json["found_by"], "edge");
    assert_eq!(json["edge_type"], "IMPORTS");
    assert_eq!(json["reason"], "import-resolved");
    let references = serde_json::to_value(index.references("shop.pricing.discount").unwrap()).unwrap();
    assert_eq!(references[1]["type"], "CALLS");
    assert_eq!(references[1]["line"], 10);
    let highlights = serde_json::to_value(index.highlight("shop/service.py").unwrap()).unwrap();
    assert_eq!(highlights["classes"][0], "keyword");
    assert_eq!(highlights["spans"][0].as_array().unwrap().len(), 4);
}
