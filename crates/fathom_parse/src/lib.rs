//! Parses source text with tree-sitter and extracts, in one pass over one
//! tree, everything later stages need: definitions with their properties,
//! and the raw references (imports, calls, uses, typed locals) that
//! resolution turns into edges.
//!
//! What to extract is data, not code: each language has a `definitions.scm`
//! and a `references.scm` under `queries/`, written in a shared capture
//! vocabulary (`queries/README.md`), and a small [`profile`] for the rules
//! that are easier to say in code.
//!
//! For the code view it also highlights files ([`highlight()`]) and finds the
//! identifier under a position ([`identifier_at`]).

pub mod alloc;
mod class_macros;
mod conditional;
mod defines;
mod definitions;
mod errors;
pub mod highlight;
mod identifier;
mod lang;
mod line_macros;
mod macro_tests;
mod metrics;
mod order;
mod profile;
mod references;
mod specifier_macros;
mod text;

pub use defines::Defines;
use fathom_model::Language;
pub use fathom_model::{Definition, FileFacts};
pub use highlight::{CLASSES, Highlights, highlight};
pub use identifier::{IdentifierAt, byte_offset, identifier_at, utf16_len};
pub use lang::{grammar_words, reserved_words};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Parser, Query, QueryCursor};

use crate::order::InOrder;

/// How deep in a tree a query's match may start. tree-sitter's query cursor
/// slows by orders of magnitude on nesting past 65,536 levels: one line of
/// 450,000 nested additions took six minutes to index, and 0.6 s with this
/// limit. Real code nests a few hundred levels at most.
pub(crate) const MAX_QUERY_DEPTH: u32 = 10_000;

/// A place where the parser had to recover from invalid syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// What parsing one file yields. Syntax errors never stop extraction:
/// tree-sitter recovers, and what it could parse is still returned.
#[derive(Clone, Debug, Default)]
pub struct ParsedFile {
    pub facts: FileFacts,
    pub syntax_errors: Vec<SyntaxError>,
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("the {language} grammar could not be loaded: {reason}")]
    Grammar { language: &'static str, reason: String },
    #[error("the {language} parser gave up on this file")]
    GaveUp { language: &'static str },
    /// The file took more than its budget ([`Budget`]) in one stage.
    #[error("{stage} this file took more than {limit}; it was given up")]
    OverBudget { stage: &'static str, limit: String },
}

/// What one file may take in each of parsing and matching the queries, so
/// that a file built to be slow (deep nesting, a grammar's pathological
/// lookahead) is given up and reported, where it could otherwise take
/// minutes:
/// - work, in tree-sitter's progress checks (one per 100 parser
///   operations, or per bounded amount of query work): the same count on
///   every machine, natively and in the browser;
/// - time, read from the [clock](set_clock), for what work does not count
///   (a grammar's scanner looking far ahead between two operations).
pub struct Budget {
    work: u64,
    spent: u64,
    deadline_ms: Option<f64>,
    allowed_ms: f64,
    /// What ran out, once something has.
    out: Option<String>,
}

/// Django, Flask and RxJS take at most 0.014 work units a byte to parse and
/// 0.006 to match; the hostile corpus at most 0.07 (100,000 nested
/// brackets). A file may take a unit per [`BYTES_PER_WORK`] bytes, and
/// [`MIN_WORK`] more.
pub const BYTES_PER_WORK: u64 = 4;
pub const MIN_WORK: u64 = 10_000;
/// And [`MIN_MS`] plus a millisecond per [`BYTES_PER_MS`] bytes: real files
/// parse at tens of megabytes a second.
pub const MIN_MS: f64 = 2000.0;
pub const BYTES_PER_MS: f64 = 1000.0;

impl Budget {
    /// A file of `bytes` bytes' budget for one stage, from now.
    pub fn for_bytes(bytes: usize) -> Budget {
        let allowed_ms = MIN_MS + bytes as f64 / BYTES_PER_MS;
        Budget {
            work: MIN_WORK + bytes as u64 / BYTES_PER_WORK,
            spent: 0,
            deadline_ms: now_ms().map(|now| now + allowed_ms),
            allowed_ms,
            out: None,
        }
    }

    /// Spends one unit; `Break` once the work or the time is used up.
    fn check(&mut self) -> std::ops::ControlFlow<()> {
        self.spent += 1;
        if self.out.is_none() {
            if self.spent > self.work {
                self.out = Some(format!("its work budget ({} units)", self.work));
            } else if let (Some(deadline), Some(now)) = (self.deadline_ms, now_ms())
                && now > deadline
            {
                self.out = Some(format!("its time budget ({:.1} s)", self.allowed_ms / 1000.0));
            }
        }
        if self.out.is_some() { std::ops::ControlFlow::Break(()) } else { std::ops::ControlFlow::Continue(()) }
    }
}

/// Parses `text` within `budget`. `None` when the parser gave up or the
/// budget ran out (`budget.out` then says which), with the parser reset for
/// the next file: a parse that was stopped keeps its state for resuming.
fn parse_within(parser: &mut Parser, text: &str, budget: &mut Budget) -> Option<tree_sitter::Tree> {
    let mut check = |_: &tree_sitter::ParseState| budget.check();
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut check);
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(&mut |at, _| &bytes[at.min(bytes.len())..], None, Some(options));
    if tree.is_none() {
        parser.reset();
    }
    tree
}

static CLOCK: std::sync::OnceLock<fn() -> f64> = std::sync::OnceLock::new();

/// Sets the clock, in milliseconds, that time budgets read: the browser's
/// (`Date.now`), where `std::time::Instant` does not exist. Natively the
/// monotonic clock serves when none is set. Without either, only work is
/// counted.
pub fn set_clock(now_ms: fn() -> f64) {
    let _ = CLOCK.set(now_ms);
}

fn now_ms() -> Option<f64> {
    if let Some(clock) = CLOCK.get() {
        return Some(clock());
    }
    #[cfg(not(target_family = "wasm"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        Some(START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1000.0)
    }
    #[cfg(target_family = "wasm")]
    None
}

