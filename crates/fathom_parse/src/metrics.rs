//! The one walk over every node of a tree, iterative so that deeply nested
//! code cannot overflow the stack. It yields cyclomatic complexity, and the
//! nodes that stand in a member's place (`a.b`'s `b`), which name no variable.

use std::num::NonZeroU16;

use fathom_model::Definition;
use rustc_hash::FxHashSet;
use tree_sitter::{Node, TreeCursor};

use crate::profile::Profile;
use crate::references::Scopes;

const LOGICAL_OPERATORS: [&str; 5] = ["&&", "||", "and", "or", "??"];

/// The fields whose node is the member part of `a.b`, a keyword argument's
/// name, a property key or an import's alias.
const MEMBER_FIELDS: [&str; 6] = ["attribute", "property", "field", "name", "key", "alias"];

/// What each node kind and field of one grammar counts for, looked up by id:
/// the walk visits every node of every file, so it compares no strings.
pub(crate) struct NodeTable {
    /// By kind id.
    kinds: Vec<Branch>,
    operator: Option<NonZeroU16>,
    member_fields: Vec<NonZeroU16>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Branch {
    No,
    Yes,
    /// A binary expression: a branch when its operator is a logical one.
    IfLogical,
}

impl NodeTable {
    pub(crate) fn new(profile: &Profile, grammar: &tree_sitter::Language) -> Self {
        let kinds = (0..grammar.node_kind_count() as u16)
            .map(|id| {
                let Some(kind) = grammar.node_kind_for_id(id) else { return Branch::No };
                // A keyword token may share its name with a named construct
                // (Ruby's `if` node and its `if` token): then only the
                // construct counts. A keyword with no construct of its name
                // (Java's `case`) counts itself.
                if !grammar.node_kind_is_named(id) && grammar.id_for_node_kind(kind, true) != 0 {
                    Branch::No
                } else if profile.branches.contains(&kind) {
                    Branch::Yes
                } else if profile.binary_expressions.contains(&kind) {
                    Branch::IfLogical
                } else {
                    Branch::No
                }
            })
            .collect();
        let member_fields = MEMBER_FIELDS.iter().filter_map(|field| grammar.field_id_for_name(field)).collect();
        NodeTable { kinds, operator: grammar.field_id_for_name("operator"), member_fields }
    }

    fn is_branch(&self, cursor: &TreeCursor<'_>, text: &str) -> bool {
        let node = cursor.node();
        match self.kinds.get(node.kind_id() as usize).copied().unwrap_or(Branch::No) {
            Branch::No => false,
            Branch::Yes => true,
            Branch::IfLogical => {
                self.operator.and_then(|field| node.child_by_field_id(field.get())).is_some_and(|op| {
                    LOGICAL_OPERATORS.contains(&text.get(op.start_byte()..op.end_byte()).unwrap_or_default())
                })
            }
        }
    }
}

/// Nodes, by id, that stand in a member field of their parent.
pub(crate) type Members = FxHashSet<usize>;

/// Sets `complexity` (1 + branch points) on every function and method, and
/// returns the nodes that are [`Members`].
pub(crate) fn walk(table: &NodeTable, root: Node<'_>, text: &str, definitions: &mut [Definition]) -> Members {
    let scopes = Scopes::new(definitions);
    let mut counts = vec![0u32; definitions.len()];
    let mut members = Members::default();
    let mut cursor = root.walk();
    'walk: loop {
        if table.is_branch(&cursor, text)
            && let Some(owner) = callable_around(&scopes, cursor.node().start_byte() as u32, definitions)
        {
            counts[owner] += 1;
        }
        if cursor.field_id().is_some_and(|field| table.member_fields.contains(&field)) {
            members.insert(cursor.node().id());
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    for (definition, count) in definitions.iter_mut().zip(counts) {
        if definition.kind.is_callable() {
            definition.complexity = Some(1 + count);
        }
    }
    members
}

/// The innermost function or method around `at`; a branch in a class body
/// outside any method counts for nobody.
fn callable_around(scopes: &Scopes, at: u32, definitions: &[Definition]) -> Option<usize> {
    scopes.innermost(at, definitions).filter(|&i| definitions[i].kind.is_callable())
}
