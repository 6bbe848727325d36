//! The vocabulary shared by every stage of the pipeline. It holds plain data
//! only, so that the graph and search crates can speak of languages, spans and
//! extracted facts without depending on the parser.

mod facts;
mod language;
mod symbol;

pub use facts::{
    BaseKind, BaseRef, CallSite, Decorator, Definition, FileFacts, Implementation, Import, Local, LocalType, Name,
    Parameter, Synthesized, TypeAlias, Use,
};
pub use language::Language;
pub use symbol::{ClassKind, Span, SymbolKind, Visibility};
