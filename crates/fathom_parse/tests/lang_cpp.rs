//! C++ extraction over the `lang-cpp` fixture: one snapshot per file.

mod common;

use std::path::Path;

use common::{parse, render};
use fathom_model::{Language, SymbolKind, Visibility};

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
fn lang_cpp_fixture() {
    snapshot_fixture("lang-cpp");
}

#[test]
fn cpp_overloads_constructors_and_out_of_line_methods() {
    let source = r#"namespace geo {
class Circle : public Shape {
public:
    explicit Circle(double r);
    void scale(double factor);
    void scale(int percent);
private:
    double radius_;
};
Circle::Circle(double r) : radius_(r) {}
void Circle::scale(int percent) { scale(percent / 100.0); }
}
"#;
    let parsed = parse(Language::Cpp, "circle.cpp", source);
    let defs = &parsed.facts.definitions;
    let scales: Vec<Option<&str>> = defs
        .iter()
        .filter(|d| d.name == "scale" && d.owner.is_none())
        .map(|d| d.parameters[0].type_name.as_deref())
        .collect();
    assert_eq!(scales, [Some("double"), Some("int")], "overloads are two methods");
    let constructors: Vec<(Option<&str>, SymbolKind)> =
        defs.iter().filter(|d| d.is_constructor).map(|d| (d.owner.as_deref(), d.kind)).collect();
    assert_eq!(constructors, [(None, SymbolKind::Method), (Some("Circle"), SymbolKind::Method)]);
    let radius = defs.iter().find(|d| d.name == "radius_").unwrap();
    assert_eq!((radius.kind, radius.visibility), (SymbolKind::Field, Some(Visibility::Private)));
    let circle = defs.iter().find(|d| d.name == "Circle" && d.kind == SymbolKind::Class).unwrap();
    assert_eq!(circle.bases[0].name, "Shape");
}
