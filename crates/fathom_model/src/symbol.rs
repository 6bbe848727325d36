//! What graph nodes stand for, and where they lie.

use serde::{Deserialize, Serialize};

/// Where a symbol lies in its file. Lines are 1-based and inclusive; bytes are
/// 0-based and half-open, over the file's UTF-8 text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start_line: u32,
    pub end_line: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

impl Span {
    pub fn contains(&self, other: &Span) -> bool {
        self.start_byte <= other.start_byte && other.end_byte <= self.end_byte
    }
}

/// A node label of the code property graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    /// One per file.
    Module,
    /// A directory or a namespace.
    Package,
    /// Classes and their kin; see [`ClassKind`].
    Class,
    Function,
    /// Constructors included.
    Method,
    Field,
    GlobalVariable,
    /// A decorator or attribute type, such as `@Test` or `#[derive]`.
    Annotation,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 8] = [
        SymbolKind::Module,
        SymbolKind::Package,
        SymbolKind::Class,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Field,
        SymbolKind::GlobalVariable,
        SymbolKind::Annotation,
    ];

    /// The lowercase name used in JSON and the UI.
    pub fn name(self) -> &'static str {
        match self {
            SymbolKind::Module => "module",
            SymbolKind::Package => "package",
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Field => "field",
            SymbolKind::GlobalVariable => "global_variable",
            SymbolKind::Annotation => "annotation",
        }
    }

    /// The graph label, as queries write it.
    pub fn label(self) -> &'static str {
        match self {
            SymbolKind::Module => "MODULE",
            SymbolKind::Package => "PACKAGE",
            SymbolKind::Class => "CLASS",
            SymbolKind::Function => "FUNCTION",
            SymbolKind::Method => "METHOD",
            SymbolKind::Field => "FIELD",
            SymbolKind::GlobalVariable => "GLOBAL_VARIABLE",
            SymbolKind::Annotation => "ANNOTATION",
        }
    }

    /// Kinds that execute code, and so have calls, complexity and tests.
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

/// The flavour of a `CLASS` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassKind {
    Class,
    Interface,
    Struct,
    Enum,
    Trait,
    Record,
    Protocol,
    /// A Ruby module: a namespace that is also a mixin.
    Module,
    /// A Kotlin `object` or companion: a singleton class.
    Object,
    Union,
    /// A name given to another type: C's `typedef`, C++'s `using X = …`.
    Alias,
}

impl ClassKind {
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::Class => "class",
            ClassKind::Interface => "interface",
            ClassKind::Struct => "struct",
            ClassKind::Enum => "enum",
            ClassKind::Trait => "trait",
            ClassKind::Record => "record",
            ClassKind::Protocol => "protocol",
            ClassKind::Module => "module",
            ClassKind::Object => "object",
            ClassKind::Union => "union",
            ClassKind::Alias => "alias",
        }
    }

    pub fn from_name(name: &str) -> Option<ClassKind> {
        Some(match name {
            "class" => ClassKind::Class,
            "interface" => ClassKind::Interface,
            "struct" => ClassKind::Struct,
            "enum" => ClassKind::Enum,
            "trait" => ClassKind::Trait,
            "record" => ClassKind::Record,
            "protocol" => ClassKind::Protocol,
            "module" => ClassKind::Module,
            "object" => ClassKind::Object,
            "union" => ClassKind::Union,
            "alias" => ClassKind::Alias,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    Public,
    Protected,
    /// Package-private (Java's default), `internal` (C#, Kotlin), `pub(crate)`.
    Internal,
    Private,
}
