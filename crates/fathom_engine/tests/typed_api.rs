//! The typed graph API (callers, callees, impact, path, neighbors, symbol)
//! on the `lang-python` fixture, whose call graph is known by heart.

mod common;

use common::{fixture, index_dir};
use fathom_engine::{Direction, EdgeKind, QueryError, Reached};

fn names(reached: &[Reached]) -> Vec<(String, u32)> {
    reached.iter().map(|r| (r.node.qualified_name.clone(), r.depth)).collect()
}

#[test]
fn callers_walk_incoming_calls_level_by_level() {
    let index = index_dir(&fixture("lang-python"));
    let direct = index.callers("Order.add", 1).unwrap();
    assert_eq!(
        names(&direct),
        [("shop.service.build_order".into(), 1), ("test_service.test_checkout_applies_discount".into(), 1)]
    );
    assert!(direct.iter().all(|r| r.path.len() == 1 && r.path[0].edge == EdgeKind::Calls));
    let save = index.callers("shop.base.Entity.save", 2).unwrap();
    let test = save.iter().find(|r| r.node.qualified_name == "test_service.test_checkout_applies_discount").unwrap();
    assert_eq!(test.depth, 2);
    let hops: Vec<(&str, &str)> = test.path.iter().map(|h| (h.from.name.as_str(), h.to.name.as_str())).collect();
    assert_eq!(hops, [("checkout", "save"), ("test_checkout_applies_discount", "checkout")]);
    let product = test.path.iter().map(|h| h.confidence).product::<f32>();
    assert!((test.confidence - product).abs() < 0.01, "a path's confidence is the product of its edges'");
}

#[test]
fn callees_and_an_overload_set_as_one_symbol() {
    let index = index_dir(&fixture("lang-python"));
    let callees = names(&index.callees("shop.service.checkout", 1).unwrap());
    assert!(callees.contains(&("shop.pricing.discount".into(), 1)));
    assert!(callees.contains(&("shop.base.Entity.save".into(), 1)), "through inheritance");
    // `discount` has three definitions (two @overload stubs): one qualified name, one symbol.
    assert_eq!(names(&index.callers("shop.pricing.discount", 1).unwrap()), [("shop.service.checkout".into(), 1)]);
}

#[test]
fn impact_reaches_dependents_of_a_class_and_its_members() {
    let index = index_dir(&fixture("lang-python"));
    let impact = names(&index.impact("shop.base.Entity", 2).unwrap());
    for dependent in ["shop.models.Order", "shop.service.checkout", "shop.models.Order.describe"] {
        assert!(impact.iter().any(|(n, _)| n == dependent), "{dependent} depends on Entity: {impact:?}");
    }
}

#[test]
fn path_follows_dependency_edges_forwards() {
    let index = index_dir(&fixture("lang-python"));
    let path = index.path("test_checkout_applies_discount", "shop.pricing.discount", 4).unwrap().unwrap();
    let hops: Vec<&str> = path.iter().map(|h| h.to.name.as_str()).collect();
    assert_eq!(hops, ["checkout", "discount"]);
    assert_eq!(index.path("shop.pricing.discount", "test_checkout_applies_discount", 4).unwrap(), None);
}

#[test]
fn neighbors_and_symbol_context() {
    let index = index_dir(&fixture("lang-python"));
    let bases = index.neighbors("shop.models.Order", &[EdgeKind::Inherits], Direction::Outgoing).unwrap();
    assert_eq!(bases.iter().map(|h| h.to.qualified_name.as_str()).collect::<Vec<_>>(), ["shop.base.Entity"]);

    let total = index.symbol("shop.models.Order.total").unwrap();
    assert_eq!(total.signature.as_deref(), Some("def total(self) -> float"));
    assert_eq!((total.cyclomatic_complexity, total.fan_in, total.fan_out), (Some(2), 2, 1));
    assert!(total.code.as_deref().unwrap().starts_with("def total(self)"));
    assert_eq!(
        total.tests.iter().map(|t| t.node.name.as_str()).collect::<Vec<_>>(),
        ["test_checkout_applies_discount"]
    );
    let order = index.symbol("shop.models.Order").unwrap();
    let members: Vec<&str> = order.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(members, ["__init__", "items", "add", "total", "describe"]);
}

#[test]
fn unknown_or_ambiguous_names_and_bad_depths_are_refused() {
    let index = index_dir(&fixture("lang-python"));
    assert_eq!(index.callers("no_such_thing", 1).unwrap_err(), QueryError::UnknownSymbol("no_such_thing".into()));
    let ambiguous = index.callers("render", 1).unwrap_err().to_string();
    assert!(
        ambiguous.contains("shop.views.OrderView.render") && ambiguous.contains("shop.views.ReceiptView.render"),
        "{ambiguous}"
    );
    assert_eq!(index.callers("checkout", 5).unwrap_err(), QueryError::Depth(5));
    assert_eq!(index.callers("checkout", 0).unwrap_err(), QueryError::Depth(0));
}
