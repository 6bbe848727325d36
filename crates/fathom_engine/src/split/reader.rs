//! A split bundle, read in parts: an [`Index`] over a sparse graph
//! ([`fathom_graph::CodeGraph::sparse`]) whose ids are the whole index's,
//! filled with what each question needs and kept for the next.
//!
//! A question is answered in steps. Each step asks the index what the
//! question reads, given what has arrived: its terms' postings and the name
//! pages of its words first; then the graph pages of every symbol a lane
//! found (their files, roles, parents and edges, and their edges' far ends
//! in brief); then the pages and texts of the symbols and files it will
//! show. Until all of it is in, the step answers [`Step::Needs`] with every
//! item that wave wants, which the caller fetches (in parallel, in any
//! order) and hands to [`SplitReader::supply`]; then it steps again. Once
//! nothing is missing the question is answered by the same ranking code as
//! a whole index, over the same numbers: BM25 reads the corpus figures in
//! the root and each term's complete postings, and every symbol the ranking
//! weighs is in place, so the answer is the whole bundle's.
//!
//! Where a question reads the whole index (a path and line, which the trace
//! lane looks up among every file; a dotted name; a filter; an
//! amalgamation's copies), the step asks for every graph or name page. That
//! is correct and costly, and rare in what a reader types.

use std::collections::{BTreeMap, HashMap, HashSet};

use fathom_graph::{CodeGraph, Edge, FileEntry, FileId, NodeId};
use fathom_model::Language;
use fathom_search::chunks::{Chunk, Part};
use fathom_search::lexical::Lexical;
use fathom_search::retrieval::{Retrieval, SearchOptions};

use super::{GraphPage, NameEntry, PostingsItem, Root, term_range};
use crate::store::{ItemRef, StoreError, open};
use crate::summary::{IndexSummary, Timings};
use crate::{Index, SearchResults};

/// An item a step waits for, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Need {
    pub item: ItemRef,
    pub what: String,
}

/// A step's outcome: the answer, or the items it needs first.
#[derive(Debug)]
pub enum Step<T> {
    Ready(T),
    Needs(Vec<Need>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Postings(usize),
    Names(usize),
    Graph(usize),
    Text(u32),
}

/// What a reader has fetched so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fetched {
    pub items: usize,
    pub bytes: u64,
}

pub struct SplitReader {
    root: Root,
    index: Index,
    postings_in: Vec<bool>,
    names_in: Vec<bool>,
    pages_in: Vec<bool>,
    texts_in: HashSet<u32>,
    /// Each file's text item, once a page has said it.
    text_refs: HashMap<u32, ItemRef>,
    /// Every edge in, by the whole graph's id, so the graph lists them in
    /// its order however they arrived.
    edges: BTreeMap<u32, (u32, u32, Edge)>,
    /// Nodes put in whole, from their own page (not in brief).
    whole: Vec<bool>,
    /// Edges or names arrived since the graph last listed them.
    dirty: bool,
    fetched: Fetched,
}

