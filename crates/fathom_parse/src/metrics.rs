//! Cyclomatic complexity, the nodes that stand in a member's place
//! (`a.b`'s `b`), which name no variable, and where the comments are.
//!
//! All come from the query cursor's one pass over the tree, which visits
//! every node anyway: the patterns here are generated from the profile and
//! appended to the language's queries. A second walk over every node cost
//! 37 % as much as the cursor (instructions, on Django's `db` package; 8 %
//! of indexing all of Django); these patterns add 4 % to the cursor.

use std::collections::BTreeSet;
use std::num::NonZeroU16;

use fathom_model::Definition;
use rustc_hash::FxHashSet;
use tree_sitter::{Node, Query};

use crate::order::Capture;
use crate::profile::Profile;
use crate::references::Scopes;
use crate::text::is_comment;

const LOGICAL_OPERATORS: [&str; 5] = ["&&", "||", "and", "or", "??"];

/// The fields whose node is the member part of `a.b`, a keyword argument's
/// name, a property key or an import's alias.
const MEMBER_FIELDS: [&str; 6] = ["attribute", "property", "field", "name", "key", "alias"];

const BRANCH: &str = "metrics.branch";
const LOGICAL: &str = "metrics.logical";
const MEMBER: &str = "metrics.member";
const COMMENT: &str = "metrics.comment";

/// The patterns for one grammar, to append to its queries:
/// - the profile's branch kinds, as one alternation;
/// - its binary-expression kinds, which are branches when their operator is
///   a logical one (checked on each match: the text decides);
/// - the grammar's comment kinds ([`is_comment`]);
/// - a node of the profile's variable kinds in any member field. Naming the
///   kind matters: the cursor starts a pattern with a wildcard parent only
///   at nodes of its child's kind, where `(_ name: _)` would start at every
///   node (it doubled the cursor's cost on Django).
///
/// A kind that names both a construct and a keyword token (Ruby's `if`
/// node and its `if` token) counts as the construct only; a keyword with no
/// construct of its name (Java's `case`) counts itself. Kinds the grammar
/// lacks are left out.
pub(crate) fn patterns(profile: &Profile, grammar: &tree_sitter::Language) -> String {
    let node = |kind: &&str| -> Option<String> {
        if grammar.id_for_node_kind(kind, true) != 0 {
            Some(format!("({kind})"))
        } else if grammar.id_for_node_kind(kind, false) != 0 {
            Some(format!("\"{}\"", kind.replace('\\', "\\\\").replace('"', "\\\"")))
        } else {
            None
        }
    };
    let mut out = String::new();
    let branches: Vec<String> = profile.branches.iter().filter_map(node).collect();
    if !branches.is_empty() {
        out.push_str(&format!("[{}] @{BRANCH}\n", branches.join(" ")));
    }
    let logical: Vec<String> =
        profile.binary_expressions.iter().filter(|kind| !profile.branches.contains(kind)).filter_map(node).collect();
    if !logical.is_empty() && grammar.field_id_for_name("operator").is_some() {
        out.push_str(&format!("[{}] @{LOGICAL}\n", logical.join(" ")));
    }
    // Each kind once: a grammar may give several symbols one name.
    let comments: BTreeSet<&str> = (0..grammar.node_kind_count() as u16)
        .filter(|&id| grammar.node_kind_is_named(id) && grammar.node_kind_is_visible(id))
        .filter_map(|id| grammar.node_kind_for_id(id))
        .filter(|kind| is_comment(kind))
        .collect();
    if !comments.is_empty() {
        let kinds: Vec<String> = comments.iter().map(|kind| format!("({kind})")).collect();
        out.push_str(&format!("[{}] @{COMMENT}\n", kinds.join(" ")));
    }
    let variables: Vec<String> =
        profile.variables.iter().filter(|kind| grammar.id_for_node_kind(kind, true) != 0).filter_map(node).collect();
    if !variables.is_empty() {
        for field in MEMBER_FIELDS {
            if grammar.field_id_for_name(field).is_some() {
                out.push_str(&format!("(_ {field}: [{}] @{MEMBER})\n", variables.join(" ")));
            }
        }
    }
    out
}

/// The capture indices of the generated patterns in one compiled query.
pub(crate) struct Vocabulary {
    branch: Option<u32>,
    logical: Option<u32>,
    member: Option<u32>,
    comment: Option<u32>,
    operator: Option<NonZeroU16>,
}

impl Vocabulary {
    pub(crate) fn new(query: &Query, grammar: &tree_sitter::Language) -> Self {
        let index = |name: &str| query.capture_index_for_name(name);
        Vocabulary {
            branch: index(BRANCH),
            logical: index(LOGICAL),
            member: index(MEMBER),
            comment: index(COMMENT),
            operator: grammar.field_id_for_name("operator"),
        }
    }
}

/// What references need of the generated patterns' matches.
#[derive(Default)]
pub(crate) struct Marks {
    /// Nodes, by id, that stand in a member field of their parent.
    members: FxHashSet<usize>,
    /// Where each comment starts, in the source's order.
    comments: Vec<u32>,
}

