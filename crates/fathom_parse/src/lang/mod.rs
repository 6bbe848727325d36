//! One module per language: its grammar, its queries and its profile.

mod c;
mod cpp;
mod csharp;
mod go;
mod java;
mod javascript;
mod kotlin;
mod php;
mod python;
mod ruby;
mod rust;
mod typescript;

use fathom_model::Language;

use crate::profile::Profile;

/// A parsed language's profile. [`Language::Text`] has none: it is read as
/// lines (`crate::text_test`), and every caller checks for it first.
pub(crate) fn profile(language: Language) -> &'static Profile {
    match language {
        Language::Python => &python::PROFILE,
        Language::JavaScript => &javascript::PROFILE,
        Language::TypeScript => &typescript::PROFILE,
        Language::Tsx => &typescript::TSX_PROFILE,
        Language::Java => &java::PROFILE,
        Language::Kotlin => &kotlin::PROFILE,
        Language::CSharp => &csharp::PROFILE,
        Language::Go => &go::PROFILE,
        Language::Rust => &rust::PROFILE,
        Language::C => &c::PROFILE,
        Language::Cpp => &cpp::PROFILE,
        Language::Ruby => &ruby::PROFILE,
        Language::Php => &php::PROFILE,
        Language::Text => unreachable!("text is read as lines, with no grammar"),
    }
}
