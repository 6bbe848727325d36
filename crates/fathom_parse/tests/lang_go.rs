//! Go extraction over the `lang-go` fixture: one snapshot per file.

mod common;

use std::path::Path;

use common::{parse, render};
use fathom_model::{Language, SymbolKind};

/// The source files of a fixture folder, as sorted relative paths with their text.
fn fixture_files(fixture: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(fixture);
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            if Language::from_path(&relative).is_some() {
                files.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no source files in {fixture}");
    files
}

fn snapshot_fixture(fixture: &str) {
    for (path, text) in fixture_files(fixture) {
        let language = Language::from_path(&path).unwrap();
        let rendered = render(&parse(language, &path, &text));
        insta::assert_snapshot!(format!("{fixture}__{}", path.replace('/', "__")), rendered);
    }
}

#[test]
fn lang_go_fixture() {
    snapshot_fixture("lang-go");
}

#[test]
fn go_methods_belong_to_their_receiver_type_and_tests_follow_go_test() {
    let source = "package x\n\ntype Stack[T any] struct{ items []T }\n\nfunc (s *Stack[T]) Push(v T) {}\n\nfunc TestPush(t *testing.T) {}\nfunc Testify(t *testing.T) {}\n";
    let parsed = parse(Language::Go, "stack_test.go", source);
    let push = parsed.facts.definitions.iter().find(|d| d.name == "Push").unwrap();
    assert_eq!(push.kind, SymbolKind::Method);
    assert_eq!(push.owner.as_deref(), Some("Stack"));
    let tests: Vec<&str> = parsed.facts.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["TestPush"]);
    let outside = parse(Language::Go, "stack.go", source);
    assert!(outside.facts.definitions.iter().all(|d| !d.is_test), "only _test.go files hold tests");
}
