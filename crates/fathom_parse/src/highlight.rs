//! Syntax highlighting: a file's text in, classed spans out, ready for a code
//! view that slices JavaScript strings.
//!
//! The work is `tree-sitter-highlight`'s, with the highlights query that each
//! grammar crate ships (Kotlin's grammar ships none, so `queries/kotlin/`
//! holds one). Its capture names (`function.method.builtin`,
//! `punctuation.bracket`…) are many and differ between queries; they are
//! mapped to the few [`CLASSES`] a stylesheet needs. The configurations are
//! compiled once per language and thread, on first use, and reused: they
//! are per thread because tree-sitter's `Language` is neither `Send` nor
//! `Sync` on wasm32 (the browser's worker has one thread).
//!
//! A span is `[line, start_column, end_column, class]`: the line 1-based,
//! the columns 0-based and half-open in UTF-16 code units (what
//! `String.prototype.slice` counts), the class an index into [`CLASSES`].
//! Spans never cross a line, never overlap, and come in order.

use std::cell::OnceCell;

use fathom_model::Language;
use serde::Serialize;
use tree_sitter_highlight::{HighlightConfiguration, HighlightEvent, Highlighter};

/// What a span can be, in class-index order. Where a capture is nested in
/// another (an escape in a string, a name in an interpolation), the
/// innermost wins.
pub const CLASSES: [&str; 13] = [
    "keyword",
    "string",
    "comment",
    "number",
    "function",
    "type",
    "constant",
    "property",
    "variable",
    "operator",
    "punctuation",
    "attribute",
    "tag",
];

/// Only the first this many bytes of a file are highlighted; a code view
/// shows the top of a huge file first, and the rest stays plain text.
pub const MAX_HIGHLIGHT_BYTES: usize = 256 * 1024;

/// At most this many spans are returned for one file.
pub const MAX_HIGHLIGHT_SPANS: usize = 65_536;

/// The classed spans of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Highlights {
    /// [`CLASSES`], which each span's last element indexes.
    pub classes: Vec<&'static str>,
    /// `[line (1-based), start_column, end_column, class]`, columns in UTF-16
    /// code units.
    pub spans: Vec<[u32; 4]>,
    /// Whether highlighting stopped early: past [`MAX_HIGHLIGHT_BYTES`] or
    /// [`MAX_HIGHLIGHT_SPANS`], or because the highlighter failed. What it
    /// had done is kept.
    pub truncated: bool,
}

/// The capture names Fathom recognises, each with its class. A capture
/// takes the entry that shares the most dot-separated parts with it
/// (`function.method.builtin` → `function`, `variable.builtin` →
/// `variable.builtin`); captures that match none (`embedded`, `spell`) are
/// not highlighted. The older names some queries still use are listed too.
const RECOGNISED: [(&str, usize); 35] = [
    ("keyword", 0),
    ("conditional", 0),
    ("repeat", 0),
    ("include", 0),
    ("exception", 0),
    ("storageclass", 0),
    // `self`, `this`, `super`: keywords to a reader.
    ("variable.builtin", 0),
    ("string", 1),
    ("character", 1),
    ("escape", 1),
    ("comment", 2),
    ("number", 3),
    ("float", 3),
    ("function", 4),
    ("method", 4),
    ("type", 5),
    // A class named where it is constructed (`new Foo`, `Foo(…)`).
    ("constructor", 5),
    ("module", 5),
    ("namespace", 5),
    ("constant", 6),
    ("boolean", 6),
    ("property", 7),
    ("field", 7),
    ("variable.member", 7),
    ("variable", 8),
    ("parameter", 8),
    ("label", 8),
    ("operator", 9),
    ("punctuation", 10),
    ("delimiter", 10),
    ("attribute", 11),
    ("annotation", 11),
    ("decorator", 11),
    ("tag", 12),
    ("tag.attribute", 11),
];

/// Highlights `text` as `language`. It never fails: a language whose
/// configuration did not compile yields no spans, and an error part-way
/// keeps the spans made so far and sets `truncated`.
pub fn highlight(language: Language, text: &str) -> Highlights {
    let plain = || Highlights { classes: CLASSES.to_vec(), spans: Vec::new(), truncated: false };
    // A test script or case file has no grammar: it stays plain text.
    if language == Language::Text {
        return plain();
    }
    with_configuration(language, |config| match config {
        Ok(config) => highlight_with(config, text),
        Err(_) => plain(),
    })
}

