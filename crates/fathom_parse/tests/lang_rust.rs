//! Rust extraction over the `lang-rust` fixture: one snapshot per file.

mod common;

use common::parse;
use fathom_model::{Language, SymbolKind};

#[test]
fn lang_rust_fixture() {
    assert_fixture_snapshots!("lang-rust");
}

#[test]
fn rust_impl_methods_belong_to_their_type_and_trait_impls_are_recorded() {
    let source = r#"pub use crate::a::{B, C as D};
use std::fmt;

pub struct Stack<T> { items: Vec<T> }

impl<T: Clone> Stack<T> {
    pub fn push(&mut self, item: T) { self.items.push(item); }
}

impl<T> fmt::Display for Stack<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { Ok(()) }
}

#[tokio::test]
async fn pushes() { let s = Stack::<u8>::new(); }
"#;
    let parsed = parse(Language::Rust, "src/stack.rs", source);
    let facts = &parsed.facts;
    let push = facts.definitions.iter().find(|d| d.name == "push").unwrap();
    assert_eq!((push.kind, push.owner.as_deref()), (SymbolKind::Method, Some("Stack")));
    assert_eq!(push.parameters.len(), 1, "`&mut self` is implicit");
    assert_eq!(push.parameters[0].type_name.as_deref(), Some("T"));
    let fmt = facts.definitions.iter().find(|d| d.name == "fmt").unwrap();
    assert_eq!(fmt.owner.as_deref(), Some("Stack"));
    assert_eq!(facts.impls.len(), 1);
    assert_eq!((facts.impls[0].type_name.as_str(), facts.impls[0].base.name.as_str()), ("Stack", "fmt::Display"));
    let reexports: Vec<(&str, Option<&str>)> =
        facts.imports.iter().filter(|i| i.reexport).map(|i| (i.source.as_str(), i.name.as_deref())).collect();
    assert_eq!(reexports, [("crate::a", Some("B")), ("crate::a", Some("C"))]);
    assert!(facts.definitions.iter().find(|d| d.name == "pushes").unwrap().is_test);
}
