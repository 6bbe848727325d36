//! What a line of code is: counted once, the same way, wherever a span's
//! size is reported.

/// A text's lines, as `str::lines` splits them, and those of them that are
/// not blank (all whitespace): its lines of code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCount {
    pub lines: u32,
    pub code: u32,
}

/// Counts `text`'s lines and lines of code in one pass over its bytes. Every
/// file's, and every definition's, is counted, so this costs a small part
/// of what `lines()` and `trim()` on each line did: line ends are found by
/// `memchr`, several bytes at a time, and a line of code is told by its
/// first bytes.
pub fn count_lines(text: &str) -> LineCount {
    let mut count = LineCount::default();
    let mut line = |line: &str| {
        count.lines += 1;
        count.code += u32::from(!is_blank(line));
    };
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        line(&text[start..end]);
        start = end + 1;
    }
    if start < text.len() {
        line(&text[start..]);
    }
    count
}

/// Where each of a text's lines starts, as `str::lines` cuts them, found in
/// one pass by `memchr`: a line is then a slice, found without reading the
/// lines before it. Chunking reads every definition's lines, several times
/// over for the lexical index; scanning for their ends each time was most of
/// its cost in the browser, where `memchr` reads four bytes at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineStarts(Box<[u32]>);

impl LineStarts {
    /// The starts of `text`'s lines: 0, then every byte after a newline that
    /// is not the text's end. Offsets are `u32`, as spans' are.
    pub fn of(text: &str) -> LineStarts {
        if text.is_empty() {
            return LineStarts::default();
        }
        let ends = memchr::memchr_iter(b'\n', text.as_bytes()).map(|end| end + 1).filter(|&start| start < text.len());
        LineStarts(std::iter::once(0).chain(ends).map(|start| start as u32).collect())
    }

    /// How many lines: `text.lines().count()`.
    pub fn len(&self) -> u32 {
        self.0.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The line (0-based) that byte `at` of the text is on.
    pub fn line_of(&self, at: u32) -> u32 {
        self.0.partition_point(|&start| start <= at).saturating_sub(1) as u32
    }

    /// Line `at` (0-based) of `text`, the text these are the starts of,
    /// without its `\n` or `\r\n`: `text.lines().nth(at)`.
    pub fn line<'t>(&self, text: &'t str, at: u32) -> Option<&'t str> {
        let at = at as usize;
        let start = *self.0.get(at)? as usize;
        let end = self.0.get(at + 1).map_or(text.len(), |&next| next as usize);
        let line = text.get(start..end)?;
        Some(line.strip_suffix('\n').map_or(line, |line| line.strip_suffix('\r').unwrap_or(line)))
    }
}

/// `line.trim().is_empty()`, with ASCII told apart byte by byte.
fn is_blank(line: &str) -> bool {
    for &byte in line.as_bytes() {
        match byte {
            b' ' | b'\t' | b'\x0B' | b'\x0C' | b'\r' => {}
            0..0x80 => return false,
            // Beyond ASCII, whitespace is Unicode's to say.
            _ => return line.trim().is_empty(),
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts whose lines are cut in every way `str::lines` cuts them: line
    /// ends with and without `\r`, a lone `\r`, blank and whitespace lines
    /// (beyond ASCII too), no final line end.
    const TEXTS: [&str; 17] = [
        "",
        "\n",
        "a",
        "a\n",
        "a\nb",
        "a\n\n\nb\n",
        "a\r\n\r\nb\r\n",
        "  \t\n\x0B\x0C\n x\n",
        "\u{a0}\u{3000}\n\u{a0}x\n",
        "naïve\n   é\n\u{2028}\n",
        "a\r",
        "a\rb\n",
        "\n\n",
        "\n a\n\n",
        "\r\n",
        "é\r\nü\n\r",
        " \r\n\t",
    ];

    #[test]
    fn counts_as_lines_and_trim_do() {
        for text in TEXTS {
            let lines = text.lines().count() as u32;
            let code = text.lines().filter(|l| !l.trim().is_empty()).count() as u32;
            assert_eq!(count_lines(text), LineCount { lines, code }, "{text:?}");
        }
    }

    #[test]
    fn line_starts_cut_lines_as_lines_does() {
        for text in TEXTS {
            let starts = LineStarts::of(text);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(starts.len() as usize, lines.len(), "{text:?}");
            assert_eq!(starts.is_empty(), lines.is_empty(), "{text:?}");
            let cut: Vec<&str> = (0..starts.len()).map(|at| starts.line(text, at).expect("a line")).collect();
            assert_eq!(cut, lines, "{text:?}");
            assert_eq!(starts.line(text, starts.len()), None, "{text:?}");
            for at in 0..text.len() {
                let newlines = text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() as u32;
                assert_eq!(starts.line_of(at as u32), newlines, "{text:?} at {at}");
            }
        }
    }
}
