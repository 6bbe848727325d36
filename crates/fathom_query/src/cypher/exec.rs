//! Running a guarded query over the code graph.
//!
//! Rows of variable bindings flow through the clauses. `MATCH` extends each
//! row by backtracking over its patterns, never reusing an edge within one
//! pattern; projections group, order, skip and limit. Every step of work is
//! counted against a budget, so a runaway query stops with an error and
//! leaves the engine as it was.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use fathom_graph::{CodeGraph, Edge, EdgeId, NodeId};
use opencypher as oc;
use serde_json::{Value as Json, json};

use super::guard::{CypherError, CypherErrorKind};
use super::value::{Value, compare, equal, truthy};

/// Rows a `RETURN` yields when the query sets no `LIMIT`.
pub const DEFAULT_LIMIT: usize = 50;
/// Rows a `RETURN` never exceeds, whatever its `LIMIT`.
pub const ROW_CAP: usize = 2_000;
/// Units of work (nodes tried, edges followed, rows made) a query may spend.
pub const STEP_BUDGET: u64 = 2_000_000;

/// What the engine offers a query: the graph, and file text for `code`.
pub trait Source {
    fn graph(&self) -> &CodeGraph;
    fn code(&self, id: NodeId) -> Option<&str>;
}

/// A query's answer: named columns and rows of JSON values.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Json>>,
    /// Rows were cut by the default `LIMIT` or the row cap.
    pub truncated: bool,
}

type Row = HashMap<String, Value>;

/// What a run read of the graph: a source that holds the graph in parts
/// (a split bundle's reader) fetches these and runs the query again, until
/// it read nothing it lacked; then its answer is the whole graph's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Every node: a pattern matched against all of them, by no name.
    pub all: bool,
    /// Names a pattern matched nodes by, instead of all of them: `name` or
    /// `qualified_name`, and the name. Every node of that name was read.
    pub named: Vec<(String, String)>,
    /// Nodes whose properties beyond their names (and labels) were read.
    pub nodes: BTreeSet<NodeId>,
    /// Nodes whose edges were read.
    pub edges: BTreeSet<NodeId>,
    /// Nodes whose code was read.
    pub code: BTreeSet<NodeId>,
}

/// Parses, guards and runs a read-only query with its `$parameters`.
pub fn run(source: &dyn Source, text: &str, params: &BTreeMap<String, Json>) -> Result<QueryResult, CypherError> {
    run_reading(source, text, params).0
}

/// [`run`], saying what it read.
pub fn run_reading(
    source: &dyn Source,
    text: &str,
    params: &BTreeMap<String, Json>,
) -> (Result<QueryResult, CypherError>, Reads) {
    let query = match super::guard::parse(text) {
        Ok(query) => query,
        Err(e) => return (Err(e), Reads::default()),
    };
    if !query.unions.is_empty() {
        let refused = error(text, CypherErrorKind::Unsupported, "UNION is not supported yet".into(), query.span.start);
        return (Err(refused), Reads::default());
    }
    let params = params.iter().map(|(k, v)| (k.clone(), Value::from_json(v))).collect();
    let mut exec = Exec { source, text, params, steps: 0, pushed: HashMap::new(), reads: RefCell::default() };
    let answer = exec.query(&query.initial.clauses);
    (answer, exec.reads.into_inner())
}

fn error(text: &str, kind: CypherErrorKind, message: String, offset: usize) -> CypherError {
    CypherError::at(kind, message, text, offset, None)
}

struct Exec<'a> {
    source: &'a dyn Source,
    text: &'a str,
    params: HashMap<String, Value>,
    steps: u64,
    /// `var.key = value` conjuncts of the WHEREs that bind the current MATCH,
    /// checked as soon as `var` is bound. Every WHERE still runs in full
    /// where it stands: this only prunes rows it would reject.
    pushed: HashMap<String, Vec<(String, Value)>>,
    reads: RefCell<Reads>,
}

