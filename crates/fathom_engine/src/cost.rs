//! What one file costs the heap, from its parse to the bundle written.
//!
//! Parsing a file is measured ([`crate::heap::measure`]: what its parse
//! retains). Every stage after parsing (the graph, resolution, test links,
//! the lexical index, the chunks, the static lane and the bundle's bytes)
//! grows with what the parses hold: definitions, references, imports,
//! locals, lexical terms and lines. Each of those is given the most it costs
//! any of those stages at its peak, as measured on content dense in each of
//! them (`tests/hostile/generate.py`'s dense shapes; `bench/PERFORMANCE.md`,
//! "Memory for every shape of content"). So, with the parses in, what the
//! rest of indexing will take is known before any of it starts
//! ([`after_parsing`]), and [`crate::pipeline`] leaves files out before a
//! stage can go past the budget, not after.

use crate::pipeline::Parsed;

/// What a file's parse holds, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub bytes: u64,
    pub lines: u64,
    pub definitions: u64,
    /// Functions, methods and classes: the definitions each given a chunk
    /// of their own, and a static vector.
    pub chunked: u64,
    /// Bytes of the definitions' names, held again in the graph's names and
    /// qualified names.
    pub name_bytes: u64,
    /// Calls and uses of names.
    pub references: u64,
    pub imports: u64,
    pub locals: u64,
    /// Lexical terms of the file's lines and of its definitions' names.
    pub terms: u64,
}

impl std::ops::AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        self.bytes += o.bytes;
        self.lines += o.lines;
        self.definitions += o.definitions;
        self.chunked += o.chunked;
        self.name_bytes += o.name_bytes;
        self.references += o.references;
        self.imports += o.imports;
        self.locals += o.locals;
        self.terms += o.terms;
    }
}

impl Counts {
    pub fn of(parsed: &Parsed, bytes: usize) -> Counts {
        let facts = &parsed.facts;
        Counts {
            bytes: bytes as u64,
            lines: parsed.terms.lines() as u64,
            definitions: facts.definitions.len() as u64,
            chunked: facts.definitions.iter().filter(|d| chunked(d.kind)).count() as u64,
            name_bytes: facts.definitions.iter().map(|d| d.name.len() as u64).sum(),
            references: (facts.calls.len() + facts.uses.len()) as u64,
            imports: facts.imports.len() as u64,
            locals: facts.locals.len() as u64,
            terms: parsed.terms.len() as u64,
        }
    }
}

fn chunked(kind: fathom_model::SymbolKind) -> bool {
    use fathom_model::SymbolKind::*;
    matches!(kind, Function | Method | Class)
}

/// The most each counted thing adds to the heap at the peak of any stage
/// after parsing, in bytes, natively (64-bit). Measured per shape in
/// `make bench` and checked there against each run's peak.
pub struct Rates {
    pub file: u64,
    pub byte: u64,
    pub line: u64,
    pub definition: u64,
    pub chunked: u64,
    pub name_byte: u64,
    pub reference: u64,
    pub import: u64,
    pub local: u64,
    pub term: u64,
}

pub const AFTER_PARSING: Rates = Rates {
    file: 4096,
    byte: 4,
    line: 16,
    definition: 300,
    chunked: 600,
    name_byte: 24,
    reference: 64,
    import: 96,
    local: 64,
    term: 12,
};

/// The most a byte of source costs at once while its file is parsed and
/// afterwards, at the worst rate any content in the hostile corpus shows:
/// its parse's peak (the syntax tree, while it is read) beside what every
/// later stage adds. Parsing sizes its batches by it, so no batch can take
/// more than the room left, whatever the files in it hold.
pub const WORST_PER_SOURCE_BYTE: u64 = 600;

/// What the stages after parsing add, at their peak, for a file with these
/// counts.
pub fn after_parsing(c: &Counts) -> u64 {
    let r = &AFTER_PARSING;
    r.file
        + r.byte * c.bytes
        + r.line * c.lines
        + r.definition * c.definitions
        + r.chunked * c.chunked
        + r.name_byte * c.name_bytes
        + r.reference * c.references
        + r.import * c.imports
        + r.local * c.locals
        + r.term * c.terms
}

/// The most that parsing `bytes` of source and indexing them can take at
/// once, whatever they hold.
pub fn worst(bytes: usize) -> u64 {
    WORST_PER_SOURCE_BYTE * bytes as u64 + AFTER_PARSING.file
}

/// One file's cost: its parse, measured, and the rest, bounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileCost {
    pub counts: Counts,
    /// What its parse holds.
    pub parsed: u64,
    /// What the stages after parsing add for it at most.
    pub after: u64,
}

impl FileCost {
    pub fn of(parsed: &Parsed, bytes: usize) -> FileCost {
        let counts = Counts::of(parsed, bytes);
        FileCost { counts, parsed: parsed.heap, after: after_parsing(&counts) }
    }

    pub fn total(&self) -> u64 {
        self.parsed + self.after
    }

    /// Heap bytes per byte of source.
    pub fn density(&self) -> f64 {
        self.total() as f64 / self.counts.bytes.max(1) as f64
    }

    /// What makes it costly, for the reason it is left out: "166,666
    /// definitions in 1.0 MB (one every 6 bytes)".
    pub fn describe(&self) -> String {
        let c = &self.counts;
        let r = &AFTER_PARSING;
        let shares = [
            (r.definition * c.definitions + r.chunked * c.chunked, c.definitions, "definitions"),
            (r.name_byte * c.name_bytes, c.name_bytes, "bytes of names"),
            (r.reference * c.references, c.references, "references"),
            (r.import * c.imports, c.imports, "imports"),
            (r.local * c.locals, c.locals, "locals"),
            (r.term * c.terms, c.terms, "lexical terms"),
            (r.line * c.lines, c.lines, "lines"),
        ];
        let (_, count, what) = shares.into_iter().max_by_key(|(cost, ..)| *cost).expect("seven shares");
        let every = match c.bytes.checked_div(count) {
            Some(every) => format!(" (one every {every} bytes)"),
            None => String::new(),
        };
        format!("{} {what} in {}{every}", thousands(count), fathom_archive::human_bytes(c.bytes))
    }
}

/// `166666` as "166,666".
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, d) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(166_666), "166,666");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
