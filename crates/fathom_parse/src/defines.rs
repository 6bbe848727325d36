//! What a C or C++ project's own `#define`s say its macros stand for, as
//! far as reading its declarations needs, and each file read with them.
//!
//! tree-sitter has no preprocessor. A macro that stands for a namespace's
//! braces (`NLOHMANN_JSON_NAMESPACE_BEGIN`, defined as `namespace nlohmann {
//! inline namespace … {`), for an attribute (`FMT_API`, defined as
//! `__attribute__((visibility("default")))`) or for nothing is read as a
//! stray word, and what follows it as an error. The heuristic passes
//! (`line_macros`, `class_macros`, `specifier_macros`) blank such words by
//! where they stand and how they are spelt, which keeps the declarations but
//! loses what the macro meant: the namespace. Where the project defines the
//! macro, its definition says:
//! - **nothing a declaration needs**: every definition is empty, or made of
//!   specifiers (`inline`, `constexpr`, `static`, …), attributes
//!   (`__attribute__((…))`, `__declspec(…)`, `[[…]]`, `alignas(…)`),
//!   `noexcept`, `_Pragma(…)`, or macros that are themselves nothing. Each
//!   use is blanked, with its arguments where the macro takes some;
//! - **namespaces opened**: `[inline] namespace NAME {`, one or more. A use
//!   is written over with the named ones (`namespace nlohmann{`), where that
//!   fits in the macro's name and the blanks after it on its line. An
//!   inline namespace, or one whose name is computed by a macro (an ABI
//!   tag), adds nothing to a qualified name and is left out;
//! - **braces closed**: `}` alone, once or more. A use closes the levels the
//!   last openers opened, and writes a `}` for each that was written;
//! - **a keyword**: `JSON_TRY` for `try`, `JSON_CATCH(e)` for `catch(e)`,
//!   `JSON_THROW(e)` for `throw e`, `BOOL` for `int`. A use is written over
//!   with the keyword, its arguments kept. tree-sitter reads `JSON_TRY {`
//!   as an error, and in nlohmann's header one such block in a method ended
//!   `basic_json`'s class 4,000 lines early.
//!
//! A macro with any other definition is left as it is. One defined as
//! nothing in one place and otherwise elsewhere (an empty `LOG(...)` in
//! release, a call in debug) is left too: blanking it would lose its calls.
//! Where a macro is defined in several ways (`try` where exceptions are on,
//! `if (true)` where they are off), the way most files define it is taken,
//! the first seen of equals, where that way is read here. Every byte but those of the
//! macros' uses is kept, with every newline: offsets and lines are the
//! file's own.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::macro_tests::{is_ident, past_literal};
use crate::text::blank_keeping_lines;

/// What a project's macros stand for ([`Defines::read`]); empty for a
/// project that defines none of the kinds read here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Defines {
    macros: BTreeMap<String, Expansion>,
}

/// What one macro stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Expansion {
    /// Nothing a declaration needs; `arguments` where it is invoked with
    /// them (`JSON_HEDLEY_NON_NULL(2)`).
    Nothing { arguments: bool },
    /// Namespaces opened, outermost first: each level's name where it adds
    /// to a qualified name (`nlohmann`, `a::b`), `None` for an inline or a
    /// computed one.
    Opens(Vec<Option<String>>),
    /// This many braces closed.
    Closes(usize),
    /// A keyword, then the use's arguments where it takes some.
    Keyword { word: String, arguments: bool },
}

/// Definitions longer than this are no attribute or namespace: they are not
/// kept while a project is read.
const MAX_BODY: usize = 512;

/// How deep a definition made of other macros is followed.
const MAX_DEPTH: usize = 8;

/// How far a use's arguments may reach, as in `line_macros`.
const MAX_ARGUMENTS: usize = 4096;

/// Keywords that specify a declaration and name nothing: a definition made
/// of them (and attributes) stands for nothing a declaration needs.
const SPECIFIERS: &[&str] = &[
    "inline",
    "static",
    "extern",
    "constexpr",
    "consteval",
    "constinit",
    "virtual",
    "explicit",
    "thread_local",
    "_Thread_local",
    "__thread",
    "__inline",
    "__inline__",
    "__forceinline",
    "noexcept",
    "const",
    "volatile",
    "register",
    "__cdecl",
    "__stdcall",
    "__fastcall",
    "__vectorcall",
    "WINAPI",
];