impl Exec<'_> {
    fn graph(&self) -> &CodeGraph {
        self.source.graph()
    }

    fn step(&mut self, at: usize) -> Result<(), CypherError> {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            let message = format!("the query needs more than {STEP_BUDGET} steps of work; narrow its patterns");
            return Err(error(self.text, CypherErrorKind::Budget, message, at));
        }
        Ok(())
    }

    fn unsupported(&self, what: &str, at: usize) -> CypherError {
        error(self.text, CypherErrorKind::Unsupported, format!("{what} is not supported yet"), at)
    }

    fn query(&mut self, clauses: &[oc::Clause]) -> Result<QueryResult, CypherError> {
        let mut rows: Vec<Row> = vec![Row::new()];
        for (at, clause) in clauses.iter().enumerate() {
            match clause {
                oc::Clause::Match(m) => {
                    // Consecutive MATCH clauses share their variables and all must
                    // hold, so the WHERE of any of them may prune all of them.
                    // An OPTIONAL MATCH keeps its own.
                    let run: Vec<&oc::Expr> = if m.optional {
                        m.where_clause.iter().collect()
                    } else {
                        clauses[at..]
                            .iter()
                            .map_while(|c| match c {
                                oc::Clause::Match(next) if !next.optional => Some(next.where_clause.as_ref()),
                                _ => None,
                            })
                            .flatten()
                            .collect()
                    };
                    rows = self.match_clause(rows, m, &run)?;
                }
                oc::Clause::Unwind(u) => {
                    let mut out = Vec::new();
                    for row in rows {
                        let list = self.eval(&u.expr, &row)?;
                        let items = match list {
                            Value::List(items) => items,
                            Value::Null => Vec::new(),
                            other => vec![other],
                        };
                        for item in items {
                            self.step(u.span.start)?;
                            let mut next = row.clone();
                            next.insert(u.variable.0.clone(), item);
                            out.push(next);
                        }
                    }
                    rows = out;
                }
                oc::Clause::With(w) => {
                    let (columns, projected) = self.project(&rows, &w.body, w.distinct, None)?;
                    rows = projected.into_iter().map(|values| columns.iter().cloned().zip(values).collect()).collect();
                    if let Some(condition) = &w.where_clause {
                        rows = self.filter(rows, condition)?;
                    }
                }
                oc::Clause::Return(r) => {
                    let (columns, projected) = self.project(&rows, &r.body, r.distinct, Some(DEFAULT_LIMIT))?;
                    let keep = self.limit_of(&r.body)?;
                    let truncated = projected.len() > keep;
                    let rows = projected
                        .into_iter()
                        .take(keep)
                        .map(|values| values.iter().map(|v| self.to_json(v)).collect())
                        .collect();
                    return Ok(QueryResult { columns, rows, truncated });
                }
                _ => return Err(self.unsupported("this clause", 0)),
            }
        }
        Err(error(self.text, CypherErrorKind::Syntax, "a query must end with RETURN".into(), self.text.len()))
    }

    /// The rows a RETURN keeps: its LIMIT, else the default, never over the cap.
    fn limit_of(&mut self, body: &oc::ReturnBody) -> Result<usize, CypherError> {
        match &body.limit {
            Some(limit) => Ok(self.count_of(limit)?.min(ROW_CAP)),
            None => Ok(DEFAULT_LIMIT),
        }
    }

    fn count_of(&mut self, expr: &oc::Expr) -> Result<usize, CypherError> {
        match self.eval(expr, &Row::new())? {
            Value::Int(n) if n >= 0 => Ok(n as usize),
            _ => Err(error(
                self.text,
                CypherErrorKind::Type,
                "SKIP and LIMIT take a non-negative integer".into(),
                expr.span.start,
            )),
        }
    }

    fn filter(&mut self, rows: Vec<Row>, condition: &oc::Expr) -> Result<Vec<Row>, CypherError> {
        let mut out = Vec::new();
        for row in rows {
            if truthy(&self.eval(condition, &row)?) {
                out.push(row);
            }
        }
        Ok(out)
    }

    fn match_clause(
        &mut self,
        rows: Vec<Row>,
        m: &oc::Match,
        conditions: &[&oc::Expr],
    ) -> Result<Vec<Row>, CypherError> {
        self.pushed = HashMap::new();
        for condition in conditions {
            for (variable, key, expr) in equality_conjuncts(condition) {
                // Only values known before any row is bound (literals, parameters).
                if let Ok(value) = self.eval(expr, &Row::new()) {
                    self.pushed.entry(variable).or_default().push((key, value));
                }
            }
        }
        let result = self.match_rows(rows, m);
        self.pushed.clear();
        result
    }

    fn match_rows(&mut self, rows: Vec<Row>, m: &oc::Match) -> Result<Vec<Row>, CypherError> {
        let mut out = Vec::new();
        for row in rows {
            let mut matches = vec![row.clone()];
            for part in &m.patterns {
                if part.variable.is_some() {
                    return Err(self.unsupported("a named path", part.span.start));
                }
                let mut next = Vec::new();
                for partial in matches {
                    next.extend(self.match_element(partial, &part.element)?);
                }
                matches = next;
            }
            if let Some(condition) = &m.where_clause {
                matches = self.filter(matches, condition)?;
            }
            if matches.is_empty() && m.optional {
                let mut empty = row.clone();
                for part in &m.patterns {
                    for variable in pattern_variables(&part.element) {
                        empty.entry(variable).or_insert(Value::Null);
                    }
                }
                out.push(empty);
            }
            out.extend(matches);
        }
        Ok(out)
    }

    /// The ways one pattern element extends a row.
    fn match_element(&mut self, row: Row, element: &oc::PatternElement) -> Result<Vec<Row>, CypherError> {
        // Start from the end that is already bound: one node instead of a scan.
        let bound = |node: &oc::NodePattern| node.variable.as_ref().is_some_and(|v| row.contains_key(&v.0));
        if let Some((_, last)) = element.chain.last()
            && !bound(&element.start)
            && bound(last)
        {
            return self.match_element(row, &reversed(element));
        }
        let mut out = Vec::new();
        for start in self.node_candidates(&row, &element.start)? {
            let mut bound = row.clone();
            if let Some(v) = &element.start.variable {
                bound.insert(v.0.clone(), Value::Node(start));
            }
            self.extend_chain(bound, start, &element.chain, &mut HashSet::new(), &mut out)?;
        }
        Ok(out)
    }

    fn extend_chain(
        &mut self,
        row: Row,
        at: NodeId,
        chain: &[(oc::RelationshipPattern, oc::NodePattern)],
        used: &mut HashSet<EdgeId>,
        out: &mut Vec<Row>,
    ) -> Result<(), CypherError> {
        let Some(((rel, node), rest)) = chain.split_first() else {
            out.push(row);
            return Ok(());
        };
        for (edges, end) in self.expand(&row, at, rel, used)? {
            if !self.node_fits(&row, end, node)? {
                continue;
            }
            let mut next = row.clone();
            if let Some(v) = &rel.variable {
                let value = if rel.range.is_some() {
                    Value::List(edges.iter().map(|&e| Value::Edge(e)).collect())
                } else {
                    Value::Edge(edges[0])
                };
                next.insert(v.0.clone(), value);
            }
            if let Some(v) = &node.variable {
                next.insert(v.0.clone(), Value::Node(end));
            }
            used.extend(edges.iter().copied());
            self.extend_chain(next, end, rest, used, out)?;
            for e in &edges {
                used.remove(e);
            }
        }
        Ok(())
    }

    /// The (edges, end node) pairs a relationship pattern reaches from `at`.
    fn expand(
        &mut self,
        row: &Row,
        at: NodeId,
        rel: &oc::RelationshipPattern,
        used: &HashSet<EdgeId>,
    ) -> Result<Vec<(Vec<EdgeId>, NodeId)>, CypherError> {
        let (min, max) = match &rel.range {
            None => (1, 1),
            Some(r) if r.has_range => (r.min.unwrap_or(1).max(0) as u32, r.max.unwrap_or(1) as u32),
            Some(r) => (r.min.unwrap_or(1) as u32, r.min.unwrap_or(1) as u32),
        };
        // A bound relationship variable must be that edge.
        let bound = rel.variable.as_ref().and_then(|v| row.get(&v.0)).and_then(|v| match v {
            Value::Edge(e) => Some(*e),
            _ => None,
        });
        let mut out = Vec::new();
        if min == 0 {
            out.push((Vec::new(), at));
        }
        let mut frontier: Vec<(Vec<EdgeId>, NodeId)> = vec![(Vec::new(), at)];
        for depth in 1..=max {
            let mut next = Vec::new();
            for (path, node) in &frontier {
                for (edge_id, other, edge) in self.steps_from(*node, rel.direction) {
                    self.step(rel.span.start)?;
                    if used.contains(&edge_id) || path.contains(&edge_id) || bound.is_some_and(|b| b != edge_id) {
                        continue;
                    }
                    if !self.edge_fits(&edge, rel)? {
                        continue;
                    }
                    let mut longer = path.clone();
                    longer.push(edge_id);
                    if depth >= min {
                        out.push((longer.clone(), other));
                    }
                    next.push((longer, other));
                }
            }
            frontier = next;
        }
        Ok(out)
    }

    fn steps_from(&self, node: NodeId, direction: oc::Direction) -> Vec<(EdgeId, NodeId, Edge)> {
        self.read(|r| &mut r.edges, node);
        let graph = self.graph();
        let mut steps = Vec::new();
        if !matches!(direction, oc::Direction::Incoming) {
            steps.extend(graph.edges_at(node, true).into_iter().map(|(id, _, to, e)| (id, to, *e)));
        }
        if !matches!(direction, oc::Direction::Outgoing) {
            steps.extend(graph.edges_at(node, false).into_iter().map(|(id, from, _, e)| (id, from, *e)));
        }
        steps
    }

    fn edge_fits(&mut self, edge: &Edge, rel: &oc::RelationshipPattern) -> Result<bool, CypherError> {
        if let Some(types) = &rel.types
            && !label_matches(types, edge.kind.label())
        {
            return Ok(false);
        }
        match &rel.properties {
            None => Ok(true),
            Some(props) => {
                let wanted = self.property_map(props)?;
                Ok(wanted.iter().all(|(key, value)| equal(&edge_property(edge, key), value) == Some(true)))
            }
        }
    }

    fn node_candidates(&mut self, row: &Row, pattern: &oc::NodePattern) -> Result<Vec<NodeId>, CypherError> {
        if let Some(v) = &pattern.variable
            && let Some(value) = row.get(&v.0)
        {
            return Ok(match value {
                Value::Node(id) if self.node_fits(row, *id, pattern)? => vec![*id],
                _ => Vec::new(),
            });
        }
        // A pattern that names its node reads the nodes of that name; any
        // other reads every node.
        let named = self.named(pattern)?;
        let ids: Vec<NodeId> = match &named {
            Some((key, name)) => {
                let graph = self.graph();
                let of = |id: &NodeId| {
                    let node = graph.node(*id);
                    if key == "name" { node.name == *name } else { node.qualified_name == *name }
                };
                self.graph().nodes().map(|(id, _)| id).filter(of).collect()
            }
            None => self.graph().nodes().map(|(id, _)| id).collect(),
        };
        match named {
            Some(named) => self.reads.borrow_mut().named.push(named),
            None => self.reads.borrow_mut().all = true,
        }
        let mut out = Vec::new();
        for id in ids {
            self.step(pattern.span.start)?;
            if self.node_fits(row, id, pattern)? {
                out.push(id);
            }
        }
        Ok(out)
    }

    /// The name a node pattern requires, where it requires one: a `name`
    /// or `qualified_name` property in the pattern, or an equality its
    /// WHERE pushed down, with a string.
    fn named(&mut self, pattern: &oc::NodePattern) -> Result<Option<(String, String)>, CypherError> {
        let mut wanted = match &pattern.properties {
            Some(props) => self.property_map(props)?,
            None => Vec::new(),
        };
        if let Some(pushed) = pattern.variable.as_ref().and_then(|v| self.pushed.get(&v.0)) {
            wanted.extend(pushed.iter().cloned());
        }
        Ok(wanted.into_iter().find_map(|(key, value)| match value {
            Value::Str(name) if key == "name" || key == "qualified_name" => Some((key, name)),
            _ => None,
        }))
    }

    /// Notes that the run read a node's `what`.
    fn read(&self, what: impl FnOnce(&mut Reads) -> &mut BTreeSet<NodeId>, id: NodeId) {
        let mut reads = self.reads.borrow_mut();
        if !reads.all {
            what(&mut reads).insert(id);
        }
    }

    fn node_fits(&mut self, row: &Row, id: NodeId, pattern: &oc::NodePattern) -> Result<bool, CypherError> {
        if let Some(v) = &pattern.variable
            && let Some(Value::Node(bound)) = row.get(&v.0)
            && *bound != id
        {
            return Ok(false);
        }
        if let Some(labels) = &pattern.labels
            && !label_matches(labels, self.graph().node(id).kind.label())
        {
            return Ok(false);
        }
        if let Some(pushed) = pattern.variable.as_ref().and_then(|v| self.pushed.get(&v.0))
            && !pushed.iter().all(|(key, value)| equal(&self.node_property(id, key), value) == Some(true))
        {
            return Ok(false);
        }
        match &pattern.properties {
            None => Ok(true),
            Some(props) => {
                let wanted = self.property_map(props)?;
                Ok(wanted.iter().all(|(key, value)| equal(&self.node_property(id, key), value) == Some(true)))
            }
        }
    }

    fn property_map(&mut self, props: &oc::Properties) -> Result<Vec<(String, Value)>, CypherError> {
        match props {
            oc::Properties::Map(entries) => {
                entries.iter().map(|(key, expr)| Ok((key.0.clone(), self.eval(expr, &Row::new())?))).collect()
            }
            oc::Properties::Param(name) => match self.params.get(name) {
                Some(Value::Map(map)) => Ok(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()),
                _ => Err(error(self.text, CypherErrorKind::Type, format!("${name} must be a map"), 0)),
            },
        }
    }

    /// RETURN and WITH: the item columns, and the projected rows, grouped
    /// when an item aggregates, then distinct, ordered and skipped.
    fn project(
        &mut self,
        rows: &[Row],
        body: &oc::ReturnBody,
        distinct: bool,
        default_limit: Option<usize>,
    ) -> Result<(Vec<String>, Vec<Vec<Value>>), CypherError> {
        if body.star {
            return Err(self.unsupported("RETURN *", 0));
        }
        let columns: Vec<String> = body
            .items
            .iter()
            .map(|item| match &item.alias {
                Some(alias) => alias.0.clone(),
                None => self.text.get(item.expr.span.start..item.expr.span.end).unwrap_or("?").trim().to_owned(),
            })
            .collect();
        let aggregating = body.items.iter().any(|item| is_aggregate(&item.expr));
        // Each projected row keeps the row it came from, for ORDER BY.
        let mut projected: Vec<(Vec<Value>, Row)> = Vec::new();
        if aggregating {
            let mut groups: Vec<(Vec<Value>, Vec<&Row>)> = Vec::new();
            for row in rows {
                self.step(0)?;
                let key: Vec<Value> = body
                    .items
                    .iter()
                    .filter(|item| !is_aggregate(&item.expr))
                    .map(|item| self.eval(&item.expr, row))
                    .collect::<Result<_, _>>()?;
                match groups.iter_mut().find(|(k, _)| same_values(k, &key)) {
                    Some((_, members)) => members.push(row),
                    None => groups.push((key, vec![row])),
                }
            }
            if groups.is_empty() && body.items.iter().all(|item| is_aggregate(&item.expr)) {
                groups.push((Vec::new(), Vec::new()));
            }
            for (key, members) in groups {
                let mut keys = key.into_iter();
                let mut values = Vec::new();
                for item in &body.items {
                    values.push(if is_aggregate(&item.expr) {
                        self.aggregate(&item.expr, &members)?
                    } else {
                        keys.next().unwrap_or(Value::Null)
                    });
                }
                let origin = members.first().map(|r| (*r).clone()).unwrap_or_default();
                projected.push((values, origin));
            }
        } else {
            for row in rows {
                self.step(0)?;
                let values = body.items.iter().map(|item| self.eval(&item.expr, row)).collect::<Result<_, _>>()?;
                projected.push((values, row.clone()));
            }
        }
        if distinct {
            let mut unique: Vec<(Vec<Value>, Row)> = Vec::new();
            for (values, row) in projected {
                if !unique.iter().any(|(seen, _)| same_values(seen, &values)) {
                    unique.push((values, row));
                }
            }
            projected = unique;
        }
        if !body.order_by.is_empty() {
            let mut keyed = Vec::new();
            for (values, row) in projected {
                let mut scope = row.clone();
                scope.extend(columns.iter().cloned().zip(values.iter().cloned()));
                let keys: Vec<Value> =
                    body.order_by.iter().map(|s| self.eval(&s.expr, &scope)).collect::<Result<_, _>>()?;
                keyed.push((keys, values, row));
            }
            keyed.sort_by(|a, b| {
                body.order_by
                    .iter()
                    .zip(a.0.iter().zip(&b.0))
                    .map(|(sort, (x, y))| {
                        let order = compare(x, y).unwrap_or(Ordering::Equal);
                        if sort.descending { order.reverse() } else { order }
                    })
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            });
            projected = keyed.into_iter().map(|(_, values, row)| (values, row)).collect();
        }
        let skip = match &body.skip {
            Some(skip) => self.count_of(skip)?,
            None => 0,
        };
        let mut values: Vec<Vec<Value>> = projected.into_iter().skip(skip).map(|(values, _)| values).collect();
        // WITH applies its own LIMIT only; RETURN's limit is applied by the caller,
        // which also reports the cut. Keep one more row than it so a cut shows.
        let cap = match (&body.limit, default_limit) {
            (Some(limit), None) => Some(self.count_of(limit)?),
            (_, Some(_)) => Some(ROW_CAP + 1),
            (None, None) => None,
        };
        if let Some(cap) = cap {
            values.truncate(cap);
        }
        Ok((columns, values))
    }

    fn aggregate(&mut self, expr: &oc::Expr, rows: &[&Row]) -> Result<Value, CypherError> {
        let (name, distinct, args) = match &expr.kind {
            oc::ExprKind::CountStar => return Ok(Value::Int(rows.len() as i64)),
            oc::ExprKind::FunctionCall { name, distinct, args } => (name.0.to_lowercase(), *distinct, args),
            _ => return Err(self.unsupported("an aggregate inside an expression", expr.span.start)),
        };
        let Some(arg) = args.first() else {
            return Err(error(
                self.text,
                CypherErrorKind::Type,
                format!("{name}() needs an argument"),
                expr.span.start,
            ));
        };
        let mut values = Vec::new();
        for row in rows {
            let value = self.eval(arg, row)?;
            if value != Value::Null && !(distinct && values.iter().any(|v| equal(v, &value) == Some(true))) {
                values.push(value);
            }
        }
        let numbers = || values.iter().filter_map(Value::as_f64).collect::<Vec<f64>>();
        Ok(match name.as_str() {
            "count" => Value::Int(values.len() as i64),
            "collect" => Value::List(values),
            "min" => {
                values.iter().min_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal)).cloned().unwrap_or(Value::Null)
            }
            "max" => {
                values.iter().max_by(|a, b| compare(a, b).unwrap_or(Ordering::Equal)).cloned().unwrap_or(Value::Null)
            }
            "sum" if values.iter().all(|v| matches!(v, Value::Int(_))) => {
                Value::Int(values.iter().filter_map(|v| if let Value::Int(n) = v { Some(*n) } else { None }).sum())
            }
            "sum" => Value::Float(numbers().iter().sum()),
            "avg" => {
                let n = numbers();
                if n.is_empty() { Value::Null } else { Value::Float(n.iter().sum::<f64>() / n.len() as f64) }
            }
            other => return Err(self.unsupported(&format!("the aggregate {other}()"), expr.span.start)),
        })
    }

    fn eval(&mut self, expr: &oc::Expr, row: &Row) -> Result<Value, CypherError> {
        use oc::ExprKind as K;
        Ok(match &expr.kind {
            K::Null => Value::Null,
            K::Boolean(b) => Value::Bool(*b),
            K::Integer(n) => Value::Int(*n),
            K::Float(f) => Value::Float(*f),
            K::String(s) => Value::Str(s.clone()),
            K::Parameter(name) => self.params.get(name).cloned().ok_or_else(|| {
                error(self.text, CypherErrorKind::Type, format!("no value for the parameter ${name}"), expr.span.start)
            })?,
            K::Variable(v) => row.get(&v.0).cloned().ok_or_else(|| {
                error(self.text, CypherErrorKind::Type, format!("`{}` is not defined", v.0), expr.span.start)
            })?,
            K::List(items) => Value::List(items.iter().map(|e| self.eval(e, row)).collect::<Result<_, _>>()?),
            K::Map(entries) => Value::Map(
                entries
                    .iter()
                    .map(|(k, e)| Ok((k.0.clone(), self.eval(e, row)?)))
                    .collect::<Result<_, CypherError>>()?,
            ),
            K::Property { base, key } => match self.eval(base, row)? {
                Value::Node(id) => self.node_property(id, &key.0),
                Value::Edge(id) => edge_property(self.graph().edge(id).2, &key.0),
                Value::Map(map) => map.get(&key.0).cloned().unwrap_or(Value::Null),
                _ => Value::Null,
            },
            K::IsNull(e) => Value::Bool(self.eval(e, row)? == Value::Null),
            K::IsNotNull(e) => Value::Bool(self.eval(e, row)? != Value::Null),
            K::Unary { op, operand } => {
                let value = self.eval(operand, row)?;
                match op {
                    oc::UnaryOp::Not => match value {
                        Value::Null => Value::Null,
                        v => Value::Bool(!truthy(&v)),
                    },
                    oc::UnaryOp::Minus => match value {
                        Value::Int(n) => Value::Int(-n),
                        Value::Float(f) => Value::Float(-f),
                        _ => Value::Null,
                    },
                    _ => value,
                }
            }
            K::Comparison { first, rest } => {
                let mut left = self.eval(first, row)?;
                let mut all = Value::Bool(true);
                for (op, right) in rest {
                    let right = self.eval(right, row)?;
                    let holds = match op {
                        oc::ComparisonOp::Eq => equal(&left, &right),
                        oc::ComparisonOp::Neq => equal(&left, &right).map(|b| !b),
                        oc::ComparisonOp::Lt => compare(&left, &right).map(|o| o == Ordering::Less),
                        oc::ComparisonOp::Gt => compare(&left, &right).map(|o| o == Ordering::Greater),
                        oc::ComparisonOp::Lte => compare(&left, &right).map(|o| o != Ordering::Greater),
                        oc::ComparisonOp::Gte => compare(&left, &right).map(|o| o != Ordering::Less),
                    };
                    all = match (all, holds) {
                        (Value::Bool(false), _) | (_, Some(false)) => Value::Bool(false),
                        (Value::Null, _) | (_, None) => Value::Null,
                        _ => Value::Bool(true),
                    };
                    left = right;
                }
                all
            }
            K::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, row, expr.span.start)?,
            K::FunctionCall { name, args, .. } => self.function(&name.0, args, row, expr.span.start)?,
            K::CountStar => return Err(self.unsupported("count(*) inside an expression", expr.span.start)),
            _ => return Err(self.unsupported("this expression", expr.span.start)),
        })
    }

    fn binary(
        &mut self,
        op: oc::BinaryOp,
        lhs: &oc::Expr,
        rhs: &oc::Expr,
        row: &Row,
        at: usize,
    ) -> Result<Value, CypherError> {
        use oc::BinaryOp as B;
        let left = self.eval(lhs, row)?;
        // AND and OR follow three-valued logic.
        if matches!(op, B::And | B::Or | B::Xor) {
            let right = self.eval(rhs, row)?;
            let (l, r) = (as_bool(&left), as_bool(&right));
            return Ok(match op {
                B::And => match (l, r) {
                    (Some(false), _) | (_, Some(false)) => Value::Bool(false),
                    (Some(true), Some(true)) => Value::Bool(true),
                    _ => Value::Null,
                },
                B::Or => match (l, r) {
                    (Some(true), _) | (_, Some(true)) => Value::Bool(true),
                    (Some(false), Some(false)) => Value::Bool(false),
                    _ => Value::Null,
                },
                _ => match (l, r) {
                    (Some(a), Some(b)) => Value::Bool(a != b),
                    _ => Value::Null,
                },
            });
        }
        let right = self.eval(rhs, row)?;
        let text = |v: &Value| if let Value::Str(s) = v { Some(s.clone()) } else { None };
        Ok(match op {
            B::In => match right {
                Value::List(items) => Value::Bool(items.iter().any(|i| equal(&left, i) == Some(true))),
                _ => Value::Null,
            },
            B::StartsWith | B::EndsWith | B::Contains | B::RegexMatch => match (text(&left), text(&right)) {
                (Some(l), Some(r)) => Value::Bool(match op {
                    B::StartsWith => l.starts_with(&r),
                    B::EndsWith => l.ends_with(&r),
                    B::Contains => l.contains(&r),
                    _ => {
                        let pattern = regex::Regex::new(&format!("^(?:{r})$")).map_err(|e| {
                            error(self.text, CypherErrorKind::Type, format!("bad regular expression: {e}"), at)
                        })?;
                        pattern.is_match(&l)
                    }
                }),
                _ => Value::Null,
            },
            B::Add => match (&left, &right) {
                (Value::Int(a), Value::Int(b)) => Value::Int(a.saturating_add(*b)),
                (Value::Str(a), Value::Str(b)) => Value::Str(format!("{a}{b}")),
                (Value::List(a), Value::List(b)) => Value::List(a.iter().chain(b).cloned().collect()),
                _ => arithmetic(&left, &right, |a, b| a + b),
            },
            B::Sub => match (&left, &right) {
                (Value::Int(a), Value::Int(b)) => Value::Int(a.saturating_sub(*b)),
                _ => arithmetic(&left, &right, |a, b| a - b),
            },
            B::Mul => match (&left, &right) {
                (Value::Int(a), Value::Int(b)) => Value::Int(a.saturating_mul(*b)),
                _ => arithmetic(&left, &right, |a, b| a * b),
            },
            B::Div => arithmetic(&left, &right, |a, b| a / b),
            B::Mod => arithmetic(&left, &right, |a, b| a % b),
            B::Pow => arithmetic(&left, &right, f64::powf),
            _ => return Err(self.unsupported("this operator", at)),
        })
    }

    fn function(&mut self, name: &str, args: &[oc::Expr], row: &Row, at: usize) -> Result<Value, CypherError> {
        let lower = name.to_lowercase();
        if matches!(lower.as_str(), "count" | "collect" | "min" | "max" | "avg" | "sum") {
            return Err(self.unsupported(&format!("{name}() inside an expression"), at));
        }
        let values: Vec<Value> = args.iter().map(|a| self.eval(a, row)).collect::<Result<_, _>>()?;
        let first = values.first().cloned().unwrap_or(Value::Null);
        Ok(match lower.as_str() {
            "size" | "length" => match first {
                Value::List(items) => Value::Int(items.len() as i64),
                Value::Str(s) => Value::Int(s.chars().count() as i64),
                _ => Value::Null,
            },
            "labels" => match first {
                Value::Node(id) => Value::List(vec![Value::Str(self.graph().node(id).kind.label().to_owned())]),
                _ => Value::Null,
            },
            "type" => match first {
                Value::Edge(id) => Value::Str(self.graph().edge(id).2.kind.label().to_owned()),
                _ => Value::Null,
            },
            "id" => match first {
                Value::Node(id) => Value::Int(id.index() as i64),
                Value::Edge(id) => Value::Int(self.graph().edge_number(id) as i64),
                _ => Value::Null,
            },
            "tolower" => match first {
                Value::Str(s) => Value::Str(s.to_lowercase()),
                _ => Value::Null,
            },
            "toupper" => match first {
                Value::Str(s) => Value::Str(s.to_uppercase()),
                _ => Value::Null,
            },
            "coalesce" => values.into_iter().find(|v| *v != Value::Null).unwrap_or(Value::Null),
            _ => return Err(self.unsupported(&format!("the function {name}()"), at)),
        })
    }

    fn node_property(&self, id: NodeId, key: &str) -> Value {
        // Names and labels are known of every node a query reaches; the
        // rest (`kind` too: a class's own kind, an interface or a struct)
        // of a node read whole.
        match key {
            "name" | "qualified_name" => {}
            "code" => self.read(|r| &mut r.code, id),
            "fan_in" | "fan_out" => self.read(|r| &mut r.edges, id),
            _ => self.read(|r| &mut r.nodes, id),
        }
        let graph = self.graph();
        let node = graph.node(id);
        let details = node.details.as_deref();
        let text = |s: Option<&str>| s.map_or(Value::Null, |s| Value::Str(s.to_owned()));
        let list = |items: Vec<String>| Value::List(items.into_iter().map(Value::Str).collect());
        match key {
            "name" => Value::Str(node.name.clone()),
            "qualified_name" => Value::Str(node.qualified_name.clone()),
            "kind" => {
                node.class_kind.map_or(Value::Str(node.kind.name().to_owned()), |k| Value::Str(k.name().to_owned()))
            }
            "file_path" => graph.path_of(id).map_or(Value::Null, |p| Value::Str(p.to_owned())),
            "language" => Value::Str(node.language.name().to_owned()),
            "start_line" => Value::Int(node.span.start_line.into()),
            "end_line" => Value::Int(node.span.end_line.into()),
            "start_byte" => Value::Int(node.span.start_byte.into()),
            "end_byte" => Value::Int(node.span.end_byte.into()),
            "is_external" => Value::Bool(node.is_external),
            "code" => self.source.code(id).map_or(Value::Null, |c| Value::Str(c.to_owned())),
            "fan_in" => Value::Int(graph.fan_in(id) as i64),
            "fan_out" => Value::Int(graph.fan_out(id) as i64),
            _ => match details {
                None => Value::Null,
                Some(d) => match key {
                    "signature" => text(d.signature.as_deref()),
                    "docstring" => text(d.docstring.as_deref()),
                    "parameters" => list(d.parameters.iter().map(|p| p.text.clone()).collect()),
                    "return_type" => text(d.return_type.as_deref()),
                    "type" => text(d.type_name.as_deref()),
                    "modifiers" => list(d.modifiers.to_vec()),
                    "decorators" => list(d.decorators.to_vec()),
                    "visibility" => d.visibility.map_or(Value::Null, |v| Value::Str(format!("{v:?}").to_lowercase())),
                    "is_test" => Value::Bool(d.is_test),
                    "is_constructor" => Value::Bool(d.is_constructor),
                    "cyclomatic_complexity" => d.complexity.map_or(Value::Null, |c| Value::Int(c.into())),
                    "loc" => Value::Int(d.loc.into()),
                    "synthesized" => d.synthesized.map_or(Value::Null, |s| Value::Str(s.to_owned())),
                    _ => Value::Null,
                },
            },
        }
    }

    fn to_json(&self, value: &Value) -> Json {
        let graph = self.graph();
        match value {
            Value::Node(id) => {
                self.read(|r| &mut r.nodes, *id);
                let node = graph.node(*id);
                json!({
                    "id": id.index(),
                    "labels": [node.kind.label()],
                    "name": node.name,
                    "qualified_name": node.qualified_name,
                    "file_path": graph.path_of(*id),
                    "start_line": node.span.start_line,
                    "end_line": node.span.end_line,
                    "is_external": node.is_external,
                })
            }
            Value::Edge(id) => {
                let (from, to, edge) = graph.edge(*id);
                json!({
                    "id": graph.edge_number(*id),
                    "type": edge.kind.label(),
                    "start": from.index(),
                    "end": to.index(),
                    "confidence": (edge.confidence * 100.0).round() / 100.0,
                    "reason": edge.reason.name(),
                    "line": edge.line,
                })
            }
            Value::List(items) => Json::Array(items.iter().map(|v| self.to_json(v)).collect()),
            Value::Map(map) => Json::Object(map.iter().map(|(k, v)| (k.clone(), self.to_json(v))).collect()),
            other => other.to_json(),
        }
    }
}

