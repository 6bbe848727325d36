//! Java extraction over the fixture repositories under `tests/fixtures/lang-java*`.

mod common;

use std::path::{Path, PathBuf};

use common::{parse, render, render_bare_uses};
use fathom_model::{Definition, Language, SymbolKind};
use fathom_parse::ParsedFile;

fn fixture_root(fixture: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(fixture)
}

/// Every source file of a fixture, by sorted relative path, with its language.
fn sources(fixture: &str) -> Vec<(String, Language, String)> {
    let root = fixture_root(fixture);
    let mut files = Vec::new();
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
                if let Some(language) = Language::from_path(&relative) {
                    files.push((relative, language, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

fn snapshot_fixture(fixture: &str) {
    let files = sources(fixture);
    assert!(!files.is_empty(), "{fixture} has no sources");
    for (path, language, text) in files {
        let rendered = render(&parse(language, &path, &text));
        insta::assert_snapshot!(format!("{fixture}__{}", path.replace('/', "__")), rendered);
    }
}

fn parse_fixture_file(fixture: &str, path: &str) -> ParsedFile {
    let text = std::fs::read_to_string(fixture_root(fixture).join(path)).unwrap();
    parse(Language::Java, path, &text)
}

fn methods<'a>(parsed: &'a ParsedFile, name: &str) -> Vec<&'a Definition> {
    parsed.facts.definitions.iter().filter(|d| d.kind == SymbolKind::Method && d.name == name).collect()
}

fn types(d: &Definition) -> Vec<&str> {
    d.parameters.iter().map(|p| p.type_name.as_deref().unwrap_or("?")).collect()
}

#[test]
fn lang_java() {
    snapshot_fixture("lang-java");
}

#[test]
fn lang_java_spring() {
    snapshot_fixture("lang-java-spring");
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
        .inspect(|d| assert_eq!(d.synthesized, Some("lombok")))
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
