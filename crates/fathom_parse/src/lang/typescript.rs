use crate::lang::javascript::{BRANCHES, is_test, visibility};
use crate::profile::{Docstrings, Profile, synthesize_nothing};

pub(crate) static PROFILE: Profile =
    Profile { grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), ..TSX_PROFILE };

pub(crate) static TSX_PROFILE: Profile = Profile {
    grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
    definitions: include_str!("../../queries/typescript/definitions.scm"),
    references: concat!(
        include_str!("../../queries/ecmascript/references.scm"),
        include_str!("../../queries/typescript/references.scm")
    ),
    branches: BRANCHES,
    binary_expressions: &["binary_expression"],
    comments: &["comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &["export_statement"],
    implicit_parameters: &[],
    visibility,
    is_constructor: |name, _| name == "constructor",
    is_test,
    synthesize: synthesize_nothing,
};