/// Words whose parenthesised argument is an attribute or a pragma.
const ATTRIBUTES: &[&str] =
    &["__attribute__", "__attribute", "__declspec", "alignas", "_Alignas", "_Pragma", "__pragma", "noexcept", "throw"];

/// One macro's definition as read: its parameters where it takes
/// arguments, its body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Raw {
    parameters: Option<Vec<String>>,
    body: String,
}

impl Defines {
    /// Reads the `#define`s of a project's C and C++ files, `texts`.
    pub fn read<'a>(texts: impl IntoIterator<Item = &'a str>) -> Defines {
        // Each name's definitions, with how many files define it that way,
        // in the order first seen.
        let mut raw: HashMap<String, Vec<(Raw, usize)>> = HashMap::new();
        for text in texts {
            // Each way once per file, in the order written.
            let mut seen = std::collections::HashSet::new();
            let in_file = directives(text).filter_map(definition).filter(|way| seen.insert(way.clone()));
            for (name, definition) in in_file.collect::<Vec<_>>() {
                let ways = raw.entry(name).or_default();
                match ways.iter_mut().find(|(way, _)| *way == definition) {
                    Some((_, files)) => *files += 1,
                    None => ways.push((definition, 1)),
                }
            }
        }
        if raw.is_empty() {
            return Defines::default();
        }
        let mut macros = BTreeMap::new();
        let mut reserved = crate::lang::reserved_words(fathom_model::Language::Cpp);
        reserved.extend(crate::lang::reserved_words(fathom_model::Language::C));
        let mut resolving = Resolver { raw: &raw, reserved, memo: HashMap::new() };
        let mut names: Vec<&String> = raw.keys().collect();
        names.sort_unstable();
        for name in names {
            if let Some(expansion) = resolving.expansion(name, 0) {
                macros.insert(name.clone(), expansion);
            }
        }
        Defines { macros }
    }

    pub fn is_empty(&self) -> bool {
        self.macros.is_empty()
    }

    /// `text` with each use of a macro read here written as what it stands
    /// for; `None` where there is none.
    pub(crate) fn expand(&self, text: &str) -> Option<String> {
        if self.macros.is_empty() {
            return None;
        }
        let s = text.as_bytes();
        let mut out: Option<Vec<u8>> = None;
        // The levels the openers used so far opened, innermost last: whether
        // each was written.
        let mut levels: Vec<bool> = Vec::new();
        let mut line_start = true;
        let mut at = 0;
        while at < s.len() {
            if let Some(past) = past_literal(s, at) {
                line_start = s[at] == b'/' && s[at..past].contains(&b'\n');
                at = past.max(at + 1);
                continue;
            }
            let b = s[at];
            if b == b'#' && line_start {
                at = past_directive(s, at);
                continue;
            }
            if b == b'\n' {
                line_start = true;
            } else if !b.is_ascii_whitespace() {
                line_start = false;
            }
            if !is_ident(b) || (at > 0 && is_ident(s[at - 1])) {
                at += 1;
                continue;
            }
            let end = at + s[at..].iter().take_while(|&&b| is_ident(b)).count();
            let Some(expansion) = self.macros.get(&text[at..end]) else {
                at = end;
                continue;
            };
            let bytes = out.get_or_insert_with(|| s.to_vec());
            at = match expansion {
                Expansion::Nothing { arguments } => {
                    let open = end + s[end..].iter().take_while(|b| b.is_ascii_whitespace()).count();
                    let through = match (arguments, s.get(open)) {
                        (true, Some(b'(')) => {
                            let within = &s[..s.len().min(open + MAX_ARGUMENTS)];
                            crate::macro_tests::past_closing(within, open)
                        }
                        (true, _) => None,
                        (false, _) => Some(end),
                    };
                    match through {
                        Some(through) => {
                            blank_keeping_lines(&mut bytes[at..through]);
                            through
                        }
                        // A function-like macro's name without arguments is
                        // no use of it.
                        None => end,
                    }
                }
                Expansion::Opens(names) => {
                    let room = end + s[end..].iter().take_while(|&&b| b == b' ' || b == b'\t').count() - at;
                    let written: String = names.iter().flatten().map(|name| format!("namespace {name}{{")).collect();
                    let fits = written.len() <= room;
                    blank_keeping_lines(&mut bytes[at..end]);
                    if fits {
                        bytes[at..at + written.len()].copy_from_slice(written.as_bytes());
                    }
                    levels.extend(names.iter().map(|name| fits && name.is_some()));
                    end
                }
                Expansion::Keyword { word, arguments } => {
                    let open = end + s[end..].iter().take_while(|b| b.is_ascii_whitespace()).count();
                    if word.len() <= end - at && (!arguments || s.get(open) == Some(&b'(')) {
                        blank_keeping_lines(&mut bytes[at..end]);
                        bytes[at..at + word.len()].copy_from_slice(word.as_bytes());
                    }
                    end
                }
                Expansion::Closes(count) => {
                    // Levels no opener here opened are closed as written.
                    let closed = (0..*count).filter(|_| levels.pop().unwrap_or(true)).count();
                    blank_keeping_lines(&mut bytes[at..end]);
                    bytes[at..at + closed].fill(b'}');
                    end
                }
            };
        }
        out.map(|bytes| String::from_utf8(bytes).expect("only ASCII written over ASCII"))
    }
}

