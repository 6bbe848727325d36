//! The graph's vocabulary: node and edge types, why an edge was inferred, and
//! the self-description that `schema()` returns to the UI and to agents.

use fathom_model::SymbolKind;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EdgeKind {
    /// A module, package, class or function holds a nested definition.
    Contains,
    /// A class holds a method.
    HasMethod,
    /// A class holds a field.
    HasField,
    /// A class extends another.
    Inherits,
    /// A class implements an interface, trait or protocol.
    Implements,
    /// A module imports a module or a symbol.
    Imports,
    /// A function or method calls another, at a line.
    Calls,
    /// A function or method reads or writes a field or global.
    Uses,
    /// An annotation or decorator applies to a definition.
    Decorates,
    /// A method overrides a method of a supertype.
    Overrides,
    /// A test exercises a definition (inferred from calls, imports, names,
    /// mirrored paths or assertions; see `fathom_tests`).
    Tests,
    /// A declaration (a prototype, a member declared in its class, an
    /// `extern` variable, a `.d.ts` declaration) declares a definition.
    /// Last, so that bundles written before it still decode.
    Declares,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 12] = [
        EdgeKind::Contains,
        EdgeKind::HasMethod,
        EdgeKind::HasField,
        EdgeKind::Inherits,
        EdgeKind::Implements,
        EdgeKind::Imports,
        EdgeKind::Calls,
        EdgeKind::Uses,
        EdgeKind::Decorates,
        EdgeKind::Overrides,
        EdgeKind::Tests,
        EdgeKind::Declares,
    ];

    /// Whether the edge places its target inside its source: the edges
    /// of the containment tree.
    pub fn is_containment(self) -> bool {
        matches!(self, EdgeKind::Contains | EdgeKind::HasMethod | EdgeKind::HasField)
    }

    /// The relationship type, as queries write it.
    pub fn label(self) -> &'static str {
        match self {
            EdgeKind::Contains => "CONTAINS",
            EdgeKind::HasMethod => "HAS_METHOD",
            EdgeKind::HasField => "HAS_FIELD",
            EdgeKind::Inherits => "INHERITS",
            EdgeKind::Implements => "IMPLEMENTS",
            EdgeKind::Imports => "IMPORTS",
            EdgeKind::Calls => "CALLS",
            EdgeKind::Uses => "USES",
            EdgeKind::Decorates => "DECORATES",
            EdgeKind::Overrides => "OVERRIDES",
            EdgeKind::Tests => "TESTS",
            EdgeKind::Declares => "DECLARES",
        }
    }

    fn description(self) -> &'static str {
        match self {
            EdgeKind::Contains => "a module, package, class or function holds a nested definition",
            EdgeKind::HasMethod => "a class holds a method (constructors and synthesized members included)",
            EdgeKind::HasField => "a class holds a field",
            EdgeKind::Inherits => "a class extends another class (or an interface extends an interface)",
            EdgeKind::Implements => "a class implements an interface, trait or protocol",
            EdgeKind::Imports => "a module imports a module or a symbol; targets outside the archive are is_external",
            EdgeKind::Calls => "a function or method calls another; `line` is the call site",
            EdgeKind::Uses => "a function or method reads or writes a field or global variable",
            EdgeKind::Decorates => "an annotation or decorator applies to a definition",
            EdgeKind::Overrides => "a method overrides a method of a supertype",
            EdgeKind::Tests => {
                "a test exercises a definition: it calls it (up to 3 hops, damped), uses what it imports, is named or placed after it, or asserts on it; `reason` gives the strongest evidence"
            }
            EdgeKind::Declares => {
                "a declaration (a prototype, a member declared in its class, an extern variable, a .d.ts or overload signature) declares a definition; calls and uses of the declaration go to the definition"
            }
        }
    }
}

