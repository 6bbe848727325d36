//! The identifier under a position in a file, for go-to-definition.
//!
//! Positions come from a code view in the browser, so the column counts
//! UTF-16 code units. The file is parsed again (a few milliseconds) so that
//! a word in a comment or a string is not taken for a name.

use fathom_model::Language;
use serde::Serialize;
use tree_sitter::Parser;

/// An identifier, where it is written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IdentifierAt {
    /// The name, without a sigil (`$x`, `@x` → `x`).
    pub name: String,
    /// 1-based.
    pub line: u32,
    /// UTF-16 columns, 0-based and half-open.
    pub start_column: u32,
    pub end_column: u32,
    /// UTF-8 byte offsets in the file.
    pub start_byte: usize,
    pub end_byte: usize,
}

/// Node kinds whose text is never a name, even when it is word-shaped.
const NOT_NAMES: [&str; 8] = ["comment", "string", "content", "fragment", "literal", "escape", "heredoc", "regex"];

/// The identifier at `line` (1-based) and `column` (UTF-16, 0-based) of
/// `text`, if there is one. A position just after a name (a cursor at its
/// end) counts as on it. Keywords, comments, strings and numbers are not
/// identifiers.
pub fn identifier_at(language: Language, text: &str, line: u32, column: u32) -> Option<IdentifierAt> {
    // A test script or case file has no grammar to tell names from text.
    if language == Language::Text {
        return None;
    }
    let mut at = byte_offset(text, line, column)?;
    let word = |c: char| c.is_alphanumeric() || c == '_';
    if !text[at..].chars().next().is_some_and(|c| word(c) || c == '#') {
        // The cursor sits right after a name.
        at = text[..at].char_indices().next_back().filter(|&(_, c)| word(c))?.0;
    }
    let mut parser = Parser::new();
    parser.set_language(&(crate::lang::profile(language).grammar)()?).ok()?;
    let tree = parser.parse(text, None)?;
    let node = tree.root_node().descendant_for_byte_range(at, at + 1)?;
    if !node.is_named() || node.child_count() > 0 || NOT_NAMES.iter().any(|k| node.kind().contains(k)) {
        return None;
    }
    let written = node.utf8_text(text.as_bytes()).ok()?;
    // A JavaScript `#private` name keeps its `#`: definitions are named so.
    let private = node.kind() == "private_property_identifier";
    let name = if private { written } else { written.trim_start_matches(['$', '@', ':']) };
    let mut chars = name.strip_prefix('#').filter(|_| private).unwrap_or(name).chars();
    if !chars.next().is_some_and(|c| c.is_alphabetic() || c == '_') || !chars.all(word) {
        return None;
    }
    let (start_byte, end_byte) = (node.end_byte() - name.len(), node.end_byte());
    let line_start = text[..start_byte].rfind('\n').map_or(0, |i| i + 1);
    let start_column = utf16_len(&text[line_start..start_byte]);
    Some(IdentifierAt {
        name: name.to_owned(),
        line: node.start_position().row as u32 + 1,
        start_column,
        end_column: start_column + utf16_len(name),
        start_byte,
        end_byte,
    })
}

/// The byte offset of a 1-based line and a UTF-16 column; `None` past the
/// end of the text. A column past the end of its line is the line's end,
/// and one inside a surrogate pair is its character's start.
pub fn byte_offset(text: &str, line: u32, column: u32) -> Option<usize> {
    let start =
        if line <= 1 { (line == 1).then_some(0)? } else { text.match_indices('\n').nth(line as usize - 2)?.0 + 1 };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0;
    for (at, c) in text[start..end].char_indices() {
        units += c.len_utf16() as u32;
        if units > column {
            return Some(start + at);
        }
    }
    Some(end)
}

/// How many UTF-16 code units `text` is.
pub fn utf16_len(text: &str) -> u32 {
    text.chars().map(|c| c.len_utf16() as u32).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_name_under_a_utf16_position() {
        let text = "s = 'é🦀'; total = add(1)  # add here\n";
        // `add` starts at byte 22 but at UTF-16 column 19.
        let found = identifier_at(Language::Python, text, 1, 20).unwrap();
        assert_eq!((found.name.as_str(), found.start_column, found.end_column), ("add", 19, 22));
        assert_eq!(&text[found.start_byte..found.end_byte], "add");
        assert_eq!(identifier_at(Language::Python, text, 1, 22).unwrap().name, "add", "just after the name");
        assert_eq!(identifier_at(Language::Python, text, 1, 34), None, "a word in a comment");
        assert_eq!(identifier_at(Language::Python, text, 1, 5), None, "a string");
        assert_eq!(identifier_at(Language::Python, text, 1, 23), None, "a number");
        assert_eq!(identifier_at(Language::Python, text, 9, 0), None, "past the end");
    }

    #[test]
    fn keywords_are_not_names_and_sigils_are_dropped() {
        assert_eq!(identifier_at(Language::Python, "def f(): pass\n", 1, 1), None);
        let php = "<?php\n$total = 1;\n";
        let found = identifier_at(Language::Php, php, 2, 2).unwrap();
        assert_eq!((found.name.as_str(), found.start_column), ("total", 1));
    }

    #[test]
    fn private_names_keep_their_hash() {
        let ts = "class A {\n  #run(): void {}\n  go(): void { this.#run(); }\n}\n";
        for column in [20, 21, 24] {
            let found = identifier_at(Language::TypeScript, ts, 3, column).unwrap();
            assert_eq!(
                (found.name.as_str(), found.start_column, found.end_column),
                ("#run", 20, 24),
                "column {column}"
            );
        }
    }

    #[test]
    fn byte_offsets_clamp_to_the_line() {
        let text = "ab\n🦀x\n";
        assert_eq!(byte_offset(text, 1, 1), Some(1));
        assert_eq!(byte_offset(text, 1, 9), Some(2));
        assert_eq!(byte_offset(text, 2, 2), Some(7));
        assert_eq!(byte_offset(text, 2, 1), Some(3), "inside the surrogate pair");
        assert_eq!(byte_offset(text, 3, 0), Some(9));
        assert_eq!(byte_offset(text, 4, 0), None);
        assert_eq!(byte_offset(text, 0, 0), None);
    }
}
