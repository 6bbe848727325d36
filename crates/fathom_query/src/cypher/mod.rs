//! The guarded, read-only Cypher subset.
//!
//! Parsing is `opencypher`'s (see ARCHITECTURE.md for why); this module
//! stands between it and a query a stranger or an agent wrote. A query is
//! refused, with a message that names the cause and where it is, when:
//! - it does not parse (line, column and the expected token);
//! - it would write (`CREATE`, `MERGE`, `SET`, `DELETE`, `DETACH DELETE`,
//!   `REMOVE`, `DROP`, `LOAD CSV`, `FOREACH`, `CALL`);
//! - a relationship pattern is unbounded (`*`, `*1..`) or allows more than
//!   [`crate::MAX_DEPTH`] hops;
//! - it is longer or nests deeper than the parser can take safely.
//!
//! An accepted query then runs over the graph (`exec`), within a budget of
//! work, returning at most a default or capped number of rows.

mod exec;
mod guard;
mod value;

pub use exec::{DEFAULT_LIMIT, QueryResult, ROW_CAP, Reads, STEP_BUDGET, Source, run, run_reading};
pub use guard::{CypherError, CypherErrorKind, parse};
