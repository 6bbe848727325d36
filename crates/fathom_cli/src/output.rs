//! Printing results as JSON for machines or as plain text for people.
//!
//! Each text form is written by a `write_*` function to any writer: the
//! commands write to stdout, and `fathom mcp` answers agents with the same
//! text, whose `path:line` citations an agent can open.

use std::io::{self, Write};

use anyhow::Result;
use fathom_engine::{
    EdgeRecord, Hop, IndexSummary, NodeRef, QueryResult, Reached, Schema, SearchResults, SymbolContext,
};

/// Writes JSON when asked, else the text form, to stdout.
fn print<T: serde::Serialize + ?Sized>(
    value: &T,
    json: bool,
    text: impl FnOnce(&mut dyn Write, &T) -> io::Result<()>,
) -> Result<()> {
    if json {
        return print_json(value);
    }
    text(&mut io::stdout().lock(), value)?;
    Ok(())
}

fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// The text a `write_*` function writes, as a string.
pub fn render(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut bytes = Vec::new();
    write(&mut bytes).expect("writing to memory cannot fail");
    String::from_utf8_lossy(&bytes).into_owned()
}

pub fn summary(summary: &IndexSummary, json: bool) -> Result<()> {
    print(summary, json, write_summary)
}

pub fn write_summary(out: &mut dyn Write, summary: &IndexSummary) -> io::Result<()> {
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
    let edge_types: Vec<String> = summary.edge_types.iter().map(|(t, n)| format!("{t} {n}")).collect();
    writeln!(out, "  edges: {}", edge_types.join(", "))?;
    let t = &summary.timings_ms;
    writeln!(
        out,
        "time: read {:.1} ms, parse {:.1} ms, graph {:.1} ms, index {:.1} ms, total {:.1} ms",
        t.read, t.parse, t.graph, t.index, t.total
    )?;
    if let Some(scip) = &summary.scip {
        for source in &scip.sources {
            writeln!(
                out,
                "scip: {} ({} {}): {} of {} documents used, {} of another revision, {} with no such file",
                source.name,
                source.tool,
                source.version,
                source.matched,
                source.documents,
                source.stale_count,
                source.unmatched_count
            )?;
            for path in &source.stale {
                writeln!(out, "  another revision: {path}")?;
            }
        }
        let added: Vec<String> = scip.added.iter().map(|(t, n)| format!("{t} {n}")).collect();
        writeln!(
            out,
            "  {} files covered; edges confirmed {}, added {} ({}), contradicted and dropped {}",
            scip.covered.len(),
            scip.confirmed,
            scip.added.values().sum::<usize>(),
            added.join(", "),
            scip.dropped
        )?;
    }
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

/// A search's JSON, with the one ranking asked for: hits or files.
pub fn locate(found: &fathom_engine::Localisation, json: bool) -> Result<()> {
    print(found, json, write_locate)
}

pub fn write_locate(out: &mut dyn Write, found: &fathom_engine::Localisation) -> io::Result<()> {
    for (rank, file) in found.files.iter().enumerate() {
        writeln!(out, "{:>2}. {}  ({:.3})", rank + 1, file.file, file.score)?;
        for reason in &file.reasons {
            writeln!(out, "      - {reason}")?;
        }
        for s in &file.symbols {
            let (kind, why) = (s.kind.name(), s.why.join("; "));
            writeln!(out, "      {kind} {} {}:{}-{}  [{why}]", s.symbol, file.file, s.start_line, s.end_line)?;
        }
    }
    Ok(())
}

pub fn search_value(results: &SearchResults, files: bool) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(results)?;
    if let Some(object) = value.as_object_mut() {
        object.remove(if files { "hits" } else { "files" });
    }
    Ok(value)
}

pub fn search(results: &SearchResults, files: bool, json: bool) -> Result<()> {
    if json {
        return print_json(&search_value(results, files)?);
    }
    if let Some(note) = &results.note {
        eprintln!("note: {note}");
    }
    print(results, false, |out, results| write_search(out, results, files))
}

pub fn write_search(out: &mut dyn Write, results: &SearchResults, files: bool) -> io::Result<()> {
    if files {
        for file in &results.files {
            writeln!(out, "{:>8.5}  {}", file.score, file.file)?;
            for s in &file.symbols {
                writeln!(out, "          {} {}:{}-{}", s.symbol, file.file, s.start_line, s.end_line)?;
            }
        }
        return Ok(());
    }
    for hit in &results.hits {
        let kind = hit.kind.name();
        let e = &hit.explain;
        let mut why = Vec::new();
        for (lane, rank) in
            [("bm25", e.lexical_rank), ("dense", e.dense_rank), ("name", e.name_rank), ("trace", e.trace_rank)]
        {
            if let Some(rank) = rank {
                why.push(format!("{lane} #{rank}"));
            }
        }
        if let Some(g) = &e.graph {
            why.push(format!("via {} {}", g.edge.label(), g.from));
        }
        if !e.matched_terms.is_empty() {
            why.push(format!("terms {}", e.matched_terms.join(",")));
        }
        if let Some(role) = e.role {
            why.push(role.name().to_owned());
        }
        writeln!(
            out,
            "{:>8.5}  {kind:<8} {}  {}:{}-{}  [{}]",
            hit.score,
            hit.symbol,
            hit.file,
            hit.start_line,
            hit.end_line,
            why.join("; ")
        )?;
    }
    Ok(())
}

