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

    #[test]
    fn counts_as_lines_and_trim_do() {
        let texts = [
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
            "\n\n",
            "\n a\n\n",
            "\r\n",
            " \r\n\t",
        ];
        for text in texts {
            let lines = text.lines().count() as u32;
            let code = text.lines().filter(|l| !l.trim().is_empty()).count() as u32;
            assert_eq!(count_lines(text), LineCount { lines, code }, "{text:?}");
        }
    }
}
