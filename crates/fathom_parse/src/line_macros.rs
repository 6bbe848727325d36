//! Macros invoked alone on their line, where a declaration or a statement
//! ends or begins: `NLOHMANN_JSON_NAMESPACE_BEGIN`, `FMT_BEGIN_NAMESPACE`,
//! `Q_OBJECT`, `DOCTEST_MSVC_SUPPRESS_WARNING_POP`. A preprocessor expands
//! them to a namespace's braces, a class's boilerplate or nothing; with no
//! preprocessor tree-sitter reads a stray word before the next declaration,
//! and its error recovery drops that declaration (`template <…> struct
//! json_sax` after the namespace macro) or more. No C or C++ declaration is
//! one word alone, so a word spelt as a macro (capitals, digits and
//! underscores, with an underscore) that stands alone on its line, after a
//! line that ended a declaration, a statement or a block (`;`, `{`, `}`), a
//! directive or an access label (`public:`), is blanked. An enumerator
//! alone on its line follows a `,` or its enum's `{` and is followed by `,`,
//! `=` or `}`: it is kept.
//!
//! The same holds for a macro invoked with arguments, alone on its lines,
//! where only declarations stand (at file scope, in a namespace, an `extern
//! "C"` block or a class body): `DOCTEST_DEFINE_DECORATOR(skip, bool,
//! true);`, `Q_DECLARE_METATYPE(QList<int>)`, `Q_PROPERTY(int x READ x)`,
//! `NLOHMANN_DEFINE_TYPE_INTRUSIVE(person, name)`. tree-sitter reads such an
//! invocation as a function's declaration, and a type among its arguments
//! (`const char*`) leaves it in recovery for thousands of lines: in
//! doctest's header one invocation swallowed 3,000 lines with 40 classes. In
//! a function's body the same spelling is a statement (`CHECK(a == b);`),
//! whose calls are references, so it is kept; so is one a body follows
//! (`TEST_CASE("x") {`, read by `macro_tests`).
//!
//! Blanking replaces the macro's bytes with spaces, and keeps its newlines:
//! every offset and line of the file is unchanged.

/// `text` with each lone macro blanked; `None` where there is none.
pub(crate) fn blank(text: &str) -> Option<String> {
    let lines = lines_of(text);
    let mut out: Option<Vec<u8>> = None;
    let mut in_comment = false;
    let mut continued = false;
    // How the last line of code ended: `;`, `{`, `}` or a directive.
    let mut after_end = true;
    let declarations = declaration_lines(text, &lines);
    // The end of an invocation blanked across lines.
    let mut blanked_to = 0;
    for (i, &(start, line)) in lines.iter().enumerate() {
        if start < blanked_to {
            continue;
        }
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
        if after_end && spelt_as_macro(trimmed) && !continues(next_code(&lines[i + 1..]).as_deref()) {
            let from = start + line.find(trimmed).expect("the word is on its line");
            let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
            bytes[from..from + trimmed.len()].fill(b' ');
            continue;
        }
        if after_end
            && declarations[i]
            && let Some(from) = line.find(trimmed).map(|at| start + at)
            && let Some(end) = lone_invocation(text, from)
            && let next = next_code(&lines[lines.partition_point(|&(s, _)| s < end)..])
            // Carried on, or followed by a body (`TEST_CASE("x")` then `{`).
            && !continues(next.as_deref())
            && !next.as_deref().is_some_and(|next| next.starts_with('{'))
        {
            let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
            bytes[from..end].iter_mut().filter(|b| **b != b'\n').for_each(|b| *b = b' ');
            blanked_to = end;
            continue;
        }
        after_end = trimmed.ends_with([';', '{', '}']) || access_label(trimmed);
    }
    out.map(|bytes| String::from_utf8(bytes).expect("only ASCII blanked"))
}

/// Each line of `text` with where it starts, its newline kept.
pub(crate) fn lines_of(text: &str) -> Vec<(usize, &str)> {
    text.split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .collect()
}

