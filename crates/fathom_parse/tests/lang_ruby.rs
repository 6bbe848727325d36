//! Ruby extraction over the `tests/fixtures/lang-ruby` mini repository.

mod common;

use common::{parse_fixture_file, render_bare_uses};
use fathom_model::{SymbolKind, Visibility};

#[test]
fn lang_ruby_fixture() {
    assert_fixture_snapshots!("lang-ruby");
}

#[test]
fn ruby_constructors_visibility_and_tests() {
    let cart = parse_fixture_file("lang-ruby", "lib/shop/cart.rb").facts;
    let find = |name: &str| cart.definitions.iter().find(|d| d.name == name).unwrap();
    assert!(find("initialize").is_constructor);
    assert_eq!(find("Cart").class_kind.map(|k| k.name()), Some("class"));
    assert_eq!(find("Shop").class_kind.map(|k| k.name()), Some("module"));
    assert_eq!(find("add").visibility, Some(Visibility::Public));
    assert_eq!(find("log").visibility, Some(Visibility::Private), "methods after `private` are private");
    assert_eq!(find("empty?").visibility, Some(Visibility::Public), "a later `public` wins");

    let spec = parse_fixture_file("lang-ruby", "spec/cart_spec.rb").facts;
    let tests: Vec<&str> = spec.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["adds a product", "returns the cart"]);

    let minitest = parse_fixture_file("lang-ruby", "test/order_test.rb").facts;
    let tests: Vec<(&str, SymbolKind)> =
        minitest.definitions.iter().filter(|d| d.is_test).map(|d| (d.name.as_str(), d.kind)).collect();
    assert_eq!(
        tests,
        [
            ("OrderTest", SymbolKind::Class),
            ("test_total_of_empty_order_is_zero", SymbolKind::Method),
            ("test_pay", SymbolKind::Method)
        ]
    );
}

/// `if`, `while`, `when`, `rescue` and the other statement forms are named
/// nodes that contain an anonymous keyword token of the same kind (`if`);
/// only the named node is a branch.
#[test]
fn ruby_complexity_counts_each_branch_once() {
    let order = parse_fixture_file("lang-ruby", "lib/shop/order.rb").facts;
    let cc = |name: &str| order.definitions.iter().find(|d| d.name == name).and_then(|d| d.complexity);
    assert_eq!(cc("total"), Some(2), "one `unless` modifier");
    assert_eq!(cc("pay!"), Some(4), "two `when`s and a `rescue`");
    let cart = parse_fixture_file("lang-ruby", "lib/shop/cart.rb").facts;
    let cc = |name: &str| cart.definitions.iter().find(|d| d.name == name).and_then(|d| d.complexity);
    assert_eq!(cc("checkout"), Some(3), "a `while` modifier and `&&`");
}

#[test]
fn ruby_bare_uses_skip_method_names_after_a_receiver() {
    let cart = parse_fixture_file("lang-ruby", "lib/shop/cart.rb").facts;
    let uses = render_bare_uses(&cart);
    let checkout: Vec<&str> = uses.lines().filter(|l| l.starts_with("checkout: ")).collect();
    assert_eq!(
        checkout,
        ["checkout: Order", "checkout: @customer", "checkout: @items", "checkout: order", "checkout: sum"]
    );
    assert!(!uses.contains(": private") && !uses.contains(": public"), "visibility keywords are not uses:\n{uses}");
}