/// Why an edge exists. Syntax edges are certain; the others are inferred and
/// carry a confidence below one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// Read off the syntax tree: containment.
    Syntax,
    /// Through an import that resolved to a definition in the archive.
    ImportResolved,
    /// The receiver's type is known: `self`, `this`, a typed parameter,
    /// field or local, a constructor assignment.
    ReceiverTyped,
    /// The receiver's type is unknown, but its name is the class's
    /// (`subscriber` → `Subscriber`).
    ReceiverNamed,
    /// Found in the same file.
    SameFile,
    /// Found in the same package or namespace, in another file.
    SamePackage,
    /// The only definition with this name in the archive.
    UniqueName,
    /// One of several definitions with this name; all are kept.
    AmbiguousName,
    /// Found on a supertype of the receiver's class.
    Inherited,
    /// The target is outside the archive.
    External,
    /// A member Lombok generates.
    Lombok,
    /// A test reaches the definition through calls (directly or through
    /// helpers, up to three hops).
    TestCalls,
    /// A test uses a name its file imports from the definition.
    TestImports,
    /// Named after it: `test_parse` ↔ `parse`, `ParserTest` ↔ `Parser`.
    TestNaming,
    /// In the mirrored path: `tests/test_x.py` ↔ `x.py`, `a/BTest.java` ↔ `a/B.java`.
    TestMirroredPath,
    /// Named in one of the test's assertions.
    TestMention,
    /// From a SCIP index (a compiler-grade indexer): the reference is the
    /// indexer's, the enclosing definition and the edge's kind Fathom's.
    Scip,
    /// Inferred by Fathom's resolver and confirmed by a SCIP index.
    ScipConfirmed,
    /// The definition a declaration declares: the same name, kind and
    /// scope. Last, so that bundles written before it still decode.
    Declared,
}