impl SplitReader {
    /// Opens a split bundle from its root's bytes; `path` is where the root
    /// came from, for errors.
    pub fn open(path: &str, root: &[u8]) -> Result<SplitReader, StoreError> {
        let root = super::read_root(path, root)?;
        let bad = |cause: String| StoreError::Undecodable {
            what: "the split bundle's root".into(),
            path: path.to_owned(),
            cause,
        };
        let header: crate::bundle::BundleHeader =
            serde_json::from_str(&root.header).map_err(|e| bad(format!("its header: {e}")))?;
        if header.graph_schema > fathom_graph::SCHEMA_VERSION {
            return Err(StoreError::Version {
                path: path.to_owned(),
                cause: format!(
                    "its graph schema v{} is newer than this build's v{}: index the project again with this build",
                    header.graph_schema,
                    fathom_graph::SCHEMA_VERSION
                ),
            });
        }
        if root.postings.is_empty() || root.names.is_empty() {
            return Err(bad("it lists no postings or no names".into()));
        }
        if root.graph.first().is_some_and(|(first, _)| *first != 0)
            || root.graph.windows(2).any(|w| w[0].0 >= w[1].0)
            || root.graph.last().is_some_and(|(first, _)| *first >= root.nodes)
        {
            return Err(bad("its graph pages do not cut the nodes in order".into()));
        }
        let (nodes, chunks, files) = (root.nodes as usize, root.chunks as usize, root.files as usize);
        let placeholder_file = FileEntry { path: String::new(), language: Language::Text, module: NodeId::end() };
        let graph = CodeGraph::sparse(nodes, vec![placeholder_file; files]);
        let placeholder_chunk = Chunk { node: NodeId::end(), part: Part::Whole, start_line: 0, end_line: 0 };
        let lexical = Lexical::sparse(root.documents as usize, root.avgdl);
        let retrieval = Retrieval::sparse(&graph, vec![placeholder_chunk; chunks], lexical);
        let summary = IndexSummary::restore(
            &header.archive,
            &graph,
            Vec::new(),
            Vec::new(),
            Default::default(),
            Timings::default(),
        );
        let index = Index {
            graph,
            retrieval,
            texts: vec![String::new(); files],
            by_path: HashMap::new(),
            summary,
            options: header.options.clone(),
            embedding_model: None,
        };
        Ok(SplitReader {
            postings_in: vec![false; root.postings.len()],
            names_in: vec![false; root.names.len()],
            pages_in: vec![false; root.graph.len()],
            root,
            index,
            texts_in: HashSet::new(),
            text_refs: HashMap::new(),
            edges: BTreeMap::new(),
            whole: vec![false; nodes],
            dirty: false,
            fetched: Fetched::default(),
        })
    }

    /// What has been fetched and supplied so far.
    pub fn fetched(&self) -> Fetched {
        self.fetched
    }

    /// The root, as read.
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// Searches as [`Index::search`] does a whole index (words alone: a split
    /// bundle carries no vectors yet), or says what it needs first.
    pub fn search_step(&mut self, query: &str, options: &SearchOptions) -> Step<SearchResults> {
        self.settle();
        let mut wants: Vec<Want> = Vec::new();
        // What the question reads from itself alone: its terms' postings and
        // its words' names.
        let reads = self.index.retrieval.query_reads(query);
        for &term in &reads.terms {
            wants.push(Want::Postings(term_range(term, self.root.postings.len())));
        }
        for word in &reads.names {
            wants.extend(self.name_pages(word).map(Want::Names));
        }
        let whole_graph = reads.locations || !options.filter.is_empty();
        if whole_graph {
            wants.extend((0..self.root.graph.len()).map(Want::Graph));
        }
        if let Some(needs) = self.needs(wants) {
            return Step::Needs(needs);
        }
        // Every symbol a lane found, with its file, parents and edges.
        let sources = self.index.sources();
        let candidates = self.index.retrieval.lane_nodes(&sources, query, options);
        let mut wants: Vec<Want> = candidates.iter().map(|&n| Want::Graph(self.page_of(n))).collect();
        // An amalgamation's copies stand in for definitions found by name
        // among every file.
        let copies = candidates.iter().any(|&n| {
            self.whole[n.index()]
                && self.index.graph.path_of(n).is_some_and(|p| !self.index.retrieval.roles().sources_of(p).is_empty())
        });
        if copies {
            wants.extend((0..self.root.graph.len()).map(Want::Graph));
        }
        if let Some(needs) = self.needs(wants) {
            return Step::Needs(needs);
        }
        // The answer's symbols in whole, and the texts it quotes.
        let ranking = self.index.rank(query, options, None, None);
        let mut wants: Vec<Want> = Vec::new();
        let files = ranking.files.iter().take(options.k);
        let shown = ranking.hits.iter().map(|h| h.node).chain(files.flat_map(|f| f.symbols.iter().copied()));
        for node in shown {
            wants.push(Want::Graph(self.page_of(node)));
            if let Some(file) = self.index.graph.node(node).file.filter(|_| self.whole[node.index()]) {
                wants.push(Want::Text(file.0));
            }
        }
        if let Some(needs) = self.needs(wants) {
            return Step::Needs(needs);
        }
        Step::Ready(self.index.search(query, options, None))
    }