/// A class's access label (`public:`, `private slots:`), after which a
/// member's declaration starts as after a `;`.
fn access_label(line: &str) -> bool {
    let Some(label) = line.strip_suffix(':').filter(|label| !label.ends_with(':')) else { return false };
    label.split_whitespace().next().is_some_and(|word| matches!(word, "public" | "protected" | "private"))
}

/// How far an invocation may reach: a macro's arguments run to a few
/// lines, and a bound keeps a file of unclosed brackets linear.
const MAX_INVOCATION: usize = 4096;

/// Where the invocation of a macro that starts at `at` ends (past its `;`,
/// if any), when it is one: a word spelt as a macro, its balanced
/// arguments, an optional `;`, and nothing more on its last line but a
/// comment.
fn lone_invocation(text: &str, at: usize) -> Option<usize> {
    let s = text.as_bytes();
    let word = s[at..].iter().take_while(|&&b| crate::macro_tests::is_ident(b)).count();
    if !spelt_as_macro(&text[at..at + word]) {
        return None;
    }
    let open = at + word + s[at + word..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    if s.get(open) != Some(&b'(') {
        return None;
    }
    let within = &s[..s.len().min(open + MAX_INVOCATION)];
    let mut end = crate::macro_tests::past_closing(within, open)?;
    if s.get(end) == Some(&b';') {
        end += 1;
    }
    let rest = text[end..].split('\n').next().unwrap_or("").trim();
    (rest.is_empty() || rest.starts_with("//") || rest.starts_with("/*") && !rest.contains("*/")).then_some(end)
}

/// For each line, whether it starts where only declarations stand: at file
/// scope, or in blocks each of which is a namespace, an `extern "C"` block
/// or a class body ([`holds_declarations`]). Comments, literals and
/// directives are passed over.
pub(crate) fn declaration_lines(text: &str, lines: &[(usize, &str)]) -> Vec<bool> {
    let s = text.as_bytes();
    let mut blocks: Vec<bool> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    // Where the words before the next `{` start.
    let mut head = 0;
    let mut line_start = true;
    let mut at = 0;
    while at < s.len() {
        while out.len() < lines.len() && lines[out.len()].0 <= at {
            out.push(blocks.iter().all(|&d| d));
        }
        if let Some(past) = crate::macro_tests::past_literal(s, at) {
            line_start = s[at] == b'/' && s[at..past].contains(&b'\n');
            at = past.max(at + 1);
            continue;
        }
        match s[at] {
            b'\n' => line_start = true,
            b'#' if line_start => {
                while at < s.len() && !(s[at] == b'\n' && s[at - 1] != b'\\') {
                    at += 1;
                }
                head = at;
                continue;
            }
            b'{' => {
                blocks.push(holds_declarations(&s[head..at]));
                head = at + 1;
            }
            b'}' => {
                blocks.pop();
                head = at + 1;
            }
            b';' => head = at + 1,
            b if b.is_ascii_whitespace() => {}
            _ => line_start = false,
        }
        at += 1;
    }
    let last = blocks.iter().all(|&d| d);
    out.resize(lines.len(), last);
    out
}

/// Whether the block that `head` opens holds declarations only: a
/// namespace, an `extern "C"` block, or a class, struct or union body (its
/// keyword outside brackets, with no `(` or `=` after it, which a function
/// returning a struct or an initialiser has). An `enum`'s body holds
/// enumerators; any other block, statements.
fn holds_declarations(head: &[u8]) -> bool {
    let mut words: Vec<(usize, &[u8])> = Vec::new();
    let mut depth = 0usize;
    let mut at = 0;
    while at < head.len() {
        let b = head[at];
        if let Some(past) = crate::macro_tests::past_literal(head, at) {
            if b != b'/' {
                words.push((depth, b"\""));
            }
            at = past.max(at + 1);
            continue;
        }
        if crate::macro_tests::is_ident(b) {
            let end = at + head[at..].iter().take_while(|&&b| crate::macro_tests::is_ident(b)).count();
            words.push((depth, &head[at..end]));
            at = end;
            continue;
        }
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'=' if depth == 0 => words.push((0, b"=")),
            _ => {}
        }
        if b == b'(' && depth == 1 {
            words.push((0, b"("));
        }
        at += 1;
    }
    let top = |w: &[u8]| words.iter().any(|&(d, x)| d == 0 && x == w);
    if top(b"namespace") || top(b"extern") && words.iter().any(|&(_, x)| x == b"\"") {
        return true;
    }
    if top(b"enum") {
        return false;
    }
    let Some(keyword) = words.iter().rposition(|&(d, x)| d == 0 && matches!(x, b"class" | b"struct" | b"union")) else {
        return false;
    };
    !words[keyword..].iter().any(|&(_, x)| x == b"(" || x == b"=")
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
pub(crate) fn spelt_as_macro(word: &str) -> bool {
    word.len() >= 3
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.contains('_')
        && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The next line of code after a word or an invocation, its comments
/// removed and its indent trimmed; `None` at the end of the file.
fn next_code(rest: &[(usize, &str)]) -> Option<String> {
    let mut in_comment = false;
    rest.iter().map(|&(_, line)| code_of(line, &mut in_comment).trim_start().to_owned()).find(|code| !code.is_empty())
}

/// Whether the next line of code carries on an expression, an initialiser or
/// a list the word is part of (`,`, `=`, `(`, `}`, `.`, `->`, `::`, `;`).
fn continues(next: Option<&str>) -> bool {
    next.is_some_and(|next| {
        [",", "=", "(", "}", ".", "->", "::", ";", "[", "<", ":", "?", "+", "-", "*", "&", "|"]
            .iter()
            .any(|p| next.starts_with(p))
    })
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
    fn an_invocation_where_declarations_stand_is_blanked_with_its_arguments() {
        let text = "namespace doctest {\nDOCTEST_DEFINE_DECORATOR(test_suite, const char*, \"\");\nQ_DECLARE_METATYPE(QList<int>)\n\
                    struct After {};\n}\n";
        let read = blank(text).expect("two invocations");
        assert_eq!(read.len(), text.len());
        assert_eq!(read.lines().filter(|line| line.trim().is_empty()).count(), 2, "{read}");
        assert!(read.contains("struct After {};"));
        // In a class body, across lines, before a declaration it qualifies.
        let text = "class Widget // the widget\n{\n    Q_PROPERTY(int size\n               READ size)\n    \
                    JSON_HEDLEY_NON_NULL(2)\n    int size() const;\n};\n";
        let read = blank(text).expect("two invocations");
        assert_eq!(read.lines().count(), text.lines().count());
        assert!(!read.contains("Q_PROPERTY") && !read.contains("READ") && !read.contains("NON_NULL"), "{read}");
        assert!(read.contains("    int size() const;"));
    }

    #[test]
    fn statements_tests_and_enumerators_invoked_so_are_kept() {
        for text in [
            // A statement in a function's body, also a struct-returning one.
            "void f() {\n    CHECK_EQ(a, b);\n}\n",
            "struct point make(int x) {\n    SET_X(p, x);\n}\n",
            "auto g = [](int x) {\n    LOG_DEBUG(x);\n};\n",
            // A body follows: a test, or a function named in capitals.
            "TEST_CASE(\"parses\")\n{\n    run();\n}\n",
            "TEST(Parser, Empty) {\n}\n",
            // An enumerator generated by a macro, an initialiser's element.
            "enum class Kind {\n    KIND_LIST(X)\n};\n",
            "static const int table[] = {\n    ENTRY_OF(1)\n};\n",
            // Not alone on its line, or continued.
            "namespace a {\nEXPORT_API(int) count();\n}\n",
            "int x = 1;\nMAX_OF(a, b)\n    + 1;\n",
        ] {
            assert_eq!(blank(text), None, "{text}");
        }
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
