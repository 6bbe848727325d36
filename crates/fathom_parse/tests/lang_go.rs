//! Go extraction over the `lang-go` fixture: one snapshot per file.

mod common;

use common::parse;
use fathom_model::{ClassKind, Language, SymbolKind};

#[test]
fn lang_go_fixture() {
    assert_fixture_snapshots!("lang-go");
}

#[test]
fn go_methods_belong_to_their_receiver_type_and_tests_follow_go_test() {
    let source = "package x\n\ntype Stack[T any] struct{ items []T }\n\nfunc (s *Stack[T]) Push(v T) {}\n\nfunc TestPush(t *testing.T) {}\nfunc Testify(t *testing.T) {}\n";
    let parsed = parse(Language::Go, "stack_test.go", source);
    let push = parsed.facts.definitions.iter().find(|d| d.name == "Push").unwrap();
    assert_eq!(push.kind, SymbolKind::Method);
    assert_eq!(push.owner.as_deref(), Some("Stack"));
    let tests: Vec<&str> = parsed.facts.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["TestPush"]);
    let outside = parse(Language::Go, "stack.go", source);
    assert!(outside.facts.definitions.iter().all(|d| !d.is_test), "only _test.go files hold tests");
}

#[test]
fn type_aliases_alone_and_in_a_group_are_symbols() {
    let source = "package mcp\n\n// CacheConf is an alias of ClusterConf.\ntype CacheConf = ClusterConf\n\n// Re-exported SDK types.\ntype (\n\tTool = sdkmcp.Tool\n\tTextContent = sdkmcp.TextContent\n\tCelsius float64\n)\n";
    let parsed = parse(Language::Go, "mcp/types.go", source);
    let found: Vec<(&str, SymbolKind, Option<ClassKind>)> =
        parsed.facts.definitions.iter().map(|d| (d.name.as_str(), d.kind, d.class_kind)).collect();
    assert_eq!(
        found,
        [
            ("CacheConf", SymbolKind::Class, Some(ClassKind::Alias)),
            ("Tool", SymbolKind::Class, Some(ClassKind::Alias)),
            ("TextContent", SymbolKind::Class, Some(ClassKind::Alias)),
            ("Celsius", SymbolKind::Class, Some(ClassKind::Class)),
        ]
    );
    let alias = &parsed.facts.definitions[0];
    assert_eq!(alias.docstring.as_deref(), Some("CacheConf is an alias of ClusterConf."));
}
