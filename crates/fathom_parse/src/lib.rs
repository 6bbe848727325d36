//! Parses source text with tree-sitter and extracts its definitions: classes,
//! functions and methods, with their names, spans and nesting.
//!
//! What counts as a definition is data, not code: one query file per
//! language under `queries/`, capturing `@definition.<kind>` and `@name`.
//! Nesting is read from the syntax tree, so a function inside a class is a
//! method, and a function inside a function is a nested function.

mod errors;

pub use fathom_model::Definition;
use fathom_model::{ClassKind, Language, Span, SymbolKind};
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Parser, Query, QueryCursor};

/// A place where the parser had to recover from invalid syntax.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// What parsing one file yields. Definitions are in source order, parents
/// before their children. Syntax errors never stop extraction: tree-sitter
/// recovers, and what it could parse is still returned.
#[derive(Clone, Debug, Default)]
pub struct ParsedFile {
    pub definitions: Vec<Definition>,
    pub syntax_errors: Vec<SyntaxError>,
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("the {language} grammar could not be loaded: {reason}")]
    Grammar { language: &'static str, reason: String },
    #[error("the {language} parser gave up on this file")]
    GaveUp { language: &'static str },
}

/// Parsers and compiled queries, created on first use of each language and
/// then reused: compiling a query costs far more than running it.
#[derive(Default)]
pub struct Parsers {
    loaded: Vec<(Language, LanguageParser)>,
}

struct LanguageParser {
    parser: Parser,
    query: Query,
}

impl Parsers {
    pub fn new() -> Self {
        Parsers::default()
    }

    /// Parses `text` as `language` and extracts its definitions.
    pub fn parse(&mut self, language: Language, text: &str) -> Result<ParsedFile, ParseError> {
        let loaded = self.load(language)?;
        let tree = loaded.parser.parse(text, None).ok_or(ParseError::GaveUp { language: language.name() })?;
        let root = tree.root_node();
        Ok(ParsedFile {
            definitions: extract(&loaded.query, root, text),
            syntax_errors: errors::collect(root, errors::MAX_REPORTED),
        })
    }

    fn load(&mut self, language: Language) -> Result<&mut LanguageParser, ParseError> {
        let at = match self.loaded.iter().position(|(l, _)| *l == language) {
            Some(at) => at,
            None => {
                self.loaded.push((language, LanguageParser::new(language)?));
                self.loaded.len() - 1
            }
        };
        Ok(&mut self.loaded[at].1)
    }
}

impl LanguageParser {
    fn new(language: Language) -> Result<Self, ParseError> {
        let (grammar, source) = grammar(language);
        let fail = |reason: String| ParseError::Grammar { language: language.name(), reason };
        let mut parser = Parser::new();
        parser.set_language(&grammar).map_err(|e| fail(e.to_string()))?;
        let query = Query::new(&grammar, source).map_err(|e| fail(format!("definitions query: {e}")))?;
        Ok(LanguageParser { parser, query })
    }
}

fn grammar(language: Language) -> (tree_sitter::Language, &'static str) {
    match language {
        Language::Python => (tree_sitter_python::LANGUAGE.into(), include_str!("../queries/python.scm")),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), include_str!("../queries/javascript.scm")),
        Language::TypeScript => {
            (tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), include_str!("../queries/typescript.scm"))
        }
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), include_str!("../queries/typescript.scm")),
    }
}

/// A definition as the query found it, before nesting is known.
struct Found {
    capture: Capture,
    name: String,
    span: Span,
}

#[derive(Clone, Copy)]
enum Capture {
    Class(ClassKind),
    Callable,
}

fn extract(query: &Query, root: Node<'_>, text: &str) -> Vec<Definition> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, root, text.as_bytes());
    while let Some(m) = matches.next() {
        let mut definition = None;
        let mut name = None;
        for capture in m.captures() {
            match query.capture_names()[capture.index as usize] {
                "name" => name = Some(capture.node),
                kind => definition = capture_kind(kind).map(|k| (k, capture.node)),
            }
        }
        let (Some((capture, node)), Some(name)) = (definition, name) else { continue };
        if !seen.insert(node.id()) {
            continue;
        }
        let Ok(name) = name.utf8_text(text.as_bytes()) else { continue };
        found.push(Found { capture, name: name.to_owned(), span: span_of(outer_node(node)) });
    }
    nest(found)
}

fn capture_kind(capture: &str) -> Option<Capture> {
    Some(match capture.strip_prefix("definition.")? {
        "class" => Capture::Class(ClassKind::Class),
        "interface" => Capture::Class(ClassKind::Interface),
        "enum" => Capture::Class(ClassKind::Enum),
        "function" | "method" => Capture::Callable,
        _ => return None,
    })
}

/// Decorators belong to the definition they decorate.
fn outer_node(node: Node<'_>) -> Node<'_> {
    match node.parent() {
        Some(parent) if parent.kind() == "decorated_definition" => parent,
        _ => node,
    }
}

fn span_of(node: Node<'_>) -> Span {
    let (start, end) = (node.start_position(), node.end_position());
    // A node that ends at column 0 ends with the previous line's newline.
    let end_row = if end.column == 0 && end.row > start.row { end.row - 1 } else { end.row };
    Span {
        start_line: start.row as u32 + 1,
        end_line: end_row as u32 + 1,
        start_byte: node.start_byte() as u32,
        end_byte: node.end_byte() as u32,
    }
}

/// Orders definitions outermost-first and links each to its innermost
/// enclosing definition; a callable directly inside a class is a method.
fn nest(mut found: Vec<Found>) -> Vec<Definition> {
    found.sort_by_key(|f| (f.span.start_byte, std::cmp::Reverse(f.span.end_byte)));
    let mut definitions: Vec<Definition> = Vec::with_capacity(found.len());
    let mut open: Vec<usize> = Vec::new();
    for f in found {
        while open.last().is_some_and(|&at| definitions[at].span.end_byte < f.span.end_byte) {
            open.pop();
        }
        let parent = open.last().copied();
        let (kind, class_kind) = match f.capture {
            Capture::Class(class_kind) => (SymbolKind::Class, Some(class_kind)),
            Capture::Callable if parent.is_some_and(|at| definitions[at].kind == SymbolKind::Class) => {
                (SymbolKind::Method, None)
            }
            Capture::Callable => (SymbolKind::Function, None),
        };
        open.push(definitions.len());
        definitions.push(Definition { kind, class_kind, name: f.name, parent, span: f.span });
    }
    definitions
}
