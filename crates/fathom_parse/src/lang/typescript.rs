use crate::lang::javascript;
use crate::profile::Profile;

pub(crate) static PROFILE: Profile =
    Profile { grammar: grammar!(tree_sitter_typescript::LANGUAGE_TYPESCRIPT), ..TSX_PROFILE };

/// JavaScript's profile, with TypeScript's grammar and queries.
pub(crate) static TSX_PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_typescript::LANGUAGE_TSX),
    definitions: concat!(
        include_str!("../../queries/typescript/definitions.scm"),
        include_str!("../../queries/ecmascript/tests.scm")
    ),
    references: concat!(
        include_str!("../../queries/ecmascript/references.scm"),
        include_str!("../../queries/typescript/references.scm")
    ),
    declaration_files: &[".d.ts", ".d.mts", ".d.cts"],
    ..javascript::PROFILE
};
