//! What a language contributes besides its queries: the few rules that are
//! easier to say in code than as tree patterns.

use fathom_model::{BaseRef, Decorator, Definition, SymbolKind, Visibility};

/// How a language attaches documentation to a definition.
#[derive(Clone, Copy)]
pub(crate) enum Docstrings {
    /// The first statement of the body is a string literal (Python).
    FirstStringInBody,
    /// Comments directly above the definition.
    LeadingComments,
}

/// What is known when deciding whether a definition is a test.
pub(crate) struct TestContext<'a> {
    pub path: &'a str,
    pub name: &'a str,
    pub kind: SymbolKind,
    pub decorators: &'a [Decorator],
    /// The definition's own supertypes, for classes.
    pub bases: &'a [BaseRef],
    /// The enclosing class's name and its supertypes, for methods.
    pub class: Option<(&'a str, &'a [BaseRef])>,
}

pub(crate) struct Profile {
    /// `None` in a build without grammars.
    pub grammar: fn() -> Option<tree_sitter::Language>,
    pub definitions: &'static str,
    pub references: &'static str,
    /// Node kinds that each add a path through the code: `if`, loops, `case`, `catch`, `?:`.
    pub branches: &'static [&'static str],
    /// Binary-expression node kinds; they add a path when their operator is logical.
    pub binary_expressions: &'static [&'static str],
    /// Node kinds that name a variable where they stand: what the bare
    /// `@use` patterns of `references.scm` capture (a test checks). One in a
    /// member field (`a.b`'s `b`, a keyword argument's name) names none.
    pub variables: &'static [&'static str],
    pub comments: &'static [&'static str],
    pub docstrings: Docstrings,
    /// Node kinds that wrap a definition with its decorators; the span covers them.
    pub wrappers: &'static [&'static str],
    /// Parameters that are not part of the signature's meaning (`self`, `cls`).
    pub implicit_parameters: &'static [&'static str],
    pub visibility: fn(name: &str, modifiers: &[String]) -> Option<Visibility>,
    /// Whether a method named `name` in class `class` constructs it.
    pub is_constructor: fn(name: &str, class: &str) -> bool,
    pub is_test: fn(&TestContext<'_>) -> bool,
    /// Adds members the source implies but does not spell out (Lombok's
    /// accessors and constructors), marked with `synthesized`. They are
    /// appended after the parsed definitions.
    pub synthesize: fn(&mut Vec<Definition>),
    /// Macros that declare a test with its body after them
    /// (`TEST_CASE("name") { ... }`): see [`crate::macro_tests`].
    pub test_macros: &'static [&'static str],
    /// Where every word the grammar spells as a token is reserved
    /// ([`crate::grammar_words`]), but these few: a definition named after
    /// any other is error recovery reading a keyword as a name, and is
    /// dropped. `None` where the language has many words that are keywords
    /// only in context (Python's `match`, JavaScript's `get`).
    pub unreserved: Option<&'static [&'static str]>,
    /// C's preprocessor: conditional branches are read as ctags reads
    /// them ([`crate::conditional`]).
    pub preprocessed: bool,
    /// File names ending so only declare (TypeScript's `.d.ts`): every
    /// definition in them is a declaration.
    pub declaration_files: &'static [&'static str],
}

/// For languages that generate nothing.
pub(crate) fn synthesize_nothing(_: &mut Vec<Definition>) {}

/// Visibility written as a keyword among the modifiers; `default` otherwise.
pub(crate) fn keyword_visibility(modifiers: &[String], default: Option<Visibility>) -> Option<Visibility> {
    modifiers
        .iter()
        .find_map(|m| match m.as_str() {
            "public" => Some(Visibility::Public),
            "protected" => Some(Visibility::Protected),
            "private" => Some(Visibility::Private),
            "internal" => Some(Visibility::Internal),
            _ => None,
        })
        .or(default)
}

/// Whether a decorator with one of these names (last dotted segment) is applied.
pub(crate) fn has_decorator(decorators: &[Decorator], names: &[&str]) -> bool {
    decorators.iter().any(|d| names.contains(&d.name.rsplit(['.', ':']).next().unwrap_or(&d.name)))
}

/// The file name of a path, for test-file conventions.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether any directory of the path is a conventional test directory.
pub(crate) fn in_test_dir(path: &str) -> bool {
    let mut dirs = path.split('/');
    dirs.next_back();
    dirs.any(|d| matches!(d, "test" | "tests" | "__tests__" | "spec" | "testing"))
}
