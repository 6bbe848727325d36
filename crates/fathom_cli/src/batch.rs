//! `fathom search --queries FILE.jsonl`: many queries against one index,
//! one JSON line out per line in.

use std::io::{BufRead, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use fathom_embed::Embedder;
use fathom_embed::cache::DiskCache;
use fathom_engine::{Index, SearchOptions};
use serde_json::{Value, json};

/// One input line: a query, or why it is not one.
pub enum Line {
    Query { id: Value, query: String },
    Malformed { line: usize, error: String },
}

/// Reads `{"id": ..., "query": "..."}` lines from a file, or stdin for `-`.
/// Blank lines are skipped; a malformed line is kept as an error to report
/// in its place, so one bad line costs nothing else.
pub fn read(path: &Path) -> Result<Vec<Line>> {
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut lines = Vec::new();
    for (i, text) in reader.lines().enumerate() {
        let text = text.with_context(|| format!("cannot read {}", path.display()))?;
        if text.trim().is_empty() {
            continue;
        }
        lines.push(parse(i + 1, &text));
    }
    Ok(lines)
}

fn parse(line: usize, text: &str) -> Line {
    let malformed = |error: String| Line::Malformed { line, error };
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return malformed(format!("not JSON: {e}")),
    };
    let Some(object) = value.as_object() else {
        return malformed("expected an object {\"id\": ..., \"query\": \"...\"}".to_owned());
    };
    match object.get("query").and_then(Value::as_str) {
        Some(query) if !query.trim().is_empty() => {
            Line::Query { id: object.get("id").cloned().unwrap_or(Value::Null), query: query.to_owned() }
        }
        Some(_) => malformed("`query` is empty".to_owned()),
        None => malformed("`query` is missing or not a string".to_owned()),
    }
}

/// How many queries the model embeds at once.
const BATCH: usize = 32;

/// Answers every query and prints one compact JSON line each, in input
/// order. Exits 2 when some line was malformed (after answering the rest).
pub fn run(
    index: &Index,
    embedder: Option<&Embedder>,
    mut cache: Option<&mut DiskCache>,
    lines: &[Line],
    options: &SearchOptions,
    files: bool,
) -> Result<ExitCode> {
    let queries: Vec<&str> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Query { query, .. } => Some(query.as_str()),
            Line::Malformed { .. } => None,
        })
        .collect();
    // MiniLM's whole index reads the queries' vectors, embedded in
    // batches; without it, each question's candidates are re-ranked.
    let whole = embedder.filter(|_| index.embedding_status().dense_ready);
    let mut vectors: Vec<Option<Vec<f32>>> = Vec::with_capacity(queries.len());
    for batch in queries.chunks(BATCH) {
        match whole {
            Some(embedder) => vectors.extend(embedder.embed(batch)?.into_iter().map(Some)),
            None => vectors.extend(batch.iter().map(|_| None)),
        }
    }
    let mut vectors = vectors.into_iter();
    let mut out = std::io::stdout().lock();
    let mut malformed = 0;
    for line in lines {
        let value = match line {
            Line::Query { id, query } => {
                let vector = vectors.next().flatten();
                let results = match (embedder, &vector) {
                    (Some(embedder), None) => {
                        fathom_engine::embed::search(index, embedder, cache.as_deref_mut(), query, options)?
                    }
                    _ => index.search(query, options, vector.as_deref()),
                };
                let mut value = crate::output::search_value(&results, files)?;
                value["id"] = id.clone();
                value
            }
            Line::Malformed { line, error } => {
                malformed += 1;
                json!({"id": null, "line": line, "error": error})
            }
        };
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    }
    if malformed > 0 {
        eprintln!("fathom: {malformed} of {} lines were not queries; see their `error`", lines.len());
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse_or_say_why_not() {
        assert!(
            matches!(parse(1, r#"{"id": 7, "query": "parse a date"}"#), Line::Query { id, query } if id == 7 && query == "parse a date")
        );
        assert!(matches!(parse(2, r#"{"query": "x"}"#), Line::Query { id: Value::Null, .. }));
        for (text, why) in [
            ("{", "not JSON"),
            ("[1]", "expected an object"),
            (r#"{"id": 1}"#, "missing"),
            (r#"{"query": " "}"#, "empty"),
        ] {
            match parse(3, text) {
                Line::Malformed { line: 3, error } => assert!(error.contains(why), "{text}: {error}"),
                _ => panic!("{text} parsed"),
            }
        }
    }
}
