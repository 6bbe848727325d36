//! Terms for the lexical index: identifiers split at case changes,
//! underscores and digits, and kept whole too; prose stemmed and stripped of
//! stop words.
//!
//! `parseHTTPDate2` gives `parsehttpdate2` (whole) and `pars`, `http`,
//! `date`, `2` (parts, stemmed), so the query `parse http date` and the
//! query `parseHTTPDate2` both find it.

use rust_stemmers::{Algorithm, Stemmer};

/// Bump when terms change (splitting, stemming, stop words): lexical
/// postings stored in an index bundle by other terms would not match this
/// build's queries, so they are rebuilt from the text instead.
pub const TERMS_VERSION: u32 = 1;

/// Splits text into terms, for documents and queries alike.
pub struct Terms {
    stemmer: Stemmer,
}

impl Default for Terms {
    fn default() -> Self {
        Terms { stemmer: Stemmer::create(Algorithm::English) }
    }
}

/// Words too common in English prose to tell documents apart. Code keywords
/// that are also English (`if`, `for`, `return`) are in it: they are in every
/// function.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "i", "if", "in", "into", "is",
    "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where", "which", "while",
    "who", "why", "will", "with", "self", "return", "def", "fn", "let", "var", "const", "new", "none", "null", "true",
    "false", "else", "elif", "not", "get", "can", "there", "then", "these", "those", "we", "you",
];

impl Terms {
    /// Every term of `text`, in order, with repeats.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.each(text, &mut |t| out.push(t));
        out
    }

    /// Calls `emit` with each term of `text`.
    pub fn each(&self, text: &str, emit: &mut dyn FnMut(String)) {
        for word in words(text) {
            self.word(word, &mut |part| self.stem(part), emit);
        }
    }

    /// Calls `emit` with each term of one word, its parts stemmed by
    /// `stem` (which must agree with [`Terms::stem`]: a cache of it).
    pub(crate) fn word(&self, word: &str, stem: &mut dyn FnMut(&str) -> String, emit: &mut dyn FnMut(String)) {
        let parts = split_identifier(word);
        let whole = word.to_lowercase();
        if parts.len() > 1 {
            if !is_stop_word(&whole) {
                emit(whole);
            }
            for part in parts {
                let part = part.to_lowercase();
                if !is_stop_word(&part) {
                    emit(stem(&part));
                }
            }
        } else if !is_stop_word(&whole) {
            emit(stem(&whole));
        }
    }

    /// A lower-case part's term: short parts and parts with digits as they
    /// are, the rest Snowball-stemmed.
    pub(crate) fn stem(&self, word: &str) -> String {
        if word.len() <= 3 || word.bytes().any(|b| b.is_ascii_digit()) {
            word.to_owned()
        } else {
            self.stemmer.stem(word).into_owned()
        }
    }
}

fn is_stop_word(word: &str) -> bool {
    word.len() < 2 && !word.bytes().all(|b| b.is_ascii_digit()) || STOP_WORDS.contains(&word)
}

/// The parts of each word of `text`, in order, lower case and stemmed by
/// `stem` (which must agree with [`Terms::stem`]: a cache of it), stop
/// words left out; unlike [`Terms::word`], no whole words:
/// `correct_ambiguous_vr_element` → `correct`, `ambigu`, `vr`, `element`.
pub(crate) fn stemmed_parts(text: &str, stem: &mut dyn FnMut(&str) -> String) -> Vec<String> {
    words(text)
        .flat_map(split_identifier)
        .map(str::to_lowercase)
        .filter(|part| !is_stop_word(part))
        .map(|part| stem(&part))
        .collect()
}

/// Runs of letters, digits and underscores, of at most 80 bytes; `$` and
/// `@` prefixes are dropped.
pub(crate) fn words(text: &str) -> Words<'_> {
    Words { text, at: 0, longest: MAX_WORD_BYTES }
}

/// A longer run of word characters is no word (a hash, a blob of data).
const MAX_WORD_BYTES: usize = 80;

/// Every run of word characters ([`in_word`]) in `text`, however long: what
/// [`words`] cuts, before it drops the longest. Test linking matches
/// identifiers whole with it.
pub fn word_runs(text: &str) -> Words<'_> {
    Words { text, at: 0, longest: usize::MAX }
}

/// The iterator of [`words`]. ASCII, nearly all of code, is classified a
/// byte at a time through a table; only other characters are decoded
/// (splitting on a `char` predicate decoded every one, a third of
/// tokenising's cost).
pub struct Words<'t> {
    text: &'t str,
    at: usize,
    /// Longer runs are skipped.
    longest: usize,
}

