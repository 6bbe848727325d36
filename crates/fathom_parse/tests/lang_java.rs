//! Java extraction over the fixture repositories under `tests/fixtures/lang-java*`.

mod common;

use common::{parse_fixture_file, render_bare_uses};
use fathom_model::{Definition, SymbolKind};
use fathom_parse::ParsedFile;

fn methods<'a>(parsed: &'a ParsedFile, name: &str) -> Vec<&'a Definition> {
    parsed.facts.definitions.iter().filter(|d| d.kind == SymbolKind::Method && d.name == name).collect()
}

fn types(d: &Definition) -> Vec<&str> {
    d.parameters.iter().map(|p| p.type_name.as_deref().unwrap_or("?")).collect()
}

#[test]
fn lang_java() {
    assert_fixture_snapshots!("lang-java");
}

#[test]
fn lang_java_spring() {
    assert_fixture_snapshots!("lang-java-spring");
}

#[test]
fn java_overloads_are_separate_methods_with_their_parameter_types() {
    let parsed = parse_fixture_file("lang-java", "src/main/java/com/acme/geometry/Calculator.java");
    let adds: Vec<Vec<&str>> = methods(&parsed, "add").into_iter().map(types).collect();
    assert_eq!(adds, [vec!["int", "int"], vec!["double", "double"]]);

    let parsed = parse_fixture_file("lang-java-spring", "src/main/java/com/acme/users/repo/UserRepository.java");
    let finds: Vec<Vec<&str>> = methods(&parsed, "findByUsername").into_iter().map(types).collect();
    assert_eq!(finds, [vec!["String", "User"], vec!["String"]]);
}

#[test]
fn lombok_data_class_gets_accessors_and_constructors() {
    let parsed = parse_fixture_file("lang-java-spring", "src/main/java/com/acme/users/model/UserData.java");
    let ctors: Vec<Vec<&str>> = parsed
        .facts
        .definitions
        .iter()
        .filter(|d| d.is_constructor)
        .inspect(|d| assert_eq!(d.synthesized.map(|s| s.as_str()), Some("lombok")))
        .map(types)
        .collect();
    assert_eq!(ctors, [vec![], vec!["Long", "String", "boolean", "List<String>"]]);
    let names: Vec<&str> =
        parsed.facts.definitions.iter().filter(|d| d.synthesized.is_some()).map(|d| d.name.as_str()).collect();
    for expected in
        ["getId", "setId", "getUsername", "isAdmin", "setAdmin", "getRoles", "toString", "equals", "hashCode"]
    {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    assert!(!names.contains(&"getKIND"), "static fields get no accessors");
    let class = parsed.facts.definitions.iter().position(|d| d.name == "UserData").unwrap();
    assert!(parsed.facts.definitions.iter().filter(|d| d.synthesized.is_some()).all(|d| d.parent == Some(class)));
}

#[test]
fn lombok_skips_members_the_source_declares() {
    let parsed = parse_fixture_file("lang-java-spring", "src/main/java/com/acme/users/model/User.java");
    assert_eq!(methods(&parsed, "getUsername").len(), 1, "the written getter wins");
    assert!(methods(&parsed, "getUsername")[0].synthesized.is_none());
    assert!(methods(&parsed, "setId").is_empty(), "final fields get no setter");
    assert_eq!(methods(&parsed, "isActive").len(), 1);
}

#[test]
fn inherited_constants_are_read_by_bare_name() {
    let parsed = parse_fixture_file("lang-java", "src/main/java/com/acme/shapes/Circle.java");
    let uses = render_bare_uses(&parsed.facts);
    assert!(uses.lines().any(|l| l == "area: PI"), "{uses}");
}

#[test]
fn junit3_suites_on_a_project_base_are_tests() {
    let suite = "package a.util;\n\npublic class TestTextBuffer extends a.BaseTest {\n    public void testSimple() { check(); }\n    public void test_long() { }\n    private void testerHelper() { }\n    private void check() { }\n}\n";
    let tests = |path: &str| -> Vec<String> {
        common::parse(fathom_model::Language::Java, path, suite)
            .facts
            .definitions
            .iter()
            .filter(|d| d.is_test)
            .map(|d| d.name.clone())
            .collect()
    };
    assert_eq!(tests("src/test/java/a/util/TestTextBuffer.java"), ["TestTextBuffer", "testSimple", "test_long"]);
    // Outside a test folder a `Test…` class on an unknown base is not a suite.
    assert!(tests("src/main/java/a/util/TestTextBuffer.java").is_empty());
}
