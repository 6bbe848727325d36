//! Kotlin extraction over the fixture repository `tests/fixtures/lang-kotlin`.

mod common;

use common::{parse_fixture_file, render_bare_uses};
use fathom_model::SymbolKind;

#[test]
fn lang_kotlin() {
    assert_fixture_snapshots!("lang-kotlin");
}

#[test]
fn kotlin_overloads_are_separate_methods_with_their_parameter_types() {
    let parsed = parse_fixture_file("lang-kotlin", "src/main/kotlin/com/acme/geometry/Calculator.kt");
    let adds: Vec<Vec<&str>> = parsed
        .facts
        .definitions
        .iter()
        .filter(|d| d.kind == SymbolKind::Method && d.name == "add")
        .map(|d| d.parameters.iter().map(|p| p.type_name.as_deref().unwrap_or("?")).collect())
        .collect();
    assert_eq!(adds, [vec!["Int", "Int"], vec!["Double", "Double"]]);
}

#[test]
fn inherited_constants_are_read_by_bare_name() {
    let parsed = parse_fixture_file("lang-kotlin", "src/main/kotlin/com/acme/shapes/Circle.kt");
    let uses = render_bare_uses(&parsed.facts);
    assert!(uses.lines().any(|l| l == "area: PI"), "{uses}");
}