/// One pass of [`preprocessed`]: the text it read, where it changed any.
type Pass<'d> = dyn Fn(&str) -> Option<String> + 'd;

/// C and C++ as ctags reads them, where one pass or more changed the text:
/// the conditional branches ctags skips (`conditional`), the macros the
/// project defines written as what they stand for (`defines`), then the
/// macros it does not define blanked by where they stand: alone on their
/// lines (`line_macros`), export macros before a class's name
/// (`class_macros`) and specifier macros (`specifier_macros`), each pass on
/// the last one's text. Every offset is the file's own.
fn preprocessed(text: &str, defines: &Defines) -> Option<String> {
    let expand = |text: &str| defines.expand(text);
    let passes: [&Pass; 5] =
        [&conditional::one_branch, &expand, &line_macros::blank, &class_macros::blank, &specifier_macros::blank];
    passes.iter().fold(None, |read, pass| pass(read.as_deref().unwrap_or(text)).or(read))
}

/// Whether `language` is read through a preprocessor's eyes (C, C++): its
/// parse depends on the project's [`Defines`] as well as on its text.
pub fn reads_defines(language: Language) -> bool {
    language != Language::Text && lang::profile(language).preprocessed
}

/// Parsers and compiled queries, created on first use of each language and
/// then reused: compiling a query costs far more than running it.
#[derive(Default)]
pub struct Parsers {
    loaded: Vec<(Language, Loaded)>,
}

struct Loaded {
    parser: Parser,
    /// `definitions.scm`, `references.scm`, the [`metrics`] patterns and
    /// the wrappers' ([`definitions::wrapper_patterns`]) as one query, in
    /// that order, so that one pass over the tree matches all.
    query: Query,
    definition_patterns: usize,
    /// Where the metrics patterns start.
    metrics_patterns: usize,
    /// Where the wrappers' pattern starts.
    wrapper_patterns: usize,
    vocabulary: references::Vocabulary,
    metrics: metrics::Vocabulary,
    profile: &'static profile::Profile,
    /// The grammar's words that no definition is named after
    /// ([`profile::Profile::unreserved`]).
    reserved: std::collections::HashSet<String>,
}