/// Whether any node of `tree` lies more than `limit` levels down.
fn deeper_than(tree: &tree_sitter::Tree, limit: u32) -> bool {
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

fn highlight_with(config: &HighlightConfiguration, text: &str) -> Highlights {
    let mut result = Highlights { classes: CLASSES.to_vec(), spans: Vec::new(), truncated: false };
    let mut highlighter = Highlighter::new();
    // tree-sitter's query cursor slows by orders of magnitude on nesting
    // past 65,536 levels (one line of nested additions took minutes), and
    // the highlighter's cursor cannot be told where to stop: a tree that
    // deep stays plain text. The parse to find out costs little beside the
    // highlighting.
    // The same parse, under the file's budget ([`crate::Budget`]), leaves a
    // file that takes longer (a grammar's pathological lookahead) plain too.
    let mut budget = crate::Budget::for_bytes(text.len());
    let tree = match highlighter.parser.set_language(&config.language) {
        Ok(()) => crate::parse_within(&mut highlighter.parser, text, &mut budget),
        Err(_) => None,
    };
    let plain = match &tree {
        Some(tree) => deeper_than(tree, crate::MAX_QUERY_DEPTH),
        None => budget.out.is_some(),
    };
    if plain {
        result.truncated = true;
        return result;
    }
    let Ok(events) = highlighter.highlight(config, text.as_bytes(), None, None, |_| None) else {
        result.truncated = true;
        return result;
    };
    let limit = text.len().min(MAX_HIGHLIGHT_BYTES);
    let mut open: Vec<usize> = Vec::new();
    let mut writer = SpanWriter::new(text);
    for event in events {
        match event {
            Ok(HighlightEvent::HighlightStart(h)) => open.push(RECOGNISED[h.0].1),
            Ok(HighlightEvent::HighlightEnd) => {
                open.pop();
            }
            Ok(HighlightEvent::Source { start, end }) => {
                if start >= limit {
                    result.truncated = limit < text.len();
                    break;
                }
                if let Some(&class) = open.last() {
                    writer.push(start, end.min(limit), class as u32);
                }
                if writer.spans.len() >= MAX_HIGHLIGHT_SPANS {
                    result.truncated = true;
                    break;
                }
                if end > limit {
                    result.truncated = true;
                    break;
                }
            }
            Err(_) => {
                result.truncated = true;
                break;
            }
        }
    }
    result.spans = writer.spans;
    result.spans.truncate(MAX_HIGHLIGHT_SPANS);
    result
}

thread_local! {
    /// Each language's configuration, or the error its query compiled to,
    /// kept so that later calls fail the same way without compiling again.
    static CONFIGURATIONS: [OnceCell<Result<HighlightConfiguration, String>>; Language::ALL.len()] =
        const { [const { OnceCell::new() }; Language::ALL.len()] };
}

/// Runs `f` with the highlight configuration of `language`, compiled on
/// first use in this thread.
fn with_configuration<T>(language: Language, f: impl FnOnce(Result<&HighlightConfiguration, &str>) -> T) -> T {
    let at = Language::ALL.iter().position(|&l| l == language).expect("every language is in Language::ALL");
    CONFIGURATIONS
        .with(|configurations| f(configurations[at].get_or_init(|| compile(language)).as_ref().map_err(String::as_str)))
}

fn compile(language: Language) -> Result<HighlightConfiguration, String> {
    let grammar = (crate::lang::profile(language).grammar)()
        .ok_or_else(|| format!("this build carries no {} grammar (a viewer)", language.name()))?;
    let (highlights, locals) = queries(language);
    let mut config = HighlightConfiguration::new(grammar, language.name(), &highlights, "", &locals)
        .map_err(|e| format!("the {} highlights query does not compile: {e}", language.name()))?;
    config.configure(&RECOGNISED.map(|(name, _)| name));
    Ok(config)
}

/// The highlights and locals queries of a language. Where one grammar
/// extends another (TypeScript extends JavaScript, C++ extends C), the base
/// query comes first, so that the extension's patterns, later, win.
#[cfg(feature = "grammars")]
fn queries(language: Language) -> (String, String) {
    let js = tree_sitter_javascript::HIGHLIGHT_QUERY;
    let jsx = tree_sitter_javascript::JSX_HIGHLIGHT_QUERY;
    let js_locals = tree_sitter_javascript::LOCALS_QUERY;
    let ts = tree_sitter_typescript::HIGHLIGHTS_QUERY;
    let ts_locals = tree_sitter_typescript::LOCALS_QUERY;
    let (highlights, locals): (&[&str], &[&str]) = match language {
        Language::Python => (&[tree_sitter_python::HIGHLIGHTS_QUERY], &[]),
        Language::JavaScript => (&[js, jsx], &[js_locals]),
        Language::TypeScript => (&[js, ts], &[js_locals, ts_locals]),
        Language::Tsx => (&[js, jsx, ts], &[js_locals, ts_locals]),
        Language::Java => (&[tree_sitter_java::HIGHLIGHTS_QUERY], &[]),
        Language::Kotlin => (&[include_str!("../queries/kotlin/highlights.scm")], &[]),
        Language::CSharp => (&[tree_sitter_c_sharp::HIGHLIGHTS_QUERY], &[]),
        Language::Go => (&[tree_sitter_go::HIGHLIGHTS_QUERY], &[]),
        Language::Rust => (&[tree_sitter_rust::HIGHLIGHTS_QUERY], &[]),
        Language::C => (&[tree_sitter_c::HIGHLIGHT_QUERY], &[]),
        Language::Cpp => (&[tree_sitter_c::HIGHLIGHT_QUERY, tree_sitter_cpp::HIGHLIGHT_QUERY], &[]),
        Language::Ruby => (&[tree_sitter_ruby::HIGHLIGHTS_QUERY], &[tree_sitter_ruby::LOCALS_QUERY]),
        Language::Php => (&[tree_sitter_php::HIGHLIGHTS_QUERY], &[]),
        Language::Text => unreachable!("text is never highlighted"),
    };
    (highlights.join("\n"), locals.join("\n"))
}

/// Without grammars nothing is highlighted: `compile` stops before it asks.
#[cfg(not(feature = "grammars"))]
fn queries(_: Language) -> (String, String) {
    unreachable!("a build without grammars compiles no highlights query")
}

/// Turns byte ranges, which arrive in order, into per-line spans with UTF-16
/// columns, walking the text once.
struct SpanWriter<'a> {
    text: &'a str,
    /// How far the walk has come: a byte offset, and its line and column.
    at: usize,
    line: u32,
    column: u32,
    spans: Vec<[u32; 4]>,
}

