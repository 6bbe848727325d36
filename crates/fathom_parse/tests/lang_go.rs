//! Go extraction over the `lang-go` fixture: one snapshot per file.

mod common;

use common::parse;
use fathom_model::{Language, SymbolKind};

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
