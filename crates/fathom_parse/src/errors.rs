//! Finding where tree-sitter had to recover from invalid syntax.

use tree_sitter::Node;

use crate::SyntaxError;

/// More than this many errors in one file tells the reader nothing new.
pub(crate) const MAX_REPORTED: usize = 20;

/// The error and missing nodes under `root`, in source order, at most `max`.
pub(crate) fn collect(root: Node<'_>, max: usize) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    if !root.has_error() {
        return errors;
    }
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let error = if node.is_missing() {
            Some(format!("missing `{}`", node.kind()))
        } else if node.is_error() {
            Some("unexpected syntax".to_owned())
        } else {
            None
        };
        if let Some(message) = error {
            let at = node.start_position();
            errors.push(SyntaxError { line: at.row as u32 + 1, column: at.column as u32 + 1, message });
            if errors.len() == max {
                break;
            }
        } else if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    errors
}
