//! Kotlin extraction over the fixture repository `tests/fixtures/lang-kotlin`.

mod common;

use std::path::{Path, PathBuf};

use common::{parse, render, render_bare_uses};
use fathom_model::{Language, SymbolKind};

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

fn parse_fixture_file(path: &str) -> fathom_parse::ParsedFile {
    let text = std::fs::read_to_string(fixture_root("lang-kotlin").join(path)).unwrap();
    parse(Language::Kotlin, path, &text)
}

#[test]
fn lang_kotlin() {
    snapshot_fixture("lang-kotlin");
}

#[test]
fn kotlin_overloads_are_separate_methods_with_their_parameter_types() {
    let parsed = parse_fixture_file("src/main/kotlin/com/acme/geometry/Calculator.kt");
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
    let parsed = parse_fixture_file("src/main/kotlin/com/acme/shapes/Circle.kt");
    let uses = render_bare_uses(&parsed.facts);
    assert!(uses.lines().any(|l| l == "area: PI"), "{uses}");
}