impl<'a> SpanWriter<'a> {
    fn new(text: &'a str) -> Self {
        SpanWriter { text, at: 0, line: 1, column: 0, spans: Vec::new() }
    }

    /// Classes the bytes `start..end`, one span per line they touch.
    fn push(&mut self, start: usize, end: usize, class: u32) {
        self.advance(start);
        while self.at < end {
            let rest = &self.text[self.at..end];
            let (piece, newline) = match rest.find('\n') {
                Some(at) => (&rest[..at], true),
                None => (rest, false),
            };
            // A CRLF's carriage return is part of the line break, not the line.
            let visible = if newline { piece.strip_suffix('\r').unwrap_or(piece) } else { piece };
            let width: u32 = visible.chars().map(|c| c.len_utf16() as u32).sum();
            if width > 0 {
                self.emit(self.column, self.column + width, class);
            }
            self.advance(self.at + piece.len() + usize::from(newline));
        }
    }

    fn emit(&mut self, start: u32, end: u32, class: u32) {
        if let Some(last) = self.spans.last_mut()
            && last[0] == self.line
            && last[2] == start
            && last[3] == class
        {
            last[2] = end;
            return;
        }
        self.spans.push([self.line, start, end, class]);
    }

    /// Moves the walk to byte `to`, which is on a character boundary at or
    /// after the current position.
    fn advance(&mut self, to: usize) {
        if to <= self.at {
            return;
        }
        for c in self.text[self.at..to].chars() {
            if c == '\n' {
                self.line += 1;
                self.column = 0;
            } else {
                self.column += c.len_utf16() as u32;
            }
        }
        self.at = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_a_highlights_query_that_compiles() {
        for language in Language::ALL {
            with_configuration(language, |config| {
                if let Err(e) = config {
                    panic!("{e}");
                }
            });
        }
    }

    #[test]
    fn every_capture_name_of_every_query_has_a_class() {
        // A capture that maps to nothing silently loses its colour (later
        // patterns win, even when they map to nothing); list the ones that
        // do so that dropping one is a decision.
        let deliberate = ["embedded", "none", "spell", "nospell"];
        for language in Language::ALL {
            with_configuration(language, |config| {
                for name in config.unwrap().names() {
                    if name.starts_with('_') || name.starts_with("local.") || deliberate.contains(name) {
                        continue;
                    }
                    let parts: Vec<&str> = name.split('.').collect();
                    let known = RECOGNISED.iter().any(|(r, _)| r.split('.').all(|p| parts.contains(&p)));
                    assert!(known, "{}: capture @{name} has no class", language.name());
                }
            });
        }
    }

    fn spans_of(language: Language, text: &str) -> Vec<(String, &'static str)> {
        let lines: Vec<&str> = text.lines().collect();
        highlight(language, text)
            .spans
            .iter()
            .map(|&[line, start, end, class]| {
                let units: Vec<u16> = lines[line as usize - 1].encode_utf16().collect();
                (String::from_utf16(&units[start as usize..end as usize]).unwrap(), CLASSES[class as usize])
            })
            .collect()
    }

    #[test]
    fn spans_are_per_line_in_utf16_and_in_order() {
        let text = "# é🦀 comment\ns = \"\"\"a\nb\"\"\"\ndef f(): return 1\n";
        let spans = spans_of(Language::Python, text);
        assert!(spans.contains(&("# é🦀 comment".into(), "comment")), "{spans:?}");
        assert!(spans.contains(&("\"\"\"a".into(), "string")), "a multi-line string is split per line: {spans:?}");
        assert!(spans.contains(&("b\"\"\"".into(), "string")), "{spans:?}");
        assert!(spans.contains(&("def".into(), "keyword")), "{spans:?}");
        assert!(spans.contains(&("1".into(), "number")), "{spans:?}");
        let raw = highlight(Language::Python, text).spans;
        assert!(raw.windows(2).all(|w| (w[0][0], w[0][2]) <= (w[1][0], w[1][1])), "ordered, no overlap: {raw:?}");
        assert!(raw.iter().all(|s| s[1] < s[2]), "no empty span: {raw:?}");
    }

    #[test]
    fn columns_count_utf16_units_before_a_token() {
        // `é` is one unit and `🦀` two, so the string ends at column 9 (not
        // at byte 11) and `1` is at column 15.
        let text = "x = 'é🦀'; y = 1\nwhile x: pass\n";
        let spans = highlight(Language::Python, text).spans;
        let string = spans.iter().find(|s| CLASSES[s[3] as usize] == "string").unwrap();
        assert_eq!(string[..3], [1, 4, 9]);
        let number = spans.iter().find(|s| CLASSES[s[3] as usize] == "number").unwrap();
        assert_eq!(number[..3], [1, 15, 16]);
    }

    #[test]
    fn huge_files_are_cut_and_say_so() {
        let line = "x = 1  # one\n";
        let text = line.repeat(MAX_HIGHLIGHT_BYTES / line.len() + 10);
        let result = highlight(Language::Python, &text);
        assert!(result.truncated);
        let last = result.spans.last().unwrap()[0] as usize;
        assert!(last <= MAX_HIGHLIGHT_BYTES / line.len() + 1, "nothing past the cap: line {last}");
        assert!(!highlight(Language::Python, line).truncated);
    }

    #[test]
    fn broken_text_still_highlights_what_parsed() {
        let spans = spans_of(Language::Rust, "fn main( { let s = \"ok\"; // unfinished\n");
        assert!(spans.contains(&("fn".into(), "keyword")), "{spans:?}");
        assert!(spans.contains(&("\"ok\"".into(), "string")), "{spans:?}");
    }
}
