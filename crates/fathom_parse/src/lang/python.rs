use fathom_model::{BaseRef, SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, file_name, in_test_dir, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_python::LANGUAGE),
    definitions: include_str!("../../queries/python/definitions.scm"),
    references: include_str!("../../queries/python/references.scm"),
    branches: &[
        "if_statement",
        "elif_clause",
        "for_statement",
        "while_statement",
        "except_clause",
        "conditional_expression",
        "boolean_operator",
        "case_clause",
        "for_in_clause",
        "if_clause",
    ],
    binary_expressions: &[],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::FirstStringInBody,
    wrappers: &["decorated_definition"],
    implicit_parameters: &["self", "cls"],
    visibility,
    is_constructor: |name, _| name == "__init__" || name == "__new__",
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Python has no keywords for it: a leading underscore marks a private name,
/// unless it is a dunder such as `__init__`.
fn visibility(name: &str, _modifiers: &[String]) -> Option<Visibility> {
    let dunder = name.starts_with("__") && name.ends_with("__");
    Some(if name.starts_with('_') && !dunder { Visibility::Private } else { Visibility::Public })
}

/// pytest and unittest conventions: `test*` functions in test files,
/// `test*` methods of `Test*` classes or `TestCase` subclasses.
fn is_test(c: &TestContext<'_>) -> bool {
    let file = file_name(c.path);
    let test_file = file.starts_with("test_") || file.ends_with("_test.py") || in_test_dir(c.path);
    let test_case = |bases: &[BaseRef]| bases.iter().any(|b| b.name.ends_with("TestCase"));
    match c.kind {
        SymbolKind::Function => test_file && c.name.starts_with("test"),
        SymbolKind::Method => {
            c.name.starts_with("test")
                && c.class.is_some_and(|(class, bases)| class.starts_with("Test") || test_case(bases))
        }
        SymbolKind::Class => test_case(c.bases) || (test_file && c.name.starts_with("Test")),
        _ => false,
    }
}