/// Where the directive that starts at `at` ends: at its last line's newline,
/// past any line it is continued on with `\`.
pub(crate) fn past_directive(s: &[u8], mut at: usize) -> usize {
    while at < s.len() {
        if s[at] == b'\n' && !(at > 0 && s[at - 1] == b'\\' || at > 1 && s[at - 1] == b'\r' && s[at - 2] == b'\\') {
            return at;
        }
        // A comment may run past the line's end; a string may not.
        if s[at] == b'/'
            && let Some(past) = past_literal(s, at)
        {
            at = past.max(at + 1);
            continue;
        }
        at += 1;
    }
    s.len()
}

/// Each directive of `text`, its continued lines joined and its comments
/// left in: the words after its `#`.
fn directives(text: &str) -> impl Iterator<Item = String> + '_ {
    let s = text.as_bytes();
    let mut at = 0;
    let mut line_start = true;
    std::iter::from_fn(move || {
        while at < s.len() {
            if let Some(past) = past_literal(s, at) {
                line_start = s[at] == b'/' && s[at..past].contains(&b'\n');
                at = past.max(at + 1);
                continue;
            }
            match s[at] {
                b'#' if line_start => {
                    let end = past_directive(s, at);
                    let directive = text[at + 1..end].replace("\\\r\n", " ").replace("\\\n", " ");
                    at = end;
                    return Some(directive);
                }
                b'\n' => line_start = true,
                b if b.is_ascii_whitespace() => {}
                _ => line_start = false,
            }
            at += 1;
        }
        None
    })
}

/// A `define` directive's macro: its name, then whether it takes arguments
/// and its body with comments removed. Bodies too long to be an attribute
/// or a namespace are not kept.
fn definition(directive: String) -> Option<(String, Raw)> {
    let rest = directive.trim_start().strip_prefix("define")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let rest = rest.trim_start();
    let name_len = rest.bytes().take_while(|&b| is_ident(b)).count();
    let name = &rest[..name_len];
    if name.is_empty() || name.as_bytes()[0].is_ascii_digit() {
        return None;
    }
    let after = &rest[name_len..];
    let (parameters, body) = match after.strip_prefix('(') {
        Some(list) => {
            let close = list.find(')')?;
            (Some(list[..close].split(',').map(|p| p.trim().to_owned()).collect()), &list[close + 1..])
        }
        None => (None, after),
    };
    if body.len() > MAX_BODY {
        return None;
    }
    Some((name.to_owned(), Raw { parameters, body: without_comments(body).trim().to_owned() }))
}

