//! Which language a file whose extension several languages share is in, by
//! GitHub Linguist's own heuristics (`linguist/heuristics.yml`, kept as
//! Linguist writes it): a `.h` file is C++ where one of Linguist's C++
//! patterns matches its text (`template <`, `namespace x`, `std::`,
//! `#include <vector>`), and C otherwise. Linguist's rule for `.h` tries
//! Objective-C first; Fathom reads no Objective-C, so such a header stays C.

use std::sync::LazyLock;

use fathom_model::Language;
use regex::Regex;

/// Linguist's named pattern `cpp`, its alternatives joined, line by line.
static CPP: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives = named_pattern(include_str!("../linguist/heuristics.yml"), "cpp");
    assert!(!alternatives.is_empty(), "heuristics.yml names a `cpp` pattern");
    Regex::new(&format!("(?m){}", alternatives.iter().map(|a| format!("(?:{a})")).collect::<Vec<_>>().join("|")))
        .expect("Linguist's cpp patterns read as Rust regexes")
});

/// The language of the file at `path` whose text is `text`, where its
/// extension leaves it open; `language` (what the path says) otherwise.
pub fn disambiguate(path: &str, language: Language, text: &str) -> Language {
    if language == Language::C && path.ends_with(".h") && CPP.is_match(text) {
        return Language::Cpp;
    }
    language
}

/// The alternatives of a named pattern under `named_patterns:` in
/// Linguist's fixed layout: `  name: 'one'`, or `  name:` followed by
/// `  - 'one'` lines; single-quoted YAML, `''` standing for `'`.
fn named_pattern(yaml: &str, name: &str) -> Vec<String> {
    let unquote = |s: &str| s.trim().trim_start_matches('\'').trim_end_matches('\'').replace("''", "'");
    let mut lines = yaml.lines().skip_while(|line| !line.starts_with("named_patterns:")).skip(1);
    let head = format!("  {name}:");
    let Some(first) = lines.find(|line| line.starts_with(&head)) else { return Vec::new() };
    let rest = first[head.len()..].trim();
    if !rest.is_empty() {
        return vec![unquote(rest)];
    }
    lines.map_while(|line| line.strip_prefix("  - ")).map(unquote).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linguists_cpp_pattern_is_read_whole() {
        let alternatives = named_pattern(include_str!("../linguist/heuristics.yml"), "cpp");
        assert!(alternatives.len() >= 5, "{alternatives:?}");
        assert!(alternatives.iter().any(|a| a.contains("template")));
    }

    #[test]
    fn a_header_is_cpp_only_where_linguist_says_so() {
        let cpp = "#pragma once\n#include <vector>\nnamespace geo {\nclass Shape;\n}\n";
        let c = "#ifndef SHAPE_H\n#define SHAPE_H\nstruct shape { int id; };\ndouble shape_area(const struct shape *s);\n#endif\n";
        assert_eq!(disambiguate("include/geo/shape.h", Language::C, cpp), Language::Cpp);
        assert_eq!(disambiguate("include/shape.h", Language::C, c), Language::C);
        assert_eq!(disambiguate("src/shape.c", Language::C, cpp), Language::C);
        assert_eq!(disambiguate("src/shape.hpp", Language::Cpp, c), Language::Cpp);
    }
}
