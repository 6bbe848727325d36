//! The vocabulary shared by every stage of the pipeline. It holds plain data
//! only, so that the graph and search crates can speak of languages, spans and
//! extracted facts without depending on the parser; and what a line of code
//! is ([`count_lines`]), which parsing and the graph both count.

mod facts;
mod language;
mod lines;
mod symbol;

pub use facts::{
    BaseKind, BaseRef, CallSite, Decorator, Definition, FileFacts, Implementation, Import, Local, LocalType, Name,
    Parameter, Synthesized, TypeAlias, Use,
};
pub use language::{Family, Language};
pub use lines::{LineCount, LineStarts, count_lines};
pub use symbol::{ClassKind, Span, SymbolKind, Visibility};