/// Whether each ASCII byte is part of a word.
const WORD_BYTE: [bool; 128] = {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Whether `c` is part of a word, as [`words`] cuts them: a letter, a
/// digit or an underscore.
pub fn in_word(c: char) -> bool {
    if c.is_ascii() { WORD_BYTE[c as usize] } else { c.is_alphanumeric() }
}

impl Words<'_> {
    /// Moves past characters while they are (`inside`) or are not in a word.
    fn skip(&mut self, inside: bool) {
        let bytes = self.text.as_bytes();
        while let Some(&byte) = bytes.get(self.at) {
            let (word, width) = if byte < 0x80 {
                (WORD_BYTE[byte as usize], 1)
            } else {
                let c = self.text[self.at..].chars().next().expect("at a char boundary");
                (in_word(c), c.len_utf8())
            };
            if word != inside {
                return;
            }
            self.at += width;
        }
    }
}

impl<'t> Iterator for Words<'t> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        loop {
            self.skip(false);
            if self.at >= self.text.len() {
                return None;
            }
            let start = self.at;
            self.skip(true);
            if self.at - start <= self.longest {
                return Some(&self.text[start..self.at]);
            }
        }
    }
}

/// `parseHTTPDate2x` → `parse`, `HTTP`, `Date`, `2`, `x`; `__init__` →
/// `init`; `MAX_RETRY` → `MAX`, `RETRY`.
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let mut chars = piece.char_indices().peekable();
        let mut start = 0;
        let mut prev: Option<char> = None;
        while let Some((at, c)) = chars.next() {
            if let Some(prev) = prev {
                let next_lower = chars.peek().is_some_and(|(_, n)| n.is_lowercase());
                let boundary = (c.is_uppercase() && prev.is_lowercase())
                    || (c.is_uppercase() && prev.is_uppercase() && next_lower)
                    || (c.is_ascii_digit() != prev.is_ascii_digit());
                if boundary {
                    parts.push(&piece[start..at]);
                    start = at;
                }
            }
            prev = Some(c);
        }
        parts.push(&piece[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_at_case_underscores_and_digits() {
        assert_eq!(split_identifier("parseHTTPDate2x"), ["parse", "HTTP", "Date", "2", "x"]);
        assert_eq!(split_identifier("__init__"), ["init"]);
        assert_eq!(split_identifier("MAX_RETRY_COUNT"), ["MAX", "RETRY", "COUNT"]);
        assert_eq!(split_identifier("XMLHttpRequest"), ["XML", "Http", "Request"]);
        assert_eq!(split_identifier("utf8"), ["utf", "8"]);
        assert_eq!(split_identifier("plain"), ["plain"]);
    }

    /// The splitter agrees with its definition over a window of three
    /// characters (the previous, this one and the next), on mixed scripts,
    /// digits and runs of capitals.
    #[test]
    fn identifier_parts_agree_with_their_definition() {
        fn reference(word: &str) -> Vec<&str> {
            let mut parts = Vec::new();
            for piece in word.split('_').filter(|p| !p.is_empty()) {
                let chars: Vec<(usize, char)> = piece.char_indices().collect();
                let mut start = 0;
                for i in 1..chars.len() {
                    let (at, c) = chars[i];
                    let prev = chars[i - 1].1;
                    let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
                    if (c.is_uppercase() && prev.is_lowercase())
                        || (c.is_uppercase() && prev.is_uppercase() && next_lower)
                        || (c.is_ascii_digit() != prev.is_ascii_digit())
                    {
                        parts.push(&piece[start..at]);
                        start = at;
                    }
                }
                parts.push(&piece[start..]);
            }
            parts
        }
        for word in [
            "ABCdef",
            "aB",
            "A",
            "a1B2",
            "ÉtéÀbc",
            "HTTPServer2Go",
            "x_Y_z",
            "__",
            "ab__CD",
            "getÜberURL",
            "Ωmega9Σ",
            "IOError",
            "_",
            "a",
            "9",
            "ÀÀà",
            "camelCaseXML",
        ] {
            assert_eq!(split_identifier(word), reference(word), "{word:?}");
        }
    }

    /// The splitter agrees with splitting on the `char` predicate it
    /// stands for, on ASCII, other scripts, and words over 80 bytes.
    #[test]
    fn words_are_runs_of_alphanumerics_and_underscores() {
        let long = "x".repeat(81);
        let texts = [
            "def parse_http(value):\n    return value.strip()  # ok",
            "Grüße, Straße! naïve_café→ok 東京タワー x²+y² ١٢٣ _ __ a",
            &format!("{long} short {long}ab"),
            "",
            "$scope @decorator 42abc",
        ];
        for text in texts {
            let expected: Vec<&str> = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty() && w.len() <= 80)
                .collect();
            assert_eq!(words(text).collect::<Vec<_>>(), expected, "{text:?}");
        }
    }

    #[test]
    fn terms_keep_identifiers_whole_and_stem_their_parts() {
        let terms = Terms::default();
        assert_eq!(terms.terms("getUserById"), ["getuserbyid", "user", "id"], "`get` and `by` are stop words");
        assert_eq!(terms.terms("how are the users authenticated"), ["user", "authent"]);
        assert_eq!(terms.terms("authenticate(request)"), ["authent", "request"]);
        assert_eq!(terms.terms("src/flask/app.py:42"), ["src", "flask", "app", "py", "42"]);
        assert_eq!(terms.terms("Grüße Straße"), ["grüße", "straße"]);
    }
}
