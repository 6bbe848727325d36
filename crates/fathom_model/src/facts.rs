//! What one pass over one file yields: its definitions, and the raw references
//! (imports, calls, uses, typed locals) that resolution turns into edges.
//! Every fact carries its span; nothing here is resolved yet.

use crate::{ClassKind, Span, SymbolKind, Visibility};

/// Everything extracted from one file, in one pass over one syntax tree.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileFacts {
    /// In source order, parents before their children.
    pub definitions: Vec<Definition>,
    pub imports: Vec<Import>,
    pub calls: Vec<CallSite>,
    pub uses: Vec<Use>,
    /// Local variables whose type is written or evident (`x = Foo()`).
    pub locals: Vec<Local>,
    /// The package or namespace the file declares (`package a.b;`), if any.
    pub package: Option<String>,
    /// Supertypes declared apart from the type: Rust's `impl Trait for Type`.
    pub impls: Vec<Implementation>,
    /// Type aliases: `type PartialObserver<T> = NextObserver<T> | ...`.
    pub aliases: Vec<TypeAlias>,
    /// The names and receivers that calls and uses spell, each once: they
    /// hold a [`Name`] into this list. A file says `self` or `request`
    /// hundreds of times; it is kept, and sent between workers, once.
    pub names: Vec<String>,
}

/// A name or receiver of a call or use: its place in [`FileFacts::names`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Name(pub u32);

impl FileFacts {
    /// How `name` is spelled.
    pub fn name(&self, name: Name) -> &str {
        &self.names[name.0 as usize]
    }
}

/// A named type that stands for another written type.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TypeAlias {
    pub name: String,
    pub written: String,
    pub span: Span,
}

/// `impl Trait for Type`: `type_name` implements `base`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Implementation {
    pub type_name: String,
    pub base: BaseRef,
}

/// One definition, as the parser reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Definition {
    pub kind: SymbolKind,
    /// Set for [`SymbolKind::Class`].
    pub class_kind: Option<ClassKind>,
    pub name: String,
    /// Index of the innermost enclosing definition in the same file's list.
    pub parent: Option<usize>,
    /// The type a method belongs to when it is declared outside it: Go's
    /// receiver type, the type of a Rust `impl` block.
    pub owner: Option<String>,
    pub span: Span,
    /// The span of the name alone.
    pub name_span: Span,
    /// The declaration without its body, whitespace collapsed.
    pub signature: Option<String>,
    pub docstring: Option<String>,
    pub parameters: Vec<Parameter>,
    pub return_type: Option<String>,
    /// The declared type of a field or global.
    pub type_name: Option<String>,
    /// Keywords such as `static`, `final`, `async`, `abstract`.
    pub modifiers: Vec<String>,
    pub visibility: Option<Visibility>,
    pub decorators: Vec<Decorator>,
    pub bases: Vec<BaseRef>,
    pub is_constructor: bool,
    pub is_test: bool,
    /// Declares without defining: a C or C++ prototype or member
    /// declaration, an `extern` variable, a TypeScript overload signature or
    /// ambient declaration, anything in a `.d.ts` file. Resolution links it
    /// to its definition where the archive holds one (a `DECLARES` edge).
    pub declaration: bool,
    /// McCabe: one plus the branch points, for functions and methods.
    pub complexity: Option<u32>,
    /// Non-blank lines in the span.
    pub loc: u32,
    /// Why a member that the source does not spell out exists.
    pub synthesized: Option<Synthesized>,
}

/// What generates a member that the source does not spell out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Synthesized {
    /// The accessors and constructors of Lombok's `@Data`, `@Getter`, ...
    Lombok,
}

impl Synthesized {
    pub fn as_str(self) -> &'static str {
        match self {
            Synthesized::Lombok => "lombok",
        }
    }
}

