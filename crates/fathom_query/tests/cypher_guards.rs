//! The guarded parser: the read-only subset parses, and every refused form
//! is refused with a message that names it and says where.

use fathom_query::cypher::{CypherErrorKind, parse};
use proptest::prelude::*;

const ISSUE_QUERIES: [&str; 5] = [
    "MATCH (mod:MODULE {name: 'pkg.calc'}) MATCH (mod)-[:CONTAINS]->(cls:CLASS {name: 'Calculator'}) MATCH (cls)-[:HAS_METHOD]->(method:METHOD) RETURN method.name",
    "MATCH (c:CLASS {name: 'Calculator'})-[:HAS_FIELD]->(f) RETURN f.name, f.code",
    "MATCH (m:METHOD {name: 'add'}) RETURN m.code",
    "MATCH (m)-[:CALLS]->(t:METHOD) WHERE t.name = 'findByUsername' AND t.parameters = ['String username', 'User currentUser'] RETURN m.name, m.file_path",
    "MATCH (a:CLASS)-[:INHERITS*1..3]->(b:CLASS) RETURN a.name, collect(b.name)",
];

#[test]
fn the_read_only_subset_parses() {
    let more = [
        "OPTIONAL MATCH (a)-[:CALLS|USES]-(b), (b)<-[:CONTAINS]-(m:MODULE) RETURN DISTINCT a.name AS caller, count(*) ORDER BY caller DESC SKIP 1 LIMIT 10",
        "MATCH (f:FUNCTION) WHERE f.name =~ '^test_.*' AND NOT f.is_external AND f.file_path STARTS WITH 'src/' RETURN f",
        "MATCH (f) WHERE f.name IN ['a', 'b'] AND f.docstring IS NULL OR f.loc > $min RETURN labels(f), type(f), id(f)",
        "MATCH (c:CLASS) WITH c, size(c.name) AS n WHERE n > 3 UNWIND [1, 2] AS x RETURN toLower(c.name), coalesce(c.docstring, ''), x",
        "MATCH (a)-[r:CALLS*2]->(b) RETURN min(r), max(b.loc), avg(b.loc), sum(b.loc)",
        "MATCH (a)-[:CALLS*..3]->(b) RETURN b",
        "MATCH (a)-[:CALLS*1..4]->(b) RETURN b",
    ];
    for query in ISSUE_QUERIES.iter().chain(&more) {
        parse(query).unwrap_or_else(|e| panic!("{query}\n{e}"));
    }
}

#[test]
fn every_write_clause_is_refused_by_name() {
    let cases = [
        ("CREATE (n:CLASS {name: 'X'})", "CREATE"),
        ("MERGE (n:CLASS {name: 'X'}) RETURN n", "MERGE"),
        ("MATCH (n) SET n.name = 'x'", "SET"),
        ("MATCH (n) DELETE n", "DELETE"),
        ("MATCH (n) DETACH DELETE n", "DETACH DELETE"),
        ("MATCH (n) REMOVE n.name", "REMOVE"),
        ("DROP INDEX names", "DROP"),
        ("LOAD CSV FROM 'file:///x.csv' AS row RETURN row", "LOAD CSV"),
        ("MATCH (n) FOREACH (x IN [1] | SET n.x = x)", "FOREACH"),
        ("CALL db.labels()", "CALL"),
        ("MATCH (n) CALL { CREATE (m) } RETURN n", "CALL"),
        ("MATCH (n) RETURN n CREATE (m)", "CREATE"),
    ];
    for (query, clause) in cases {
        let error = parse(query).expect_err(query);
        assert_eq!(error.kind, CypherErrorKind::WriteClause, "{query}: {error}");
        assert!(error.message.starts_with(&format!("{clause} is not allowed")), "{query}: {error}");
    }
}

#[test]
fn hops_must_be_bounded_by_four() {
    for query in ["MATCH (a)-[:CALLS*]->(b) RETURN b", "MATCH (a)-[:CALLS*2..]->(b) RETURN b"] {
        let error = parse(query).expect_err(query);
        assert_eq!(error.kind, CypherErrorKind::UnboundedHops, "{query}");
        assert_eq!(error.line, 1);
        assert_eq!(error.column as usize, query.find('*').unwrap() + 1, "the error points at the range");
    }
    for query in ["MATCH (a)-[:CALLS*5]->(b) RETURN b", "MATCH (a)-[:CALLS*1..9]->(b) RETURN b"] {
        let error = parse(query).expect_err(query);
        assert_eq!(error.kind, CypherErrorKind::TooManyHops, "{query}");
    }
    let nested = "MATCH (a) WHERE exists((a)-[:CALLS*]->()) RETURN a";
    assert_eq!(parse(nested).unwrap_err().kind, CypherErrorKind::UnboundedHops, "patterns inside expressions too");
}

#[test]
fn syntax_errors_give_line_column_and_the_expected_token() {
    let error = parse("MATCH (n:CLASS\nRETURN n").unwrap_err();
    assert_eq!(error.kind, CypherErrorKind::Syntax);
    assert_eq!((error.line, error.column), (2, 1));
    assert_eq!(error.expected.as_deref(), Some("')'"));
    assert!(error.to_string().contains("line 2, column 1"), "{error}");
}

#[test]
fn oversized_and_overly_nested_queries_are_refused_before_parsing() {
    let deep = format!("RETURN {}1{}", "(".repeat(100), ")".repeat(100));
    assert_eq!(parse(&deep).unwrap_err().kind, CypherErrorKind::TooDeep);
    let quoted = format!("RETURN '{}'", "(".repeat(100));
    parse(&quoted).expect("brackets inside a string are text");
    let long = format!("RETURN '{}'", "x".repeat(30_000));
    assert_eq!(parse(&long).unwrap_err().kind, CypherErrorKind::TooLong);
}

/// Queries assembled from valid fragments, in any combination.
fn query() -> impl Strategy<Value = String> {
    let node = prop::sample::select(vec!["(a)", "(a:CLASS)", "(b:METHOD {name: 'x'})", "()", "(m:MODULE)"]);
    let rel = prop::sample::select(vec![
        "-[:CALLS]->",
        "<-[:CONTAINS]-",
        "-[r]-",
        "-[:CALLS|USES*1..4]->",
        "-[*2]->",
        "-[:INHERITS*]->",
        "-[*9]->",
    ]);
    let tail = prop::sample::select(vec![
        " RETURN a",
        " WHERE a.name = 'x' RETURN count(*)",
        " RETURN a.name ORDER BY a.name LIMIT 3",
        " WITH a UNWIND [1,2] AS x RETURN x",
        " DELETE a",
        " SET a.x = 1",
        " RETURN",
        " RETURN (",
    ]);
    (node.clone(), prop::collection::vec((rel, node), 0..4), tail, any::<bool>()).prop_map(
        |(start, chain, tail, optional)| {
            let mut q = String::from(if optional { "OPTIONAL MATCH " } else { "MATCH " });
            q += start;
            for (r, n) in chain {
                q += r;
                q += n;
            }
            q + tail
        },
    )
}

proptest! {
    #[test]
    fn generated_queries_never_panic(q in query()) {
        let _ = parse(&q);
    }

    #[test]
    fn arbitrary_text_never_panics(q in "\\PC{0,80}") {
        let _ = parse(&q);
    }
}
