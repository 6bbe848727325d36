//! Classes whose name follows an export or attribute macro:
//! `class DOCTEST_INTERFACE String {`, `struct FMT_API format_error :
//! std::runtime_error {`, `class Q_CORE_EXPORT QObject`, `struct ALIGNED(16)
//! block {`. tree-sitter reads the macro as the class's name and the real
//! name as a stray word, and error recovery often drops the class and the
//! declarations around it. A preprocessor would expand the macro to an
//! attribute or to nothing; with no preprocessor, and the macro's `#define`
//! often in another file or under a platform's `#ifdef`, the macro is told
//! by its place, as ctags tells it: between `class`, `struct` or `union`
//! and the name that a body (`{`), a base list (`:`), `final` or a
//! specialisation's arguments (`<`) follows, only a macro can stand. Only
//! names spelt as macros are (capitals, digits and underscores, or a
//! compiler's `__` prefix): `struct timeval tv{};` is a variable.
//!
//! So is `extern` before an explicit instantiation (`extern template struct
//! IsNaN<float>;`), a form the grammar lacks, whose error likewise spreads.
//!
//! The macro and its arguments are blanked, byte for byte, so that every
//! offset and line of the file is unchanged.

use crate::macro_tests::{is_ident, past_literal, skip_trivia};

/// `text` with each class's macros blanked; `None` where there is none.
pub(crate) fn blank(text: &str) -> Option<String> {
    let s = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while at < s.len() {
        if let Some(past) = past_literal(s, at) {
            at = past.max(at + 1);
            continue;
        }
        if !is_ident(s[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < s.len() && is_ident(s[at]) {
            at += 1;
        }
        if start > 0 && is_ident(s[start - 1]) {
            continue;
        }
        let spans = match &s[start..at] {
            b"class" | b"struct" | b"union" => macros_after(s, at),
            // An explicit instantiation's declaration (`extern template
            // struct IsNaN<float>;`), which tree-sitter's C++ grammar does
            // not know, read as the instantiation it declares.
            b"extern" => s[skip_trivia(s, at)..].starts_with(b"template").then(|| vec![(start, at)]),
            _ => None,
        };
        if let Some(spans) = spans {
            let bytes = out.get_or_insert_with(|| s.to_vec());
            for (from, to) in spans {
                for b in &mut bytes[from..to] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
            }
        }
    }
    out.map(|bytes| String::from_utf8(bytes).expect("only ASCII blanked"))
}

/// The spans of the macros between a class keyword ending at `at` and the
/// class's name, where the words after the keyword are macros and a name.
fn macros_after(s: &[u8], mut at: usize) -> Option<Vec<(usize, usize)>> {
    // Each word after the keyword, with the arguments a macro may take.
    let mut words: Vec<(usize, usize, usize)> = Vec::new(); // start, end of word, end with arguments
    loop {
        at = skip_trivia(s, at);
        let start = at;
        while at < s.len() && is_ident(s[at]) {
            at += 1;
        }
        if start == at || s[start].is_ascii_digit() {
            break;
        }
        let word_end = at;
        let after = skip_trivia(s, at);
        if s.get(after) == Some(&b'(') {
            at = past_balanced(s, after, b'(', b')')?;
        }
        words.push((start, word_end, at));
        if words.len() > 4 {
            return None;
        }
    }
    // A specialisation's or an explicit instantiation's arguments (`extern
    // template struct EXPORT IsNaN<float>;`): no variable is declared so.
    let mut specialised = false;
    if s.get(at) == Some(&b'<') {
        at = skip_trivia(s, past_balanced(s, at, b'<', b'>')?);
        specialised = true;
    }
    let opens = match *s.get(at)? {
        b'{' => true,
        b':' => s.get(at + 1) != Some(&b':'),
        b';' => specialised,
        _ => false,
    };
    // `class EXPORT Name final {`: `final` is no name.
    let named = if words.last().is_some_and(|&(a, b, _)| &s[a..b] == b"final") { words.len() - 1 } else { words.len() };
    if !opens || named < 2 {
        return None;
    }
    let (macros, name) = (&words[..named - 1], words[named - 1]);
    // The name takes no arguments, and every macro is spelt as one.
    if name.2 != name.1 || !macros.iter().all(|&(a, b, _)| spelt_as_attribute(&s[a..b])) {
        return None;
    }
    Some(macros.iter().map(|&(a, _, end)| (a, end)).collect())
}

/// Capitals, digits and underscores with a capital among them
/// (`DOCTEST_INTERFACE`, `Q_CORE_EXPORT`, `EXPORT`), or a compiler's `__`
/// prefix: wider than `line_macros::spelt_as_macro`, which needs an
/// underscore, as only an attribute can stand between `class` and a name.
fn spelt_as_attribute(word: &[u8]) -> bool {
    word.starts_with(b"__")
        || (word.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
            && word.iter().any(u8::is_ascii_uppercase))
}

/// Past the bracket that closes the `open` at `at` (`<…>`, `(…)`), nested
/// ones included; `None` where it does not close before a `;`, `{` or `}`.
fn past_balanced(s: &[u8], mut at: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    while at < s.len() {
        if let Some(past) = past_literal(s, at) {
            at = past.max(at + 1);
            continue;
        }
        match s[at] {
            b if b == open => depth += 1,
            b if b == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_macro_before_a_class_name_is_blanked_in_place() {
        let text = "class DOCTEST_INTERFACE String {\n};\nstruct FMT_API format_error : std::runtime_error {};\n";
        let read = blank(text).expect("two macros");
        assert_eq!(read.len(), text.len());
        assert_eq!(
            read,
            "class                   String {\n};\nstruct         format_error : std::runtime_error {};\n"
        );
        // With arguments, several, before `final` or a specialisation.
        let text = "struct ALIGNED(16) LIB_API block final {};\ntemplate <> struct EXPORT hash<json> {};\n";
        assert_eq!(
            blank(text).unwrap(),
            "struct                     block final {};\ntemplate <> struct        hash<json> {};\n"
        );
        let text = "extern template struct LIB_DECL IsNaN<float>;\n";
        assert_eq!(blank(text).unwrap(), "       template struct          IsNaN<float>;\n");
    }

    #[test]
    fn variables_names_and_text_are_left_alone() {
        for text in [
            "struct timeval tv{};\n",
            "struct stat st;\nclass Foo : public Bar {};\nclass ns::Outer::Inner {};\n",
            "struct sigaction old[2]{};\n",
            "// class API_EXPORT Widget {\nconst char *s = \"struct EXPORT x {\";\n",
            "enum class Color { red };\nclass X final {};\n",
            "friend class MACRO;\nclass A::B final : C {};\n",
        ] {
            assert_eq!(blank(text), None, "{text}");
        }
    }
}