impl Definition {
    /// A definition with only the essentials set; the rest empty.
    pub fn new(kind: SymbolKind, name: impl Into<String>, parent: Option<usize>, span: Span) -> Definition {
        Definition {
            kind,
            class_kind: None,
            name: name.into(),
            parent,
            owner: None,
            span,
            name_span: span,
            signature: None,
            docstring: None,
            parameters: Vec::new(),
            return_type: None,
            type_name: None,
            modifiers: Vec::new(),
            visibility: None,
            decorators: Vec::new(),
            bases: Vec::new(),
            is_constructor: false,
            is_test: false,
            declaration: false,
            complexity: None,
            loc: span.end_line.saturating_sub(span.start_line) + 1,
            synthesized: None,
        }
    }
}

/// One formal parameter: its text as written (`String username`), and the
/// name and type when the grammar tells them apart.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Parameter {
    pub text: String,
    pub name: Option<String>,
    pub type_name: Option<String>,
}

/// A decorator, annotation or attribute applied to a definition.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decorator {
    /// The name as written, without `@`, `#[` or arguments: `functools.cache`.
    pub name: String,
    /// The argument text, parentheses included, if any.
    pub arguments: Option<String>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BaseKind {
    Inherits,
    Implements,
}

/// A supertype named in a class header.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BaseRef {
    /// As written, type arguments removed: `base.Model`, `Repository`.
    pub name: String,
    pub kind: BaseKind,
    pub span: Span,
}

/// One imported name (or whole module) of an import statement.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The module as written: `./format.js`, `..util.strings`, `java.util.List`.
    pub source: String,
    /// The imported symbol, for `from m import name` and `import {name}`.
    pub name: Option<String>,
    /// The local name it is bound to, when renamed.
    pub alias: Option<String>,
    /// `from m import *`, `import m.*`, `export * from`.
    pub wildcard: bool,
    /// `export ... from`: the name is re-exported.
    pub reexport: bool,
    pub span: Span,
}

impl Import {
    /// The local name the import binds, if any.
    pub fn local_name(&self) -> Option<&str> {
        self.alias.as_deref().or(self.name.as_deref())
    }
}

/// A call site.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CallSite {
    /// The innermost enclosing definition (`None` at module level).
    pub caller: Option<usize>,
    /// The called name: `add` in `calc.add(1)`.
    pub name: Name,
    /// The receiver expression as written: `calc`, `self`, `this.repo`.
    pub receiver: Option<Name>,
    /// Argument count, for telling overloads apart.
    pub arguments: u32,
    /// `new Foo()`, or a struct literal: the callee is a type.
    pub instantiates: bool,
    pub span: Span,
}

/// A read or write of a name that may be a field or a global.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Use {
    pub user: Option<usize>,
    pub name: Name,
    /// `self`, `this` or another receiver, for member accesses.
    pub receiver: Option<Name>,
    pub write: bool,
    pub span: Span,
}

/// A local binding whose type is written or evident: `User u = ...`,
/// `const s = new Store()`, `calc = Calculator()`, or a callback's parameter.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Local {
    pub scope: Option<usize>,
    pub name: String,
    pub type_of: LocalType,
    pub span: Span,
}

/// Where a local's type comes from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LocalType {
    /// Written, or the class instantiated: `User`, `Subscriber<T> | null`.
    Written(String),
    /// Whatever the named function returns or class constructs: `x = make()`.
    CallResult(String),
    /// A parameter of a function passed as an argument, typed by the callee's
    /// declaration (`operate((source, subscriber) => ...)`): the callee, the
    /// argument's position, and the parameter's position within it.
    CallbackParameter { callee: String, argument: u32, parameter: u32 },
}

impl std::fmt::Display for LocalType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocalType::Written(t) => write!(f, "{t}"),
            LocalType::CallResult(callee) => write!(f, "{callee}()"),
            LocalType::CallbackParameter { callee, argument, parameter } => {
                write!(f, "{callee}(arg {argument}, param {parameter})")
            }
        }
    }
}
