//! Macros invoked alone on their line, where a declaration or a statement
//! ends or begins: `NLOHMANN_JSON_NAMESPACE_BEGIN`, `FMT_BEGIN_NAMESPACE`,
//! `Q_OBJECT`, `DOCTEST_MSVC_SUPPRESS_WARNING_POP`. A preprocessor expands
//! them to a namespace's braces, a class's boilerplate or nothing; with no
//! preprocessor tree-sitter reads a stray word before the next declaration,
//! and its error recovery drops that declaration (`template <…> struct
//! json_sax` after the namespace macro) or more. No C or C++ declaration is
//! one word alone, so a word spelt as a macro (capitals, digits and
//! underscores, with an underscore) that stands alone on its line, after a
//! line that ended a declaration, a statement or a block (`;`, `{`, `}`) or
//! a directive, is blanked. An enumerator alone on its line follows a `,`
//! or its enum's `{` and is followed by `,`, `=` or `}`: it is kept.
//!
//! Blanking replaces the word's bytes with spaces: every offset and line of
//! the file is unchanged.

/// `text` with each lone macro blanked; `None` where there is none.
pub(crate) fn blank(text: &str) -> Option<String> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .collect();
    let mut out: Option<Vec<u8>> = None;
    let mut in_comment = false;
    let mut continued = false;
    // How the last line of code ended: `;`, `{`, `}` or a directive.
    let mut after_end = true;
    for (i, &(start, line)) in lines.iter().enumerate() {
        let code = code_of(line, &mut in_comment);
        let trimmed = code.trim();
        let directive = continued || trimmed.starts_with('#');
        continued = directive && line.trim_end_matches(['\n', '\r']).ends_with('\\');
        if trimmed.is_empty() {
            continue;
        }
        if directive {
            after_end = true;
            continue;
        }
        if after_end && spelt_as_macro(trimmed) && !continues(&lines[i + 1..]) {
            let from = start + line.find(trimmed).expect("the word is on its line");
            let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
            bytes[from..from + trimmed.len()].fill(b' ');
            continue;
        }
        after_end = trimmed.ends_with([';', '{', '}']);
    }
    out.map(|bytes| String::from_utf8(bytes).expect("only ASCII blanked"))
}

/// The line without its comments, carrying a block comment across lines.
fn code_of(line: &str, in_comment: &mut bool) -> String {
    let mut code = String::new();
    let mut rest = line;
    loop {
        if *in_comment {
            match rest.find("*/") {
                Some(end) => {
                    *in_comment = false;
                    rest = &rest[end + 2..];
                }
                None => return code,
            }
        }
        let line_comment = rest.find("//");
        let block = rest.find("/*");
        match (line_comment, block) {
            (Some(l), b) if b.is_none_or(|b| l < b) => {
                code.push_str(&rest[..l]);
                return code;
            }
            (_, Some(b)) => {
                code.push_str(&rest[..b]);
                code.push(' ');
                *in_comment = true;
                rest = &rest[b + 2..];
            }
            _ => {
                code.push_str(rest);
                return code;
            }
        }
    }
}

/// Capitals, digits and underscores, with an underscore, starting with a
/// capital: `NLOHMANN_JSON_NAMESPACE_BEGIN`, `Q_OBJECT`.
fn spelt_as_macro(word: &str) -> bool {
    word.len() >= 3
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.contains('_')
        && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// Whether the next line of code carries on an expression, an initialiser or
/// a list the word is part of (`,`, `=`, `(`, `}`, `.`, `->`, `::`, `;`).
fn continues(rest: &[(usize, &str)]) -> bool {
    let mut in_comment = false;
    for &(_, line) in rest {
        let code = code_of(line, &mut in_comment);
        let next = code.trim_start();
        if next.is_empty() {
            continue;
        }
        return [",", "=", "(", "}", ".", "->", "::", ";", "[", "<", ":", "?", "+", "-", "*", "&", "|"]
            .iter()
            .any(|p| next.starts_with(p));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_macro_alone_on_its_line_is_blanked_in_place() {
        let text = "#include <x>\nNLOHMANN_JSON_NAMESPACE_BEGIN\n\n/// docs\ntemplate<typename T>\nstruct json_sax {};\nNLOHMANN_JSON_NAMESPACE_END  // done\n";
        let read = blank(text).expect("two macros");
        assert_eq!(read.len(), text.len());
        let spaces = |word: &str| " ".repeat(word.len());
        let expected = text
            .replace("NLOHMANN_JSON_NAMESPACE_BEGIN", &spaces("NLOHMANN_JSON_NAMESPACE_BEGIN"))
            .replace("NLOHMANN_JSON_NAMESPACE_END", &spaces("NLOHMANN_JSON_NAMESPACE_END"));
        assert_eq!(read, expected);
        let text = "class Widget : public QObject {\n    Q_OBJECT\npublic:\n    void show();\n};\n";
        assert_eq!(blank(text).unwrap(), text.replace("Q_OBJECT", "        "));
    }

    #[test]
    fn enumerators_expressions_and_comments_are_left_alone() {
        for text in [
            "enum color {\n    COLOR_RED,\n    COLOR_BLUE\n};\n",
            "enum { FIRST_ONE,\n  LAST_ONE\n};\n",
            "int x = 1;\nMAX_VALUE\n  + 1;\n",
            "/* a comment\nNOT_CODE\n*/\nint y;\n",
            "#define WRAP \\\n  INNER_MACRO\nint z;\n",
            "int f(void)\n{\n    return\n        SOME_CONST;\n}\n",
            "x = f(a,\nLAST_ARG);\n",
        ] {
            assert_eq!(blank(text), None, "{text}");
        }
    }
}
