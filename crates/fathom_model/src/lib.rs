//! The vocabulary shared by every stage of the pipeline. It holds plain data
//! only, so that the graph and search crates can speak of languages and
//! spans without depending on the parser.

use serde::Serialize;

/// A language Fathom can parse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    /// TypeScript with JSX; a separate grammar.
    Tsx,
}

impl Language {
    pub const ALL: [Language; 4] = [Language::Python, Language::JavaScript, Language::TypeScript, Language::Tsx];

    /// The language of a file, judged by its extension.
    pub fn from_path(path: &str) -> Option<Language> {
        let name = path.rsplit('/').next()?;
        let (_, ext) = name.rsplit_once('.')?;
        Some(match ext {
            "py" | "pyi" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
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
        }
    }
}

/// Where a symbol lies in its file. Lines are 1-based and inclusive; bytes are
/// 0-based and half-open, over the file's UTF-8 text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Span {
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

/// What a graph node stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Module,
    Class,
    Function,
    Method,
}

impl SymbolKind {
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
        }
    }
}

/// The flavour of a `Class` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassKind {
    Class,
    Interface,
    Enum,
}

/// One definition found in a file, as the parser reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub kind: SymbolKind,
    /// Set for [`SymbolKind::Class`].
    pub class_kind: Option<ClassKind>,
    pub name: String,
    /// Index of the innermost enclosing definition in the same file's list.
    pub parent: Option<usize>,
    pub span: Span,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_detected_by_extension() {
        assert_eq!(Language::from_path("pkg/calc.py"), Some(Language::Python));
        assert_eq!(Language::from_path("src/App.tsx"), Some(Language::Tsx));
        assert_eq!(Language::from_path("lib/index.d.ts"), Some(Language::TypeScript));
        assert_eq!(Language::from_path("a/b.cjs"), Some(Language::JavaScript));
        assert_eq!(Language::from_path("Makefile"), None);
        assert_eq!(Language::from_path("README.md"), None);
        assert_eq!(Language::from_path(".py/README"), None);
    }
}
