//! Printing results as JSON for machines or as plain text for people.

use std::io::{self, Write};

use anyhow::Result;
use fathom_engine::{EdgeRecord, IndexSummary, Schema, SearchHit};

pub fn summary(summary: &IndexSummary, json: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, summary)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(
        out,
        "{}: {} files, {} symbols, {} edges",
        summary.archive, summary.files, summary.symbols, summary.edges
    )?;
    for (language, count) in &summary.languages {
        let symbols = summary.symbols_by_language.get(language).copied().unwrap_or(0);
        writeln!(out, "  {language:<12} {count:>6} files {symbols:>7} symbols")?;
    }
    for (kind, count) in &summary.kinds {
        writeln!(out, "  {kind:<12} {count:>6}")?;
    }
    let t = &summary.timings_ms;
    writeln!(
        out,
        "time: read {:.1} ms, parse {:.1} ms, graph {:.1} ms, index {:.1} ms, total {:.1} ms",
        t.read, t.parse, t.graph, t.index, t.total
    )?;
    if !summary.skipped.is_empty() {
        writeln!(out, "skipped {}:", summary.skipped.len())?;
        for s in &summary.skipped {
            writeln!(out, "  {:<11} {}  ({})", format!("{:?}", s.reason).to_lowercase(), s.path, s.detail)?;
        }
    }
    if !summary.errors.is_empty() {
        writeln!(out, "problems {} (these files are still indexed):", summary.errors.len())?;
        for e in &summary.errors {
            writeln!(out, "  {}: {}", e.path, e.message)?;
        }
    }
    Ok(())
}

pub fn hits(hits: &[SearchHit], json: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, hits)?;
        writeln!(out)?;
        return Ok(());
    }
    for hit in hits {
        let kind = hit.kind.name();
        writeln!(
            out,
            "{:>6.3}  {kind:<8} {}  {}:{}-{}",
            hit.score, hit.symbol, hit.file, hit.start_line, hit.end_line
        )?;
    }
    Ok(())
}

pub fn schema(schema: &Schema, json: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, schema)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "Fathom graph schema v{}", schema.version)?;
    writeln!(out, "\nNode labels:")?;
    for label in &schema.node_labels {
        writeln!(
            out,
            "  {:<16} {}\n  {:<16} properties: {}",
            label.label,
            label.description,
            "",
            label.properties.join(", ")
        )?;
    }
    writeln!(out, "\nEdge types (every edge has confidence and reason):")?;
    for edge in &schema.edge_types {
        writeln!(out, "  {:<16} {}", edge.edge_type, edge.description)?;
    }
    writeln!(out, "\nReasons:")?;
    for reason in &schema.reasons {
        writeln!(out, "  {:<16} {}", reason.reason, reason.description)?;
    }
    Ok(())
}

pub fn edges(edges: &[EdgeRecord], json: bool) -> Result<()> {
    let mut out = io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, edges)?;
        writeln!(out)?;
        return Ok(());
    }
    for e in edges {
        let place = |end: &fathom_engine::EdgeEnd| match &end.file {
            Some(file) => format!("{file}:{}", end.start_line),
            None => "external".to_owned(),
        };
        let line = e.line.map_or(String::new(), |l| format!(" L{l}"));
        writeln!(
            out,
            "{} -{}-> {}  ({:.2} {}{line})  [{} -> {}]",
            e.from.symbol,
            e.edge_type.label(),
            e.to.symbol,
            e.confidence,
            e.reason.name(),
            place(&e.from),
            place(&e.to)
        )?;
    }
    Ok(())
}
