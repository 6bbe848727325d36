//! The containment skeleton: one module per file, its definitions, and the
//! syntax edges between them.

use fathom_model::{FileFacts, Language, Span, SymbolKind};

use crate::naming::{PythonPackages, module_name, qualified_root, separator};
use crate::{CodeGraph, Details, Edge, EdgeKind, FileEntry, Node, NodeId, Reason};

/// One file's facts, ready to be added.
pub struct FileInput<'a> {
    pub path: &'a str,
    pub language: Language,
    /// The whole file, for the module node's span.
    pub text: &'a str,
    pub facts: &'a FileFacts,
}

/// The nodes a file's facts became: index `i` of `definitions` is the node
/// of the file's `i`-th definition.
#[derive(Clone, Debug)]
pub struct FileNodes {
    pub module: NodeId,
    pub definitions: Vec<NodeId>,
}

impl CodeGraph {
    /// Builds the containment graph of a whole repository. `progress(done,
    /// total)` is called once per file.
    pub fn build(inputs: &[FileInput<'_>], progress: &mut dyn FnMut(usize, usize)) -> (CodeGraph, Vec<FileNodes>) {
        let all_paths: Vec<&str> = inputs.iter().map(|f| f.path).collect();
        let packages = PythonPackages::new(&all_paths);
        let mut graph = CodeGraph::default();
        let mut nodes = Vec::with_capacity(inputs.len());
        for (done, input) in inputs.iter().enumerate() {
            progress(done, inputs.len());
            nodes.push(graph.add_file(input, &packages));
        }
        graph.add_directories(inputs, &nodes);
        progress(inputs.len(), inputs.len());
        (graph, nodes)
    }

    /// One `PACKAGE` per folder that holds source files, containing its
    /// subfolders' packages and its files' modules.
    fn add_directories(&mut self, inputs: &[FileInput<'_>], nodes: &[FileNodes]) {
        let mut folders: std::collections::BTreeMap<String, NodeId> = std::collections::BTreeMap::new();
        for (input, file_nodes) in inputs.iter().zip(nodes) {
            let Some((dir, _)) = input.path.rsplit_once('/') else { continue };
            let mut child = file_nodes.module;
            let mut current = dir;
            loop {
                let (id, existed) = match folders.get(current) {
                    Some(&id) => (id, true),
                    None => {
                        let name = current.rsplit('/').next().unwrap_or(current);
                        let id = self.add_node(Node {
                            kind: SymbolKind::Package,
                            class_kind: None,
                            name: name.to_owned(),
                            qualified_name: current.to_owned(),
                            file: None,
                            language: input.language,
                            span: Span::default(),
                            is_external: false,
                            details: None,
                        });
                        folders.insert(current.to_owned(), id);
                        (id, false)
                    }
                };
                self.add_edge(id, child, Edge::syntax(EdgeKind::Contains));
                if existed {
                    break;
                }
                let Some((parent, _)) = current.rsplit_once('/') else { break };
                child = id;
                current = parent;
            }
        }
    }

    /// Never inlined, for V8 to tier it up between files (see
    /// `fathom_resolve::resolve`).
    #[inline(never)]
    fn add_file(&mut self, input: &FileInput<'_>, packages: &PythonPackages) -> FileNodes {
        let facts = input.facts;
        let package = facts.package.as_deref();
        let module = module_name(input.path, input.language, package, packages);
        let file =
            self.push_file(FileEntry { path: input.path.to_owned(), language: input.language, module: NodeId::end() });
        let counted = fathom_model::count_lines(input.text);
        let lines = counted.lines.max(1);
        let module_node = self.add_node(Node {
            kind: SymbolKind::Module,
            class_kind: None,
            name: module.clone(),
            qualified_name: module.clone(),
            file: Some(file),
            language: input.language,
            span: Span { start_line: 1, end_line: lines, start_byte: 0, end_byte: input.text.len() as u32 },
            is_external: false,
            details: Some(Box::new(Details { loc: counted.code, ..Details::default() })),
        });
        self.set_file_module(file, module_node);
        let root = qualified_root(input.language, &module, package);
        let sep = separator(input.language);
        let mut ids: Vec<NodeId> = Vec::with_capacity(facts.definitions.len());
        for definition in &facts.definitions {
            let parent = definition.parent.map(|at| ids[at]);
            let prefix = match parent {
                Some(p) => self.node(p).qualified_name.clone(),
                None => root.clone(),
            };
            let qualified_name =
                if prefix.is_empty() { definition.name.clone() } else { format!("{prefix}{sep}{}", definition.name) };
            let node = self.add_node(Node {
                kind: definition.kind,
                class_kind: definition.class_kind,
                name: definition.name.clone(),
                qualified_name,
                file: Some(file),
                language: input.language,
                span: definition.span,
                is_external: false,
                details: Some(Box::new(Details {
                    signature: definition.signature.as_deref().map(Box::from),
                    docstring: definition.docstring.as_deref().map(Box::from),
                    parameters: definition.parameters.as_slice().into(),
                    return_type: definition.return_type.as_deref().map(Box::from),
                    type_name: definition.type_name.as_deref().map(Box::from),
                    modifiers: definition.modifiers.as_slice().into(),
                    visibility: definition.visibility,
                    decorators: definition.decorators.iter().map(|d| d.name.clone()).collect(),
                    is_test: definition.is_test,
                    is_constructor: definition.is_constructor,
                    complexity: definition.complexity,
                    loc: definition.loc,
                    synthesized: definition.synthesized.map(fathom_model::Synthesized::as_str),
                    owner: definition.owner.as_deref().map(Box::from),
                })),
            });
            let container = parent.unwrap_or(module_node);
            let edge = match (self.node(container).kind, definition.kind) {
                (SymbolKind::Class, SymbolKind::Method) => EdgeKind::HasMethod,
                (SymbolKind::Class, SymbolKind::Field) => EdgeKind::HasField,
                _ => EdgeKind::Contains,
            };
            let edge = match definition.synthesized.map(fathom_model::Synthesized::as_str) {
                Some("lombok") => Edge::inferred(edge, 1.0, Reason::Lombok, None),
                _ => Edge::syntax(edge),
            };
            self.add_edge(container, node, edge);
            ids.push(node);
        }
        FileNodes { module: module_node, definitions: ids }
    }
}
