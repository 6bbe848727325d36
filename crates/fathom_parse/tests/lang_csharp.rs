//! C# extraction over the fixture repository `tests/fixtures/lang-csharp`.

mod common;

use common::{parse_fixture_file, render_bare_uses};
use fathom_model::SymbolKind;

#[test]
fn lang_csharp() {
    assert_fixture_snapshots!("lang-csharp");
}

#[test]
fn csharp_overloads_are_separate_methods_with_their_parameter_types() {
    let parsed = parse_fixture_file("lang-csharp", "src/Geometry/Calculator.cs");
    let adds: Vec<Vec<&str>> = parsed
        .facts
        .definitions
        .iter()
        .filter(|d| d.kind == SymbolKind::Method && d.name == "Add")
        .map(|d| d.parameters.iter().map(|p| p.type_name.as_deref().unwrap_or("?")).collect())
        .collect();
    assert_eq!(adds, [vec!["int", "int"], vec!["double", "double"]]);
}

#[test]
fn csharp_test_attributes_mark_tests() {
    let parsed = parse_fixture_file("lang-csharp", "tests/CalculatorTests.cs");
    let tests: Vec<&str> = parsed.facts.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["CalculatorTests", "AddsIntegers", "ScalesCircles", "LegacyChecks", "Works"]);
}

#[test]
fn inherited_constants_are_read_by_bare_name() {
    let parsed = parse_fixture_file("lang-csharp", "src/Shapes/Circle.cs");
    let uses = render_bare_uses(&parsed.facts);
    assert!(uses.lines().any(|l| l == "Area: Pi"), "{uses}");
}
