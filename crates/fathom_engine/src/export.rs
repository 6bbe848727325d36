//! The graph for other tools: JSON, GraphML (Gephi, yEd, Cytoscape,
//! NetworkX) or two CSV tables (nodes and edges, for spreadsheets and graph
//! databases' bulk import). Nodes carry their schema label and citation;
//! edges their type, confidence, reason and line.

use serde::Serialize;

use crate::Index;

/// One node as exported; `id` is the node's index in this graph.
#[derive(Clone, Debug, Serialize)]
pub struct ExportNode {
    pub id: u32,
    /// The Cypher label: `CLASS`, `METHOD`…
    pub label: &'static str,
    pub name: String,
    pub qualified_name: String,
    pub language: &'static str,
    pub file: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub is_external: bool,
    pub is_test: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct ExportEdge {
    pub source: u32,
    pub target: u32,
    #[serde(rename = "type")]
    pub edge_type: &'static str,
    pub confidence: f32,
    pub reason: &'static str,
    pub line: Option<u32>,
}

#[derive(Clone, Debug, Serialize)]
pub struct GraphExport {
    pub archive: String,
    pub schema_version: u32,
    pub nodes: Vec<ExportNode>,
    pub edges: Vec<ExportEdge>,
}

/// The confidence an edge needs to be written into a SCIP index: what
/// Fathom resolved with certainty, not its guesses between candidates.
pub const SCIP_MIN_CONFIDENCE: f32 = 0.9;

impl Index {
    /// The graph as a SCIP index (`fathom_scip::export`): definitions, and
    /// the edges of at least [`SCIP_MIN_CONFIDENCE`] to the project's own.
    pub fn export_scip(&self) -> fathom_scip::export::Exported {
        fathom_scip::export::export(
            &self.graph,
            &|path| self.file_text(path).map(str::to_owned),
            &self.summary.archive,
            env!("CARGO_PKG_VERSION"),
            SCIP_MIN_CONFIDENCE,
        )
    }

    /// Every node and edge of the graph, in id order.
    pub fn export_graph(&self) -> GraphExport {
        let graph = &self.graph;
        let nodes = graph
            .nodes()
            .map(|(id, node)| ExportNode {
                id: id.index() as u32,
                label: node.kind.label(),
                name: node.name.clone(),
                qualified_name: node.qualified_name.clone(),
                language: node.language.name(),
                file: graph.path_of(id).map(str::to_owned),
                start_line: node.span.start_line,
                end_line: node.span.end_line,
                is_external: node.is_external,
                is_test: node.is_test(),
            })
            .collect();
        let edges = graph
            .edges()
            .map(|(_, from, to, e)| ExportEdge {
                source: from.index() as u32,
                target: to.index() as u32,
                edge_type: e.kind.label(),
                confidence: (e.confidence * 1000.0).round() / 1000.0,
                reason: e.reason.name(),
                line: e.line,
            })
            .collect();
        GraphExport {
            archive: self.summary.archive.clone(),
            schema_version: fathom_graph::SCHEMA_VERSION,
            nodes,
            edges,
        }
    }
}

/// GraphML 1.0, with a typed key for every node and edge property.
pub fn graphml(export: &GraphExport) -> Result<String, quick_xml::Error> {
    use quick_xml::Writer;
    use quick_xml::events::{BytesDecl, BytesText, Event};

    const NODE_KEYS: [(&str, &str); 9] = [
        ("label", "string"),
        ("name", "string"),
        ("qualified_name", "string"),
        ("language", "string"),
        ("file", "string"),
        ("start_line", "int"),
        ("end_line", "int"),
        ("is_external", "boolean"),
        ("is_test", "boolean"),
    ];
    const EDGE_KEYS: [(&str, &str); 4] =
        [("type", "string"), ("confidence", "double"), ("reason", "string"), ("line", "int")];

    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("graphml")
        .with_attribute(("xmlns", "http://graphml.graphdrawing.org/xmlns"))
        .write_inner_content(|w| {
            for (domain, keys) in [("node", &NODE_KEYS[..]), ("edge", &EDGE_KEYS[..])] {
                for (name, ty) in keys {
                    w.create_element("key")
                        .with_attributes([
                            ("id", format!("{domain}_{name}").as_str()),
                            ("for", domain),
                            ("attr.name", name),
                            ("attr.type", ty),
                        ])
                        .write_empty()?;
                }
            }
            let data = |w: &mut Writer<Vec<u8>>, key: String, value: String| {
                w.create_element("data")
                    .with_attribute(("key", key.as_str()))
                    .write_text_content(BytesText::new(&value))?;
                Ok::<(), std::io::Error>(())
            };
            w.create_element("graph")
                .with_attributes([("id", export.archive.as_str()), ("edgedefault", "directed")])
                .write_inner_content(|w| {
                for n in &export.nodes {
                    w.create_element("node")
                        .with_attribute(("id", format!("n{}", n.id).as_str()))
                        .write_inner_content(|w| {
                            let values = [
                                n.label.to_owned(),
                                n.name.clone(),
                                n.qualified_name.clone(),
                                n.language.to_owned(),
                                n.file.clone().unwrap_or_default(),
                                n.start_line.to_string(),
                                n.end_line.to_string(),
                                n.is_external.to_string(),
                                n.is_test.to_string(),
                            ];
                            for ((name, _), value) in NODE_KEYS.iter().zip(values) {
                                data(w, format!("node_{name}"), value)?;
                            }
                            Ok(())
                        })?;
                }
                for (i, e) in export.edges.iter().enumerate() {
                    w.create_element("edge")
                        .with_attributes([
                            ("id", format!("e{i}").as_str()),
                            ("source", format!("n{}", e.source).as_str()),
                            ("target", format!("n{}", e.target).as_str()),
                        ])
                        .write_inner_content(|w| {
                            data(w, "edge_type".into(), e.edge_type.to_owned())?;
                            data(w, "edge_confidence".into(), e.confidence.to_string())?;
                            data(w, "edge_reason".into(), e.reason.to_owned())?;
                            if let Some(line) = e.line {
                                data(w, "edge_line".into(), line.to_string())?;
                            }
                            Ok(())
                        })?;
                }
                Ok(())
            })?;
            Ok(())
        })?;
    Ok(String::from_utf8(w.into_inner()).expect("quick-xml writes UTF-8"))
}

/// The nodes as CSV, one row each, with a header.
pub fn nodes_csv(export: &GraphExport) -> Result<String, csv::Error> {
    table(&export.nodes)
}

/// The edges as CSV (`source` and `target` are node ids), with a header.
pub fn edges_csv(export: &GraphExport) -> Result<String, csv::Error> {
    table(&export.edges)
}

fn table<T: Serialize>(rows: &[T]) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8(bytes).expect("CSV of UTF-8 strings is UTF-8"))
}
