//! PHP extraction over the `tests/fixtures/lang-php` mini repository.

mod common;

use std::path::{Path, PathBuf};

use common::{parse, render, render_bare_uses};
use fathom_model::{Language, SymbolKind, Visibility};

fn fixture_root(fixture: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(fixture)
}

/// Source files of a fixture, as sorted paths relative to its root.
fn source_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if Language::from_path(&path.to_string_lossy()).is_some() {
                out.push(path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

fn parse_fixture_file(fixture: &str, path: &str) -> fathom_parse::ParsedFile {
    let text = std::fs::read_to_string(fixture_root(fixture).join(path)).unwrap();
    let language = Language::from_path(path).unwrap();
    parse(language, path, &text)
}

#[test]
fn lang_php_fixture() {
    let fixture = "lang-php";
    let files = source_files(&fixture_root(fixture));
    assert!(files.len() >= 4, "{files:?}");
    for path in files {
        let rendered = render(&parse_fixture_file(fixture, &path));
        insta::assert_snapshot!(format!("{fixture}__{}", path.replace('/', "__")), rendered);
    }
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
        billing.calls.iter().map(|c| (c.receiver.as_deref(), c.name.as_str())).collect();
    assert!(calls.contains(&(Some("invoice"), "addLine")), "a plain variable receiver loses its `$`: {calls:?}");
    assert!(calls.contains(&(Some("record"), "total")));
}
