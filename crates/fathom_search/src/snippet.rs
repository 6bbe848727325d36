//! A hit's snippet: the few lines that best show why it matched, with the
//! query's words marked, so a result list can show code without the web side
//! ever reading source text.

use serde::Serialize;

use crate::tokens::Terms;

/// How many lines a snippet shows at most.
const LINES: usize = 3;
/// Long lines are cut to this many characters (UTF-16 units in `marks`).
const WIDTH: usize = 200;
/// How many lines of a long chunk are searched for the best line: a module
/// chunk can be a whole 20,000-line file.
const SCAN: u32 = 400;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Snippet {
    /// The 1-based line of `lines[0]`.
    pub start_line: u32,
    pub lines: Vec<String>,
    /// Words that match a query term: `[line index, start, end]`, columns in
    /// UTF-16 code units of the line as given.
    pub marks: Vec<[u32; 3]>,
}

/// The snippet of `text` (a whole file) within lines `first..=last`: the line
/// that holds the most distinct query words (the first line when none does)
/// and the lines after it.
pub fn snippet(text: &str, first: u32, last: u32, query: &str, terms: &Terms) -> Snippet {
    let wanted: std::collections::HashSet<String> = terms.terms(query).into_iter().collect();
    let read = lines_read(first, last);
    let first = *read.start();
    let lines: Vec<&str> = text
        .lines()
        .skip(first as usize - 1)
        .take(read.count())
        .map(|line| cut(line.strip_suffix('\r').unwrap_or(line)))
        .collect();
    if lines.is_empty() {
        return Snippet { start_line: first, ..Snippet::default() };
    }
    let marks_of = |line: &str| -> Vec<(u32, u32)> {
        let mut marks = Vec::new();
        let mut column = 0u32;
        let mut word_start: Option<(usize, u32)> = None;
        let flush = |start: usize, start_col: u32, end: usize, end_col: u32, marks: &mut Vec<(u32, u32)>| {
            let word = &line[start..end];
            if terms.terms(word).iter().any(|t| wanted.contains(t)) {
                marks.push((start_col, end_col));
            }
        };
        for (at, c) in line.char_indices() {
            let is_word = c.is_alphanumeric() || c == '_';
            match (is_word, word_start) {
                (true, None) => word_start = Some((at, column)),
                (false, Some((start, start_col))) => {
                    flush(start, start_col, at, column, &mut marks);
                    word_start = None;
                }
                _ => {}
            }
            column += c.len_utf16() as u32;
        }
        if let Some((start, start_col)) = word_start {
            flush(start, start_col, line.len(), column, &mut marks);
        }
        marks
    };
    // The line with the most distinct matching words wins; ties go to the
    // earliest (a definition's own line comes first).
    let marks: Vec<Vec<(u32, u32)>> = lines.iter().map(|line| marks_of(line)).collect();
    let best = marks
        .iter()
        .zip(&lines)
        .enumerate()
        .map(|(i, (marks, line))| {
            let distinct: std::collections::HashSet<&str> =
                marks.iter().filter_map(|&(s, e)| utf16_slice(line, s, e)).collect();
            (i, distinct.len())
        })
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map_or(0, |(i, _)| i);
    // The best line leads, with the lines after it (before it at the end).
    let start = best.min(lines.len().saturating_sub(LINES));
    let mut out = Snippet { start_line: first + start as u32, ..Snippet::default() };
    for (i, line) in lines.iter().enumerate().skip(start).take(LINES) {
        out.marks.extend(marks[i].iter().map(|&(s, e)| [(i - start) as u32, s, e]));
        out.lines.push((*line).to_owned());
    }
    out
}

/// The lines (1-based) a snippet of lines `first..=last` reads: the first
/// [`SCAN`] of them. A text that holds only these, at their places, gives
/// the same snippet as the whole file (a split bundle's node pages do).
pub fn lines_read(first: u32, last: u32) -> std::ops::RangeInclusive<u32> {
    let first = first.max(1);
    first..=last.max(first).min(first.saturating_add(SCAN - 1))
}

/// The line cut to the characters a snippet shows of it, at a character
/// boundary: a snippet reads no more of a line.
pub fn cut(line: &str) -> &str {
    match line.char_indices().nth(WIDTH) {
        Some((at, _)) => &line[..at],
        None => line,
    }
}

fn utf16_slice(line: &str, start: u32, end: u32) -> Option<&str> {
    let mut column = 0u32;
    let (mut from, mut to) = (None, None);
    for (at, c) in line.char_indices() {
        if column == start {
            from = Some(at);
        }
        if column == end {
            to = Some(at);
        }
        column += c.len_utf16() as u32;
    }
    if column == end {
        to = Some(line.len());
    }
    Some(&line[from?..to?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_with_most_query_words_is_shown_with_them_marked() {
        let text = "def charge(order):\n    total = 0\n    for item in order.items:\n        total += item.price\n    return total\n";
        let s = snippet(text, 1, 5, "sum of item prices", &Terms::default());
        assert_eq!(s.start_line, 3);
        assert_eq!(s.lines, ["    for item in order.items:", "        total += item.price", "    return total"]);
        // `item`, `items`, `item`, `price` (stemmed as the query is).
        assert_eq!(s.marks, [[0, 8, 12], [0, 22, 27], [1, 17, 21], [1, 22, 27]]);
    }

    #[test]
    fn columns_count_utf16_units_and_nothing_matching_shows_the_start() {
        let text = "// Grüße 😀 parse_date here\nfn parse_date() {}\n";
        let s = snippet(text, 1, 2, "parse date", &Terms::default());
        assert_eq!(s.start_line, 1);
        // "// Grüße 😀 " is 12 UTF-16 units: the emoji counts two.
        assert_eq!(s.marks[0], [0, 12, 22]);
        let none = snippet(text, 2, 2, "qwxz", &Terms::default());
        assert_eq!((none.start_line, none.marks.len()), (2, 0));
        assert_eq!(none.lines, ["fn parse_date() {}"]);
    }
}
