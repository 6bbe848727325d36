use fathom_model::{ClassKind, Definition, Parameter, SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, has_decorator, keyword_visibility};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_c_sharp::LANGUAGE),
    definitions: include_str!("../../queries/csharp/definitions.scm"),
    references: include_str!("../../queries/csharp/references.scm"),
    branches: &[
        "if_statement",
        "for_statement",
        "foreach_statement",
        "while_statement",
        "do_statement",
        // The `case` keyword of a switch section: `default` adds no path.
        "case",
        "switch_expression_arm",
        "catch_clause",
        "conditional_expression",
    ],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &[],
    visibility,
    is_constructor: |_, _| false,
    is_test,
    synthesize: |definitions| corrections(definitions),
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Keywords, else private (the default for members); [`corrections`]
/// corrects the defaults that depend on where a declaration is.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    keyword_visibility(modifiers, Some(Visibility::Private))
}

const TEST_ATTRIBUTES: &[&str] = &[
    "Fact",
    "Theory",
    "Test",
    "TestCase",
    "TestCaseSource",
    "TestMethod",
    "DataTestMethod",
    "FactAttribute",
    "TheoryAttribute",
    "TestAttribute",
    "TestMethodAttribute",
];

/// xUnit `[Fact]`/`[Theory]`, NUnit `[Test]`/`[TestCase]`, MSTest
/// `[TestMethod]`; `[TestFixture]`/`[TestClass]` classes and `*Tests` classes.
fn is_test(c: &TestContext<'_>) -> bool {
    match c.kind {
        SymbolKind::Method => has_decorator(c.decorators, TEST_ATTRIBUTES),
        SymbolKind::Class => {
            has_decorator(c.decorators, &["TestFixture", "TestClass"])
                || c.name.ends_with("Tests")
                || c.name.ends_with("Test")
        }
        _ => false,
    }
}

/// Corrections the queries cannot express.
fn corrections(definitions: &mut [Definition]) {
    implicit_visibility(definitions);
    for d in definitions.iter_mut() {
        merge_params_arrays(&mut d.parameters, d.signature.as_deref().unwrap_or(""));
        d.docstring = d.docstring.take().map(strip_summary).filter(|doc| !doc.is_empty());
    }
}

/// XML documentation keeps its text: `<summary>Adds.</summary>` → `Adds.`
fn strip_summary(doc: String) -> String {
    doc.replace("<summary>", "").replace("</summary>", "").trim().to_owned()
}

/// Where no keyword says it: types outside a type are internal; interface
/// members, enum members and a record's positional properties are public.
fn implicit_visibility(definitions: &mut [Definition]) {
    for at in 0..definitions.len() {
        let d = &definitions[at];
        if d.modifiers.iter().any(|m| matches!(m.as_str(), "public" | "protected" | "private" | "internal")) {
            continue;
        }
        let parent = d.parent.map(|p| &definitions[p]);
        // A local function has no visibility.
        if parent.is_some_and(|p| p.kind.is_callable()) {
            definitions[at].visibility = None;
            continue;
        }
        let implied = match parent {
            None => Some(Visibility::Internal),
            Some(p) if p.kind == SymbolKind::Package => Some(Visibility::Internal),
            Some(p) => match p.class_kind {
                Some(ClassKind::Interface) | Some(ClassKind::Enum) => Some(Visibility::Public),
                Some(ClassKind::Record)
                    if d.kind == SymbolKind::Field
                        && p.parameters.iter().any(|q| q.name.as_deref() == Some(&d.name)) =>
                {
                    Some(Visibility::Public)
                }
                _ => None,
            },
        };
        if d.kind == SymbolKind::Package {
            definitions[at].visibility = None;
        } else if let Some(visibility) = implied {
            definitions[at].visibility = Some(visibility);
        }
    }
}

/// `params int[] rest` is not a `parameter` node in the grammar: the list
/// holds its type and its name apart. Joins them back into one parameter.
fn merge_params_arrays(parameters: &mut Vec<Parameter>, signature: &str) {
    let Some(at) = parameters.iter().position(|p| p.name.is_none()) else { return };
    let Some(next) = parameters.get(at + 1) else { return };
    if next.type_name.is_some() || !next.text.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return;
    }
    let keyword = if signature.contains("params ") { "params " } else { "" };
    let ty = parameters[at].text.clone();
    let name = next.text.clone();
    parameters[at] = Parameter { text: format!("{keyword}{ty} {name}"), name: Some(name), type_name: Some(ty) };
    parameters.remove(at + 1);
}
