//! A split bundle, read in parts: an [`Index`] over a sparse graph
//! ([`fathom_graph::CodeGraph::sparse`]) whose ids are the whole index's,
//! filled with what each question needs and kept for the next.
//!
//! A question is answered in steps. Each step asks the index what the
//! question reads, given what has arrived: its terms' postings and the name
//! pages of its words first, which say what ranking weighs of each symbol
//! they hold; then, from a ranking over those, the edge runs of the
//! symbols expansion starts from (and of any that could tie with them),
//! and the node pages (with the lines their snippets read) of the symbols
//! and files it will show; then whatever expansion brought into view. Until all of it is in, the step answers [`Step::Needs`] with every
//! item that wave wants, which the caller fetches (in parallel, in any
//! order) and hands to [`SplitReader::supply`]; then it steps again. Once
//! nothing is missing the question is answered by the same ranking code as
//! a whole index, over the same numbers: BM25 reads the corpus figures in
//! the root and each term's complete postings, and every symbol the ranking
//! weighs is in place, so the answer is the whole bundle's.
//!
//! Where a question reads the whole index (a path and line, which the trace
//! lane looks up among every file; a dotted name; a filter; an
//! amalgamation's copies; a bug report, which the localiser reads against
//! every file), the step asks for every page it may read. That is correct
//! and costly, and rare in what a reader types.

use std::collections::{BTreeMap, HashMap, HashSet};

use fathom_graph::{CodeGraph, Edge, FileEntry, FileId, NodeId};
use fathom_model::Language;
use fathom_query::{QueryError, Reached, SymbolContext};
use fathom_search::lexical::Lexical;
use fathom_search::retrieval::{Facts, Mode, Retrieval, SearchOptions};

mod meaning;

use super::{EdgeRun, FileHead, FileItem, NameEntry, NodePage, PostingsItem, Root, term_range};
use crate::store::{ItemRef, Span, StoreError, open};
use crate::summary::IndexSummary;
use crate::{Index, SearchResults};

/// A wave a question would fetch past what it may: about `bytes` more in
/// `items` items, at least (what those items hold may lead further). The
/// caller asks its reader before it allows more ([`drive_within`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Costly {
    pub bytes: u64,
    pub items: usize,
}

/// An item a step waits for, and why; for a packed item, where it is in
/// its pack, and the run of the step's packed items it is read with.
#[derive(Clone, Debug, PartialEq)]
pub struct Need {
    pub item: ItemRef,
    pub what: String,
    pub span: Option<Span>,
    /// Packed items of one step whose slots follow one another in their
    /// pack share a run (the index in the step of its first): one Range
    /// request reads them all ([`runs`]).
    pub run: Option<u32>,
}

impl Need {
    /// The path its bytes are read from: its own, or its pack's.
    pub fn path(&self) -> String {
        self.span.map_or(self.item, |s| s.pack).path()
    }
}

/// A step's outcome: the answer, or the items it needs first.
#[derive(Debug)]
pub enum Step<T> {
    Ready(T),
    Needs(Vec<Need>),
}

impl<T> Step<T> {
    /// Once ready, `then` of the answer.
    pub fn map<U>(self, then: impl FnOnce(T) -> U) -> Step<U> {
        match self {
            Step::Ready(value) => Step::Ready(then(value)),
            Step::Needs(needs) => Step::Needs(needs),
        }
    }
}