impl Marks {
    pub(crate) fn is_member(&self, node: Node<'_>) -> bool {
        self.members.contains(&node.id())
    }

    /// Whether a comment starts within `node`.
    pub(crate) fn has_comment_in(&self, node: Node<'_>) -> bool {
        let start = node.start_byte() as u32;
        let at = self.comments.partition_point(|&c| c < start);
        self.comments.get(at).is_some_and(|&c| c < node.end_byte() as u32)
    }
}

/// What the generated patterns matched in one file.
#[derive(Default)]
pub(crate) struct Found {
    /// Where each branch point starts.
    branches: Vec<u32>,
    marks: Marks,
}

impl Found {
    pub(crate) fn add<'t>(&mut self, vocabulary: &Vocabulary, captures: impl Iterator<Item = Capture<'t>>, text: &str) {
        for (index, node) in captures {
            let index = Some(index);
            if index == vocabulary.member {
                self.marks.members.insert(node.id());
            } else if index == vocabulary.comment {
                self.marks.comments.push(node.start_byte() as u32);
            } else if index == vocabulary.branch || (index == vocabulary.logical && is_logical(vocabulary, node, text))
            {
                self.branches.push(node.start_byte() as u32);
            }
        }
    }

    /// Sets `complexity` (1 + branch points) on every function and method,
    /// and returns the [`Marks`] references need. `scopes` are those of
    /// `definitions`.
    pub(crate) fn finish(self, scopes: &Scopes, definitions: &mut [Definition]) -> Marks {
        let mut counts = vec![0u32; definitions.len()];
        for at in self.branches {
            if let Some(owner) = callable_around(scopes, at, definitions) {
                counts[owner] += 1;
            }
        }
        for (definition, count) in definitions.iter_mut().zip(counts) {
            if definition.kind.is_callable() {
                definition.complexity = Some(1 + count);
            }
        }
        // The cursor hands comments on in the source's order; sorting
        // costs nothing then, and keeps the lookup right if it did not.
        let mut marks = self.marks;
        marks.comments.sort_unstable();
        marks
    }
}

fn is_logical(vocabulary: &Vocabulary, node: Node<'_>, text: &str) -> bool {
    vocabulary
        .operator
        .and_then(|field| node.child_by_field_id(field.get()))
        .is_some_and(|op| LOGICAL_OPERATORS.contains(&text.get(op.start_byte()..op.end_byte()).unwrap_or_default()))
}

/// The innermost function or method around `at`; a branch in a class body
/// outside any method counts for nobody.
fn callable_around(scopes: &Scopes, at: u32, definitions: &[Definition]) -> Option<usize> {
    scopes.innermost(at, definitions).filter(|&i| definitions[i].kind.is_callable())
}

#[cfg(test)]
mod tests {
    use fathom_model::Language;

    use crate::lang;

    /// The kinds that `references.scm`'s bare `@use` patterns capture, read
    /// off the text: the node before each `@use`, `(kind)` or an
    /// alternation of them. A node with a `@use.name` inside is no bare use.
    fn bare_use_kinds(source: &str) -> Vec<String> {
        let code: String =
            source.lines().map(|l| l.split(';').next().unwrap_or_default()).collect::<Vec<_>>().join(" ");
        let bytes = code.as_bytes();
        let mut kinds = Vec::new();
        for (at, _) in code.match_indices("@use") {
            if code[at + "@use".len()..].starts_with('.') {
                continue;
            }
            let end = code[..at].trim_end().len();
            let (open, close) = match bytes.get(end.wrapping_sub(1)) {
                Some(b')') => (b'(', b')'),
                Some(b']') => (b'[', b']'),
                _ => continue, // a string or a wildcard: no kind to name
            };
            let mut depth = 0;
            let start = (0..end)
                .rev()
                .find(|&i| {
                    if bytes[i] == close {
                        depth += 1;
                    } else if bytes[i] == open {
                        depth -= 1;
                    }
                    depth == 0
                })
                .expect("balanced");
            let group = &code[start..end];
            if group.contains("@use.") {
                continue;
            }
            if open == b'(' {
                kinds.extend(group[1..].split([' ', '(', ')']).find(|k| !k.is_empty()).map(str::to_owned));
            } else {
                kinds.extend(group.split(['(', ')', '[', ']', ' ']).filter(|k| !k.is_empty()).map(str::to_owned));
            }
        }
        kinds
    }

    /// Every kind a bare `@use` captures is one of the profile's variables,
    /// so a member in its place is never taken for a use.
    #[test]
    fn variables_cover_what_bare_uses_capture() {
        for language in Language::ALL {
            let profile = lang::profile(language);
            for kind in bare_use_kinds(profile.references) {
                assert!(profile.variables.contains(&kind.as_str()), "{}: ({kind}) @use", language.name());
            }
        }
    }

    #[test]
    fn bare_use_kinds_are_read_off_the_patterns() {
        let source = "(identifier) @use\n(call (name) @use.name) @use\n[(a) (b)] @use ; (c) @use\n(x (y) @use)\n((z) @use (#eq? @use \"q\"))";
        assert_eq!(bare_use_kinds(source), ["identifier", "a", "b", "y", "z"]);
    }
}
