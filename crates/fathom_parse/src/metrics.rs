//! Cyclomatic complexity, from one iterative walk over the whole tree: no
//! recursion, so deeply nested code cannot overflow the stack.

use fathom_model::Definition;
use tree_sitter::Node;

use crate::profile::Profile;
use crate::references::Scopes;

const LOGICAL_OPERATORS: [&str; 5] = ["&&", "||", "and", "or", "??"];

/// Sets `complexity` (1 + branch points) on every function and method.
pub(crate) fn complexity(profile: &Profile, root: Node<'_>, text: &str, definitions: &mut [Definition]) {
    let scopes = Scopes::new(definitions);
    let mut branches = vec![0u32; definitions.len()];
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if is_branch(profile, node, text)
            && let Some(owner) = callable_around(&scopes, node.start_byte() as u32, definitions)
        {
            branches[owner] += 1;
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
    for (definition, count) in definitions.iter_mut().zip(branches) {
        if definition.kind.is_callable() {
            definition.complexity = Some(1 + count);
        }
    }
}

fn is_branch(profile: &Profile, node: Node<'_>, text: &str) -> bool {
    let kind = node.kind();
    // A keyword token may share its name with a named construct (Ruby's
    // `if` node and its `if` token): then only the construct counts. A
    // keyword with no construct of its name (Java's `case`) counts itself.
    if !node.is_named() && node.language().id_for_node_kind(kind, true) != 0 {
        return false;
    }
    if profile.branches.contains(&kind) {
        return true;
    }
    profile.binary_expressions.contains(&kind)
        && node
            .child_by_field_name("operator")
            .is_some_and(|op| LOGICAL_OPERATORS.contains(&&text[op.start_byte()..op.end_byte()]))
}

/// The innermost function or method around `at`; a branch in a class body
/// outside any method counts for nobody.
fn callable_around(scopes: &Scopes, at: u32, definitions: &[Definition]) -> Option<usize> {
    scopes.innermost(at, definitions).filter(|&i| definitions[i].kind.is_callable())
}
