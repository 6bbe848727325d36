//! The onboarding questions a Java knowledge graph must answer, asked of the
//! Spring/Lombok fixture through the graph API.

mod common;

use common::{fixture, index_dir};
use fathom_graph::{EdgeKind, Reason};
use fathom_model::SymbolKind;

fn param_types(index: &fathom_engine::Index, id: fathom_graph::NodeId) -> Vec<String> {
    let details = index.graph().node(id).details.as_ref().unwrap();
    details.parameters.iter().map(|p| p.type_name.clone().unwrap_or_default()).collect()
}

#[test]
fn which_methods_call_find_by_username_with_a_current_user() {
    let index = index_dir(&fixture("lang-java-spring"));
    let graph = index.graph();
    let overloads: Vec<_> = graph
        .nodes()
        .filter(|(_, n)| n.kind == SymbolKind::Method && n.name == "findByUsername")
        .map(|(id, _)| id)
        .collect();
    assert_eq!(overloads.len(), 2, "two overloads, two nodes");
    let two_args = *overloads.iter().find(|&&id| param_types(&index, id) == ["String", "User"]).unwrap();
    let one_arg = *overloads.iter().find(|&&id| param_types(&index, id) == ["String"]).unwrap();

    let callers = |target| {
        let mut names: Vec<String> = graph
            .incoming(target)
            .filter(|(e, _)| e.kind == EdgeKind::Calls)
            .map(|(_, caller)| graph.node(caller).qualified_name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    };
    assert_eq!(
        callers(two_args),
        [
            "com.acme.users.service.AuditService.record",
            "com.acme.users.service.UserService.lookup",
            "com.acme.users.service.UserServiceTest.lookupUsesTheRepository",
            "com.acme.users.web.UserController.profile",
        ]
    );
    assert_eq!(callers(one_arg), ["com.acme.users.service.UserService.exists"]);
}

#[test]
fn which_constructors_does_user_data_have() {
    let index = index_dir(&fixture("lang-java-spring"));
    let graph = index.graph();
    let (class, _) = graph.nodes().find(|(_, n)| n.kind == SymbolKind::Class && n.name == "UserData").unwrap();
    let mut constructors: Vec<(Vec<String>, Reason)> = graph
        .outgoing(class)
        .filter(|(e, m)| {
            e.kind == EdgeKind::HasMethod && graph.node(*m).details.as_ref().is_some_and(|d| d.is_constructor)
        })
        .map(|(e, m)| (param_types(&index, m), e.reason))
        .collect();
    constructors.sort();
    assert_eq!(
        constructors,
        [
            (vec![], Reason::Lombok),
            (vec!["Long".into(), "String".into(), "boolean".into(), "List<String>".into()], Reason::Lombok),
        ],
        "@NoArgsConstructor and @AllArgsConstructor"
    );
}
