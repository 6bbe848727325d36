use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, file_name, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_go::LANGUAGE),
    definitions: include_str!("../../queries/go/definitions.scm"),
    references: include_str!("../../queries/go/references.scm"),
    branches: &["if_statement", "for_statement", "expression_case", "type_case", "communication_case"],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &[],
    visibility,
    is_constructor: |_, _| false,
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Go has no keywords for it: a name that starts with an upper-case letter
/// is exported from its package; any other is visible inside the package.
fn visibility(name: &str, _modifiers: &[String]) -> Option<Visibility> {
    Some(if name.chars().next().is_some_and(char::is_uppercase) { Visibility::Public } else { Visibility::Internal })
}

/// `go test` runs the `TestXxx` functions of `_test.go` files, where `Xxx`
/// does not start with a lower-case letter.
fn is_test(c: &TestContext<'_>) -> bool {
    c.kind == SymbolKind::Function
        && file_name(c.path).ends_with("_test.go")
        && c.name.strip_prefix("Test").is_some_and(|rest| !rest.starts_with(|ch: char| ch.is_lowercase()))
}