fn edge_property(edge: &Edge, key: &str) -> Value {
    match key {
        "type" => Value::Str(edge.kind.label().to_owned()),
        "confidence" => Value::Float(f64::from((edge.confidence * 100.0).round() / 100.0)),
        "reason" => Value::Str(edge.reason.name().to_owned()),
        "line" => edge.line.map_or(Value::Null, |l| Value::Int(l.into())),
        "access" => edge.access.map_or(Value::Null, |a| Value::Str(format!("{a:?}").to_lowercase())),
        _ => Value::Null,
    }
}

fn label_matches(expr: &oc::LabelExpr, label: &str) -> bool {
    match expr {
        oc::LabelExpr::Leaf(name) => name == label,
        oc::LabelExpr::Wildcard => true,
        oc::LabelExpr::Negation(inner) => !label_matches(inner, label),
        oc::LabelExpr::Conjunction(a, b) => label_matches(a, label) && label_matches(b, label),
        oc::LabelExpr::Disjunction(a, b) => label_matches(a, label) || label_matches(b, label),
        // Label forms this engine does not know match nothing.
        _ => false,
    }
}

fn is_aggregate(expr: &oc::Expr) -> bool {
    match &expr.kind {
        oc::ExprKind::CountStar => true,
        oc::ExprKind::FunctionCall { name, .. } => {
            matches!(name.0.to_lowercase().as_str(), "count" | "collect" | "min" | "max" | "avg" | "sum")
        }
        _ => false,
    }
}

