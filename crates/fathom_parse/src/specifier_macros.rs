//! Macros that stand for a specifier or an attribute inside a declaration:
//! `SPDLOG_INLINE` (`inline`), `FMT_CONSTEXPR` (`constexpr`),
//! `SPDLOG_NOEXCEPT` (`noexcept`), `DOCTEST_INTERFACE` (an export
//! attribute), `JSON_HEDLEY_CONST`. A preprocessor expands them to a keyword,
//! an attribute or nothing; tree-sitter reads an unknown word as the type,
//! and the real type and name after it as an error: `SPDLOG_INLINE
//! spdlog::logger *default_logger_raw()` is no function, and
//! `SPDLOG_INLINE logger::logger(…)` no constructor.
//!
//! Where only declarations stand (`line_macros::declaration_lines`), a run
//! of words spelt as macros, not invoked with arguments, is told by its
//! place, as ctags tells it:
//! - before a keyword no type is followed by (`int`, `static`, `inline`,
//!   `virtual`, …): `SPDLOG_INLINE int remove(…)`;
//! - before a declaration that has its type and its name without it: a
//!   type before it (`void SPDLOG_INLINE pool::post(…)`) or two names after
//!   it (`SPDLOG_INLINE std::tm localtime(…)`, `EXPORT const char *name(…)`);
//! - before a constructor or a destructor (`SPDLOG_INLINE logger::logger(…)`);
//! - after a parameter list, before its body, `;`, `=`, `:` or `->`
//!   (`… const SPDLOG_NOEXCEPT {`).
//!
//! Otherwise the word may be the type (`SIZE_T count(void);`, `LARGE_INTEGER
//! freq;`, `HANDLE_T const h;`) and is kept; of two or more such words
//! before one name, the last is kept as the type. Blanking replaces the
//! words with spaces: every offset and line of the file is unchanged.

use crate::line_macros::{declaration_lines, lines_of, spelt_as_macro};
use crate::macro_tests::is_ident;

/// Keywords that name a type, and count as one.
const PRIMITIVE: &[&str] = &[
    "void", "bool", "char", "wchar_t", "char8_t", "char16_t", "char32_t", "short", "int", "long", "float", "double",
    "signed", "unsigned", "auto",
];

/// Keywords that specify a declaration and name no type.
const SPECIFIERS: &[&str] = &[
    "constexpr",
    "consteval",
    "constinit",
    "static",
    "inline",
    "virtual",
    "explicit",
    "extern",
    "friend",
    "typename",
    "thread_local",
    "mutable",
    "template",
    "struct",
    "class",
    "union",
    "enum",
    "typedef",
    "using",
    "register",
    "__inline",
    "__forceinline",
];

/// Whether no type is followed by `word`, a primitive type or a specifier:
/// a word before one is itself a specifier.
fn after_specifier(word: &str) -> bool {
    PRIMITIVE.contains(&word) || SPECIFIERS.contains(&word)
}

/// Keywords that neither name nor end a declaration's type: skipped over.
const QUALIFIERS: &[&str] = &["const", "volatile"];

/// Keywords after a parameter list, before its body.
const TRAILING: &[&str] = &["const", "volatile", "noexcept", "override", "final"];

/// Words whose parentheses are no parameter list.
const NOT_DECLARATORS: &[&str] =
    &["__attribute__", "__declspec", "alignas", "alignof", "decltype", "sizeof", "noexcept", "typeof", "__typeof__"];

