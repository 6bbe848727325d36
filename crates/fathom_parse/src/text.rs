//! Small text helpers for turning node text into property values.

use std::borrow::Cow;

/// Every byte of `bytes` but line ends made a space: text blanked in place,
/// every offset and line kept.
pub(crate) fn blank_keeping_lines(bytes: &mut [u8]) {
    bytes.iter_mut().filter(|b| !matches!(**b, b'\n' | b'\r')).for_each(|b| *b = b' ');
}

/// Collapses runs of whitespace to one space and trims.
pub(crate) fn collapse(text: &str) -> String {
    collapsed(text).into_owned()
}

/// [`collapse`], borrowing `text` when it is already collapsed, as most
/// names and receivers are.
pub(crate) fn collapsed(text: &str) -> Cow<'_, str> {
    let mut previous_space = true; // no leading whitespace either
    let tidy = text.chars().all(|c| {
        let space = c.is_whitespace();
        let fine = !space || (c == ' ' && !previous_space);
        previous_space = space;
        fine
    }) && !previous_space
        || text.is_empty();
    if tidy { Cow::Borrowed(text) } else { Cow::Owned(text.split_whitespace().collect::<Vec<_>>().join(" ")) }
}

/// Like [`collapse`], cut to at most `max` characters with an ellipsis.
pub(crate) fn collapse_to(text: &str, max: usize) -> String {
    let collapsed = collapse(text);
    match collapsed.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &collapsed[..at]),
        None => collapsed,
    }
}

/// A type or base name as written, without type arguments or a constructor
/// call: `Repository<User>` → `Repository`, `Base()` → `Base`.
pub(crate) fn bare_type(text: &str) -> String {
    let cut = text.find(['<', '[', '(']).map_or(text, |at| &text[..at]);
    cut.trim().trim_start_matches(['&', '*']).trim_start_matches("mut ").trim().to_owned()
}

/// A string literal's content: quotes (and Python/Rust prefixes) removed.
pub(crate) fn unquote(text: &str) -> String {
    let text = text.trim();
    // String prefixes (`r"..."`, `b'...'`, `f"..."`) only count before a quote.
    let after_prefix = text.trim_start_matches(['r', 'b', 'u', 'f', 'R', 'B', 'U', 'F']);
    let trimmed = if after_prefix.starts_with(['"', '\'']) { after_prefix } else { text };
    for quote in ["\"\"\"", "'''", "\"", "'", "`", "<"] {
        let close = if quote == "<" { ">" } else { quote };
        if let Some(inner) = trimmed.strip_prefix(quote).and_then(|t| t.strip_suffix(close)) {
            return inner.to_owned();
        }
    }
    trimmed.to_owned()
}

/// A decorator's name and arguments: `@functools.lru_cache(maxsize=2)` →
/// (`functools.lru_cache`, `(maxsize=2)`); `#[derive(Debug)]` → (`derive`, `(Debug)`).
pub(crate) fn split_decorator(text: &str) -> (String, Option<String>) {
    let inner = text.trim();
    let inner = inner.strip_prefix("#!").or_else(|| inner.strip_prefix('#')).unwrap_or(inner);
    let inner = inner.trim_start_matches(['@', '[']).trim_end_matches(']').trim();
    match inner.find('(') {
        Some(at) => (collapse(&inner[..at]), Some(collapse(&inner[at..]))),
        None => (collapse(inner), None),
    }
}

/// Whether a node kind is a comment, in any grammar: the rule that both
/// leaves comments out of argument and parameter lists and generates the
/// pattern that finds where comments are ([`crate::metrics::patterns`]).
pub(crate) fn is_comment(kind: &str) -> bool {
    kind.contains("comment")
}

/// Documentation comment text without its comment markers.
pub(crate) fn comment_body(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let line = line.trim();
            let line = line.trim_start_matches("/**").trim_start_matches("/*!").trim_start_matches("/*");
            let line = line.trim_end_matches("*/");
            let line = line.trim_start_matches("///").trim_start_matches("//!").trim_start_matches("//");
            let line = line.trim_start_matches('*').trim_start_matches('#');
            line.trim().to_owned()
        })
        .collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collapsed_borrows_only_what_is_already_collapsed() {
        for text in ["", "self", "a b", "self.items[0]", "x  y", " a", "a ", "a\tb", "a\n  .b()", "\u{a0}x", "  "] {
            let expected = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let got = collapsed(text);
            assert_eq!(got, expected, "{text:?}");
            assert_eq!(matches!(got, Cow::Borrowed(_)), text == expected, "{text:?} borrowed");
        }
    }

    #[test]
    fn helpers_strip_syntax_and_keep_meaning() {
        assert_eq!(collapse("def  add(self,\n    x)"), "def add(self, x)");
        assert_eq!(collapse_to("abcdef", 3), "abc…");
        assert_eq!(bare_type("Repository<User, Long>"), "Repository");
        assert_eq!(bare_type("Base()"), "Base");
        assert_eq!(bare_type("&mut Foo"), "Foo");
        assert_eq!(unquote("'./x.js'"), "./x.js");
        assert_eq!(unquote("\"\"\"Doc.\"\"\""), "Doc.");
        assert_eq!(unquote("<stdio.h>"), "stdio.h");
        assert_eq!(unquote("functools"), "functools", "a bare word keeps its letters");
        assert_eq!(unquote("rb'raw'"), "raw");
        assert_eq!(
            split_decorator("@functools.lru_cache(maxsize=2)"),
            ("functools.lru_cache".into(), Some("(maxsize=2)".into()))
        );
        assert_eq!(split_decorator("#[derive(Debug, Clone)]"), ("derive".into(), Some("(Debug, Clone)".into())));
        assert_eq!(split_decorator("[HttpGet]"), ("HttpGet".into(), None));
        assert_eq!(comment_body("/**\n * Adds.\n * Twice.\n */"), "Adds.\nTwice.");
        assert_eq!(comment_body("/// Adds one."), "Adds one.");
    }
}