    /// Puts a fetched item in. `item` is one a step asked for; its bytes
    /// are checked against it first, and refused whole.
    pub fn supply(&mut self, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        let wants = self.wants_of(item);
        if wants.is_empty() {
            return Err(StoreError::Undecodable {
                what: "an item".into(),
                path: item.path(),
                cause: "no step asked for it".into(),
            });
        }
        // Equal items share a name: each want of it is answered.
        for want in wants {
            self.put(want, item, bytes)?;
        }
        self.fetched.items += 1;
        self.fetched.bytes += bytes.len() as u64;
        Ok(())
    }

    fn put(&mut self, want: Want, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        match want {
            Want::Postings(at) => {
                let postings: PostingsItem = open("postings", item, bytes)?;
                let (chunks, lexical, _) = self.index.retrieval.sparse_parts();
                for (term, list) in postings {
                    for posting in &list {
                        if let Some(chunk) = chunks.get_mut(posting.chunk as usize) {
                            chunk.node = NodeId::new(posting.node as usize);
                        }
                    }
                    lexical.put_term(term, list.into_iter().map(|p| (p.chunk, p.weight)).collect());
                }
                self.postings_in[at] = true;
            }
            Want::Names(at) => {
                let names: Vec<NameEntry> = open("names", item, bytes)?;
                for entry in names {
                    self.brief(entry.node, || fathom_graph::Node {
                        kind: entry.kind,
                        class_kind: None,
                        name: entry.name,
                        qualified_name: entry.qualified_name,
                        file: entry.file.map(FileId),
                        language: Language::Text,
                        span: fathom_model::Span {
                            start_line: entry.line,
                            end_line: entry.line,
                            start_byte: 0,
                            end_byte: 0,
                        },
                        is_external: false,
                        details: None,
                    });
                }
                self.names_in[at] = true;
                self.dirty = true;
            }
            Want::Graph(at) => {
                let page: GraphPage = open("a graph page", item, bytes)?;
                for head in page.files {
                    let graph = &mut self.index.graph;
                    if graph.files().get(head.id as usize).is_some_and(|f| f.path.is_empty()) {
                        *graph.file_mut(FileId(head.id)) = FileEntry {
                            path: head.path.clone(),
                            language: head.language,
                            module: NodeId::new(head.module as usize),
                        };
                        self.index.by_path.insert(head.path.clone(), head.id);
                        let (_, _, roles) = self.index.retrieval.sparse_parts();
                        roles.put(&head.path, head.role, head.sources);
                        self.text_refs.insert(head.id, head.text);
                    }
                }
                for (id, node) in page.nodes {
                    self.index.graph.put_node(NodeId::new(id as usize), node);
                    self.whole[id as usize] = true;
                }
                for (id, node) in page.far {
                    self.brief(id, || node);
                }
                let (chunks, _, _) = self.index.retrieval.sparse_parts();
                for (id, chunk) in page.chunks {
                    if let Some(slot) = chunks.get_mut(id as usize) {
                        *slot = chunk;
                    }
                }
                for (id, from, to, edge) in page.edges {
                    self.edges.insert(id, (from, to, edge));
                }
                self.pages_in[at] = true;
                self.dirty = true;
            }
            Want::Text(file) => {
                let text: String = open("a file's text", item, bytes)?;
                self.index.texts[file as usize] = text;
                self.texts_in.insert(file);
            }
        }
        Ok(())
    }

    /// Puts a node in brief, unless it is in whole already.
    fn brief(&mut self, id: u32, node: impl FnOnce() -> fathom_graph::Node) {
        let at = id as usize;
        if at < self.whole.len() && !self.whole[at] {
            self.index.graph.put_node(NodeId::new(at), node());
        }
    }

    /// Lists the edges and names that arrived.
    fn settle(&mut self) {
        if !self.dirty {
            return;
        }
        let nodes = self.whole.len() as u32;
        let edges = self
            .edges
            .values()
            .filter(|(from, to, _)| *from < nodes && *to < nodes)
            .map(|&(from, to, edge)| (NodeId::new(from as usize), NodeId::new(to as usize), edge));
        self.index.graph.set_edges(edges.collect::<Vec<_>>());
        self.index.retrieval.rebuild_names(&self.index.graph);
        self.dirty = false;
    }

