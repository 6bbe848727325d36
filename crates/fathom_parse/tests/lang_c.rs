//! C extraction over the `lang-c` fixture: one snapshot per file.

mod common;

use std::path::Path;

use common::{parse, render};
use fathom_model::Language;

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
fn lang_c_fixture() {
    snapshot_fixture("lang-c");
}
