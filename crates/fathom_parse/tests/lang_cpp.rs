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

/// A test framework's header in the shapes that leave tree-sitter in error
/// recovery: an export macro between `struct` and the name, an explicit
/// instantiation's declaration, and macros invoked with types among their
/// arguments, in a namespace and in a class body. Every class and method
/// after them is still found, with its members.
#[test]
fn classes_behind_export_macros_and_invocations_are_found() {
    let source = r#"namespace harness {
struct HARNESS_API Case
{
    String m_name;
    void run() const;
};

template <typename F>
struct HARNESS_API_DECL Near { F value; };
extern template struct HARNESS_API_DECL Near<float>;

HARNESS_DEFINE_OPTION(suite, const char*, "");
HARNESS_DEFINE_OPTION(timeout, double, 0);

class HARNESS_API Registry : public Base
{
public:
    HARNESS_FORBID_OPERATOR(Registry, &)
    HARNESS_FORBID_OPERATOR(Registry, ||)
    virtual ~Registry();
    static Registry& instance();
};

struct Reporter { virtual void report(const Case& c) = 0; };
}
"#;
    let parsed = parse(Language::Cpp, "harness.h", source);
    let defs = &parsed.facts.definitions;
    let found: Vec<(&str, SymbolKind)> = defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
    for expected in [
        ("Case", SymbolKind::Class),
        ("run", SymbolKind::Method),
        ("Near", SymbolKind::Class),
        ("Registry", SymbolKind::Class),
        ("instance", SymbolKind::Method),
        ("Reporter", SymbolKind::Class),
        ("report", SymbolKind::Method),
    ] {
        assert!(found.contains(&expected), "{expected:?} in {found:?}");
    }
    assert!(!found.iter().any(|(name, ..)| name.starts_with("HARNESS")), "no macro is a symbol: {found:?}");
    let registry = defs.iter().find(|d| d.name == "Registry").unwrap();
    assert_eq!(registry.bases[0].name, "Base");
    // A method is inside its class.
    let instance = defs.iter().find(|d| d.name == "instance").unwrap();
    assert!(registry.span.start_byte < instance.span.start_byte && instance.span.end_byte < registry.span.end_byte);
}

/// Out-of-line definitions qualified by namespaces as well as their class,
/// returning a value, a pointer or nothing (a constructor).
#[test]
fn methods_defined_under_nested_namespaces_are_found() {
    let source = r#"inline bool spdlog::sinks::sink::should_log(int level) const { return true; }
spdlog::logger *spdlog::details::registry::find(const char *name) { return nullptr; }
a::b::c::Widget::Widget(int x) {}
void a::b::c::Widget::paint() {}
"#;
    let parsed = parse(Language::Cpp, "sink.cpp", source);
    let found: Vec<(&str, SymbolKind, Option<&str>)> =
        parsed.facts.definitions.iter().map(|d| (d.name.as_str(), d.kind, d.owner.as_deref())).collect();
    for expected in [
        ("should_log", SymbolKind::Method, Some("sink")),
        ("find", SymbolKind::Method, Some("registry")),
        ("Widget", SymbolKind::Method, Some("Widget")),
        ("paint", SymbolKind::Method, Some("Widget")),
    ] {
        assert!(found.contains(&expected), "{expected:?} in {found:?}");
    }
}
