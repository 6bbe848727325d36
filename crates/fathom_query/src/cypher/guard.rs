//! Parsing with guards: syntax, write clauses, hop bounds, size.

use opencypher::{Clause, Query, RelationshipPattern, Span, Visitor};
use serde::Serialize;

use crate::MAX_DEPTH;

/// Longer queries are refused before parsing.
const MAX_LENGTH: usize = 20_000;
/// Deeper bracket nesting is refused before parsing: the parser recurses,
/// and a browser worker's stack is small.
const MAX_NESTING: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CypherErrorKind {
    Syntax,
    /// The query would write; queries here only read.
    WriteClause,
    /// A variable-length relationship with no upper bound.
    UnboundedHops,
    /// A variable-length relationship allowing more hops than the limit.
    TooManyHops,
    TooLong,
    TooDeep,
    /// The query ran out of its budget of work.
    Budget,
    /// Valid Cypher that this engine does not run yet.
    Unsupported,
    /// A value of the wrong type, or an undefined name.
    Type,
}

/// Why a query was refused, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message} (line {line}, column {column})")]
pub struct CypherError {
    pub kind: CypherErrorKind,
    pub message: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
    /// For syntax errors, the token the parser expected.
    pub expected: Option<String>,
}

impl CypherError {
    pub(crate) fn at(
        kind: CypherErrorKind,
        message: String,
        source: &str,
        offset: usize,
        expected: Option<String>,
    ) -> Self {
        let (line, column) = line_column(source, offset);
        CypherError { kind, message, line, column, expected }
    }
}

/// Parses a read-only query, or says precisely why it is refused.
pub fn parse(source: &str) -> Result<Query, CypherError> {
    if source.len() > MAX_LENGTH {
        let message = format!("the query is {} bytes long; the limit is {MAX_LENGTH}", source.len());
        return Err(CypherError::at(CypherErrorKind::TooLong, message, source, MAX_LENGTH, None));
    }
    if let Some(offset) = too_deep(source) {
        let message = format!("brackets nest more than {MAX_NESTING} deep");
        return Err(CypherError::at(CypherErrorKind::TooDeep, message, source, offset, None));
    }
    let query = opencypher::parse(source).map_err(|e| syntax_error(source, &e.message, e.span))?;
    let mut guard = Guard { source, refused: None };
    guard.visit_query(&query);
    match guard.refused {
        Some(error) => Err(error),
        None => Ok(query),
    }
}

fn syntax_error(source: &str, message: &str, span: Span) -> CypherError {
    let word = source.get(span.start..span.end).unwrap_or_default();
    // `DROP` is not Cypher the parser knows: it stops at the word.
    if word.eq_ignore_ascii_case("drop") {
        let message = "DROP is not allowed: queries here only read".to_owned();
        return CypherError::at(CypherErrorKind::WriteClause, message, source, span.start, None);
    }
    let expected =
        message.strip_prefix("expected ").map(|rest| rest.split(", found").next().unwrap_or(rest).trim().to_owned());
    CypherError::at(CypherErrorKind::Syntax, format!("syntax error: {message}"), source, span.start, expected)
}

/// Walks the parsed query, keeping the first reason to refuse it.
struct Guard<'s> {
    source: &'s str,
    refused: Option<CypherError>,
}

impl Guard<'_> {
    fn refuse(&mut self, kind: CypherErrorKind, message: String, span: Span) {
        if self.refused.is_none() {
            self.refused = Some(CypherError::at(kind, message, self.source, span.start, None));
        }
    }
}

impl Visitor for Guard<'_> {
    fn visit_clause(&mut self, clause: &Clause) {
        let write = match clause {
            Clause::Create(c) => Some(("CREATE", c.span)),
            Clause::Merge(c) => Some(("MERGE", c.span)),
            Clause::Set(c) => Some(("SET", c.span)),
            Clause::Delete(c) if c.detach => Some(("DETACH DELETE", c.span)),
            Clause::Delete(c) => Some(("DELETE", c.span)),
            Clause::Remove(c) => Some(("REMOVE", c.span)),
            Clause::Foreach(c) => Some(("FOREACH", c.span)),
            Clause::Call(c) => Some(("CALL", c.span)),
            Clause::LoadCsv(c) => Some(("LOAD CSV", c.span)),
            _ => None,
        };
        if let Some((name, span)) = write {
            self.refuse(CypherErrorKind::WriteClause, format!("{name} is not allowed: queries here only read"), span);
        }
        opencypher::walk_clause(self, clause);
    }

    fn visit_relationship_pattern(&mut self, rel: &RelationshipPattern) {
        if let Some(range) = &rel.range {
            // `*` and `*2..` have no upper bound; `*2` is exactly two hops.
            let upper = if range.has_range { range.max } else { range.min };
            match upper {
                None => self.refuse(
                    CypherErrorKind::UnboundedHops,
                    format!("variable-length relationships need an upper bound of at most {MAX_DEPTH}, such as *1..{MAX_DEPTH}"),
                    range.span,
                ),
                Some(hops) if hops > i64::from(MAX_DEPTH) => self.refuse(
                    CypherErrorKind::TooManyHops,
                    format!("{hops} hops is more than the limit of {MAX_DEPTH}"),
                    range.span,
                ),
                Some(_) => {}
            }
        }
        opencypher::walk_relationship_pattern(self, rel);
    }
}

/// The offset where bracket nesting first exceeds the limit, ignoring
/// brackets inside string literals.
fn too_deep(source: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in source.char_indices() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' | '`' => quote = Some(c),
                '(' | '[' | '{' => {
                    depth += 1;
                    if depth > MAX_NESTING {
                        return Some(at);
                    }
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    None
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(source: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or(before).chars().count() + 1;
    (line as u32, column as u32)
}
