//! PHP extraction over the `tests/fixtures/lang-php` mini repository.

mod common;

use common::{parse_fixture_file, render_bare_uses};
use fathom_model::{SymbolKind, Visibility};

#[test]
fn lang_php_fixture() {
    assert_fixture_snapshots!("lang-php");
}

#[test]
fn php_members_constructors_and_tests() {
    let customer = parse_fixture_file("lang-php", "src/Model/Customer.php").facts;
    let fields: Vec<(&str, Option<&str>, Option<Visibility>)> = customer
        .definitions
        .iter()
        .filter(|d| d.kind == SymbolKind::Field && d.parent.is_some_and(|p| customer.definitions[p].name == "Customer"))
        .map(|d| (d.name.as_str(), d.type_name.as_deref(), d.visibility))
        .collect();
    assert_eq!(
        fields,
        [
            ("name", Some("string"), Some(Visibility::Private)),
            ("tier", Some("Tier"), Some(Visibility::Public)),
            ("email", Some("?string"), Some(Visibility::Protected)),
            ("phone", Some("?string"), Some(Visibility::Protected)),
        ]
    );
    let ctor = customer.definitions.iter().find(|d| d.name == "__construct").unwrap();
    assert!(ctor.is_constructor);
    let params: Vec<(Option<&str>, Option<&str>)> =
        ctor.parameters.iter().map(|p| (p.name.as_deref(), p.type_name.as_deref())).collect();
    assert_eq!(params, [(Some("id"), Some("int")), (Some("name"), Some("string"))]);

    let invoice = parse_fixture_file("lang-php", "src/Model/Invoice.php").facts;
    let promoted = invoice.definitions.iter().find(|d| d.name == "customer").unwrap();
    assert_eq!((promoted.kind, promoted.type_name.as_deref()), (SymbolKind::Field, Some("Customer")));
    assert_eq!(
        invoice.definitions[promoted.parent.unwrap()].name,
        "Invoice",
        "a promoted parameter is a field of the class"
    );

    let test = parse_fixture_file("lang-php", "tests/InvoiceTest.php").facts;
    let tests: Vec<&str> = test.definitions.iter().filter(|d| d.is_test).map(|d| d.name.as_str()).collect();
    assert_eq!(tests, ["InvoiceTest", "testTotalSumsLines", "emptyInvoiceIsZero", "stringFormIsMoney"]);
}

#[test]
fn php_bare_uses_and_typed_locals() {
    let billing = parse_fixture_file("lang-php", "src/Service/Billing.php").facts;
    let uses = render_bare_uses(&billing);
    assert!(uses.lines().any(|l| l == "sum: Record"), "a class name in `instanceof` is a use:\n{uses}");
    assert!(!uses.lines().any(|l| l.ends_with(": this")), "`$this` is no variable:\n{uses}");
    let locals: Vec<(&str, String)> = billing.locals.iter().map(|l| (l.name.as_str(), l.type_of.to_string())).collect();
    assert_eq!(locals, [("invoice", "Invoice".to_owned())]);
    let calls: Vec<(Option<&str>, &str)> =
        billing.calls.iter().map(|c| (c.receiver.map(|r| billing.name(r)), billing.name(c.name))).collect();
    assert!(calls.contains(&(Some("invoice"), "addLine")), "a plain variable receiver loses its `$`: {calls:?}");
    assert!(calls.contains(&(Some("record"), "total")));
}