pub fn schema(schema: &Schema, json: bool) -> Result<()> {
    print(schema, json, write_schema)
}

pub fn write_schema(out: &mut dyn Write, schema: &Schema) -> io::Result<()> {
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
    print(edges, json, |out, edges| {
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
    })
}

fn cite(node: &NodeRef) -> String {
    match &node.file {
        Some(file) => format!("{} ({file}:{})", node.qualified_name, node.start_line),
        None => format!("{} (external)", node.qualified_name),
    }
}

fn hop_line(hop: &Hop) -> String {
    let line = hop.line.map_or(String::new(), |l| format!(" L{l}"));
    format!(
        "{} -{}-> {}  ({:.2} {}{line})",
        hop.from.qualified_name,
        hop.edge.label(),
        hop.to.qualified_name,
        hop.confidence,
        hop.reason.name()
    )
}

pub fn reached(reached: &[Reached], json: bool) -> Result<()> {
    print(reached, json, write_reached)
}

pub fn write_reached(out: &mut dyn Write, reached: &[Reached]) -> io::Result<()> {
    if reached.is_empty() {
        writeln!(out, "none")?;
    }
    for r in reached {
        writeln!(out, "{}  depth {}  confidence {:.2}", cite(&r.node), r.depth, r.confidence)?;
        for hop in &r.path {
            writeln!(out, "    {}", hop_line(hop))?;
        }
    }
    Ok(())
}

pub fn tests_for(found: &fathom_engine::tests_for::TestsFor, json: bool) -> Result<()> {
    print(found, json, write_tests_for)
}

pub fn write_tests_for(out: &mut dyn Write, found: &fathom_engine::tests_for::TestsFor) -> io::Result<()> {
    for changed in &found.changed {
        writeln!(out, "changed  {}  (from the {}, weight {:.2})", cite(&changed.symbol), changed.from, changed.weight)?;
    }
    for note in &found.notes {
        writeln!(out, "note     {note}")?;
    }
    if found.abstained {
        writeln!(out, "no recommendation: the evidence is too weak (see the notes)")?;
    }
    for (rank, test) in found.tests.iter().enumerate() {
        writeln!(out, "{:>3}. {}  score {:.4}", rank + 1, cite(&test.test), test.score)?;
        for hop in &test.path {
            writeln!(out, "       {}", hop_line(hop))?;
        }
        if !test.matched_terms.is_empty() {
            writeln!(out, "       matched: {}", test.matched_terms.join(", "))?;
        }
    }
    for group in &found.impact {
        writeln!(out, "impact   {}: {} dependents", group.package, group.dependents.len())?;
    }
    Ok(())
}

pub fn hops(hops: &[Hop], json: bool) -> Result<()> {
    print(hops, json, write_hops)
}

fn write_hops(out: &mut dyn Write, hops: &[Hop]) -> io::Result<()> {
    for hop in hops {
        writeln!(out, "{}", hop_line(hop))?;
    }
    Ok(())
}

pub fn path(path: Option<&[Hop]>, json: bool) -> Result<()> {
    print(&path, json, |out, path| match path {
        Some(path) => write_hops(out, path),
        None => writeln!(out, "no path"),
    })
}

pub fn symbol(context: &SymbolContext, json: bool) -> Result<()> {
    print(context, json, write_symbol)
}

pub fn write_symbol(out: &mut dyn Write, context: &SymbolContext) -> io::Result<()> {
    writeln!(out, "{} {}", context.symbol.kind.name(), cite(&context.symbol))?;
    if let Some(signature) = &context.signature {
        writeln!(out, "  {signature}")?;
    }
    if let Some(doc) = &context.docstring {
        writeln!(out, "  {}", doc.lines().next().unwrap_or_default())?;
    }
    let cc = context.cyclomatic_complexity.map_or(String::from("-"), |c| c.to_string());
    writeln!(
        out,
        "  complexity {cc}, loc {}, fan-in {}, fan-out {}",
        context.loc.unwrap_or(0),
        context.fan_in,
        context.fan_out
    )?;
    for (title, hops) in [("callers", &context.callers), ("callees", &context.callees)] {
        writeln!(out, "  {title}: {}", hops.len())?;
        for hop in hops.iter() {
            writeln!(out, "    {}", hop_line(hop))?;
        }
    }
    writeln!(out, "  members: {}", context.members.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", "))?;
    writeln!(
        out,
        "  tests: {}",
        context.tests.iter().map(|t| t.node.qualified_name.as_str()).collect::<Vec<_>>().join(", ")
    )?;
    Ok(())
}

pub fn query(result: &QueryResult, json: bool) -> Result<()> {
    print(result, json, write_query)
}

pub fn write_query(out: &mut dyn Write, result: &QueryResult) -> io::Result<()> {
    writeln!(out, "{}", result.columns.join(" | "))?;
    for row in &result.rows {
        let cells: Vec<String> = row.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect();
        writeln!(out, "{}", cells.join(" | "))?;
    }
    let cut = if result.truncated { " (more rows exist: raise LIMIT, up to 2,000)" } else { "" };
    writeln!(out, "{} rows{cut}", result.rows.len())?;
    Ok(())
}
