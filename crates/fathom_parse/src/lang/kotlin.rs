use fathom_model::{ClassKind, Definition, Parameter, SymbolKind, Visibility};

use crate::lang::java::JVM_TEST_ANNOTATIONS;
use crate::profile::{Docstrings, Profile, TestContext, has_decorator, keyword_visibility};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_kotlin_ng::LANGUAGE),
    definitions: include_str!("../../queries/kotlin/definitions.scm"),
    references: include_str!("../../queries/kotlin/references.scm"),
    branches: &[
        "if_expression",
        "for_statement",
        "while_statement",
        "do_while_statement",
        // Every `when` branch, `else` included.
        "when_entry",
        "catch_block",
    ],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["line_comment", "block_comment"],
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

/// Keywords, else public.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    keyword_visibility(modifiers, Some(Visibility::Public))
}

/// JUnit/kotlin.test annotations; `*Test`/`*Tests` classes.
fn is_test(c: &TestContext<'_>) -> bool {
    match c.kind {
        SymbolKind::Method | SymbolKind::Function => has_decorator(c.decorators, JVM_TEST_ANNOTATIONS),
        SymbolKind::Class => c.name.ends_with("Test") || c.name.ends_with("Tests"),
        _ => false,
    }
}

/// Corrections the queries cannot express: the grammar gives parameters no
/// `name`/`type` fields, and an unnamed companion is `Companion`.
fn corrections(definitions: &mut [Definition]) {
    for d in definitions.iter_mut() {
        if d.kind == SymbolKind::Class && d.class_kind == Some(ClassKind::Object) && d.name == "companion" {
            d.name = "Companion".to_owned();
        }
        d.parameters = typed_parameters(std::mem::take(&mut d.parameters));
    }
    // A function in a function is local: it has no visibility.
    for at in 0..definitions.len() {
        if definitions[at].parent.is_some_and(|p| definitions[p].kind.is_callable()) {
            definitions[at].visibility = None;
        }
    }
}

/// `name: Type = default` → name and type; `vararg` and parameter
/// annotations, which the grammar puts beside their parameter, join it.
fn typed_parameters(parameters: Vec<Parameter>) -> Vec<Parameter> {
    let mut out: Vec<Parameter> = Vec::with_capacity(parameters.len());
    let mut prefix = String::new();
    for mut p in parameters {
        let Some((head, rest)) = p.text.split_once(':') else {
            // `parameter_modifiers`: `vararg`, `@Ann`.
            prefix.push_str(&p.text);
            prefix.push(' ');
            continue;
        };
        let ty = rest.split_once('=').map_or(rest, |(ty, _)| ty).trim();
        p.name = head.split_whitespace().last().map(str::to_owned);
        p.type_name = (!ty.is_empty()).then(|| ty.to_owned());
        if !prefix.is_empty() {
            p.text = format!("{prefix}{}", p.text);
            prefix.clear();
        }
        out.push(p);
    }
    out
}