#[derive(Debug, PartialEq)]
enum Token {
    /// A name, qualified or with template arguments (`spdlog::logger`,
    /// `base_sink<Mutex>::base_sink`, `operator=`), or a keyword.
    Name { start: usize, end: usize },
    /// Parentheses and what they hold, to the end of the line where they do
    /// not close on it.
    Group,
    /// Any other character, `&&`, `->` and `::` as one.
    Punct(&'static str),
}

/// `text` with each specifier macro blanked; `None` where there is none.
pub(crate) fn blank(text: &str) -> Option<String> {
    let lines = lines_of(text);
    let declarations = declaration_lines(text, &lines);
    let mut out: Option<Vec<u8>> = None;
    let mut in_comment = false;
    let mut continued = false;
    for (i, &(start, line)) in lines.iter().enumerate() {
        let directive = continued || (!in_comment && line.trim_start().starts_with('#'));
        continued = directive && line.trim_end_matches(['\n', '\r']).ends_with('\\');
        let tokens = tokens(line, &mut in_comment);
        if directive || !declarations[i] {
            continue;
        }
        for (from, to) in specifiers(line, &tokens) {
            let bytes = out.get_or_insert_with(|| text.as_bytes().to_vec());
            bytes[start + from..start + to].fill(b' ');
        }
    }
    out.map(|bytes| String::from_utf8(bytes).expect("only ASCII blanked"))
}

/// The spans, in `line`, of the words that stand for specifiers.
fn specifiers(line: &str, tokens: &[Token]) -> Vec<(usize, usize)> {
    let word = |t: Option<&Token>| match t {
        Some(Token::Name { start, end }) => Some(&line[*start..*end]),
        _ => None,
    };
    let is_macro = |at: usize| {
        word(tokens.get(at)).is_some_and(|w| spelt_as_macro(w) && w.bytes().all(is_ident))
            && tokens.get(at + 1) != Some(&Token::Group)
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        if !is_macro(at) {
            at += 1;
            continue;
        }
        let run_start = at;
        while at < tokens.len() && is_macro(at) {
            at += 1;
        }
        let run = run_start..at;
        let span = |r: std::ops::Range<usize>| {
            r.filter_map(|t| match tokens[t] {
                Token::Name { start, end } => Some((start, end)),
                _ => None,
            })
        };
        let prev = run_start.checked_sub(1).map(|p| &tokens[p]);
        let prev_word = word(prev);
        // `struct FOO_T`, `ns::FOO_T`, `Base<FOO_T>`: a type's name.
        if prev_word.is_some_and(|w| matches!(w, "struct" | "class" | "union" | "enum"))
            || matches!(prev, Some(Token::Punct("::" | "<" | ",")))
        {
            continue;
        }
        let next = tokens.get(run.end);
        let next_word = word(next);
        if next_word.is_some_and(after_specifier) || after_parameters(line, tokens, run_start) {
            out.extend(span(run));
            continue;
        }
        // The names after the run, up to the parameters or the end of the
        // declarator.
        let mut names = Vec::new();
        let mut stop = None;
        for token in &tokens[run.end..] {
            match token {
                Token::Name { start, end } if !QUALIFIERS.contains(&&line[*start..*end]) => {
                    names.push(&line[*start..*end])
                }
                Token::Name { .. } | Token::Punct("*" | "&" | "&&") => {}
                other => {
                    stop = Some(other);
                    break;
                }
            }
        }
        let ends = matches!(stop, Some(Token::Group | Token::Punct(";" | "=" | "{" | "[" | ",")));
        let typed_before = prev_word.is_some_and(|w| !SPECIFIERS.contains(&w) && !QUALIFIERS.contains(&w))
            || matches!(prev, Some(Token::Punct("*" | "&" | "&&" | ">")));
        if !ends || names.is_empty() {
            continue;
        }
        if usize::from(typed_before) + names.len() >= 2 || names.len() == 1 && constructs(names[0]) {
            out.extend(span(run));
        } else if run.len() >= 2 {
            out.extend(span(run.start..run.end - 1));
        }
    }
    out
}

/// Whether the run starting at `run` follows a parameter list (`… const`,
/// `… noexcept`, `&`): the parentheses of a declarator, not of an
/// attribute, a `decltype` or a macro's invocation.
fn after_parameters(line: &str, tokens: &[Token], run: usize) -> bool {
    let mut at = run;
    while at > 0 {
        at -= 1;
        match &tokens[at] {
            Token::Name { start, end } if TRAILING.contains(&&line[*start..*end]) => {}
            Token::Punct("&" | "&&") => {}
            Token::Group => {
                return at > 0
                    && matches!(&tokens[at - 1], Token::Name { start, end }
                        if !NOT_DECLARATORS.contains(&&line[*start..*end]) && !spelt_as_macro(&line[*start..*end]));
            }
            _ => return false,
        }
    }
    false
}

/// `logger::logger`, `base_sink<Mutex>::base_sink`, `pool::~pool`: a
/// constructor or a destructor, defined outside its class.
fn constructs(name: &str) -> bool {
    let mut parts = name.rsplit("::");
    let (Some(last), Some(owner)) = (parts.next(), parts.next()) else { return false };
    let owner = owner.split('<').next().unwrap_or(owner).trim();
    last.trim().trim_start_matches('~') == owner
}

/// The tokens of one line, comments and literals passed over; a block
/// comment is carried to the next line by `in_comment`.
fn tokens(line: &str, in_comment: &mut bool) -> Vec<Token> {
    let s = line.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < s.len() {
        if *in_comment {
            match line[at..].find("*/") {
                Some(end) => {
                    *in_comment = false;
                    at += end + 2;
                }
                None => break,
            }
            continue;
        }
        let b = s[at];
        if b == b'/' && s.get(at + 1) == Some(&b'/') {
            break;
        }
        if b == b'/' && s.get(at + 1) == Some(&b'*') {
            *in_comment = true;
            at += 2;
            continue;
        }
        if b.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        if b == b'"' || b == b'\'' {
            // A literal ends what this pass reads of the line.
            out.push(Token::Punct("\""));
            break;
        }
        if b == b'(' {
            out.push(Token::Group);
            let mut depth = 0usize;
            while at < s.len() {
                match s[at] {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            at += 1;
            continue;
        }
        if is_ident(b) || b == b'~' && s.get(at + 1).is_some_and(|&c| is_ident(c)) {
            let start = at;
            at = past_name(s, at);
            out.push(Token::Name { start, end: at });
            continue;
        }
        let two = &line[at..(at + 2).min(s.len())];
        let punct = match two {
            "&&" => Some("&&"),
            "->" => Some("->"),
            "::" => Some("::"),
            _ => None,
        };
        if let Some(p) = punct {
            out.push(Token::Punct(p));
            at += 2;
            continue;
        }
        out.push(Token::Punct(match b {
            b'*' => "*",
            b'&' => "&",
            b'<' => "<",
            b'>' => ">",
            b',' => ",",
            b';' => ";",
            b'=' => "=",
            b'{' => "{",
            b'}' => "}",
            b'[' => "[",
            b':' => ":",
            _ => "?",
        }));
        at += 1;
    }
    out
}

/// Past a name that starts at `at`: identifiers joined by `::`, a
/// destructor's `~`, template arguments that close on the line, and an
/// operator's symbol (`operator=`, `operator()`, `operator<<`).
fn past_name(s: &[u8], mut at: usize) -> usize {
    loop {
        if s.get(at) == Some(&b'~') {
            at += 1;
        }
        let start = at;
        while at < s.len() && is_ident(s[at]) {
            at += 1;
        }
        if &s[start..at] == b"operator" {
            if s[at..].starts_with(b"()") {
                return at + 2;
            }
            while at < s.len() && b"=<>!+-*/%^&|~[]".contains(&s[at]) {
                at += 1;
            }
            return at;
        }
        // Template arguments: `template <…>` with its space too.
        let mut look = at;
        if &s[start..at] == b"template" {
            while s.get(look) == Some(&b' ') {
                look += 1;
            }
        }
        if s.get(look) == Some(&b'<')
            && let Some(close) = closing_angle(s, look)
        {
            at = close;
        }
        if s[at..].starts_with(b"::") && s.get(at + 2).is_some_and(|&c| is_ident(c) || c == b'~') {
            at += 2;
            continue;
        }
        return at;
    }
}

/// How far template arguments are looked for: a bound keeps a line of
/// unclosed `<` linear.
const MAX_ANGLE: usize = 512;

/// Past the `>` that closes the `<` at `at`, on this line, before any `;`,
/// `{`, `}` or `=`.
fn closing_angle(s: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in s.iter().enumerate().skip(at).take(MAX_ANGLE) {
        match b {
            b'<' => depth += 1,
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b';' | b'{' | b'}' | b'=' | b'"' => return None,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked(text: &str) -> String {
        blank(text).unwrap_or_else(|| text.to_owned())
    }

    #[test]
    fn a_specifier_macro_is_blanked_where_it_stands_for_a_keyword() {
        for (text, gone, kept) in [
            ("SPDLOG_INLINE int remove(const char *f) SPDLOG_NOEXCEPT {\n}\n", &["SPDLOG_"][..], "int remove("),
            ("SPDLOG_INLINE spdlog::logger *default_logger_raw() {\n}\n", &["SPDLOG_INLINE"], "spdlog::logger *"),
            ("SPDLOG_INLINE std::tm localtime() {\n}\n", &["SPDLOG_INLINE"], "std::tm localtime"),
            ("SPDLOG_INLINE logger::logger(const logger &other)\n{\n}\n", &["SPDLOG_INLINE"], "logger::logger("),
            ("SPDLOG_INLINE base_sink<Mutex>::~base_sink() {}\n", &["SPDLOG_INLINE"], "base_sink<Mutex>::~base_sink"),
            ("void SPDLOG_INLINE thread_pool::post_log(int x) {\n}\n", &["SPDLOG_INLINE"], "void "),
            ("std::future<void> SPDLOG_INLINE pool::flush(int x) {\n}\n", &["SPDLOG_INLINE"], "std::future<void>"),
            ("DOCTEST_INTERFACE const char* assertString(int at);\n", &["DOCTEST_INTERFACE"], "const char* assert"),
            ("DOCTEST_INTERFACE extern bool is_running;\n", &["DOCTEST_INTERFACE"], "extern bool"),
            (
                "class A {\n    FMT_CONSTEXPR FMT_INLINE A(int x) {}\n    bool empty() const JSON_NOEXCEPT;\n};\n",
                &["FMT_CONSTEXPR", "JSON_NOEXCEPT"],
                "FMT_INLINE A(",
            ),
            ("template <typename T>\nSPDLOG_INLINE void sink<T>::log(T x) {}\n", &["SPDLOG_INLINE"], "void sink"),
        ] {
            let read = blanked(text);
            assert_eq!(read.len(), text.len());
            for word in gone {
                assert!(!read.contains(word), "{word} in {read:?}");
            }
            assert!(read.contains(kept), "{kept:?} in {read:?}");
        }
    }

    #[test]
    fn a_macro_spelt_type_a_statement_and_an_invocation_are_kept() {
        for text in [
            // The word is the type.
            "SIZE_T count(void);\n",
            "LARGE_INTEGER freq;\n",
            "static HANDLE_T const h = 0;\n",
            "const FOO_T make(void);\n",
            "struct FILE_HEADER header;\n",
            "std::vector<ITEM_T> items;\n",
            // In a function's body: statements.
            "void f() {\n    CHECK_THAT x;\n    LOG_ERROR int y;\n}\n",
            // An invocation, its arguments, a macro after one.
            "JSON_HEDLEY_NON_NULL(2) int parse(const char *s);\n",
            "__attribute__((packed)) PACKED_T value;\n",
            "int x = MAX_SIZE;\n",
            "enum { FIRST_ONE, LAST_ONE };\n",
        ] {
            assert_eq!(blank(text), None, "{text}");
        }
    }
}
