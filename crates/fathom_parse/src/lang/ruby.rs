use fathom_model::{SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, file_name, in_test_dir, synthesize_nothing};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_ruby::LANGUAGE),
    definitions: include_str!("../../queries/ruby/definitions.scm"),
    references: include_str!("../../queries/ruby/references.scm"),
    branches: &[
        "if",
        "elsif",
        "unless",
        "while",
        "until",
        "for",
        "when",
        "in_clause",
        "rescue",
        "conditional",
        "if_modifier",
        "unless_modifier",
        "while_modifier",
        "until_modifier",
        "rescue_modifier",
    ],
    binary_expressions: &["binary"],
    variables: &["identifier", "constant", "instance_variable", "class_variable"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &[],
    visibility,
    is_constructor: |name, _| name == "initialize",
    is_test,
    synthesize: synthesize_nothing,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Ruby sets visibility with `private`/`protected`/`public` calls, which the
/// queries report as modifiers of the methods after them: the last one wins.
/// Instance and class variables (`@x`, `@@x`) are private to the object;
/// everything else is public.
fn visibility(name: &str, modifiers: &[String]) -> Option<Visibility> {
    if name.starts_with('@') {
        return Some(Visibility::Private);
    }
    let keyword = modifiers.iter().rev().find_map(|m| match m.as_str() {
        "private" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "public" => Some(Visibility::Public),
        _ => None,
    });
    Some(keyword.unwrap_or(Visibility::Public))
}

/// RSpec examples are calls (`it "..." do`) that the queries mark; minitest
/// and Test::Unit tests are `test_*` methods of `Minitest::Test` or
/// `*TestCase` subclasses, which are test classes themselves.
fn is_test(c: &TestContext<'_>) -> bool {
    let test_base = |name: &str| {
        name == "Minitest::Test"
            || name == "MiniTest::Test"
            || name.ends_with("TestCase")
            || name.ends_with("Unit::TestCase")
    };
    match c.kind {
        SymbolKind::Method => {
            c.name.starts_with("test_") && c.class.is_some_and(|(_, bases)| bases.iter().any(|b| test_base(&b.name)))
        }
        SymbolKind::Class => {
            let test_file = file_name(c.path).ends_with("_test.rb") || in_test_dir(c.path);
            c.bases.iter().any(|b| test_base(&b.name)) || (test_file && c.name.ends_with("Test"))
        }
        _ => false,
    }
}
