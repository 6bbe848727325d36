use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, file_name, in_test_dir, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_c::LANGUAGE),
    definitions: include_str!("../../queries/c/definitions.scm"),
    references: include_str!("../../queries/c/references.scm"),
    branches: &[
        "if_statement",
        "for_statement",
        "while_statement",
        "do_statement",
        "case_statement",
        "conditional_expression",
    ],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &["void"],
    visibility,
    is_constructor: |_, _| false,
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &["Test", "ParameterizedTest", "UTEST", "UTEST_F"],
    unreserved: Some(super::cpp::UNRESERVED),
    preprocessed: true,
    declaration_files: &[],
};

/// `static` gives a name internal linkage: private to its file.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    Some(if modifiers.iter().any(|m| m == "static") { Visibility::Private } else { Visibility::Public })
}

/// Unity, CMocka and Check conventions: `test_*` functions in test files
/// (`test_*.c`, `*_test.c`, or under a test directory). Criterion's and
/// utest.h's test macros are read from the text (`crate::macro_tests`).
fn is_test(c: &TestContext<'_>) -> bool {
    let file = file_name(c.path);
    let test_file = file.starts_with("test_") || file.ends_with("_test.c") || in_test_dir(c.path);
    c.kind == SymbolKind::Function && test_file && c.name.starts_with("test_")
}
