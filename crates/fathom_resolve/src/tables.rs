//! Lookup tables over the containment graph: modules by name and path,
//! top-level symbols by module and by package, members by class, and every
//! definition by its simple name.

use std::collections::HashMap;

use fathom_graph::{CodeGraph, NodeId};
pub(crate) use fathom_model::Family;
use fathom_model::{Language, SymbolKind};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::SourceFile;

/// The tables' maps. Most are keyed by what the archive spells (names,
/// paths), and resolution asks them hundreds of thousands of times: ahash
/// with random keys is several times faster than the standard SipHash, and
/// a hostile archive still cannot choose names that collide.
pub(crate) type Map<K, V> = HashMap<K, V, ahash::RandomState>;

pub(crate) type Names = Map<String, Vec<NodeId>>;

#[derive(Default)]
pub(crate) struct Tables {
    pub module_by_name: Map<(Family, String), Vec<NodeId>>,
    pub module_by_path: Map<String, NodeId>,
    pub module_names: Map<NodeId, String>,
    /// File index by module node.
    pub file_of_module: Map<NodeId, usize>,
    /// Top-level definitions of each module.
    pub top_level: Map<NodeId, Names>,
    /// Top-level definitions of each package or namespace (Java, Kotlin, C#, PHP, Go).
    pub package_members: Map<(Family, String), Names>,
    /// The package of each file, where the language has them.
    pub package_of_file: Vec<Option<String>>,
    /// Methods and fields of each class, synthesized ones included.
    pub members: Map<NodeId, Names>,
    /// Classes, functions, methods and annotations by simple name.
    pub by_name: Map<(Family, String), Vec<NodeId>>,
    /// Type aliases by name: what each stands for, as written.
    pub aliases: Map<(Family, String), Vec<String>>,
}

impl Tables {
    pub(crate) fn build(graph: &CodeGraph, files: &[SourceFile<'_>]) -> Tables {
        let mut t = Tables::default();
        for (index, file) in files.iter().enumerate() {
            t.add_file(graph, index, file);
        }
        t
    }

    /// One file's modules, definitions and aliases: a function of its own,
    /// never inlined, for V8 to tier up between files (see [`crate::resolve`]).
    #[inline(never)]
    fn add_file(&mut self, graph: &CodeGraph, index: usize, file: &SourceFile<'_>) {
        let t = self;
        let family = Family::of(file.language);
        let module = file.nodes.module;
        t.module_by_path.insert(file.path.to_owned(), module);
        t.file_of_module.insert(module, index);
        t.module_by_name.entry((family, graph.node(module).name.clone())).or_default().push(module);
        t.module_names.insert(module, graph.node(module).name.clone());
        let package = package_of(file);
        for (at, definition) in file.facts.definitions.iter().enumerate() {
            let id = file.nodes.definitions[at];
            let name = definition.name.as_str();
            let parent = definition.parent.map(|p| (file.nodes.definitions[p], file.facts.definitions[p].kind));
            match parent {
                None | Some((_, SymbolKind::Package)) => {
                    push_named(t.top_level.entry(module).or_default(), name, id);
                    let namespace = match parent {
                        Some((p, _)) => Some(graph.node(p).qualified_name.clone()),
                        None => package.clone(),
                    };
                    if let Some(namespace) = namespace {
                        push_named(t.package_members.entry((family, namespace)).or_default(), name, id);
                    }
                }
                Some((class, SymbolKind::Class)) => push_named(t.members.entry(class).or_default(), name, id),
                Some(_) => {}
            }
            // A definition inside a function is visible only there: it is
            // found through its scope, never by name from elsewhere.
            let local = std::iter::successors(definition.parent, |&p| file.facts.definitions[p].parent)
                .any(|p| file.facts.definitions[p].kind.is_callable());
            if !local
                && matches!(
                    definition.kind,
                    SymbolKind::Class | SymbolKind::Function | SymbolKind::Method | SymbolKind::Annotation
                )
            {
                t.by_name.entry((family, name.to_owned())).or_default().push(id);
            }
        }
        for alias in &file.facts.aliases {
            // The same alias declared again (a header and its amalgamated
            // copy) still stands for one thing.
            let meanings = t.aliases.entry((family, alias.name.clone())).or_default();
            if !meanings.contains(&alias.written) {
                meanings.push(alias.written.clone());
            }
        }
        t.package_of_file.push(package);
    }

    /// Records a member attached by resolution (Go receivers, Rust `impl`s).
    pub(crate) fn add_member(&mut self, class: NodeId, name: &str, member: NodeId) {
        push_named(self.members.entry(class).or_default(), name, member);
    }

    /// Puts each linked declaration's definition in its place (`stand_in`:
    /// declaration → definition), once per list: what finds the
    /// declaration by name, module, namespace or class finds the definition.
    pub(crate) fn stand_in(&mut self, stand_in: &FxHashMap<NodeId, NodeId>) {
        if stand_in.is_empty() {
            return;
        }
        let replace = |ids: &mut Vec<NodeId>| {
            if ids.iter().any(|id| stand_in.contains_key(id)) {
                let mut seen = FxHashSet::default();
                ids.retain_mut(|id| {
                    *id = stand_in.get(id).copied().unwrap_or(*id);
                    seen.insert(*id)
                });
            }
        };
        let names =
            self.top_level.values_mut().chain(self.package_members.values_mut()).chain(self.members.values_mut());
        names.flat_map(|n| n.values_mut()).for_each(replace);
        self.by_name.values_mut().for_each(replace);
    }
}

/// A file's package: declared (Java, Kotlin, C#, PHP) or its folder (Go).
fn package_of(file: &SourceFile<'_>) -> Option<String> {
    match file.language {
        Language::Go => Some(file.path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned()),
        _ => file.facts.package.clone(),
    }
}

/// Adds `id` under `name`, copying the name only when it is new there (an
/// `entry` takes an owned key even when the name is present: overloads,
/// and the same name declared in each file of a package).
fn push_named(names: &mut Names, name: &str, id: NodeId) {
    match names.get_mut(name) {
        Some(ids) => ids.push(id),
        None => {
            names.insert(name.to_owned(), vec![id]);
        }
    }
}