/// A test script or case file ([`Language::Text`]): one test, the whole
/// file, named by the file. Its first comment lines, if any, say what it is.
fn text_test(path: &str, text: &str) -> FileFacts {
    let name = path.rsplit('/').next().unwrap_or(path);
    let count = fathom_model::count_lines(text);
    let span =
        fathom_model::Span { start_line: 1, end_line: count.lines.max(1), start_byte: 0, end_byte: text.len() as u32 };
    let mut test = Definition::new(fathom_model::SymbolKind::Function, name, None, span);
    let first_line_end = text.find('\n').unwrap_or(text.len());
    test.name_span = fathom_model::Span { end_line: 1, end_byte: first_line_end as u32, ..span };
    test.is_test = true;
    test.loc = count.code;
    let comment: Vec<&str> = text
        .lines()
        .skip_while(|line| line.starts_with("#!"))
        .map_while(|line| line.trim_start().strip_prefix('#'))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    test.docstring = (!comment.is_empty()).then(|| comment.join(" "));
    FileFacts { definitions: vec![test], ..FileFacts::default() }
}

impl Parsers {
    pub fn new() -> Self {
        Parsers::default()
    }

    /// Parses `text`, the contents of the file at `path`, as `language`,
    /// with no macro of its project known.
    pub fn parse(&mut self, language: Language, path: &str, text: &str) -> Result<ParsedFile, ParseError> {
        self.parse_in(language, path, text, &Defines::default())
    }

    /// Parses `text`, the contents of the file at `path`, as `language`, in
    /// a project that defines `defines` (C and C++).
    pub fn parse_in(
        &mut self,
        language: Language,
        path: &str,
        text: &str,
        defines: &Defines,
    ) -> Result<ParsedFile, ParseError> {
        if language == Language::Text {
            return Ok(ParsedFile { facts: text_test(path, text), syntax_errors: Vec::new() });
        }
        let loaded = self.load(language)?;
        let read = if loaded.profile.preprocessed { preprocessed(text, defines) } else { None };
        let written = text;
        let text = read.as_deref().unwrap_or(text);
        let mut budget = Budget::for_bytes(text.len());
        let Some(tree) = parse_within(&mut loaded.parser, text, &mut budget) else {
            return Err(match budget.out {
                Some(limit) => ParseError::OverBudget { stage: "parsing", limit },
                None => ParseError::GaveUp { language: language.name() },
            });
        };
        let root = tree.root_node();
        let mut found = definitions::Collector::new(&loaded.query);
        let mut references = references::Matches::default();
        let mut metrics = metrics::Found::default();
        let mut wrapped = definitions::Wrapped::default();
        let mut in_order = InOrder::default();
        let mut cursor = QueryCursor::new();
        cursor.set_max_start_depth(Some(MAX_QUERY_DEPTH));
        let mut budget = Budget::for_bytes(text.len());
        let mut check = |_: &tree_sitter::QueryCursorState| budget.check();
        let options = tree_sitter::QueryCursorOptions::new().progress_callback(&mut check);
        let mut matches = cursor.matches_with_options(&loaded.query, root, text.as_bytes(), options);
        while let Some(m) = matches.next() {
            let captures = m.captures().iter().map(|c| (c.index, c.node));
            if m.pattern_index >= loaded.wrapper_patterns {
                captures.for_each(|(_, wrapper)| wrapped.add(wrapper));
            } else if m.pattern_index < loaded.metrics_patterns {
                in_order.add(m.pattern_index, captures);
            } else {
                metrics.add(&loaded.metrics, captures, text);
            }
        }
        drop(matches);
        if let Some(limit) = budget.out {
            return Err(ParseError::OverBudget { stage: "matching the queries on", limit });
        }
        in_order.each(|pattern, captures| {
            if pattern < loaded.definition_patterns {
                found.add(captures);
            } else {
                references.add(captures);
            }
        });
        let mut facts = FileFacts {
            definitions: definitions::extract(
                loaded.profile,
                found.finish(),
                &wrapped,
                text,
                written,
                path,
                &loaded.reserved,
            ),
            ..FileFacts::default()
        };
        (loaded.profile.synthesize)(&mut facts.definitions);
        macro_tests::add(text, loaded.profile.test_macros, &mut facts.definitions);
        // Where each function, method and class is: complexity and
        // references both ask which one encloses an offset.
        let scopes = references::Scopes::new(&facts.definitions);
        let marks = metrics.finish(&scopes, &mut facts.definitions);
        references::extract(&loaded.vocabulary, &references, text, &scopes, &marks, &mut facts);
        Ok(ParsedFile { facts, syntax_errors: errors::collect(root, errors::MAX_REPORTED) })
    }

