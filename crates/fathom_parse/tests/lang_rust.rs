//! Rust extraction over the `lang-rust` fixture: one snapshot per file.

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
fn lang_rust_fixture() {
    snapshot_fixture("lang-rust");
}

#[test]
fn rust_impl_methods_belong_to_their_type_and_trait_impls_are_recorded() {
    let source = r#"pub use crate::a::{B, C as D};
use std::fmt;

pub struct Stack<T> { items: Vec<T> }

impl<T: Clone> Stack<T> {
    pub fn push(&mut self, item: T) { self.items.push(item); }
}

impl<T> fmt::Display for Stack<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

#[tokio::test]
async fn pushes() { let s = Stack::<u8>::new(); }
"#;
    let parsed = parse(Language::Rust, "src/stack.rs", source);
    let facts = &parsed.facts;
    let push = facts.definitions.iter().find(|d| d.name == "push").unwrap();
    assert_eq!((push.kind, push.owner.as_deref()), (SymbolKind::Method, Some("Stack")));
    assert_eq!(push.parameters.len(), 1, "`&mut self` is implicit");
    assert_eq!(push.parameters[0].type_name.as_deref(), Some("T"));
    let fmt = facts.definitions.iter().find(|d| d.name == "fmt").unwrap();
    assert_eq!(fmt.owner.as_deref(), Some("Stack"));
    assert_eq!(facts.impls.len(), 1);
    assert_eq!((facts.impls[0].type_name.as_str(), facts.impls[0].base.name.as_str()), ("Stack", "fmt::Display"));
    let reexports: Vec<(&str, Option<&str>)> =
        facts.imports.iter().filter(|i| i.reexport).map(|i| (i.source.as_str(), i.name.as_deref())).collect();
    assert_eq!(reexports, [("crate::a", Some("B")), ("crate::a", Some("C"))]);
    assert!(facts.definitions.iter().find(|d| d.name == "pushes").unwrap().is_test);
}
