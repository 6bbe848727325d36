//! "Where is the code this bug report is about?": files, best first, each
//! with the evidence that put it there.
//!
//! The localiser borrows the index; it does not extend it. Its stages run
//! in one direction:
//! 1. **report reading** ([`crate::issue`], [`crate::traces`]): the report
//!    apart, as prose, code, names, phrases, frames and logged locations;
//! 2. **file roles** ([`crate::roles`], built with the index): what each
//!    file is, from the project's layout and content;
//! 3. **evidence lanes** ([`evidence`]): each part of the report as
//!    evidence about files:
//!    - the words, by BM25 over the chunks, grouped to files by their best
//!      chunk, with a little of the next ones;
//!    - the names the report uses, resolved to definitions: a name defined
//!      in one place says more than one defined in twenty (`specificity`),
//!      and a name written in code or imported more than one that only
//!      looks like code in prose;
//!    - the modules and files it names (`from a.b import c`, `a/b.py`, the
//!      word `L031` for `rules/L031.py`);
//!    - the frames of its traces that lie in the repository, and the lines
//!      its diagnostics and logs name;
//!    - the graph: a file one call, import or inheritance away from a named
//!      definition gets a damped share of that definition's evidence
//!      (fixes often land one hop from the name the report gives);
//! 4. **ranking** ([`rank`]): the evidence weighed into one score, scaled
//!    by the file's role (tests, docs, examples, build scripts and code
//!    that is not the project's own stay findable, below the source);
//! 5. **explaining** ([`explain`]): the reasons, in words, and the
//!    definitions to open.

pub mod evidence;
pub mod explain;
pub mod rank;

pub use evidence::{Evidence, FileEvidence, Named};
pub use explain::{Explained, LocatedSymbol};
pub use rank::{Located, WEIGHTS, Weights};

use crate::chunks::Sources;
use crate::issue::Issue;
use crate::retrieval::{Lane, Meaning, Retrieval};
pub use crate::roles::Role;

/// A report's localiser over one index.
pub struct Localiser<'a> {
    pub(crate) index: &'a Retrieval,
    pub(crate) sources: &'a dyn Sources,
}

impl<'a> Localiser<'a> {
    pub fn new(index: &'a Retrieval, sources: &'a dyn Sources) -> Localiser<'a> {
        Localiser { index, sources }
    }

    /// Gathers the evidence about every file a report points at. With
    /// `meaning`, the dense lane adds its own: MiniLM's where
    /// `query_vector`, the report's embedding, is given and the chunks are
    /// embedded, else the static table's where it is built, even at weight
    /// 0 (for studying it, as `make eval`'s dump does).
    pub fn evidence(&self, text: &str, query_vector: Option<&[f32]>, meaning: bool) -> Evidence {
        let lane = if meaning { self.index.lane(text, query_vector, None) } else { None };
        self.gather(text, lane.as_ref())
    }

    /// The lane a report's ranking reads, of the lane a search has: none
    /// where [`WEIGHTS`] gives it no weight, so that no report is embedded
    /// or scanned for nothing.
    pub(crate) fn weighed<'l, 'r>(lane: Option<&'l Lane<'r>>) -> Option<&'l Lane<'r>> {
        lane.filter(|l| match l.meaning() {
            Meaning::Minilm | Meaning::MinilmCandidates => WEIGHTS.dense > 0.0,
            Meaning::Static => WEIGHTS.statics > 0.0,
        })
    }

    /// Files for a bug report, best first, at most `k`, each explained; the
    /// report as it was read; and whose embeddings took part, if any did.
    pub fn locate(
        &self,
        text: &str,
        query_vector: Option<&[f32]>,
        k: usize,
    ) -> (Issue, Option<Meaning>, Vec<Explained>) {
        let lane = self.index.lane(text, query_vector, None);
        let lane = Self::weighed(lane.as_ref());
        let Evidence { issue, files } = self.gather(text, lane);
        let located = WEIGHTS.rank(files);
        (issue, lane.map(Lane::meaning), located.into_iter().take(k).map(|l| self.explain(text, l)).collect())
    }
}
