//! Tests declared by a macro with the body after it: Catch2's and doctest's
//! `TEST_CASE("name") { ... }`, Boost.Test's `BOOST_AUTO_TEST_CASE(name)
//! { ... }`, Criterion's `Test(suite, name) { ... }`.
//!
//! Tree-sitter reads `TEST_CASE("name")` as a call missing its `;` and the
//! body as a block of its own, and its error recovery often turns the rest
//! of the file into one error node (a type among the arguments is enough).
//! So these tests are read from the text: a listed macro, first on its line,
//! its balanced arguments, then a balanced body, with comments, string,
//! character and raw string literals passed over (a JSON test's `R"({"a":
//! 1})"` holds braces). The test is named by its first string argument, or
//! else its first argument, and spans the macro and its body, so that the
//! calls in the body are the test's.

use fathom_model::{Definition, LineStarts, Span, SymbolKind, count_lines};

/// One test found: its name, the span of the macro and body, and the span
/// of the name as written.
#[derive(Debug, PartialEq)]
pub(crate) struct MacroTest {
    pub name: String,
    pub span: (usize, usize),
    pub name_span: (usize, usize),
    /// The macro and its arguments, as written.
    pub header: (usize, usize),
}

pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The index just past a comment, a string, a character or a raw string
/// literal that starts at `at`, or `None` where none starts there.
pub(crate) fn past_literal(s: &[u8], at: usize) -> Option<usize> {
    match s[at] {
        b'/' if s.get(at + 1) == Some(&b'/') => {
            Some(s[at..].iter().position(|&b| b == b'\n').map_or(s.len(), |p| at + p))
        }
        b'/' if s.get(at + 1) == Some(&b'*') => {
            Some(s[at + 2..].windows(2).position(|w| w == b"*/").map_or(s.len(), |p| at + 2 + p + 2))
        }
        b'"' if at > 0 && s[at - 1] == b'R' && (at < 2 || !is_ident(s[at - 2]) || raw_prefix(s, at - 1)) => {
            // R"delim( ... )delim"
            let open = s[at + 1..].iter().take(17).position(|&b| b == b'(')? + at + 1;
            let mut close = Vec::with_capacity(open - at + 1);
            close.push(b')');
            close.extend_from_slice(&s[at + 1..open]);
            close.push(b'"');
            Some(
                s[open..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(s.len(), |p| open + p + close.len()),
            )
        }
        quote @ (b'"' | b'\'') => {
            // A digit separator (`1'000`) is not a character literal.
            if quote == b'\'' && at > 0 && s[at - 1].is_ascii_alphanumeric() {
                return None;
            }
            let mut i = at + 1;
            while i < s.len() {
                match s[i] {
                    b'\\' => i += 2,
                    b'\n' => return Some(i),
                    b if b == quote => return Some(i + 1),
                    _ => i += 1,
                }
            }
            Some(s.len())
        }
        _ => None,
    }
}

/// `u8R`, `uR`, `UR`, `LR`: the `R` at `r` ends an encoding prefix.
fn raw_prefix(s: &[u8], r: usize) -> bool {
    let start = (0..r).rev().take_while(|&i| is_ident(s[i])).last().unwrap_or(r);
    matches!(&s[start..r], b"u8" | b"u" | b"U" | b"L")
}

/// Past whitespace and comments.
pub(crate) fn skip_trivia(s: &[u8], mut at: usize) -> usize {
    while at < s.len() {
        if s[at].is_ascii_whitespace() {
            at += 1;
        } else if s[at] == b'/' && matches!(s.get(at + 1), Some(b'/' | b'*')) {
            at = past_literal(s, at).unwrap_or(s.len());
        } else {
            break;
        }
    }
    at
}

/// The index just past the bracket that closes the one at `at`.
pub(crate) fn past_closing(s: &[u8], at: usize) -> Option<usize> {
    let (open, close) = (s[at], if s[at] == b'(' { b')' } else { b'}' });
    let mut depth = 0usize;
    let mut i = at;
    while i < s.len() {
        if let Some(next) = past_literal(s, i) {
            i = next;
            continue;
        }
        if s[i] == open {
            depth += 1;
        } else if s[i] == close {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
        i += 1;
    }
    None
}

/// The tests `text` declares with one of `macros`.
pub(crate) fn scan(text: &str, macros: &[&str]) -> Vec<MacroTest> {
    let s = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    // Only whitespace since the last newline: a macro here starts its line.
    let mut line_start = true;
    while i < s.len() {
        if let Some(next) = past_literal(s, i) {
            // A comment leaves the line as it was, or starts a new one; a
            // literal is text on it.
            if s[i] != b'/' {
                line_start = false;
            } else if s[i..next].contains(&b'\n') {
                line_start = true;
            }
            i = next;
            continue;
        }
        let b = s[i];
        if b == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b'#' && line_start {
            // A preprocessor line, with its continuations (`#define TEST_CASE(...)`).
            while i < s.len() && !(s[i] == b'\n' && s[i - 1] != b'\\') {
                i += 1;
            }
            continue;
        }
        if !is_ident(b) {
            line_start = false;
            i += 1;
            continue;
        }
        let start = i;
        while i < s.len() && is_ident(s[i]) {
            i += 1;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        if !at_line_start || !macros.contains(&&text[start..i]) {
            continue;
        }
        let open = skip_trivia(s, i);
        if s.get(open) != Some(&b'(') {
            continue;
        }
        let Some(after_args) = past_closing(s, open) else { continue };
        let body = skip_trivia(s, after_args);
        if s.get(body) != Some(&b'{') {
            continue;
        }
        let Some(end) = past_closing(s, body) else { continue };
        let Some(name_span) = test_name(s, open + 1, after_args - 1) else { continue };
        let name = match s[name_span.0] {
            b'"' => text[name_span.0 + 1..name_span.1 - 1].to_owned(),
            _ => text[name_span.0..name_span.1].to_owned(),
        };
        if !name.trim().is_empty() {
            found.push(MacroTest { name, span: (start, end), name_span, header: (start, after_args) });
        }
        i = end;
    }
    found
}

/// The first string literal among the arguments between `from` and `to`,
/// else the first argument, trimmed.
fn test_name(s: &[u8], from: usize, to: usize) -> Option<(usize, usize)> {
    let mut i = from;
    let mut first: Option<(usize, usize)> = None;
    let mut depth = 0usize;
    while i < to {
        if s[i] == b'"' && (i == 0 || s[i - 1] != b'R') {
            let end = past_literal(s, i)?;
            return Some((i, end.min(to)));
        }
        if let Some(next) = past_literal(s, i) {
            i = next;
            continue;
        }
        match s[i] {
            b'(' | b'<' | b'[' => depth += 1,
            b')' | b'>' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 0 && first.is_none() => first = Some((from, i)),
            _ => {}
        }
        i += 1;
    }
    let (a, b) = first.unwrap_or((from, to));
    let text = &s[a..b];
    let lead = text.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let trail = text.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    (lead + trail < text.len()).then_some((a + lead, b - trail))
}

/// Adds the tests `macros` declare in `text` to a file's definitions, which
/// stay in source order with parents before their children: a definition
/// that error recovery made of the same macro becomes the test; any other
/// test is added, and the definitions in its body that had no parent
/// become its children.
pub(crate) fn add(text: &str, macros: &[&str], definitions: &mut Vec<Definition>) {
    if macros.is_empty() || !macros.iter().any(|m| text.contains(m)) {
        return;
    }
    let tests = scan(text, macros);
    if tests.is_empty() {
        return;
    }
    let starts = LineStarts::of(text);
    let line_of = |byte: usize| starts.line_of(byte as u32) + 1;
    let span_of = |(a, b): (usize, usize)| Span {
        start_line: line_of(a),
        end_line: line_of(b.saturating_sub(1).max(a)),
        start_byte: a as u32,
        end_byte: b as u32,
    };
    let mut added: Vec<usize> = Vec::new();
    for test in tests {
        let span = span_of(test.span);
        let signature = text[test.header.0..test.header.1].split_whitespace().collect::<Vec<_>>().join(" ");
        let at = match definitions.iter().position(|d| d.span.start_byte == span.start_byte && d.parent.is_none()) {
            Some(at) => {
                let parsed = &mut definitions[at];
                parsed.kind = SymbolKind::Function;
                parsed.class_kind = None;
                parsed.name = test.name;
                parsed.span = span;
                at
            }
            None => {
                definitions.push(Definition::new(SymbolKind::Function, test.name, None, span));
                definitions.len() - 1
            }
        };
        let d = &mut definitions[at];
        d.name_span = span_of(test.name_span);
        d.signature = Some(signature);
        d.is_test = true;
        d.loc = count_lines(&text[test.span.0..test.span.1]).code;
        added.push(at);
    }
    // Back in source order, enclosing definitions first; parents follow
    // their definitions to their new places.
    let mut order: Vec<usize> = (0..definitions.len()).collect();
    order.sort_by_key(|&i| (definitions[i].span.start_byte, std::cmp::Reverse(definitions[i].span.end_byte)));
    let mut place = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        place[old] = new;
    }
    let mut old: Vec<Option<Definition>> = std::mem::take(definitions).into_iter().map(Some).collect();
    *definitions = order.iter().map(|&i| old[i].take().expect("each once")).collect();
    for d in definitions.iter_mut() {
        d.parent = d.parent.map(|p| place[p]);
    }
    for test in added.into_iter().map(|at| place[at]) {
        let span = definitions[test].span;
        for inner in definitions.iter_mut().skip(test + 1) {
            if inner.span.start_byte >= span.end_byte {
                break;
            }
            if inner.parent.is_none() && span.contains(&inner.span) {
                inner.parent = Some(test);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATCH: &[&str] = &["TEST_CASE", "TEST_CASE_METHOD", "TEMPLATE_TEST_CASE", "SCENARIO", "BOOST_AUTO_TEST_CASE"];

    #[test]
    fn catch_doctest_and_boost_cases_are_read_with_their_bodies() {
        let text = r####"#include "doctest.h"
#define TEST_CASE(...) INTERNAL(__VA_ARGS__)
// TEST_CASE("in a comment") { }
TEST_CASE("lexer class")
{
    SECTION("scan") { CHECK(json::parse(R"({"a": "}"})") == 1); }
    auto s = "TEST_CASE(\"in a string\") {";
    char c = '}';
}
TEMPLATE_TEST_CASE("typed", "[t]", int, std::vector<int>) { f<TestType>(); }
namespace {
  TEST_CASE_METHOD(Fixture, "with a fixture", "[x]") /* why */ { k(); }
}
BOOST_AUTO_TEST_CASE(plain_name) { g(); }
x = TEST_CASE("not first on its line") { };
"####;
        let found = scan(text, CATCH);
        let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["lexer class", "typed", "with a fixture", "plain_name"]);
        let lexer = &found[0];
        let body = &text[lexer.span.0..lexer.span.1];
        assert!(body.starts_with("TEST_CASE(\"lexer class\")") && body.ends_with("char c = '}';\n}"), "{body}");
        assert_eq!(&text[lexer.name_span.0..lexer.name_span.1], "\"lexer class\"");
    }

    #[test]
    fn tests_become_definitions_that_hold_their_bodies() {
        let text = "TEST_CASE(\"parse\", \"[p]\")\n{\n    CHECK(parse(\"1\"));\n}\n";
        let mut definitions = Vec::new();
        add(text, CATCH, &mut definitions);
        let [test] = definitions.as_slice() else { panic!("{definitions:?}") };
        assert_eq!(test.parent, None);
        assert_eq!((test.name.as_str(), test.kind, test.is_test), ("parse", SymbolKind::Function, true));
        assert_eq!((test.span.start_line, test.span.end_line, test.span.end_byte as usize), (1, 4, text.len() - 1));
        assert_eq!(test.signature.as_deref(), Some("TEST_CASE(\"parse\", \"[p]\")"));
    }

    #[test]
    fn definitions_stay_in_source_order_and_a_body_holds_its_own() {
        let text = "struct Before {};\nTEST_CASE(\"t\") {\n  struct Local { int x; };\n}\nvoid after() {}\n";
        let at = |needle: &str, len: usize| {
            let a = text.find(needle).unwrap() as u32;
            Span { start_line: 1, end_line: 1, start_byte: a, end_byte: a + len as u32 }
        };
        let mut definitions = vec![
            Definition::new(SymbolKind::Class, "Before", None, at("struct Before", 16)),
            Definition::new(SymbolKind::Class, "Local", None, at("struct Local", 23)),
            Definition::new(SymbolKind::Field, "x", Some(1), at("int x", 5)),
            Definition::new(SymbolKind::Function, "after", None, at("void after", 15)),
        ];
        add(text, CATCH, &mut definitions);
        let shape: Vec<(&str, Option<usize>)> = definitions.iter().map(|d| (d.name.as_str(), d.parent)).collect();
        assert_eq!(shape, [("Before", None), ("t", None), ("Local", Some(1)), ("x", Some(2)), ("after", None)]);
    }

    #[test]
    fn unbalanced_text_ends_the_scan_without_a_test() {
        assert!(scan("TEST_CASE(\"open\") {\n  f();\n", CATCH).is_empty());
        assert!(scan("TEST_CASE(\"no body\");\n", CATCH).is_empty());
        assert!(scan("TEST_CASE(", CATCH).is_empty());
        assert!(scan("R\"(", CATCH).is_empty());
    }
}
