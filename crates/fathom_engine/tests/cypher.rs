//! The Cypher subset over a real index: the five queries of issue 4 exactly
//! as written, the other clauses, and the limits that guard the engine.

mod common;

use std::collections::BTreeMap;

use common::{fixture, index_dir};
use fathom_engine::{CypherErrorKind, Index, QueryResult};
use serde_json::{Value, json};

fn run(index: &Index, query: &str) -> QueryResult {
    index.query(query, &BTreeMap::new()).unwrap_or_else(|e| panic!("{query}\n{e}"))
}

/// The rows as sorted strings, for order-free comparison.
fn rows(result: &QueryResult) -> Vec<String> {
    let mut rows: Vec<String> = result.rows.iter().map(|r| Value::Array(r.clone()).to_string()).collect();
    rows.sort();
    rows
}

#[test]
fn the_five_queries_of_the_issue_return_the_right_rows() {
    let index = index_dir(&fixture("query-mixed"));

    let methods = run(
        &index,
        "MATCH (mod:MODULE {name: 'pkg.calc'}) MATCH (mod)-[:CONTAINS]->(cls:CLASS {name: 'Calculator'}) MATCH (cls)-[:HAS_METHOD]->(method:METHOD) RETURN method.name",
    );
    assert_eq!(methods.columns, ["method.name"]);
    assert_eq!(rows(&methods), [r#"["__init__"]"#, r#"["add"]"#, r#"["subtract"]"#]);

    let fields = run(&index, "MATCH (c:CLASS {name: 'Calculator'})-[:HAS_FIELD]->(f) RETURN f.name, f.code");
    assert_eq!(rows(&fields), [r#"["precision","precision = 2"]"#, r#"["total","self.total = 0"]"#]);

    let add = run(&index, "MATCH (m:METHOD {name: 'add'}) RETURN m.code");
    assert_eq!(add.rows, [[json!("def add(self, amount):\n        self.total += amount\n        return self")]]);

    let callers = run(
        &index,
        "MATCH (m)-[:CALLS]->(t:METHOD) WHERE t.name = 'findByUsername' AND t.parameters = ['String username', 'User currentUser'] RETURN m.name, m.file_path",
    );
    let file = "src/main/java/com/acme/UserService.java";
    assert_eq!(rows(&callers), [format!(r#"["audit","{file}"]"#), format!(r#"["lookup","{file}"]"#)]);

    let inherits = run(&index, "MATCH (a:CLASS)-[:INHERITS*1..3]->(b:CLASS) RETURN a.name, collect(b.name)");
    let mut chains: Vec<(String, Vec<String>)> = inherits
        .rows
        .iter()
        .map(|r| {
            let mut bases: Vec<String> =
                r[1].as_array().unwrap().iter().map(|b| b.as_str().unwrap().to_owned()).collect();
            bases.sort();
            (r[0].as_str().unwrap().to_owned(), bases)
        })
        .collect();
    chains.sort();
    assert_eq!(
        chains,
        [
            ("GraphingCalculator".to_owned(), vec!["Calculator".to_owned(), "ScientificCalculator".to_owned()]),
            ("ScientificCalculator".to_owned(), vec!["Calculator".to_owned()]),
        ]
    );
}

#[test]
fn clauses_functions_and_parameters() {
    let index = index_dir(&fixture("query-mixed"));
    let ordered = run(
        &index,
        "MATCH (c:CLASS) WHERE c.name =~ '.*Calculator' AND c.file_path STARTS WITH 'pkg/' RETURN c.name AS name ORDER BY name DESC SKIP 1 LIMIT 1",
    );
    assert_eq!(
        (ordered.columns.as_slice(), ordered.rows.as_slice()),
        (&["name".to_owned()][..], &[vec![json!("GraphingCalculator")]][..])
    );

    let counted = run(
        &index,
        "MATCH (m:METHOD)<-[:HAS_METHOD]-(c:CLASS) RETURN c.name, count(*) AS methods ORDER BY methods DESC, c.name",
    );
    assert_eq!(counted.rows[0], [json!("UserService"), json!(4)], "a constructor and three methods");
    assert_eq!(counted.rows[1], [json!("Calculator"), json!(3)]);

    let mut params = BTreeMap::new();
    params.insert("names".to_owned(), json!(["add", "power"]));
    let by_param = index
        .query("MATCH (m:METHOD) WHERE m.name IN $names RETURN DISTINCT toLower(m.name) AS n ORDER BY n", &params)
        .unwrap();
    assert_eq!(by_param.rows, [[json!("add")], [json!("power")]]);

    let optional = run(&index, "MATCH (c:CLASS {name: 'User'}) OPTIONAL MATCH (c)-[:INHERITS]->(b) RETURN c.name, b");
    assert_eq!(optional.rows, [[json!("User"), Value::Null]]);

    let unwound =
        run(&index, "UNWIND [3, 1, 2] AS x WITH x WHERE x > 1 RETURN x, size('abc'), coalesce(null, x) ORDER BY x");
    assert_eq!(unwound.rows, [[json!(2), json!(3), json!(2)], [json!(3), json!(3), json!(3)]]);

    let typed =
        run(&index, "MATCH (m)-[r:CALLS|USES]->(t) WHERE m.name = 'lookup' RETURN type(r), r.reason, labels(t)");
    assert!(typed.rows.iter().any(|r| r[0] == json!("CALLS") && r[2] == json!(["METHOD"])), "{:?}", typed.rows);
}

#[test]
fn results_are_limited_and_say_so() {
    let index = index_dir(&fixture("lang-java-spring"));
    let all = run(&index, "MATCH (n) RETURN n.name");
    assert_eq!(all.rows.len(), fathom_engine::DEFAULT_LIMIT_ROWS);
    assert!(all.truncated, "the default LIMIT cut the rows, and says so");
    let few = run(&index, "MATCH (n:CLASS) RETURN n.name LIMIT 3");
    assert_eq!((few.rows.len(), few.truncated), (3, true));
    let none_cut = run(&index, "MATCH (n:CLASS {name: 'UserData'}) RETURN n.name");
    assert!(!none_cut.truncated);
}

#[test]
fn refused_and_failing_queries_leave_the_engine_usable() {
    let index = index_dir(&fixture("query-mixed"));
    let write = index.query("MATCH (n) DETACH DELETE n", &BTreeMap::new()).unwrap_err();
    assert_eq!(write.kind, CypherErrorKind::WriteClause);
    let undefined = index.query("MATCH (n) RETURN m.name", &BTreeMap::new()).unwrap_err();
    assert_eq!(undefined.kind, CypherErrorKind::Type);
    assert!(undefined.message.contains("`m` is not defined"), "{undefined}");
    // A cross product of every node with itself four times over exceeds the budget.
    let runaway = index.query("MATCH (a), (b), (c), (d), (e) RETURN count(*)", &BTreeMap::new()).unwrap_err();
    assert_eq!(runaway.kind, CypherErrorKind::Budget, "{runaway}");
    assert_eq!(run(&index, "MATCH (c:CLASS {name: 'Calculator'}) RETURN c.name").rows, [[json!("Calculator")]]);
}

#[test]
fn a_pattern_bound_at_its_end_matches_the_same_rows_from_either_side() {
    let index = index_dir(&fixture("query-mixed"));
    // `caller` is unbound and `f` bound: the engine walks the edge backwards from `f`.
    let backwards =
        run(&index, "MATCH (f:METHOD {name: 'findByUsername'}) MATCH (caller)-[:CALLS]->(f) RETURN caller.name");
    let forwards = run(&index, "MATCH (caller)-[:CALLS]->(f:METHOD {name: 'findByUsername'}) RETURN caller.name");
    assert_eq!(rows(&backwards), rows(&forwards));
    assert_eq!(rows(&backwards), [r#"["audit"]"#, r#"["lookup"]"#, r#"["lookupAnonymously"]"#]);
}

#[test]
fn where_equalities_prune_early_with_the_same_rows() {
    let index = index_dir(&fixture("query-mixed"));
    let inline = run(&index, "MATCH (c:CLASS {name: 'Calculator'})-[:HAS_METHOD]->(m) RETURN m.name");
    let late = run(&index, "MATCH (c:CLASS)-[:HAS_METHOD]->(m) WHERE c.name = 'Calculator' RETURN m.name");
    let mirrored =
        run(&index, "MATCH (c:CLASS)-[:HAS_METHOD]->(m) WHERE 'Calculator' = c.name AND m.name <> 'add' RETURN m.name");
    assert_eq!(rows(&inline), rows(&late));
    assert_eq!(rows(&mirrored), [r#"["__init__"]"#, r#"["subtract"]"#]);
    // Comparing two variables is not pushed down, and still filters.
    let joined = run(&index, "MATCH (a:CLASS), (b:CLASS) WHERE a.name = b.name RETURN count(*)");
    let classes = run(&index, "MATCH (a:CLASS) RETURN count(*)");
    assert_eq!(joined.rows, classes.rows);
    // A later MATCH's WHERE prunes the earlier MATCH too, with the same rows.
    let across = run(&index, "MATCH (c:CLASS) MATCH (c)-[:HAS_METHOD]->(m) WHERE c.name = 'Calculator' RETURN m.name");
    assert_eq!(rows(&across), rows(&inline));
    let optional = run(
        &index,
        "MATCH (c:CLASS {name: 'User'}) OPTIONAL MATCH (c)-[:HAS_FIELD]->(f) WHERE f.name = 'nope' RETURN c.name, f",
    );
    assert_eq!(optional.rows, [[json!("User"), Value::Null]]);
}