impl<U, E> Step<Result<U, E>> {
    /// Once ready without an error, the answer `then` gives.
    fn and_then<T>(self, then: impl FnOnce() -> Result<T, E>) -> Step<Result<T, E>> {
        match self {
            Step::Ready(Ok(_)) => Step::Ready(then()),
            Step::Ready(Err(error)) => Step::Ready(Err(error)),
            Step::Needs(needs) => Step::Needs(needs),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Want {
    Postings(usize),
    Names(usize),
    Digest(usize),
    Nodes(usize),
    Edges(usize),
    /// The edges no search reads, of a run of nodes.
    More(usize),
    /// A file's text and colours, once a head names its item.
    File(u32),
    /// The static lane's head, a group's partitions, a partition, a page
    /// of rows, a page of the table.
    Meaning,
    Group(usize),
    Part(usize),
    Rows(usize),
    Pieces(usize),
    /// The summary's files skipped and errors.
    Summary,
}

/// How much of a node a reader holds, from least to most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Held {
    Nothing,
    /// From a posting: its file, and what ranking weighs of it.
    Posted,
    /// From a name page: its names, kind, file and first line too.
    Named,
    /// From another node's page, at an edge's far end: all but its details.
    Far,
    /// From its own page.
    Whole,
}

/// What a reader has fetched so far, in all and by kind of item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fetched {
    pub items: usize,
    pub bytes: u64,
    pub postings: u64,
    pub names: u64,
    pub nodes: u64,
    pub edges: u64,
    pub more: u64,
    pub files: u64,
    pub meaning: u64,
    pub summary: u64,
    /// Steps that asked for items: the round trips their caller made, one
    /// after another, each fetching a step's items at once. A host's log
    /// cannot count them where each request ends before the next is sent.
    pub waves: usize,
}

pub struct SplitReader {
    root: Root,
    /// Whether the summary's item is in.
    summary_in: bool,
    index: Index,
    postings_in: Vec<bool>,
    names_in: Vec<bool>,
    digests_in: Vec<bool>,
    nodes_in: Vec<bool>,
    edges_in: Vec<bool>,
    more_in: Vec<bool>,
    /// Every edge in, by the whole graph's id, so the graph lists them in
    /// its order however they arrived.
    edges: BTreeMap<u32, (u32, u32, Edge)>,
    /// How much of each node is in.
    held: Vec<Held>,
    /// Each file's item, once a head names it, and whether it is in: then
    /// its text is whole.
    file_items: Vec<Option<ItemRef>>,
    files_in: Vec<bool>,
    /// The lines of files not in whole that node pages brought, by line:
    /// each such file's text holds these at their places, and is blank
    /// between them.
    lines: HashMap<u32, BTreeMap<u32, String>>,
    /// Files' colours, as they arrived.
    colours: HashMap<u32, super::Colours>,
    /// What each item the root names answers.
    answers: HashMap<ItemRef, Vec<Want>>,
    /// Edges or names arrived since the graph last listed them.
    dirty: bool,
    fetched: Fetched,
    /// The static lane, once [`SplitReader::read_meaning`] is asked to.
    meaning: Option<meaning::MeaningIn>,
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
        if root.postings.count == 0 || root.names.count == 0 || root.name_keys.len() != root.names.count as usize {
            return Err(bad("it lists no postings or no names".into()));
        }
        let pages = root.name_keys.len() as u32;
        if !(root.name_quals.windows(2).all(|w| w[0].0 < w[1].0) && root.name_quals.iter().all(|(at, _)| *at < pages)) {
            return Err(bad("its name pages' qualified names are out of order or past its pages".into()));
        }
        let counts = &header.counts;
        let (nodes, chunks, files) = (counts.nodes, counts.chunks, counts.files);
        // The reader holds a place for each node, chunk and file at once:
        // each is in one node page, in a few bytes at least, so a root may
        // not count more than its node pages could hold.
        let paged = u64::from(root.nodes.max) * u64::from(root.nodes.count);
        if [nodes, chunks, files].iter().any(|&n| n as u64 > paged / 2 || n > u32::MAX as usize) {
            return Err(bad(format!(
                "it counts {nodes} nodes, {chunks} chunks and {files} files, more than its node pages' {paged} bytes hold"
            )));
        }
        let cuts = |runs: &super::Placed| {
            runs.first.len() == runs.count as usize
                && runs.first.first() == Some(&0)
                && runs.first.windows(2).all(|w| w[0] < w[1])
                && runs.first.last().is_some_and(|first| (*first as usize) < nodes)
        };
        if nodes > 0 && !(cuts(&root.nodes) && cuts(&root.edges) && cuts(&root.more)) {
            return Err(bad("its node pages or edge runs do not cut the nodes in order".into()));
        }
        let placeholder_file = FileEntry { path: String::new(), language: Language::Text, module: NodeId::end() };
        let graph = CodeGraph::sparse(nodes, vec![placeholder_file; files]);
        let lexical = Lexical::sparse(chunks, root.avgdl);
        let retrieval = Retrieval::sparse(&graph, chunks, lexical);
        // What the index holds, counted when it was written: the sparse
        // graph counts nothing yet.
        let summary: IndexSummary =
            serde_json::from_str(&root.brief).map_err(|e| bad(format!("its summary does not read: {e}")))?;
        let index = Index {
            graph,
            retrieval,
            texts: vec![String::new(); files],
            by_path: HashMap::new(),
            summary,
            options: header.options.clone(),
            embedding_model: None,
        };
        // Placed items are known by what they answer once asked for.
        let mut answers: HashMap<ItemRef, Vec<Want>> = HashMap::new();
        for (at, (_, item)) in root.digests.iter().enumerate() {
            answers.entry(*item).or_default().push(Want::Digest(at));
        }
        if let Some(meaning) = &root.meaning {
            answers.entry(meaning.head).or_default().push(Want::Meaning);
        }
        answers.entry(root.summary).or_default().push(Want::Summary);
        Ok(SplitReader {
            file_items: vec![None; files],
            files_in: vec![false; files],
            lines: HashMap::new(),
            colours: HashMap::new(),
            answers,
            summary_in: false,
            postings_in: vec![false; root.postings.count as usize],
            names_in: vec![false; root.names.count as usize],
            digests_in: vec![false; root.digests.len()],
            nodes_in: vec![false; root.nodes.count as usize],
            edges_in: vec![false; root.edges.count as usize],
            more_in: vec![false; root.more.count as usize],
            root,
            index,
            edges: BTreeMap::new(),
            held: vec![Held::Nothing; nodes],
            dirty: false,
            fetched: Fetched::default(),
            meaning: None,
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

    /// What the index holds, as [`IndexSummary`]'s JSON (without the files
    /// skipped and the errors).
    pub fn summary_json(&self) -> &str {
        &self.root.brief
    }

    /// What the index holds, as [`Index::summary`] gives a whole one: the
    /// root's counts, then the files skipped and the errors from their item.
    pub fn summary_step(&mut self) -> Step<IndexSummary> {
        match self.needs(vec![Want::Summary]) {
            Some(needs) => Step::Needs(needs),
            None => Step::Ready(self.index.summary.clone()),
        }
    }

    /// A file's text, or its item first. `None` for a path no item read so
    /// far has named: a file is opened from a hit, a caller or a file list,
    /// which name it first.
    pub fn file_step(&mut self, path: &str) -> Step<Option<String>> {
        let Some(&file) = self.index.by_path.get(path) else {
            return Step::Ready(None);
        };
        match self.needs(vec![Want::File(file)]) {
            Some(needs) => Step::Needs(needs),
            None => Step::Ready(self.files_in[file as usize].then(|| self.index.texts[file as usize].clone())),
        }
    }

    /// Searches as [`Index::search`] does a whole index (by meaning too once
    /// [`SplitReader::read_meaning`] was given the tokenizer), or says what
    /// it needs first.
    pub fn search_step(&mut self, query: &str, options: &SearchOptions) -> Step<SearchResults> {
        self.settle();
        let mut wants: Vec<Want> = Vec::new();
        // What the question reads from itself alone: its terms' postings and
        // its words' names. A search by meaning alone reads neither once its
        // lane ranks (as the whole index's does, it runs by words where no
        // word of the query is one the table knows whole, which its pieces
        // tell).
        let by_words = options.mode != Mode::Dense || self.meaning_ranks(query) == Some(false);
        let reads = self.index.retrieval.query_reads(query);
        for &term in reads.terms.iter().filter(|_| by_words) {
            wants.push(Want::Postings(term_range(term, self.root.postings.count as usize)));
        }
        // A name many symbols share reads its digest: its exact matches
        // outnumber what the lane takes, and outrank every prefix match.
        for (word, exact) in reads.names.iter().filter(|_| by_words) {
            match self.root.digests.binary_search_by(|(key, _)| key.as_str().cmp(word)) {
                Ok(at) => wants.push(Want::Digest(at)),
                Err(_) => wants.extend(self.name_pages(word, *exact).map(Want::Names)),
            }
        }
        if (by_words && reads.locations) || !options.filter.is_empty() {
            wants.extend(self.everything());
        }
        // Meaning: the query's pieces and the head, then its partitions,
        // then its best chunks' rows.
        wants.extend(self.meaning_wants(query, options));
        // A bug report is read by the localiser, over every file's text and
        // every term the report holds: all of it.
        if options.read_report && fathom_search::issue::Issue::is_report(query) {
            wants.extend(self.everything());
            // Their heads name the files' items: once the pages are in.
            wants.extend((0..self.files_in.len() as u32).map(Want::File));
            wants.extend((0..self.root.postings.count as usize).map(Want::Postings));
            wants.extend((0..self.root.names.count as usize).map(Want::Names));
        }
        if let Some(needs) = self.needs(wants) {
            return Step::Needs(needs);
        }
        // The ranking, over what is in: every symbol it weighs is known in
        // brief at least. Those it shows, those expansion starts from, and
        // any that could tie with them must be in whole (their pages), and
        // the texts it quotes in.
        let plan = fathom_search::query::plan(&self.index.retrieval, &self.index.sources(), query, options);
        let mut wants: Vec<Want> = Vec::new();
        // An amalgamation's copies stand in for definitions found by name
        // among every file.
        let copies = plan.hits.iter().any(|h| {
            self.index.retrieval.file_role(&self.index.graph, h.node).is_some_and(|(_, has_sources)| has_sources)
        });
        if copies {
            wants.extend(self.everything());
        }
        let k = options.k.max(1);
        let floor = |scores: &mut dyn Iterator<Item = f64>, at: usize| scores.nth(at - 1).unwrap_or(f64::NEG_INFINITY);
        let seed_floor = if plan.seeds.len() == fathom_search::retrieval::EXPAND_SEEDS {
            plan.seeds.last().map_or(f64::NEG_INFINITY, |s| s.1)
        } else {
            f64::NEG_INFINITY
        };
        // A file ranks by its best hit, and a hundredth of each of its next
        // two: the k-th file scores at least the k-th best of the files'
        // best hits (by file id, which symbols in brief have too), and a
        // hit can lift its file to at most 1.02 times its own score.
        let mut best_in_file: HashMap<u32, f64> = HashMap::new();
        for hit in &plan.hits {
            if let Some(file) = self.index.graph.node(hit.node).file {
                best_in_file.entry(file.0).or_insert(hit.score);
            }
        }
        let mut file_scores: Vec<f64> = best_in_file.into_values().collect();
        file_scores.sort_by(|a, b| b.total_cmp(a));
        let shown_floor =
            floor(&mut plan.hits.iter().map(|h| h.score), k).min(floor(&mut file_scores.into_iter(), k) / 1.02);
        // Expansion starts from the seeds, which a tie at the last of them
        // could change: their edges. The hits and files shown: their nodes
        // whole and their texts. Any other that could rank among them: its
        // names and its file's head.
        for (node, _) in &plan.seeds {
            wants.push(Want::Edges(self.run_of(*node)));
        }
        for hit in &plan.hits {
            let before = hit.score - hit.explain.graph.as_ref().map_or(0.0, |g| g.score);
            if before >= seed_floor || (hit.score >= shown_floor && !self.known(hit.node)) {
                wants.push(Want::Edges(self.run_of(hit.node)));
            }
        }
        // Expansion is not settled while a seed's edges are out: a hit it
        // lifts into the shown ten, or among the symbols a file shown cites,
        // would need its page a wave later. A hit gains at most the graph's
        // weight times the best seed's score, so every hit that could so
        // reach the floor, and every one that could so be among its file's
        // best three, gains its page in this wave: the best SPECULATED
        // pages of them.
        let unsettled =
            options.expand && plan.seeds.iter().any(|(node, _)| !self.have(Want::Edges(self.run_of(*node))));
        if unsettled {
            wants.extend(
                self.speculated(&plan.hits, k, options.weights.graph, shown_floor).into_iter().map(Want::Nodes),
            );
        }
        for hit in plan.hits.iter().take(k) {
            wants.push(Want::Nodes(self.page_of(hit.node)));
        }
        // A file ranked cites its best symbols by name and lines: their
        // briefs, which an edge run of theirs brings (this wave's, or one in
        // already), do; a page only for one no run brings.
        let runs: HashSet<usize> =
            wants.iter().filter_map(|w| if let Want::Edges(at) = w { Some(*at) } else { None }).collect();
        for node in plan.files.iter().take(k).flat_map(|f| f.symbols.iter().copied()) {
            if !self.known(node) && !runs.contains(&self.run_of(node)) {
                wants.push(Want::Nodes(self.page_of(node)));
            }
        }
        if let Some(needs) = self.needs(wants) {
            return Step::Needs(needs);
        }
        Step::Ready(self.index.search(query, options, None))
    }

    /// The pages, SPECULATED at most, of hits that expansion (by `weight`
    /// times the best hit's score at most) could lift to `floor` or among
    /// their file's three best, best first.
    fn speculated(
        &self,
        hits: &[fathom_search::retrieval::RankedHit],
        k: usize,
        weight: f64,
        floor: f64,
    ) -> Vec<usize> {
        let lift = weight * hits.first().map_or(0.0, |h| h.score);
        let before =
            |h: &fathom_search::retrieval::RankedHit| h.score - h.explain.graph.as_ref().map_or(0.0, |g| g.score);
        // Each file's third best score before expansion: a hit that could
        // pass it may be cited.
        let mut in_file: HashMap<u32, Vec<f64>> = HashMap::new();
        for hit in hits {
            if let Some(file) = self.index.graph.node(hit.node).file {
                in_file.entry(file.0).or_default().push(before(hit));
            }
        }
        let third: HashMap<u32, f64> = in_file
            .into_iter()
            .filter_map(|(file, mut scores)| {
                scores.sort_by(|a, b| b.total_cmp(a));
                scores.get(2).map(|&t| (file, t))
            })
            .collect();
        let file_of = |h: &fathom_search::retrieval::RankedHit| self.index.graph.node(h.node).file.map(|f| f.0);
        let reaches = |h: &&fathom_search::retrieval::RankedHit| before(h) + lift >= floor;
        let top: HashSet<u32> = hits.iter().take(k).filter_map(file_of).collect();
        let shown: HashSet<u32> = hits.iter().filter(reaches).filter_map(file_of).collect();
        let cited = |files: &HashSet<u32>, h: &fathom_search::retrieval::RankedHit| {
            file_of(h).is_some_and(|f| {
                files.contains(&f) && third.get(&f).is_none_or(|t| before(h) + lift >= *t) && !self.known(h.node)
            })
        };
        // The shown hits' pages are fetched anyway. Then those the files
        // shown now may cite, those that could be shown, and those the files
        // that could be shown may cite.
        let mut pages: Vec<usize> = hits.iter().take(k).map(|h| self.page_of(h.node)).collect();
        let fetched = pages.len();
        let candidates = hits
            .iter()
            .filter(|h| cited(&top, h))
            .chain(hits.iter().skip(k).filter(reaches))
            .chain(hits.iter().filter(|h| cited(&shown, h)));
        for hit in candidates {
            let page = self.page_of(hit.node);
            if !self.have(Want::Nodes(page)) && !pages.contains(&page) {
                if pages.len() == fetched + SPECULATED {
                    break;
                }
                pages.push(page);
            }
        }
        pages.split_off(fetched)
    }

    /// A file's syntax colours, or its item first (the item of its text);
    /// `None` for a path no item read so far has named.
    pub fn highlight_step(&mut self, path: &str) -> Step<Option<fathom_parse::Highlights>> {
        let Some(&file) = self.index.by_path.get(path) else {
            return Step::Ready(None);
        };
        match self.needs(vec![Want::File(file)]) {
            Some(needs) => Step::Needs(needs),
            None => Step::Ready(self.colours.get(&file).and_then(super::Colours::highlights)),
        }
    }

    /// A symbol with its context, as [`Index::symbol`] gives it, or the
    /// items it needs first: its page (details), its file (code), and the
    /// edges of every node its tests are sought through (callers, three
    /// hops).
    pub fn symbol_step(&mut self, symbol: &str) -> Step<Result<SymbolContext, QueryError>> {
        self.walk_step(symbol, |reader, found| {
            let graph = &reader.index.graph;
            let id = reader.index.symbol_id(found);
            let read = fathom_query::callers(graph, &[id], TESTS_DEPTH).map(|r| walked(&[id], &r, TESTS_DEPTH));
            let mut wants = reader.adjacency(read.unwrap_or_default());
            wants.push(Want::Nodes(reader.page_of(id)));
            wants.extend(graph.node(id).file.map(|f| Want::File(f.0)));
            (Ok(()), wants)
        })
        .and_then(|| self.index.symbol(symbol))
    }

    /// Where `symbol` is referred to, as [`Index::references`] gives it, or
    /// the items it needs first: the edges of each symbol it names (and of
    /// a class's constructors, which its members' pages tell), and the text
    /// of each file a reference is in (its line and column are read there).
    pub fn references_step(&mut self, symbol: &str) -> Step<Result<Vec<crate::Reference>, QueryError>> {
        use fathom_graph::EdgeKind;
        self.walk_step(symbol, |reader, found| {
            let graph = &reader.index.graph;
            let mut targets: Vec<NodeId> = found.to_vec();
            let mut wants: Vec<Want> = Vec::new();
            for &id in found {
                if graph.node(id).kind != fathom_model::SymbolKind::Class {
                    continue;
                }
                let members = graph.outgoing(id).filter(|(edge, _)| edge.kind == EdgeKind::HasMethod);
                for (_, member) in members {
                    wants.push(Want::Nodes(reader.page_of(member)));
                    if graph.node(member).details.as_ref().is_some_and(|d| d.is_constructor) {
                        targets.push(member);
                    }
                }
            }
            wants.extend(reader.adjacency(targets.iter().copied()));
            for &target in &targets {
                let referring = graph.incoming(target).filter(|(e, _)| crate::navigate::REFERRING.contains(&e.kind));
                let decorated = graph.outgoing(target).filter(|(e, _)| e.kind == EdgeKind::Decorates);
                for (_, from) in referring.chain(decorated) {
                    let Some(file) = graph.node(from).file else { continue };
                    // A file's item is named by its head: the page of a node in it brings that.
                    match reader.file_items[file.0 as usize] {
                        Some(_) => wants.push(Want::File(file.0)),
                        None => wants.push(Want::Nodes(reader.page_of(from))),
                    }
                }
            }
            (Ok(()), wants)
        })
        .and_then(|| self.index.references(symbol))
    }

    /// The functions and methods that call `symbol`, as [`Index::callers`]
    /// gives them, or the items they need first.
    pub fn callers_step(&mut self, symbol: &str, depth: u32) -> Step<Result<Vec<Reached>, QueryError>> {
        self.walk_step(symbol, |reader, found| {
            let reached = fathom_query::callers(&reader.index.graph, found, depth);
            let wants = reached.as_ref().map(|r| reader.adjacency(walked(found, r, depth))).unwrap_or_default();
            (reached, wants)
        })
    }

    /// What `symbol` calls, as [`Index::callees`] gives it, or the items it
    /// needs first.
    pub fn callees_step(&mut self, symbol: &str, depth: u32) -> Step<Result<Vec<Reached>, QueryError>> {
        self.walk_step(symbol, |reader, found| {
            let reached = fathom_query::callees(&reader.index.graph, found, depth);
            let wants = reached.as_ref().map(|r| reader.adjacency(walked(found, r, depth))).unwrap_or_default();
            (reached, wants)
        })
    }

    /// What depends on `symbol`, as [`Index::impact`] gives it, or the
    /// items it needs first: the edges of everything it contains, and of
    /// every node the walk goes through.
    pub fn impact_step(&mut self, symbol: &str, depth: u32) -> Step<Result<Vec<Reached>, QueryError>> {
        self.walk_step(symbol, |reader, found| {
            let graph = &reader.index.graph;
            let seeds: Vec<NodeId> = found.iter().flat_map(|&id| fathom_query::with_descendants(graph, id)).collect();
            let reached = fathom_query::impact(graph, found, depth);
            let wants = reached.as_ref().map(|r| reader.adjacency(walked(&seeds, r, depth))).unwrap_or_default();
            (reached, wants)
        })
    }

    /// A read-only Cypher query, answered as [`Index::query`] answers it
    /// over the whole graph, or the items it needs first: it runs over what
    /// is in, and fetches what that run read (the name pages of a name a
    /// pattern gives, every page where a pattern names nothing, the page of
    /// each node whose properties it read, both edge runs of each node it
    /// walked from, the text of each node whose code it read), until it
    /// read nothing it lacked. One that matches every node reads the whole
    /// graph: its caller prices each wave ([`drive_within`]).
    pub fn query_step(
        &mut self,
        text: &str,
        params: &BTreeMap<String, serde_json::Value>,
    ) -> Step<Result<fathom_query::cypher::QueryResult, fathom_query::cypher::CypherError>> {
        self.settle();
        let (answer, reads) = fathom_query::cypher::run_reading(&self.index, text, params);
        let mut wants: Vec<Want> = Vec::new();
        if reads.all {
            wants.extend(self.everything());
            wants.extend((0..self.root.more.count as usize).map(Want::More));
        }
        for (key, name) in &reads.named {
            if key == "name" {
                wants.extend(self.name_run(&name.to_lowercase(), true).map(Want::Names));
            } else {
                wants.extend(name_keys(name).iter().flat_map(|k| self.qualified_run(k, name)).map(Want::Names));
            }
        }
        wants.extend(reads.nodes.iter().chain(&reads.code).map(|&id| Want::Nodes(self.page_of(id))));
        let files = reads.code.iter().filter_map(|&id| self.index.graph.node(id).file);
        wants.extend(files.map(|f| Want::File(f.0)));
        wants.extend(self.adjacency(reads.edges.iter().copied()));
        match self.needs(wants) {
            Some(needs) => Step::Needs(needs),
            None => Step::Ready(answer),
        }
    }

    /// About how many bytes fetching `items` (a step's wave) will take: the
    /// caller of a question whose walk may read most of the graph (a hub's
    /// impact) asks its reader before a costly wave.
    pub fn cost(&self, items: &[ItemRef]) -> u64 {
        let each = |item: &ItemRef| match self.answers.get(item).and_then(|wants| wants.first()) {
            Some(&want) if item.is_placed() => self.estimate(want),
            _ => u64::from(item.bytes),
        };
        items.iter().map(each).sum()
    }

    /// About how many bytes an item not in yet will take to fetch: its own
    /// size where its reference says it, else its family's mean.
    fn estimate(&self, want: Want) -> u64 {
        let mean = |family: &super::Placed| family.bytes / u64::from(family.count.max(1));
        match want {
            Want::Postings(_) => mean(&self.root.postings),
            Want::Names(_) => mean(&self.root.names),
            Want::Nodes(_) => mean(&self.root.nodes),
            Want::Edges(_) => mean(&self.root.edges),
            Want::More(_) => mean(&self.root.more),
            Want::Group(_) | Want::Part(_) | Want::Rows(_) | Want::Pieces(_) => {
                let meaning = self.root.meaning.as_ref();
                meaning.map_or(0, |m| match want {
                    Want::Group(_) => mean(&m.groups),
                    Want::Part(_) => mean(&m.parts),
                    Want::Rows(_) => mean(&m.rows),
                    _ => mean(&m.pieces),
                })
            }
            Want::Digest(_) | Want::File(_) | Want::Meaning | Want::Summary => {
                self.item_of(want).map_or(0, |(item, _)| u64::from(item.bytes))
            }
        }
    }

    /// A question over the graph around `symbol`: finds it as
    /// [`fathom_query::find_symbol`] does a whole graph, then asks `ask`
    /// over what is in, which answers and says what that answer read. Once
    /// all of that is in, the answer is the whole graph's: a walk that read
    /// every edge of each node it went through went where the whole graph's
    /// goes.
    fn walk_step<T>(
        &mut self,
        symbol: &str,
        ask: impl FnOnce(&SplitReader, &[NodeId]) -> (Result<T, QueryError>, Vec<Want>),
    ) -> Step<Result<T, QueryError>> {
        let found = match self.find_step(symbol) {
            Step::Ready(Ok(found)) => found,
            Step::Ready(Err(error)) => return Step::Ready(Err(error)),
            Step::Needs(needs) => return Step::Needs(needs),
        };
        let (answer, wants) = ask(self, &found);
        match self.needs(wants) {
            Some(needs) => Step::Needs(needs),
            None => Step::Ready(answer),
        }
    }

    /// The nodes `symbol` names, as [`fathom_query::find_symbol`] finds
    /// them among the whole graph's. Every node it may match has one of the
    /// names [`name_keys`] gives, and the name pages of those list them all;
    /// then the edges of those it matches, which bring their files' paths
    /// (an ambiguous name's error cites them) and which any question about
    /// them reads.
    fn find_step(&mut self, symbol: &str) -> Step<Result<Vec<NodeId>, QueryError>> {
        let name = symbol.trim();
        let keys = name_keys(name);
        // A qualified name first: the pages that hold it under each name.
        let held = keys.iter().flat_map(|key| self.qualified_run(key, name)).map(Want::Names).collect();
        if let Some(needs) = self.needs(held) {
            return Step::Needs(needs);
        }
        self.settle();
        let mut matches = fathom_query::symbol_matches(&self.index.graph, name);
        if matches.first().is_none_or(|&id| self.index.graph.node(id).qualified_name != name) {
            // Not one: a suffix or a simple name, read among every page of each name.
            let pages = keys.iter().flat_map(|key| self.name_run(key, true)).map(Want::Names).collect();
            if let Some(needs) = self.needs(pages) {
                return Step::Needs(needs);
            }
            self.settle();
            matches = fathom_query::symbol_matches(&self.index.graph, name);
        }
        if let Some(needs) = self.needs(self.adjacency(matches)) {
            return Step::Needs(needs);
        }
        self.settle();
        Step::Ready(fathom_query::find_symbol(&self.index.graph, name))
    }

    /// Both runs of edges at each of `nodes`: what reading all their edges
    /// needs.
    fn adjacency(&self, nodes: impl IntoIterator<Item = NodeId>) -> Vec<Want> {
        let mut wants: Vec<Want> = nodes
            .into_iter()
            .flat_map(|node| [Want::Edges(self.run_of(node)), Want::More(self.root.more.run_of(node.index() as u32))])
            .collect();
        wants.sort_unstable_by_key(|w| match w {
            Want::Edges(at) => (0, *at),
            Want::More(at) => (1, *at),
            _ => (2, 0),
        });
        wants.dedup();
        wants
    }

    /// Puts a fetched item in. `item` is one a step asked for; its bytes
    /// are checked against it first, and refused whole.
    pub fn supply(&mut self, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        let Some(wants) = self.answers.get(item) else {
            return Err(StoreError::Undecodable {
                what: "an item".into(),
                path: item.path(),
                cause: "the root names no such item".into(),
            });
        };
        // Asked for by two questions at once, and in already: kept once.
        let wants: Vec<Want> = wants.iter().copied().filter(|w| !self.have(*w)).collect();
        if wants.is_empty() {
            return Ok(());
        }
        // Equal items share a name: each want of it is answered.
        let family = match wants[0] {
            Want::Postings(_) => &mut self.fetched.postings,
            Want::Names(_) | Want::Digest(_) => &mut self.fetched.names,
            Want::Nodes(_) => &mut self.fetched.nodes,
            Want::Edges(_) => &mut self.fetched.edges,
            Want::More(_) => &mut self.fetched.more,
            Want::File(_) => &mut self.fetched.files,
            Want::Meaning | Want::Group(_) | Want::Part(_) | Want::Rows(_) | Want::Pieces(_) => {
                &mut self.fetched.meaning
            }
            Want::Summary => &mut self.fetched.summary,
        };
        *family += bytes.len() as u64;
        for want in wants {
            self.put(want, item, bytes)?;
        }
        self.fetched.items += 1;
        self.fetched.bytes += bytes.len() as u64;
        Ok(())
    }

    /// Every item of the bundle a question could ask for but the files'
    /// (a node page's heads name those: [`SplitReader::files_named`]), each
    /// once: what a reader fetches ahead to answer offline. None is kept
    /// here; a question asks for those it needs as ever.
    pub fn every_item(&self) -> Vec<Need> {
        let root = &self.root;
        let count = |placed: &super::Placed| placed.count as usize;
        let wants = (0..count(&root.postings)).map(Want::Postings);
        let wants = wants.chain((0..count(&root.names)).map(Want::Names));
        let wants = wants.chain((0..root.digests.len()).map(Want::Digest));
        let wants = wants.chain((0..count(&root.nodes)).map(Want::Nodes));
        let wants = wants.chain((0..count(&root.edges)).map(Want::Edges));
        let wants = wants.chain((0..count(&root.more)).map(Want::More));
        let wants = wants.chain(self.every_meaning_want()).chain([Want::Summary]);
        // A packed item's whole pack.
        let packed = |want: Want| {
            let span = self.span_of(want)?;
            Some((span.pack, format!("the pack of {}", self.item_of(want)?.1)))
        };
        let mut seen: HashSet<ItemRef> = HashSet::new();
        wants
            .filter_map(|want| packed(want).or_else(|| self.item_of(want)))
            .filter(|(item, _)| seen.insert(*item))
            .map(|(item, what)| Need { item, what, span: None, run: None })
            .collect()
    }

    /// Checks an item's bytes, as [`SplitReader::every_item`] names it, without
    /// keeping them: each slot of a pack as its item.
    pub fn check(&self, what: &str, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        for (_, kind, family) in self.root.families().filter(|(.., family)| family.stride > 0) {
            let Some((_, items)) = family.packs(&self.root.tag, kind).into_iter().find(|(pack, _)| pack == item) else {
                continue;
            };
            let expected = items.len() * family.stride as usize;
            if bytes.len() != expected {
                let path = item.path();
                return Err(StoreError::Truncated { what: what.to_owned(), path, got: bytes.len(), expected });
            }
            for (at, slot) in items.zip(bytes.chunks_exact(family.stride as usize)) {
                let slot_item = family.item(&self.root.tag, kind, at).expect("a pack's items are its family's");
                crate::store::check(what, &slot_item, slot).map_err(|error| match error {
                    StoreError::Altered { what, .. } => StoreError::Altered { what, path: item.path() },
                    other => other,
                })?;
            }
            return Ok(());
        }
        crate::store::check(what, item, bytes).map(drop)
    }

    /// Where a packed item is in its pack.
    fn span_of(&self, want: Want) -> Option<Span> {
        let (kind, at) = match want {
            Want::Postings(at) => (super::POSTINGS, at),
            Want::Names(at) => (super::NAMES, at),
            Want::Nodes(at) => (super::NODES, at),
            Want::Edges(at) => (super::EDGES, at),
            Want::More(at) => (super::MORE, at),
            Want::Group(at) => (super::GROUPS, at),
            Want::Part(at) => (super::PARTS, at),
            Want::Rows(at) => (super::ROWS, at),
            Want::Pieces(at) => (super::PIECES, at),
            Want::Digest(_) | Want::File(_) | Want::Meaning | Want::Summary => return None,
        };
        self.root.family(kind)?.span(&self.root.tag, kind, at)
    }

    /// The file items a node page names in its files' heads, once `bytes`
    /// is checked as `item` (length, hash, decoding); the reader keeps
    /// nothing of it.
    pub fn files_named(&self, item: &ItemRef, bytes: &[u8]) -> Result<Vec<Need>, StoreError> {
        let page: NodePage = open("a node page", item, bytes)?;
        self.check_files(item, page.files.iter().map(|h| h.id))?;
        Ok(page
            .files
            .into_iter()
            .map(|h| Need { item: h.text, what: format!("the text of `{}`", h.path), span: None, run: None })
            .collect())
    }

    fn put(&mut self, want: Want, item: &ItemRef, bytes: &[u8]) -> Result<(), StoreError> {
        match want {
            Want::Postings(at) => {
                let postings: PostingsItem = open("postings", item, bytes)?;
                let nodes = self.held.len() as u32;
                // Checked whole first, so that an item refused changes nothing.
                let files = self.index.texts.len();
                let chunks = self.index.retrieval.chunks().len();
                let bad = |cause: String| StoreError::Undecodable { what: "postings".into(), path: item.path(), cause };
                for (_, columns) in &postings {
                    let ranged = columns.postings().and_then(|mut list| list.try_for_each(|p| p.map(|_| ())));
                    ranged.ok_or_else(|| bad("its columns differ in length or run out of range".into()))?;
                    let mut list = columns.postings().into_iter().flatten().flatten();
                    if let Some(p) =
                        list.find(|p| p.node >= nodes || p.file as usize >= files || p.chunk as usize >= chunks)
                    {
                        return Err(bad(format!(
                            "a posting is of chunk {}, node {} in file {}",
                            p.chunk, p.node, p.file
                        )));
                    }
                }
                for (term, columns) in postings {
                    let mut list = Vec::with_capacity(columns.len());
                    for posting in columns.postings().into_iter().flatten().flatten() {
                        let (chunks, _, _) = self.index.retrieval.sparse_parts();
                        chunks.set_node(posting.chunk as usize, NodeId::new(posting.node as usize));
                        self.posted(NodeId::new(posting.node as usize), posting.file, posting.flags);
                        list.push((posting.chunk, posting.weight));
                    }
                    let (_, lexical, _) = self.index.retrieval.sparse_parts();
                    lexical.put_term(term, list);
                }
                self.postings_in[at] = true;
            }
            Want::Names(_) | Want::Digest(_) => {
                let names: Vec<NameEntry> = open("names", item, bytes)?;
                for entry in names {
                    let id = NodeId::new(entry.node as usize);
                    if entry.file.is_some() && self.held.get(entry.node as usize).is_some_and(|&h| h < Held::Whole) {
                        let (role, has_sources, declared) = super::Flags::read(entry.flags);
                        let (parent, path) =
                            (entry.parent.as_deref().map(Into::into), entry.path.as_deref().map(Into::into));
                        let facts = Facts { role, has_sources, declared, parent, path };
                        self.index.retrieval.set_facts(id, Some(facts));
                    }
                    self.brief(entry.node, Held::Named, || fathom_graph::Node {
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
                        is_external: entry.external,
                        details: None,
                    });
                }
                match want {
                    Want::Names(at) => self.names_in[at] = true,
                    Want::Digest(at) => self.digests_in[at] = true,
                    _ => {}
                }
                self.dirty = true;
            }
            Want::Nodes(at) => {
                let page: NodePage = open("a node page", item, bytes)?;
                self.check_nodes(item, page.nodes.iter().map(|(id, _)| *id))?;
                self.check_files(item, page.files.iter().map(|h| h.id).chain(page.lines.iter().map(|l| l.file)))?;
                for head in page.files {
                    self.head(head);
                }
                let mut changed: Vec<u32> = Vec::new();
                for super::Lines { file, first, lines } in page.lines {
                    if self.files_in[file as usize] {
                        continue;
                    }
                    let known = self.lines.entry(file).or_default();
                    for (at, line) in (first..).zip(lines) {
                        known.insert(at, line);
                    }
                    changed.push(file);
                }
                changed.dedup();
                for file in changed {
                    self.index.texts[file as usize] = self.lines[&file].text();
                }
                for (id, node) in page.nodes {
                    let id = NodeId::new(id as usize);
                    self.index.graph.put_node(id, node);
                    self.held[id.index()] = Held::Whole;
                    self.drop_facts_if_held(id);
                }
                let (chunks, _, _) = self.index.retrieval.sparse_parts();
                for (id, chunk) in page.chunks {
                    chunks.put(id as usize, chunk);
                }
                self.nodes_in[at] = true;
                self.dirty = true;
            }
            Want::File(file) => {
                let FileItem { text, colours } = open("a file", item, bytes)?;
                self.index.texts[file as usize] = text;
                self.colours.insert(file, colours);
                self.lines.remove(&file);
                self.files_in[file as usize] = true;
            }
            Want::Meaning | Want::Group(_) | Want::Part(_) | Want::Rows(_) | Want::Pieces(_) => {
                self.put_meaning(want, item, bytes)?
            }
            Want::Summary => {
                let stored: crate::bundle::StoredSummary<'static> = open("the summary", item, bytes)?;
                stored.fill(&mut self.index.summary);
                self.summary_in = true;
            }
            Want::Edges(at) | Want::More(at) => {
                let run: EdgeRun = open("an edge run", item, bytes)?;
                self.check_nodes(item, run.nodes.iter().chain(&run.far).map(|(id, _)| *id))?;
                for head in run.files {
                    self.head(head);
                }
                let run_nodes: Vec<NodeId> = run.nodes.iter().map(|(id, _)| NodeId::new(*id as usize)).collect();
                for (id, node) in run.nodes.into_iter().chain(run.far) {
                    self.brief(id, Held::Far, || node);
                }
                for (id, from, to, edge) in run.edges {
                    self.edges.insert(id, (from, to, edge));
                }
                match want {
                    Want::More(_) => self.more_in[at] = true,
                    _ => self.edges_in[at] = true,
                }
                for id in run_nodes {
                    self.drop_facts_if_held(id);
                }
                self.dirty = true;
            }
        }
        Ok(())
    }

    /// Notes a node a posting or a row names as known in brief: in its
    /// file, with what ranking weighs of it (`flags`), unless more of it is
    /// held already.
    fn posted(&mut self, id: NodeId, file: u32, flags: u8) {
        if self.held[id.index()] < Held::Named && self.index.retrieval.facts(id).is_none() {
            if self.held[id.index()] == Held::Nothing {
                self.index.graph.place_in_file(id, FileId(file));
                self.held[id.index()] = Held::Posted;
            }
            let (role, has_sources, declared) = super::Flags::read(flags);
            let facts = Facts { role, has_sources, declared, parent: None, path: None };
            self.index.retrieval.set_facts(id, Some(facts));
        }
    }

    /// Puts a file's head in: its path, its role for ranking and its item.
    fn head(&mut self, head: FileHead) {
        let graph = &mut self.index.graph;
        if graph.files().get(head.id as usize).is_some_and(|f| f.path.is_empty()) {
            self.file_items[head.id as usize] = Some(head.text);
            self.answers.entry(head.text).or_default().push(Want::File(head.id));
            *graph.file_mut(FileId(head.id)) = FileEntry {
                path: head.path.clone(),
                language: head.language,
                module: NodeId::new(head.module as usize),
            };
            self.index.by_path.insert(head.path.clone(), head.id);
            let (_, _, roles) = self.index.retrieval.sparse_parts();
            roles.put(&head.path, head.role, head.sources);
        }
    }

    /// Refuses a page that names a node past the end.
    fn check_nodes(&self, item: &ItemRef, ids: impl Iterator<Item = u32>) -> Result<(), StoreError> {
        within(item, "a graph page", "node", self.held.len(), ids)
    }

    /// Refuses a page that names a file past the end.
    fn check_files(&self, item: &ItemRef, ids: impl Iterator<Item = u32>) -> Result<(), StoreError> {
        within(item, "a node page", "file", self.files_in.len(), ids)
    }

    /// Every node page and edge run: what a question that reads the whole
    /// graph needs.
    fn everything(&self) -> impl Iterator<Item = Want> + use<> {
        (0..self.root.nodes.count as usize).map(Want::Nodes).chain((0..self.root.edges.count as usize).map(Want::Edges))
    }

    /// Whether a symbol is in whole, or all but its details with its file's
    /// head: what a hit shown needs (a snippet reads its file's text).
    fn known(&self, node: NodeId) -> bool {
        match self.held[node.index()] {
            Held::Whole => true,
            Held::Far => self.index.graph.path_of(node).is_some_and(|p| !p.is_empty()),
            _ => false,
        }
    }

    /// Puts a node in brief, where that adds to what is held of it.
    fn brief(&mut self, id: u32, held: Held, node: impl FnOnce() -> fathom_graph::Node) {
        let at = id as usize;
        if self.held.get(at).is_some_and(|&h| h < held) {
            self.index.graph.put_node(NodeId::new(at), node());
            self.held[at] = held;
        }
    }

    /// A symbol whose page and edges are both in is read from the graph,
    /// not from its facts.
    fn drop_facts_if_held(&mut self, id: NodeId) {
        if self.held[id.index()] == Held::Whole && self.edges_in[self.run_of(id)] {
            self.index.retrieval.set_facts(id, None);
        }
    }

    /// Lists the edges and names that arrived.
    fn settle(&mut self) {
        if !self.dirty {
            return;
        }
        let nodes = self.held.len() as u32;
        let edges = self.edges.iter().filter(|(_, (from, to, _))| *from < nodes && *to < nodes).map(
            |(&id, &(from, to, edge))| {
                (fathom_graph::EdgeId::new(id as usize), NodeId::new(from as usize), NodeId::new(to as usize), edge)
            },
        );
        self.index.graph.set_edges(edges.collect::<Vec<_>>());
        self.index.retrieval.rebuild_names(&self.index.graph);
        self.dirty = false;
    }

    /// The node page holding `node`.
    fn page_of(&self, node: NodeId) -> usize {
        self.root.nodes.run_of(node.index() as u32)
    }

    /// The edge run holding `node`.
    fn run_of(&self, node: NodeId) -> usize {
        self.root.edges.run_of(node.index() as u32)
    }

    /// The name pages that may hold `word`, or, unless `exact`, a name
    /// starting with it (every page, for a dotted name, which is matched
    /// against qualified names).
    fn name_pages(&self, word: &str, exact: bool) -> std::ops::Range<usize> {
        if word.contains('.') || word.contains("::") {
            return 0..self.root.name_keys.len();
        }
        self.name_run(word, exact)
    }

    /// The name pages that may hold `key` with the qualified name
    /// `qualified`: within a name, pages are in order of qualified names,
    /// and a page that goes on with its last page's name says where it
    /// starts (`Root::name_quals`).
    fn qualified_run(&self, key: &str, qualified: &str) -> std::ops::Range<usize> {
        let keys = &self.root.name_keys;
        let quals = &self.root.name_quals;
        let first = |page: usize| {
            let qual = quals.binary_search_by_key(&(page as u32), |(at, _)| *at).map_or("", |at| quals[at].1.as_str());
            (keys[page].as_str(), qual)
        };
        let target = (key, qualified);
        // The first page starting at or past it, less one: that one may end with it.
        let (mut low, mut high) = (0, keys.len());
        while low < high {
            let mid = (low + high) / 2;
            if first(mid) < target { low = mid + 1 } else { high = mid }
        }
        let start = low.saturating_sub(1);
        let end = start + 1 + (start + 1..keys.len()).take_while(|&page| first(page) == target).count();
        start..end
    }

    /// The name pages that may hold the key `word`, or, unless `exact`, a
    /// key starting with it.
    fn name_run(&self, word: &str, exact: bool) -> std::ops::Range<usize> {
        let pages = &self.root.name_keys;
        // The last page whose first key is below the word may end with it;
        // every later page whose first key is it (or, for a prefix, starts
        // with it) holds more.
        let start = pages.partition_point(|first| first.as_str() < word).saturating_sub(1);
        let more = |first: &str| if exact { first == word } else { first.starts_with(word) };
        let end = start + 1 + pages[start + 1..].iter().take_while(|first| more(first)).count();
        start..end
    }

    fn item_of(&self, want: Want) -> Option<(ItemRef, String)> {
        Some(match want {
            Want::Postings(at) => {
                (self.root.postings.item(&self.root.tag, super::POSTINGS, at)?, format!("postings {at}"))
            }
            Want::Names(at) => (
                self.root.names.item(&self.root.tag, super::NAMES, at)?,
                format!("names from `{}`", self.root.name_keys[at]),
            ),
            Want::Digest(at) => (self.root.digests.get(at)?.1, format!("the digest of `{}`", self.root.digests[at].0)),
            Want::Nodes(at) => (self.root.nodes.item(&self.root.tag, super::NODES, at)?, format!("node page {at}")),
            Want::Edges(at) => (self.root.edges.item(&self.root.tag, super::EDGES, at)?, format!("edge run {at}")),
            Want::More(at) => (self.root.more.item(&self.root.tag, super::MORE, at)?, format!("more edges {at}")),
            Want::File(file) => {
                let item = (*self.file_items.get(file as usize)?)?;
                (item, format!("the text of `{}`", self.index.graph.files()[file as usize].path))
            }
            Want::Meaning | Want::Group(_) | Want::Part(_) | Want::Rows(_) | Want::Pieces(_) => {
                return self.meaning_item(want);
            }
            Want::Summary => (self.root.summary, "the summary".to_owned()),
        })
    }

    fn have(&self, want: Want) -> bool {
        match want {
            Want::Postings(at) => self.postings_in.get(at).copied().unwrap_or(true),
            Want::Names(at) => self.names_in.get(at).copied().unwrap_or(true),
            Want::Digest(at) => self.digests_in.get(at).copied().unwrap_or(true),
            Want::Nodes(at) => self.nodes_in.get(at).copied().unwrap_or(true),
            Want::Edges(at) => self.edges_in.get(at).copied().unwrap_or(true),
            Want::More(at) => self.more_in.get(at).copied().unwrap_or(true),
            Want::File(file) => self.files_in.get(file as usize).copied().unwrap_or(true),
            Want::Meaning | Want::Group(_) | Want::Part(_) | Want::Rows(_) | Want::Pieces(_) => self.have_meaning(want),
            Want::Summary => self.summary_in,
        }
    }

    /// The items of `wants` not in yet, each once; `None` when all are in.
    /// A placed item asked for is noted as answering its want.
    fn needs(&mut self, wants: Vec<Want>) -> Option<Vec<Need>> {
        let mut seen: HashSet<ItemRef> = HashSet::new();
        let mut needs: Vec<Need> = Vec::new();
        for want in wants {
            if self.have(want) {
                continue;
            }
            let Some((item, what)) = self.item_of(want) else { continue };
            if item.is_placed() {
                let answers = self.answers.entry(item).or_default();
                if !answers.contains(&want) {
                    answers.push(want);
                }
            }
            if seen.insert(item) {
                needs.push(Need { item, what, span: self.span_of(want), run: None });
            }
        }
        runs(&mut needs);
        if needs.is_empty() {
            return None;
        }
        self.fetched.waves += 1;
        Some(needs)
    }
}

/// The most bytes one run of packed items reads ([`runs`]).
pub const RUN_BYTES: u64 = 64 << 10;

/// What a question that reads the graph widely (a Cypher query, a walk of
/// callers or impact, a name's references) may fetch before its reader is
/// asked to allow more: the issue's 5 MB, for the CLI, the MCP server and
/// the page alike ([`drive_within`]).
pub const ALLOWANCE: u64 = 5_000_000;

/// Gives the packed items of a step whose slots follow one another in a
/// pack one run each, of at most [`RUN_BYTES`]: a page reads a run with
/// one Range request, where it made one for each item. A question by
/// meaning reads some two hundred rows, a third of them beside another
/// (rows are kept in their partitions' order), and each request costs the
/// page's worker objects that stay until it next collects its garbage.
/// Slots that only lie near each other are not joined: the bytes between
/// them would be read for nothing.
fn runs(needs: &mut [Need]) {
    let mut packed: Vec<(Span, usize)> = needs.iter().enumerate().filter_map(|(at, n)| Some((n.span?, at))).collect();
    packed.sort_unstable_by_key(|(span, _)| (span.pack.hash, span.offset));
    let mut run: Option<(Span, u64, u32)> = None;
    for (span, at) in packed {
        let joins = run.is_some_and(|(last, start, _)| {
            last.pack == span.pack
                && last.offset + u64::from(last.length) == span.offset
                && span.offset + u64::from(span.length) - start <= RUN_BYTES
        });
        let (start, id) = match run {
            Some((_, start, id)) if joins => (start, id),
            _ => (span.offset, at as u32),
        };
        needs[at].run = Some(id);
        run = Some((span, start, id));
    }
}

/// At most how many node pages a search fetches beside those it shows, for
/// hits that expansion may yet lift into them.
const SPECULATED: usize = 16;

/// Answers a step, fetching what it needs with `fetch` until it is ready:
/// the CLI's and the tests' loop (the browser's worker fetches instead).
/// Returns the answer and how many waves of fetches it took.
pub fn drive<T>(
    reader: &mut SplitReader,
    fetch: impl FnMut(&Need) -> Result<Vec<u8>, StoreError>,
    step: impl FnMut(&mut SplitReader) -> Step<T>,
) -> Result<(T, usize), StoreError> {
    Ok(drive_within(reader, fetch, step, u64::MAX)?.expect("nothing costs more than everything"))
}

/// [`drive`], fetching no more than `allowed` bytes from here: a wave that
/// would take the question past it is priced ([`SplitReader::cost`]) and
/// not fetched, and the answer is what it would cost.
pub fn drive_within<T>(
    reader: &mut SplitReader,
    mut fetch: impl FnMut(&Need) -> Result<Vec<u8>, StoreError>,
    mut step: impl FnMut(&mut SplitReader) -> Step<T>,
    allowed: u64,
) -> Result<Result<(T, usize), Costly>, StoreError> {
    let start = reader.fetched().bytes;
    let mut waves = 0;
    loop {
        match step(reader) {
            Step::Ready(value) => return Ok(Ok((value, waves))),
            Step::Needs(needs) => {
                let items: Vec<ItemRef> = needs.iter().map(|n| n.item).collect();
                let bytes = reader.cost(&items);
                if (reader.fetched().bytes - start).saturating_add(bytes) > allowed {
                    return Ok(Err(Costly { bytes, items: items.len() }));
                }
                waves += 1;
                for need in needs {
                    let bytes = fetch(&need)?;
                    reader.supply(&need.item, &bytes)?;
                }
            }
        }
    }
}

/// The names (in lower case, as name pages key them) a node that `symbol`
/// names may have: the whole of it (a module's dotted name, a simple
/// name), and what follows its last `/` (a package named by its path) and
/// its last `.` or `:` (a member named by its qualified name).
pub fn name_keys(symbol: &str) -> Vec<String> {
    let mut keys: Vec<String> = [symbol, after(symbol, &['/']), after(symbol, &['.', ':'])]
        .into_iter()
        .filter(|key| !key.is_empty())
        .map(str::to_lowercase)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

fn after<'a>(text: &'a str, separators: &[char]) -> &'a str {
    text.rsplit(separators).next().unwrap_or(text)
}

/// How far a symbol's tests are sought, as [`fathom_query::symbol`] seeks
/// them: callers, three hops.
const TESTS_DEPTH: u32 = 3;

/// The nodes whose edges a walk of `depth` hops from `starts` read: the
/// starts, and every node it reached short of its last hop.
fn walked(starts: &[NodeId], reached: &[Reached], depth: u32) -> Vec<NodeId> {
    let short = reached.iter().filter(|r| r.depth < depth).map(|r| NodeId::new(r.node.id as usize));
    starts.iter().copied().chain(short).collect()
}

/// Refuses `item` (`what`) where one of `ids` is past the `count` of its kind.
fn within(
    item: &ItemRef,
    what: &str,
    kind: &str,
    count: usize,
    mut ids: impl Iterator<Item = u32>,
) -> Result<(), StoreError> {
    match ids.find(|&id| id as usize >= count) {
        Some(id) => Err(StoreError::Undecodable {
            what: what.into(),
            path: item.path(),
            cause: format!("it holds {kind} {id} of {count}"),
        }),
        None => Ok(()),
    }
}

/// A text from some of its lines: each at its place, blank between.
trait Sparse {
    fn text(&self) -> String;
}

impl Sparse for BTreeMap<u32, String> {
    fn text(&self) -> String {
        let mut text = String::new();
        let mut line = 1;
        for (&at, known) in self {
            while line < at {
                text.push('\n');
                line += 1;
            }
            text.push_str(known);
            text.push('\n');
            line += 1;
        }
        text
    }
}
