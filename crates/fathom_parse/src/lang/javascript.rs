use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, keyword_visibility, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_javascript::LANGUAGE),
    definitions: concat!(
        include_str!("../../queries/javascript/definitions.scm"),
        include_str!("../../queries/ecmascript/tests.scm")
    ),
    references: include_str!("../../queries/ecmascript/references.scm"),
    branches: BRANCHES,
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &["export_statement"],
    implicit_parameters: &[],
    visibility,
    is_constructor: |name, _| name == "constructor",
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

const BRANCHES: &[&str] = &[
    "if_statement",
    "for_statement",
    "for_in_statement",
    "while_statement",
    "do_statement",
    "switch_case",
    "catch_clause",
    "ternary_expression",
];

/// `#private` names, TypeScript's accessibility keywords, public otherwise.
fn visibility(name: &str, modifiers: &[String]) -> Option<Visibility> {
    if name.starts_with('#') {
        return Some(Visibility::Private);
    }
    keyword_visibility(modifiers, Some(Visibility::Public))
}

/// Test cases are calls (`it(...)`, `test(...)`) and are marked by the
/// queries; a class is a test only by a Jasmine-style name.
fn is_test(c: &TestContext<'_>) -> bool {
    c.kind == SymbolKind::Class && c.name.ends_with("Test") && crate::profile::in_test_dir(c.path)
}
