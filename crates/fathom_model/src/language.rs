//! The languages Fathom parses, and how a path tells which.

use serde::{Deserialize, Serialize};

/// A language Fathom can parse, or [`Language::Text`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    /// TypeScript with JSX; a separate grammar.
    Tsx,
    Java,
    Kotlin,
    CSharp,
    Go,
    Rust,
    C,
    Cpp,
    Ruby,
    Php,
    /// A test folder's scripts and the case files they hand the program
    /// (`tests/shtest`, `tests/jq.test`), read as lines, not parsed: each
    /// such file is one test. No extension says a file is one; indexing
    /// chooses them (`fathom_tests::scripts`), and every file it keeps
    /// without a language by its path is one. Not in [`Language::ALL`].
    Text,
}

impl Language {
    /// The languages Fathom parses, each with its grammar.
    pub const ALL: [Language; 13] = [
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Java,
        Language::Kotlin,
        Language::CSharp,
        Language::Go,
        Language::Rust,
        Language::C,
        Language::Cpp,
        Language::Ruby,
        Language::Php,
    ];

    /// The language of a file, judged by its extension. `.h` counts as C++
    /// only when told so by [`Language::from_path_with_cpp_headers`].
    pub fn from_path(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next()?;
        let (_, ext) = name.rsplit_once('.')?;
        Some(match ext {
            "py" | "pyi" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "java" => Language::Java,
            "kt" | "kts" => Language::Kotlin,
            "cs" => Language::CSharp,
            "go" => Language::Go,
            "rs" => Language::Rust,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" => Language::Cpp,
            "rb" | "rake" | "gemspec" => Language::Ruby,
            "php" | "phtml" => Language::Php,
            _ => return None,
        })
    }

    /// The stable lowercase name used in JSON and the UI.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Java => "java",
            Language::Kotlin => "kotlin",
            Language::CSharp => "csharp",
            Language::Go => "go",
            Language::Rust => "rust",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Ruby => "ruby",
            Language::Php => "php",
            Language::Text => "text",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_detected_by_extension() {
        let cases = [
            ("pkg/calc.py", Some(Language::Python)),
            ("src/App.tsx", Some(Language::Tsx)),
            ("lib/index.d.ts", Some(Language::TypeScript)),
            ("a/b.cjs", Some(Language::JavaScript)),
            ("src/main/java/a/B.java", Some(Language::Java)),
            ("build.gradle.kts", Some(Language::Kotlin)),
            ("Program.cs", Some(Language::CSharp)),
            ("cmd/main.go", Some(Language::Go)),
            ("src/lib.rs", Some(Language::Rust)),
            ("src/x.h", Some(Language::C)),
            ("src/x.hpp", Some(Language::Cpp)),
            ("Rakefile.rake", Some(Language::Ruby)),
            ("index.php", Some(Language::Php)),
            ("Makefile", None),
            ("README.md", None),
            (".py/README", None),
        ];
        for (path, language) in cases {
            assert_eq!(Language::from_path(path), language, "{path}");
        }
    }
}

/// Languages that share their code: one project's files see each other's
/// symbols across them (C with C++ through headers, the JavaScript family,
/// Java with Kotlin), and they count as one language of the project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    Python,
    EcmaScript,
    Jvm,
    CSharp,
    Go,
    Rust,
    C,
    Ruby,
    Php,
    Text,
}

impl Family {
    pub fn of(language: Language) -> Family {
        match language {
            Language::Python => Family::Python,
            Language::JavaScript | Language::TypeScript | Language::Tsx => Family::EcmaScript,
            Language::Java | Language::Kotlin => Family::Jvm,
            Language::CSharp => Family::CSharp,
            Language::Go => Family::Go,
            Language::Rust => Family::Rust,
            Language::C | Language::Cpp => Family::C,
            Language::Ruby => Family::Ruby,
            Language::Php => Family::Php,
            Language::Text => Family::Text,
        }
    }

    /// Whether a bare name inside a method may mean a member of its class.
    pub fn implicit_this(self) -> bool {
        matches!(self, Family::Jvm | Family::CSharp | Family::C | Family::Ruby)
    }
}