    /// The syntax tree alone, with nothing extracted: what parsing costs
    /// before Fathom does anything with it (`make bench`'s floor).
    pub fn syntax_tree(&mut self, language: Language, text: &str) -> Result<tree_sitter::Tree, ParseError> {
        let loaded = self.load(language)?;
        loaded.parser.parse(text, None).ok_or(ParseError::GaveUp { language: language.name() })
    }

    fn load(&mut self, language: Language) -> Result<&mut Loaded, ParseError> {
        let at = match self.loaded.iter().position(|(l, _)| *l == language) {
            Some(at) => at,
            None => {
                self.loaded.push((language, Loaded::new(language)?));
                self.loaded.len() - 1
            }
        };
        Ok(&mut self.loaded[at].1)
    }
}

impl Loaded {
    fn new(language: Language) -> Result<Self, ParseError> {
        let profile = lang::profile(language);
        let fail = |reason: String| ParseError::Grammar { language: language.name(), reason };
        let grammar = (profile.grammar)().ok_or_else(|| fail("this build carries no grammars (a viewer)".into()))?;
        let mut parser = Parser::new();
        parser.set_language(&grammar).map_err(|e| fail(e.to_string()))?;
        let generated = metrics::patterns(profile, &grammar);
        let wrappers = definitions::wrapper_patterns(profile, &grammar);
        // The query's parts in order, each named as an error would say it,
        // and where each starts in the query's source.
        let parts: [(&str, &str); 4] = [
            (profile.definitions, "definitions.scm"),
            (profile.references, "references.scm"),
            (&generated, "the generated metrics patterns"),
            (&wrappers, "the wrapper patterns"),
        ];
        let mut source = String::new();
        let mut starts = [0; 4];
        for ((part, _), start) in parts.iter().zip(&mut starts) {
            *start = source.len();
            source.push_str(part);
            source.push('\n');
        }
        let query = Query::new(&grammar, &source).map_err(|_| {
            // Said against the part it is in, which compiling each alone tells.
            let alone = |source, file| Query::new(&grammar, source).err().map(|e| format!("{file}: {e}"));
            fail(
                parts
                    .iter()
                    .find_map(|&(part, file)| alone(part, file))
                    .unwrap_or_else(|| "definitions.scm and references.scm do not compile together".to_owned()),
            )
        })?;
        let patterns_before = |end: usize| {
            (0..query.pattern_count()).take_while(|&pattern| query.start_byte_for_pattern(pattern) < end).count()
        };
        let [_, definition_patterns, metrics_patterns, wrapper_patterns] = starts.map(patterns_before);
        let vocabulary = references::Vocabulary::new(&query);
        let metrics = metrics::Vocabulary::new(&query, &grammar);
        let reserved = lang::reserved_words(language);
        Ok(Loaded {
            parser,
            query,
            definition_patterns,
            metrics_patterns,
            wrapper_patterns,
            vocabulary,
            metrics,
            profile,
            reserved,
        })
    }
}
