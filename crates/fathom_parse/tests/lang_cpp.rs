//! C++ extraction over the `lang-cpp` fixture: one snapshot per file.

mod common;

use common::parse;
use fathom_model::{Language, SymbolKind, Visibility};

#[test]
fn lang_cpp_fixture() {
    assert_fixture_snapshots!("lang-cpp");
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

#[test]
fn conversion_operators_are_named_by_the_type_they_convert_to() {
    let source = r#"namespace Catch {
class Section {
public:
    explicit operator bool() const;
    template <typename T>
    operator T();
    operator unsigned long() const { return 1; }
};
Section::operator bool() const { return true; }
}
"#;
    let parsed = parse(Language::Cpp, "section.hpp", source);
    let found: Vec<(&str, SymbolKind, bool, Option<&str>)> = parsed
        .facts
        .definitions
        .iter()
        .filter(|d| d.name.starts_with("operator"))
        .map(|d| (d.name.as_str(), d.kind, d.declaration, d.owner.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            ("operator bool", SymbolKind::Method, true, None),
            ("operator T", SymbolKind::Method, true, None),
            ("operator unsigned long", SymbolKind::Method, false, None),
            ("operator bool", SymbolKind::Method, false, Some("Section")),
        ]
    );
}