/// The `var.key = expr` terms of a WHERE that are joined by AND at its top.
fn equality_conjuncts(condition: &oc::Expr) -> Vec<(String, String, &oc::Expr)> {
    match &condition.kind {
        oc::ExprKind::Binary { op: oc::BinaryOp::And, lhs, rhs } => {
            let mut out = equality_conjuncts(lhs);
            out.extend(equality_conjuncts(rhs));
            out
        }
        oc::ExprKind::Comparison { first, rest } if rest.len() == 1 && rest[0].0 == oc::ComparisonOp::Eq => {
            let property = |e: &oc::Expr| match &e.kind {
                oc::ExprKind::Property { base, key } => match &base.kind {
                    oc::ExprKind::Variable(v) => Some((v.0.clone(), key.0.clone())),
                    _ => None,
                },
                _ => None,
            };
            let (other, value) = (&rest[0].1, first.as_ref());
            match (property(first), property(other)) {
                (Some((variable, key)), None) => vec![(variable, key, other)],
                (None, Some((variable, key))) => vec![(variable, key, value)],
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The same pattern, read from its last node back to its first.
fn reversed(element: &oc::PatternElement) -> oc::PatternElement {
    let mut nodes: Vec<&oc::NodePattern> = vec![&element.start];
    nodes.extend(element.chain.iter().map(|(_, node)| node));
    let mut chain = Vec::with_capacity(element.chain.len());
    for (at, (rel, _)) in element.chain.iter().enumerate().rev() {
        let mut flipped = rel.clone();
        flipped.direction = match rel.direction {
            oc::Direction::Outgoing => oc::Direction::Incoming,
            oc::Direction::Incoming => oc::Direction::Outgoing,
            other => other,
        };
        chain.push((flipped, nodes[at].clone()));
    }
    oc::PatternElement { start: nodes[nodes.len() - 1].clone(), chain, span: element.span }
}

fn pattern_variables(element: &oc::PatternElement) -> Vec<String> {
    let mut out: Vec<String> = element.start.variable.iter().map(|v| v.0.clone()).collect();
    for (rel, node) in &element.chain {
        out.extend(rel.variable.iter().map(|v| v.0.clone()));
        out.extend(node.variable.iter().map(|v| v.0.clone()));
    }
    out
}

fn same_values(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn as_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Null => None,
        other => Some(truthy(other)),
    }
}

fn arithmetic(left: &Value, right: &Value, f: impl Fn(f64, f64) -> f64) -> Value {
    match (left.as_f64(), right.as_f64()) {
        (Some(a), Some(b)) => Value::Float(f(a, b)),
        _ => Value::Null,
    }
}
