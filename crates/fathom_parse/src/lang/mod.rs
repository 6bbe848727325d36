//! One module per language: its grammar, its queries and its profile.

/// A language's grammar, where this build carries grammars (the feature
/// `grammars`); a viewer build, which only reads prebuilt bundles, carries
/// none, and whatever would parse says so.
macro_rules! grammar {
    ($language:expr) => {{
        #[cfg(feature = "grammars")]
        fn load() -> Option<tree_sitter::Language> {
            Some($language.into())
        }
        #[cfg(not(feature = "grammars"))]
        fn load() -> Option<tree_sitter::Language> {
            None
        }
        load
    }};
}

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

/// The words `language`'s grammar spells as tokens of its own: every
/// anonymous token that reads as an identifier (`return`, `typename`,
/// `noexcept`), from the grammar itself rather than a hand list. Some are
/// keywords only in context (C++'s `override`, Python's `match`): see
/// [`reserved_words`].
pub fn grammar_words(language: Language) -> Vec<String> {
    if language == Language::Text {
        return Vec::new();
    }
    let Some(grammar) = (profile(language).grammar)() else { return Vec::new() };
    let mut words: Vec<String> = (0..grammar.node_kind_count() as u16)
        .filter(|&id| !grammar.node_kind_is_named(id) && grammar.node_kind_is_visible(id))
        .filter_map(|id| grammar.node_kind_for_id(id))
        .filter(|word| {
            let mut chars = word.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        .map(str::to_owned)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The words no definition in `language` is named after: its grammar's
/// words less the few its profile leaves unreserved, where the profile says
/// its grammar's words are reserved (C, C++); empty elsewhere.
pub fn reserved_words(language: Language) -> std::collections::HashSet<String> {
    let unreserved = if language == Language::Text { None } else { profile(language).unreserved };
    let Some(unreserved) = unreserved else { return std::collections::HashSet::new() };
    grammar_words(language).into_iter().filter(|word| !unreserved.contains(&word.as_str())).collect()
}