impl Reason {
    pub const ALL: [Reason; 19] = [
        Reason::Syntax,
        Reason::ImportResolved,
        Reason::ReceiverTyped,
        Reason::ReceiverNamed,
        Reason::SameFile,
        Reason::SamePackage,
        Reason::UniqueName,
        Reason::AmbiguousName,
        Reason::Inherited,
        Reason::External,
        Reason::Lombok,
        Reason::TestCalls,
        Reason::TestImports,
        Reason::TestNaming,
        Reason::TestMirroredPath,
        Reason::TestMention,
        Reason::Scip,
        Reason::ScipConfirmed,
        Reason::Declared,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reason::Syntax => "syntax",
            Reason::ImportResolved => "import-resolved",
            Reason::ReceiverTyped => "receiver-typed",
            Reason::ReceiverNamed => "receiver-named",
            Reason::SameFile => "same-file",
            Reason::SamePackage => "same-package",
            Reason::UniqueName => "unique-name",
            Reason::AmbiguousName => "ambiguous-name",
            Reason::Inherited => "inherited",
            Reason::External => "external",
            Reason::Lombok => "lombok",
            Reason::TestCalls => "test-calls",
            Reason::TestImports => "test-imports",
            Reason::TestNaming => "test-naming",
            Reason::TestMirroredPath => "test-mirrored-path",
            Reason::TestMention => "test-mention",
            Reason::Scip => "scip",
            Reason::ScipConfirmed => "scip-confirmed",
            Reason::Declared => "declared",
        }
    }

    fn description(self) -> &'static str {
        match self {
            Reason::Syntax => "read off the syntax tree (confidence 1)",
            Reason::ImportResolved => "through an import that resolved inside the archive",
            Reason::ReceiverTyped => "the receiver's type is known (self/this, typed parameter, field or local)",
            Reason::ReceiverNamed => {
                "the receiver's type is unknown but its name is the class's (subscriber → Subscriber)"
            }
            Reason::SameFile => "the name is defined in the same file",
            Reason::SamePackage => "the name is defined in the same package or namespace",
            Reason::UniqueName => "the only definition with this name in the archive",
            Reason::AmbiguousName => "one of several same-named candidates; every candidate is kept",
            Reason::Inherited => "found on a supertype of the receiver's class",
            Reason::External => "the target lies outside the archive",
            Reason::Lombok => "generated by a Lombok annotation",
            Reason::TestCalls => "the test calls it, directly or through helpers (up to 3 hops, damped)",
            Reason::TestImports => "the test uses a name that its file imports from it",
            Reason::TestNaming => "the test is named after it (test_parse ↔ parse, ParserTest ↔ Parser)",
            Reason::TestMirroredPath => "the test's file mirrors its file (tests/test_x.py ↔ x.py)",
            Reason::TestMention => "one of the test's assertions names it",
            Reason::Scip => "from a SCIP index, a compiler-grade indexer's reference (confidence 1)",
            Reason::ScipConfirmed => "inferred by Fathom and confirmed by a SCIP index (confidence 1)",
            Reason::Declared => {
                "the definition a declaration declares: the same name, kind and scope; the file beside it, then the parameters, decide between several"
            }
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Schema {
    pub version: u32,
    pub node_labels: Vec<LabelSchema>,
    pub edge_types: Vec<EdgeSchema>,
    pub reasons: Vec<ReasonSchema>,
    pub class_kinds: Vec<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LabelSchema {
    pub label: &'static str,
    pub description: &'static str,
    pub properties: Vec<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EdgeSchema {
    #[serde(rename = "type")]
    pub edge_type: &'static str,
    pub description: &'static str,
    pub properties: Vec<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ReasonSchema {
    pub reason: &'static str,
    pub description: &'static str,
}

/// Bumped whenever a label, property, edge type or reason changes meaning.
/// 2: `TESTS` edges and their reasons.
/// 3: `DECLARES` edges, from a declaration to its definition.
pub const SCHEMA_VERSION: u32 = 3;

const COMMON: &[&str] = &[
    "id",
    "name",
    "qualified_name",
    "file_path",
    "language",
    "start_line",
    "end_line",
    "start_byte",
    "end_byte",
    "is_external",
    "code",
];
const CALLABLE: &[&str] = &[
    "signature",
    "docstring",
    "parameters",
    "return_type",
    "modifiers",
    "visibility",
    "decorators",
    "is_test",
    "cyclomatic_complexity",
    "loc",
    "fan_in",
    "fan_out",
];

/// The schema of the graph this crate builds.
pub fn schema() -> Schema {
    let label = |kind: SymbolKind, description: &'static str, extra: &[&'static str]| LabelSchema {
        label: kind.label(),
        description,
        properties: COMMON.iter().chain(extra).copied().collect(),
    };
    let node_labels = vec![
        label(SymbolKind::Module, "one per file; `name` is the dotted or module path", &["loc"]),
        label(SymbolKind::Package, "a directory or a declared namespace", &[]),
        label(
            SymbolKind::Class,
            "a class or kin; `kind` tells which",
            &["kind", "signature", "docstring", "modifiers", "visibility", "decorators", "is_test", "loc"],
        ),
        label(SymbolKind::Function, "a free function", CALLABLE),
        label(
            SymbolKind::Method,
            "a method; constructors are flagged",
            &[CALLABLE, &["is_constructor", "synthesized"]].concat(),
        ),
        label(SymbolKind::Field, "a field of a class", &["type", "signature", "modifiers", "visibility", "docstring"]),
        label(SymbolKind::GlobalVariable, "a module-level variable or constant", &["type", "signature", "visibility"]),
        label(SymbolKind::Annotation, "a decorator or attribute, or an annotation type", &["signature"]),
    ];
    let edge_types = EdgeKind::ALL
        .iter()
        .map(|&kind| {
            let mut properties = vec!["confidence", "reason"];
            match kind {
                EdgeKind::Calls | EdgeKind::Imports | EdgeKind::Decorates => properties.push("line"),
                EdgeKind::Uses => {
                    properties.extend(["line", "access", "source_association_type", "target_association_type"])
                }
                _ => {}
            }
            EdgeSchema { edge_type: kind.label(), description: kind.description(), properties }
        })
        .collect();
    let reasons =
        Reason::ALL.iter().map(|&r| ReasonSchema { reason: r.name(), description: r.description() }).collect();
    let class_kinds = vec![
        "class",
        "interface",
        "struct",
        "enum",
        "trait",
        "record",
        "protocol",
        "module",
        "object",
        "union",
        "alias",
    ];
    Schema { version: SCHEMA_VERSION, node_labels, edge_types, reasons, class_kinds }
}
