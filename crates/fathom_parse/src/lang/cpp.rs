use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, keyword_visibility, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_cpp::LANGUAGE),
    definitions: include_str!("../../queries/cpp/definitions.scm"),
    references: include_str!("../../queries/cpp/references.scm"),
    branches: BRANCHES,
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &["template_declaration"],
    implicit_parameters: &[],
    visibility,
    is_constructor: |name, class| name == class,
    is_test,
    synthesize: synthesize_nothing,
    test_macros: TEST_MACROS,
    unreserved: Some(UNRESERVED),
    preprocessed: true,
    declaration_files: &[],
};

/// Catch2's, doctest's and Boost.Test's test cases, each followed by its
/// body (GoogleTest's `TEST(...)` parses as a function: the queries mark
/// it), and Criterion's and utest.h's, which C++ files use too.
pub(super) const TEST_MACROS: &[&str] = &[
    "TEST_CASE",
    "TEST_CASE_METHOD",
    "TEST_CASE_FIXTURE",
    "TEST_CASE_TEMPLATE",
    "TEST_CASE_TEMPLATE_DEFINE",
    "TEMPLATE_TEST_CASE",
    "TEMPLATE_TEST_CASE_SIG",
    "TEMPLATE_TEST_CASE_METHOD",
    "TEMPLATE_PRODUCT_TEST_CASE",
    "TEMPLATE_LIST_TEST_CASE",
    "SCENARIO",
    "SCENARIO_METHOD",
    "BOOST_AUTO_TEST_CASE",
    "BOOST_AUTO_TEST_CASE_TEMPLATE",
    "BOOST_FIXTURE_TEST_CASE",
    "BOOST_DATA_TEST_CASE",
    "Test",
    "ParameterizedTest",
    "UTEST",
    "UTEST_F",
];

/// C and C++ share their statements.
pub(super) const BRANCHES: &[&str] = &[
    "if_statement",
    "for_statement",
    "for_range_loop",
    "while_statement",
    "do_statement",
    "case_statement",
    "catch_clause",
    "conditional_expression",
];

/// The access section a member sits in. Outside any section, `static`
/// gives a namespace-level name internal linkage: private to its file.
/// Everything else is public.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    let file_local = modifiers.iter().any(|m| m == "static");
    keyword_visibility(modifiers, Some(if file_local { Visibility::Private } else { Visibility::Public }))
}

/// GoogleTest cases are marked by the queries (`TEST(...)`); a fixture
/// class deriving from `testing::Test` is a test class.
fn is_test(c: &TestContext<'_>) -> bool {
    c.kind == SymbolKind::Class
        && c.bases.iter().any(|b| {
            let name = b.name.rsplit("::").next().unwrap_or(&b.name);
            matches!(name, "Test" | "TestWithParam")
        })
}

/// The words the C and C++ grammars spell as tokens that the standards do
/// not reserve: macros of the standard library (`NULL`, `offsetof`,
/// `noreturn`), the preprocessor's `defined`, and C++'s identifiers with a
/// meaning only in context (`final`, `override`). Every other word of the
/// grammar is a keyword, never a name.
pub(super) const UNRESERVED: &[&str] = &["NULL", "offsetof", "noreturn", "defined", "final", "override"];