    /// The graph page holding `node`.
    fn page_of(&self, node: NodeId) -> usize {
        let id = node.index() as u32;
        self.root.graph.partition_point(|(first, _)| *first <= id).saturating_sub(1)
    }

    /// The name pages that may hold a name starting with `word` (every page,
    /// for a dotted name, which is matched against qualified names).
    fn name_pages<'a>(&'a self, word: &'a str) -> Box<dyn Iterator<Item = usize> + 'a> {
        let pages = &self.root.names;
        if word.contains('.') || word.contains("::") {
            return Box::new(0..pages.len());
        }
        // The last page whose first key is below the word may end with it;
        // every later page whose first key starts with it holds more.
        let start = pages.partition_point(|(first, _)| first.as_str() < word).saturating_sub(1);
        let end = start + 1 + pages[start + 1..].iter().take_while(|(first, _)| first.starts_with(word)).count();
        Box::new(start..end)
    }

    fn item_of(&self, want: Want) -> Option<(ItemRef, String)> {
        Some(match want {
            Want::Postings(at) => (*self.root.postings.get(at)?, format!("postings {at}")),
            Want::Names(at) => (self.root.names.get(at)?.1, format!("names from `{}`", self.root.names[at].0)),
            Want::Graph(at) => (self.root.graph.get(at)?.1, format!("graph page {at}")),
            Want::Text(file) => {
                (*self.text_refs.get(&file)?, format!("text of `{}`", self.index.graph.file(FileId(file)).path))
            }
        })
    }

    fn have(&self, want: Want) -> bool {
        match want {
            Want::Postings(at) => self.postings_in.get(at).copied().unwrap_or(true),
            Want::Names(at) => self.names_in.get(at).copied().unwrap_or(true),
            Want::Graph(at) => self.pages_in.get(at).copied().unwrap_or(true),
            Want::Text(file) => self.texts_in.contains(&file),
        }
    }

    /// The items of `wants` not in yet, each once; `None` when all are in.
    fn needs(&self, wants: Vec<Want>) -> Option<Vec<Need>> {
        let mut seen: HashSet<ItemRef> = HashSet::new();
        let needs: Vec<Need> = wants
            .into_iter()
            .filter(|&w| !self.have(w))
            .filter_map(|w| self.item_of(w))
            .filter(|(item, _)| seen.insert(*item))
            .map(|(item, what)| Need { item, what })
            .collect();
        (!needs.is_empty()).then_some(needs)
    }

    /// The wants not yet in that an item answers.
    fn wants_of(&self, item: &ItemRef) -> Vec<Want> {
        let postings =
            self.root.postings.iter().enumerate().filter(|(_, r)| *r == item).map(|(at, _)| Want::Postings(at));
        let names = self.root.names.iter().enumerate().filter(|(_, (_, r))| r == item).map(|(at, _)| Want::Names(at));
        let graph = self.root.graph.iter().enumerate().filter(|(_, (_, r))| r == item).map(|(at, _)| Want::Graph(at));
        let texts = self.text_refs.iter().filter(|(_, r)| *r == item).map(|(&file, _)| Want::Text(file));
        postings.chain(names).chain(graph).chain(texts).filter(|w| !self.have(*w)).collect()
    }
}

/// Answers a step, fetching what it needs with `fetch` until it is ready:
/// the CLI's and the tests' loop (the browser's worker fetches instead).
/// Returns the answer and how many waves of fetches it took.
pub fn drive<T>(
    reader: &mut SplitReader,
    mut fetch: impl FnMut(&Need) -> Result<Vec<u8>, StoreError>,
    mut step: impl FnMut(&mut SplitReader) -> Step<T>,
) -> Result<(T, usize), StoreError> {
    let mut waves = 0;
    loop {
        match step(reader) {
            Step::Ready(value) => return Ok((value, waves)),
            Step::Needs(needs) => {
                waves += 1;
                for need in needs {
                    let bytes = fetch(&need)?;
                    reader.supply(&need.item, &bytes)?;
                }
            }
        }
    }
}