/// `body` with each comment a space.
fn without_comments(body: &str) -> String {
    let s = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut at = 0;
    while at < s.len() {
        match past_literal(s, at) {
            Some(past) if s[at] == b'/' => {
                out.push(' ');
                at = past.max(at + 1);
            }
            Some(past) => {
                out.push_str(&body[at..past.max(at + 1)]);
                at = past.max(at + 1);
            }
            None => {
                let next = at + body[at..].chars().next().map_or(1, char::len_utf8);
                out.push_str(&body[at..next]);
                at = next;
            }
        }
    }
    out
}

/// A definition's body in tokens.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    /// `(…)`, with what it holds.
    Group,
    /// `[[…]]`.
    Attribute,
    Punct(char),
    /// `::`.
    Scope,
}

/// The tokens of `body`; `None` where a bracket does not close.
fn tokens(body: &str) -> Option<Vec<Token<'_>>> {
    let s = body.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < s.len() {
        let b = s[at];
        if b.is_ascii_whitespace() {
            at += 1;
        } else if is_ident(b) {
            let end = at + s[at..].iter().take_while(|&&b| is_ident(b)).count();
            out.push(Token::Word(&body[at..end]));
            at = end;
        } else if b == b'(' {
            at = crate::macro_tests::past_closing(s, at)?;
            out.push(Token::Group);
        } else if s[at..].starts_with(b"[[") {
            at += body[at..].find("]]")? + 2;
            out.push(Token::Attribute);
        } else if s[at..].starts_with(b"::") {
            out.push(Token::Scope);
            at += 2;
        } else {
            let c = body[at..].chars().next()?;
            out.push(Token::Punct(c));
            at += c.len_utf8();
        }
    }
    Some(out)
}

/// Each name's definitions read as what they stand for, following the
/// macros a definition is made of.
struct Resolver<'r> {
    raw: &'r HashMap<String, Vec<(Raw, usize)>>,
    /// C's and C++'s keywords: one defined as a macro (`#define inline
    /// __inline`) is left to the grammar.
    reserved: std::collections::HashSet<String>,
    memo: HashMap<String, Option<Expansion>>,
}

