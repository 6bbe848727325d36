//! The repository map: every definition once, under its file, under its
//! directories; edges between map nodes; positions that keep a subtree near
//! its parent.

mod common;

use std::collections::HashSet;

use common::{Recorder, fixture};
use fathom_engine::map::{LEVEL_DEFINITION, LEVEL_DIRECTORY, LEVEL_FILE, LEVEL_MEMBER};
use fathom_engine::{Options, index_dir};

#[test]
fn the_map_holds_every_definition_under_its_file_and_directories() {
    let index = index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap();
    let map = index.map();
    let nodes = &map.nodes;
    let n = nodes.key.len();
    for column in
        [nodes.label.len(), nodes.kind.len(), nodes.level.len(), nodes.parent.len(), nodes.x.len(), nodes.size.len()]
    {
        assert_eq!(column, n, "every column has one entry per node");
    }
    let definitions = index.graph().nodes().filter(|(_, node)| !node.is_external && node.file.is_some()).count();
    let directories = (0..n).filter(|&i| nodes.level[i] == LEVEL_DIRECTORY).count();
    assert_eq!(n, definitions + directories);
    assert!(directories >= 5, "pkg, pkg/util, web, web/src, tests...");
    // A key is a qualified name (a directory's is its path): shared only by
    // overloads, and by a package's `__init__` module and its folder.
    let entries: HashSet<(&String, u8, u32)> = (0..n).map(|i| (&nodes.key[i], nodes.kind[i], nodes.line[i])).collect();
    assert_eq!(entries.len(), n);

    let at = |key: &str| nodes.key.iter().position(|k| k == key).unwrap_or_else(|| panic!("{key} is on the map"));
    let calc = at("pkg.calc");
    assert_eq!(nodes.level[calc], LEVEL_FILE);
    assert_eq!(nodes.label[calc], "calc.py");
    let pkg_dir = nodes.parent[calc] as usize;
    assert_eq!(map.kinds[nodes.kind[pkg_dir] as usize], "directory");
    assert_eq!((nodes.key[pkg_dir].as_str(), nodes.level[pkg_dir]), ("pkg", LEVEL_DIRECTORY));
    let class = at("pkg.calc.Calculator");
    assert_eq!((nodes.level[class], nodes.parent[class] as usize), (LEVEL_DEFINITION, calc));
    let method = at("pkg.calc.Calculator.add");
    assert_eq!((nodes.level[method], nodes.parent[method] as usize), (LEVEL_MEMBER, class));
    assert_eq!(map.kinds[nodes.kind[method] as usize], "method");
    assert_eq!(nodes.file[method], "pkg/calc.py");
    assert!(nodes.line[method] > 1);
    // Test code is marked, so the overview can draw it as its own layer.
    assert_eq!(nodes.test.len(), n);
    assert!(!nodes.test[calc] && !nodes.test[method] && !nodes.test[pkg_dir]);
    let tests: Vec<&str> = (0..n).filter(|&i| nodes.test[i]).map(|i| nodes.file[i].as_str()).collect();
    assert!(!tests.is_empty() && tests.iter().all(|f| f.starts_with("tests/")), "{tests:?}");
    let util = at("pkg/util");
    assert_eq!(nodes.parent[util] as usize, pkg_dir, "nested directories nest");

    // Edges join map nodes, and calls are among them.
    let calls = map.edge_kinds.iter().position(|k| *k == "CALLS").unwrap() as u8;
    assert!(map.edges.kind.contains(&calls));
    assert!(map.edges.source.iter().chain(&map.edges.target).all(|&i| (i as usize) < n));

    // A member sits nearer its class than the class's directory does.
    let distance = |a: usize, b: usize| ((nodes.x[a] - nodes.x[b]).powi(2) + (nodes.y[a] - nodes.y[b]).powi(2)).sqrt();
    assert!(nodes.x.iter().chain(&nodes.y).all(|v| v.is_finite()));
    assert!(distance(method, class) < distance(class, pkg_dir) + distance(pkg_dir, calc));
    assert!(nodes.size[pkg_dir] > nodes.size[method], "a directory is drawn larger than a method");
}

#[test]
fn the_file_list_counts_lines_and_definitions_in_path_order() {
    let index = index_dir(&fixture("mini-py-js"), &Options::default(), &mut Recorder::new()).unwrap();
    let files = index.file_list();
    assert_eq!(files.len(), index.summary().files);
    assert!(files.windows(2).all(|w| w[0].path < w[1].path));
    let calc = files.iter().find(|f| f.path == "pkg/calc.py").unwrap();
    assert_eq!(
        calc.lines as usize,
        std::fs::read_to_string(fixture("mini-py-js/pkg/calc.py")).unwrap().lines().count()
    );
    assert!(calc.definitions >= 4);
}
