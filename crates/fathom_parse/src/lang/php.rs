use fathom_model::{BaseRef, SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, keyword_visibility, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_php::LANGUAGE_PHP),
    definitions: include_str!("../../queries/php/definitions.scm"),
    references: include_str!("../../queries/php/references.scm"),
    branches: &[
        "if_statement",
        "else_if_clause",
        "for_statement",
        "foreach_statement",
        "while_statement",
        "do_statement",
        "case_statement",
        "catch_clause",
        "conditional_expression",
        "match_conditional_expression",
    ],
    binary_expressions: &["binary_expression"],
    variables: &["name"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &[],
    visibility,
    is_constructor: |name, _| name.eq_ignore_ascii_case("__construct"),
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Members without a visibility keyword are public, and so is everything
/// declared outside a class.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    keyword_visibility(modifiers, Some(Visibility::Public))
}

/// PHPUnit: `test*` methods of `*TestCase` subclasses, and methods with the
/// `#[Test]` attribute (a `/** @test */` docblock is marked by the queries).
fn is_test(c: &TestContext<'_>) -> bool {
    let last = |name: &str| name.rsplit('\\').next().unwrap_or(name).to_owned();
    let test_case = |bases: &[BaseRef]| bases.iter().any(|b| last(&b.name).ends_with("TestCase"));
    match c.kind {
        SymbolKind::Method => {
            c.decorators.iter().any(|d| last(&d.name) == "Test")
                || (c.name.starts_with("test") && c.class.is_some_and(|(_, bases)| test_case(bases)))
        }
        SymbolKind::Class => test_case(c.bases),
        _ => false,
    }
}