impl Resolver<'_> {
    /// What `name` stands for, where every definition of it agrees.
    fn expansion(&mut self, name: &str, depth: usize) -> Option<Expansion> {
        if let Some(known) = self.memo.get(name) {
            return known.clone();
        }
        if depth > MAX_DEPTH || self.reserved.contains(name) {
            return None;
        }
        // Not yet known while it is followed: a macro defined through itself
        // stands for nothing read here.
        self.memo.insert(name.to_owned(), None);
        let ways = self.raw.get(name)?;
        let read: Vec<(Option<Expansion>, usize)> =
            ways.iter().map(|(way, files)| (self.classify(way, depth), *files)).collect();
        let expansion = match read.first()? {
            // Nothing only where every way says so.
            (Some(Expansion::Nothing { arguments }), _) => {
                let nothing = Some(Expansion::Nothing { arguments: *arguments });
                read.iter().all(|(e, _)| *e == nothing).then_some(nothing).flatten()
            }
            // Otherwise the way most files define it, the first seen of
            // equals.
            _ => {
                let most = read.iter().map(|(_, files)| *files).max()?;
                let (way, _) = read.into_iter().find(|(_, files)| *files == most)?;
                way.filter(|e| !matches!(e, Expansion::Nothing { .. }))
            }
        };
        self.memo.insert(name.to_owned(), expansion.clone());
        expansion
    }

    /// What one definition stands for, where it is of a kind read here.
    fn classify(&mut self, raw: &Raw, depth: usize) -> Option<Expansion> {
        let tokens = tokens(&raw.body)?;
        let arguments = raw.parameters.is_some();
        if tokens.iter().all(|t| *t == Token::Punct('}')) && !tokens.is_empty() {
            return (!arguments).then_some(Expansion::Closes(tokens.len()));
        }
        if let Some(names) = namespaces(&tokens) {
            return (!arguments).then_some(Expansion::Opens(names));
        }
        if let Some(word) = self.keyword(raw, &tokens) {
            return Some(Expansion::Keyword { word, arguments });
        }
        let mut at = 0;
        while at < tokens.len() {
            match &tokens[at] {
                Token::Attribute => at += 1,
                Token::Word(word) if ATTRIBUTES.contains(word) => {
                    at += 1;
                    if tokens.get(at) == Some(&Token::Group) {
                        at += 1;
                    }
                }
                Token::Word(word) if SPECIFIERS.contains(word) => at += 1,
                Token::Word(word) => match self.expansion(word, depth + 1)? {
                    Expansion::Nothing { arguments } => {
                        at += 1;
                        if arguments {
                            (tokens.get(at) == Some(&Token::Group)).then_some(())?;
                            at += 1;
                        }
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        Some(Expansion::Nothing { arguments })
    }

    /// The keyword a definition stands for: one keyword that is no
    /// specifier, then, where the macro takes one argument, that argument
    /// alone or in parentheses (`catch(e)`, `throw e`).
    fn keyword(&self, raw: &Raw, tokens: &[Token]) -> Option<String> {
        let Some(Token::Word(word)) = tokens.first() else { return None };
        let attribute = ATTRIBUTES.contains(word) && *word != "throw";
        if !self.reserved.contains(*word) || SPECIFIERS.contains(word) || attribute {
            return None;
        }
        let rest: String = raw.body[word.len()..].split_whitespace().collect();
        let takes = match raw.parameters.as_deref() {
            None => rest.is_empty(),
            Some([parameter]) => !parameter.is_empty() && (rest == *parameter || rest == format!("({parameter})")),
            Some(_) => false,
        };
        takes.then(|| (*word).to_owned())
    }
}

/// The namespaces a definition opens, outermost first, where it is only
/// `[inline] namespace [NAME | NAME::NAME | MACRO(…)] {`, once or more.
fn namespaces(tokens: &[Token]) -> Option<Vec<Option<String>>> {
    let mut names = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let inline = tokens[at] == Token::Word("inline");
        if inline {
            at += 1;
        }
        (tokens.get(at) == Some(&Token::Word("namespace"))).then_some(())?;
        at += 1;
        let mut name = String::new();
        let mut computed = false;
        loop {
            match tokens.get(at)? {
                Token::Word(word) => name.push_str(word),
                Token::Punct('{') => break,
                _ => return None,
            }
            at += 1;
            match tokens.get(at)? {
                Token::Scope => name.push_str("::"),
                Token::Group => {
                    computed = true;
                    at += 1;
                    (tokens.get(at)? == &Token::Punct('{')).then_some(())?;
                    break;
                }
                Token::Punct('{') => break,
                _ => return None,
            }
            at += 1;
        }
        at += 1;
        names.push((!inline && !computed && !name.is_empty()).then_some(name));
    }
    (!names.is_empty()).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABI: &str = r#"
#ifndef NLOHMANN_JSON_NAMESPACE_BEGIN
#define NLOHMANN_JSON_NAMESPACE_BEGIN                \
    namespace nlohmann                               \
    {                                                \
    inline namespace NLOHMANN_JSON_NAMESPACE_CONCAT( \
                NLOHMANN_JSON_ABI_TAGS,              \
                NLOHMANN_JSON_NAMESPACE_VERSION)     \
    {
#endif
#define NLOHMANN_JSON_NAMESPACE_END                                     \
    }  /* namespace (inline namespace) NOLINT(readability/namespace) */ \
    }  // namespace nlohmann
#if defined(__GNUC__)
  #define JSON_HEDLEY_NON_NULL(...) __attribute__((__nonnull__(__VA_ARGS__)))
  #define FMT_API __attribute__((visibility("default")))
#elif defined(_MSC_VER)
  #define FMT_API __declspec(dllexport)
#else
  #define JSON_HEDLEY_NON_NULL(...)
  #define FMT_API
#endif
#define FMT_CONSTEXPR constexpr
#if JSON_EXCEPTIONS
    #define JSON_THROW(exception) throw exception
    #define JSON_TRY try
    #define JSON_CATCH(exception) catch(exception)
#else
    #define JSON_THROW(exception) std::abort()
    #define JSON_TRY if(true)
    #define JSON_CATCH(exception) if(false)
#endif
#define TWO(a, b) try
#define FMT_INLINE FMT_CONSTEXPR inline
#define LOG(x) printf("%s", x)
#define EMPTY_IN_RELEASE(x)
"#;

    #[test]
    fn a_project_s_defines_are_read_as_namespaces_closers_and_nothing() {
        let defines = Defines::read([ABI, "#define EMPTY_IN_RELEASE(x) log(x)\n"]);
        let got: Vec<(&str, &Expansion)> = defines.macros.iter().map(|(k, v)| (k.as_str(), v)).collect();
        assert_eq!(
            got,
            [
                ("FMT_API", &Expansion::Nothing { arguments: false }),
                ("FMT_CONSTEXPR", &Expansion::Nothing { arguments: false }),
                ("FMT_INLINE", &Expansion::Nothing { arguments: false }),
                ("JSON_CATCH", &Expansion::Keyword { word: "catch".into(), arguments: true }),
                ("JSON_HEDLEY_NON_NULL", &Expansion::Nothing { arguments: true }),
                ("JSON_THROW", &Expansion::Keyword { word: "throw".into(), arguments: true }),
                ("JSON_TRY", &Expansion::Keyword { word: "try".into(), arguments: false }),
                ("NLOHMANN_JSON_NAMESPACE_BEGIN", &Expansion::Opens(vec![Some("nlohmann".into()), None])),
                ("NLOHMANN_JSON_NAMESPACE_END", &Expansion::Closes(2)),
            ]
        );
    }

    #[test]
    fn uses_are_written_as_what_they_stand_for_offsets_kept() {
        let defines = Defines::read([ABI]);
        let text = "NLOHMANN_JSON_NAMESPACE_BEGIN\nclass FMT_API basic_json {\n  JSON_HEDLEY_NON_NULL(2)\n  \
                    FMT_INLINE void f(); // FMT_API\n  const char* s = \"FMT_API\";\n};\n#if FMT_API\n#endif\n\
                    NLOHMANN_JSON_NAMESPACE_END\nNS_CLOSE\n";
        let read = defines.expand(text).expect("uses");
        assert_eq!(read.len(), text.len());
        assert_eq!(read.lines().count(), text.lines().count());
        let lines: Vec<&str> = read.lines().map(str::trim_end).collect();
        assert_eq!(lines[0], "namespace nlohmann{");
        assert_eq!(lines[1], "class         basic_json {");
        assert_eq!(lines[2].trim(), "");
        assert_eq!(lines[3], format!("{}void f(); // FMT_API", " ".repeat(13)));
        assert_eq!(lines[4], "  const char* s = \"FMT_API\";");
        assert_eq!(lines[6], "#if FMT_API");
        // Two levels closed; only the named one was written.
        assert_eq!(lines[8], "}");
        let read = defines.expand("JSON_TRY {\n  JSON_THROW(e);\n} JSON_CATCH (...) {}\nJSON_CATCH;\n").unwrap();
        assert_eq!(read, "try      {\n  throw     (e);\n} catch      (...) {}\nJSON_CATCH;\n");
    }

    #[test]
    fn an_opener_that_does_not_fit_is_blanked_with_its_closer() {
        let defines = Defines::read(["#define NS namespace verylongname {\n#define END }\n"]);
        let read = defines.expand("NS\nint f();\nEND\n}\n").unwrap();
        assert_eq!(read, "  \nint f();\n   \n}\n");
    }

    #[test]
    fn the_way_most_files_define_a_namespace_is_taken() {
        let two = "#define BEGIN namespace a { inline namespace v1 {\n";
        let one = "#define BEGIN namespace b {\n";
        let defines = Defines::read([two, one, two]);
        assert_eq!(defines.macros["BEGIN"], Expansion::Opens(vec![Some("a".into()), None]));
        let nested = Defines::read(["#define BEGIN namespace a::b {\n"]);
        assert_eq!(nested.macros["BEGIN"], Expansion::Opens(vec![Some("a::b".into())]));
    }

    #[test]
    fn keywords_and_macros_defined_through_themselves_are_not_read() {
        let defines = Defines::read(["#define inline __inline\n#define A B\n#define B A\n#define C C\n"]);
        assert!(defines.is_empty(), "{defines:?}");
    }
}
