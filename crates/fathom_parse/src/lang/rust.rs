use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, has_decorator, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_rust::LANGUAGE),
    definitions: include_str!("../../queries/rust/definitions.scm"),
    references: include_str!("../../queries/rust/references.scm"),
    branches: &["if_expression", "while_expression", "for_expression", "match_arm"],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["line_comment", "block_comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &["self", "&self", "&mut self", "mut self"],
    visibility,
    is_constructor: |_, _| false,
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// `pub` is public; `pub(crate)`, `pub(super)`, `pub(self)` and
/// `pub(in path)` (whose scope keyword the queries add as a second
/// modifier) are visible inside the crate; anything else is private to its
/// module.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    let has = |word: &str| modifiers.iter().any(|m| m == word);
    Some(if !has("pub") {
        Visibility::Private
    } else if ["crate", "super", "self", "in"].iter().any(|w| has(w)) {
        Visibility::Internal
    } else {
        Visibility::Public
    })
}

/// `#[test]`, and the test attributes of async runtimes and test crates
/// (`#[tokio::test]`, `#[async_std::test]`, `#[rstest]`, `#[test_case(..)]`).
fn is_test(c: &TestContext<'_>) -> bool {
    matches!(c.kind, SymbolKind::Function | SymbolKind::Method)
        && has_decorator(c.decorators, &["test", "rstest", "test_case", "quickcheck", "proptest"])
}
