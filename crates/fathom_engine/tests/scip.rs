//! SCIP indexes read into the graph: a real index from scip-python 0.6.6
//! (`tests/fixtures/scip-python`, made by `scripts/dev/scip-fixture.sh`)
//! over a package whose one call syntax cannot pin down.

mod common;

use std::collections::BTreeMap;

use common::{Recorder, fixture, zip_folder};
use fathom_engine::{Index, Options, ScipIndex, pipeline, read_scip};

fn index(archive: &[u8], scip: Vec<ScipIndex>) -> Index {
    pipeline::stage_zip("scip-python.zip", archive, &Options::default(), &mut Recorder::new())
        .unwrap()
        .with_scip(scip)
        .index(&mut Recorder::new())
}

fn scip() -> ScipIndex {
    let bytes = std::fs::read(fixture("scip-python/index.scip")).unwrap();
    read_scip("index.scip", &bytes).unwrap()
}

/// `caller → callee: reason` for every CALLS edge.
fn calls(index: &Index) -> Vec<String> {
    let result = index
        .query(
            "MATCH (a)-[r:CALLS]->(b) RETURN a.qualified_name, b.qualified_name, r.reason, r.confidence \
             ORDER BY a.qualified_name, b.qualified_name",
            &BTreeMap::new(),
        )
        .unwrap();
    result
        .rows
        .iter()
        .map(|row| {
            let text = |i: usize| row[i].as_str().unwrap().to_owned();
            format!("{} -> {}: {} {:.2}", text(0), text(1), text(2), row[3].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn scip_pins_down_the_call_syntax_could_not_and_adds_what_it_missed() {
    let archive = zip_folder(&fixture("scip-python"), "scip-python");
    let heuristic = index(&archive, Vec::new());
    // From syntax alone: `view.render(order)` is either class's `render`.
    let before = calls(&heuristic);
    assert!(
        before.contains(&"shop.checkout.print_receipt -> shop.views.OrderView.render: ambiguous-name 0.30".into()),
        "{before:#?}"
    );
    assert!(heuristic.summary().scip.is_none());

    let precise = index(&archive, vec![scip()]);
    let after = calls(&precise);
    assert_eq!(
        after,
        [
            // The index's own edge: a call Fathom leaves to the core library.
            "shop.checkout.print_receipt -> python-stdlib@3.11:builtins.str.upper: scip 1.00",
            // Fathom's inferences, confirmed.
            "shop.checkout.print_receipt -> shop.factory.make_receipt: scip-confirmed 1.00",
            "shop.checkout.print_receipt -> shop.views.ReceiptView.render: scip-confirmed 1.00",
            "shop.factory.make_receipt -> shop.views.ReceiptView: scip-confirmed 1.00",
        ],
        "{after:#?}"
    );
    // The contradicted candidate is gone, so its callers are right.
    let wrong = precise.callers("shop.views.OrderView.render", 1).unwrap();
    assert!(wrong.is_empty(), "{wrong:#?}");
    let right = precise.callers("shop.views.ReceiptView.render", 1).unwrap();
    assert_eq!(
        right.iter().map(|r| r.node.qualified_name.as_str()).collect::<Vec<_>>(),
        ["shop.checkout.print_receipt"]
    );

    let report = precise.summary().scip.as_ref().unwrap();
    assert_eq!(report.sources[0].tool, "scip-python");
    assert_eq!(report.sources[0].version, "0.6.6");
    assert_eq!(report.covered, ["shop/__init__.py", "shop/checkout.py", "shop/factory.py", "shop/views.py"]);
    assert_eq!((report.dropped, report.definitions_unmatched), (1, 0));
    assert_eq!(report.added.get("CALLS"), Some(&1));
    // Fathom's own calls against the index, before it changed them: every
    // site the index resolved holds its target (the ambiguous `render` by
    // one of its two candidates), and every internal call was found.
    let agreed = &report.agreement.calls;
    assert_eq!(
        (agreed.judged, agreed.agreed, agreed.ambiguous, agreed.ambiguous_agreed, agreed.index_edges, agreed.found),
        (3, 3, 1, 1, 3, 3),
        "{agreed:#?}"
    );
    assert_eq!((agreed.precision(), agreed.recall()), (Some(1.0), Some(1.0)));
    assert!(agreed.wrong_by_cause.is_empty() && agreed.missed_by_cause.is_empty(), "{agreed:#?}");

    // A bundle keeps the edges, and in its header what the index covered.
    let bytes = precise.to_bundle();
    let header = fathom_engine::bundle::read_header(&bytes).unwrap();
    assert_eq!(header.scip.as_ref(), Some(report));
    let loaded = Index::from_bundle(&bytes).unwrap();
    assert_eq!(calls(&loaded), after);
    assert_eq!(loaded.summary().scip.as_ref(), Some(report));
}

#[test]
fn an_index_of_another_revision_is_set_aside_where_it_differs() {
    // views.py gained two lines at its top since the index was made.
    let dir = std::env::temp_dir().join(format!("fathom-scip-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("shop")).unwrap();
    for name in ["__init__.py", "checkout.py", "factory.py", "views.py"] {
        let text = std::fs::read_to_string(fixture("scip-python/shop").join(name)).unwrap();
        let text = if name == "views.py" { format!("import os\n\n{text}") } else { text };
        std::fs::write(dir.join("shop").join(name), text).unwrap();
    }
    let archive = zip_folder(&dir, "scip-python");
    std::fs::remove_dir_all(&dir).unwrap();
    let precise = index(&archive, vec![scip()]);
    let report = precise.summary().scip.as_ref().unwrap();
    assert_eq!(report.sources[0].stale, ["shop/views.py"]);
    assert!(!report.covered.contains(&"shop/views.py".to_owned()));
    // Its symbols are unknown, so the call into it keeps Fathom's reading.
    let after = calls(&precise);
    assert!(
        after.contains(&"shop.checkout.print_receipt -> shop.views.OrderView.render: ambiguous-name 0.30".into()),
        "{after:#?}"
    );
}

#[test]
fn a_damaged_index_is_refused_with_its_cause() {
    let bytes = std::fs::read(fixture("scip-python/index.scip")).unwrap();
    for (what, bytes) in [
        ("cut in half", bytes[..bytes.len() / 2].to_vec()),
        ("random bytes", (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect()),
        ("empty", Vec::new()),
    ] {
        let err = read_scip("index.scip", &bytes).err().unwrap_or_else(|| panic!("{what}: read"));
        let text = err.to_string();
        assert!(text.starts_with("`index.scip` is"), "{what}: {text}");
        assert!(text.contains("not a readable SCIP index") || text.contains("empty"), "{what}: {text}");
    }
}
