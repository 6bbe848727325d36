// The map's first level: how the system is built, not where its nodes are.
// Files are grouped into communities by Louvain (graphology's) over the
// IMPORTS and CALLS between them (a call between two definitions counts for
// their files); each community is named after its dominant directory (the
// fewest trailing segments that tell it from the others', the prefix they
// all share said once) and its best-connected definitions, in under 40
// characters. Test code (the engine marks it) is left out unless asked for,
// so the production architecture reads alone. Between communities: how many dependencies run
// each way, and which communities, and which directories, depend on each
// other in a cycle: what architects look for first. The engine's map gives
// the nodes, their containment and their edges; this only groups them.
import Graph from 'graphology';
import { stronglyConnectedComponents } from 'graphology-components';
import louvain from 'graphology-communities-louvain';
import type { GraphMap } from '../../web/src/index';

/** Edges that say one file depends on another. */
const DEPENDENCY_EDGES = new Set(['CALLS', 'IMPORTS']);
/** The map's level of a file (fathom_engine::map::LEVEL_FILE). */
export const LEVEL_FILE = 1;
/** Best-connected definitions named in a community's name. */
const NAMED_SYMBOLS = 2;
/** A community's name is shorter than this, so it reads whole on the map. */
export const MAX_NAME = 40;

export interface Community {
  id: number;
  /** `dir: best, second`, the directory as short as tells it apart, under {@link MAX_NAME} characters. */
  name: string;
  /** Its dominant directory ("" at the root). */
  directory: string;
  /** Its directory as the name gives it: the fewest trailing segments that tell it apart, `tests` added for test code. */
  short: string;
  /** Most of its files are test code. */
  test: boolean;
  /** Best-connected definitions first. */
  symbols: string[];
  /** Map node indexes of its files. */
  files: number[];
  /** Qualified names (keys) of its files and their definitions, to focus the map on. */
  keys: string[];
  /** Whether it depends on another that depends on it, through any path. */
  inCycle: boolean;
}

export interface Dependency {
  from: number;
  to: number;
  /** Calls and imports from the one's files to the other's. */
  weight: number;
  /** Both ends lie on one cycle. */
  cycle: boolean;
}

export interface Architecture {
  communities: Community[];
  dependencies: Dependency[];
  /** Each cycle among communities (their ids), and among directories (their paths). */
  cycles: number[][];
  directoryCycles: string[][];
  /** `from\nto` for each pair of directories one depends on the other's code. */
  directoryLinks: Set<string>;
  /** The community of each map node (files and what they contain), -1 for directories. */
  communityOf: Int32Array;
  modularity: number;
  /** The directory every community's lies under ("" when none is shared), said once instead of in every name. */
  root: string;
  /** Test files on the map, and whether they were grouped (`tests: true`) or left out. */
  testFiles: number;
  withTests: boolean;
}

/**
 * Each directory's fewest trailing segments that no other directory ends
 * with: `internal/bind` beside `bind`, `functional` alone. The root is
 * `(root)`.
 */
export function shortDirectories(directories: string[]): Map<string, string> {
  const unique = [...new Set(directories)];
  const segments = new Map(unique.map((d) => [d, d === '' ? [] : d.split('/')]));
  const tail = (d: string, k: number) => segments.get(d)!.slice(-k).join('/');
  const out = new Map<string, string>();
  for (const d of unique) {
    const parts = segments.get(d)!;
    if (parts.length === 0) {
      out.set(d, '(root)');
      continue;
    }
    let k = 1;
    while (k < parts.length && unique.some((o) => o !== d && segments.get(o)!.length >= k && tail(o, k) === tail(d, k))) k += 1;
    out.set(d, tail(d, k));
  }
  return out;
}

/** The directory that every one of `directories` lies in or is, "" when none. */
export function sharedRoot(directories: string[]): string {
  if (directories.length === 0) return '';
  let common = directories[0]!.split('/');
  for (const d of directories.slice(1)) {
    const parts = d.split('/');
    let k = 0;
    while (k < common.length && k < parts.length && common[k] === parts[k]) k += 1;
    common = common.slice(0, k);
  }
  return common.join('/');
}

/** `dir: a, b`, dropping definitions (then cutting the directory's head) until it is under {@link MAX_NAME}. */
function communityName(short: string, symbols: string[]): string {
  const names = [...symbols];
  const join = () => `${short}${names.length > 0 ? `: ${names.join(', ')}` : ''}`;
  while (names.length > 0 && join().length >= MAX_NAME) names.pop();
  const name = join();
  return name.length < MAX_NAME ? name : `…${name.slice(name.length - MAX_NAME + 2)}`;
}

/** A small seeded generator, so that a repository always gets the same communities. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** Cycles of a directed graph: its strongly connected components of two nodes or more. */
function cyclesOf(links: [string, string][]): string[][] {
  const graph = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
  for (const [a, b] of links) {
    if (a === b) continue;
    graph.mergeNode(a);
    graph.mergeNode(b);
    graph.mergeEdge(a, b);
  }
  return stronglyConnectedComponents(graph).filter((c) => c.length > 1);
}

export function architecture(map: GraphMap, options: { tests?: boolean } = {}): Architecture {
  const { nodes, edges } = map;
  const n = nodes.key.length;
  const withTests = options.tests ?? false;
  const isTest = (i: number) => nodes.test[i] === true;
  // Each node's file: itself for a file, its nearest file ancestor below it.
  const fileOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    let at = i;
    while (at >= 0 && nodes.level[at]! > LEVEL_FILE) at = nodes.parent[at]!;
    if (at >= 0 && nodes.level[at] === LEVEL_FILE) fileOf[i] = at;
  }
  const degree = new Float64Array(n);
  const files = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  let testFiles = 0;
  for (let i = 0; i < n; i++) {
    if (nodes.level[i] !== LEVEL_FILE) continue;
    if (isTest(i)) testFiles += 1;
    // Left out, test files join no community, and their calls count for none.
    if (!isTest(i) || withTests) files.addNode(String(i));
  }
  const between: [number, number][] = [];
  for (let e = 0; e < edges.source.length; e++) {
    if (!DEPENDENCY_EDGES.has(map.edge_kinds[edges.kind[e]!] ?? '')) continue;
    const [s, t] = [edges.source[e]!, edges.target[e]!];
    degree[s]! += 1;
    degree[t]! += 1;
    const [a, b] = [fileOf[s]!, fileOf[t]!];
    if (a < 0 || b < 0 || a === b || !files.hasNode(String(a)) || !files.hasNode(String(b))) continue;
    between.push([a, b]);
    const key = files.edge(String(a), String(b));
    if (key === undefined) files.addEdge(String(a), String(b), { weight: 1 });
    else files.updateEdgeAttribute(key, 'weight', (w: number) => w + 1);
  }
  const found = files.size > 0
    ? louvain.detailed(files, { getEdgeWeight: 'weight', rng: seeded(0x5eed) })
    : { communities: {} as Record<string, number>, modularity: 0 };

  // Files with no dependency either way join their directory's largest
  // community, or one community per directory: a singleton each would bury
  // the overview. A file that defines nothing (an empty `__init__.py`) says
  // nothing about the architecture and joins none.
  const defines = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (nodes.level[i]! > LEVEL_FILE && fileOf[i]! >= 0) defines[fileOf[i]!] = 1;
  const raw = new Map<number, number>();
  for (const file of files.nodes()) if (files.degree(file) > 0) raw.set(Number(file), found.communities[file]!);
  const byDirectory = new Map<string, Map<number, number>>();
  for (const [file, c] of raw) {
    const dir = dirname(nodes.file[file] ?? '');
    const counts = byDirectory.get(dir) ?? new Map<number, number>();
    counts.set(c, (counts.get(c) ?? 0) + 1);
    byDirectory.set(dir, counts);
  }
  let next = 0;
  for (const c of raw.values()) next = Math.max(next, c + 1);
  const loose = new Map<string, number>();
  for (const file of files.nodes()) {
    const i = Number(file);
    if (raw.has(i) || !defines[i]) continue;
    const dir = dirname(nodes.file[i] ?? '');
    const counts = byDirectory.get(dir);
    const best = counts ? [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0] : undefined;
    if (best !== undefined) raw.set(i, best);
    else {
      if (!loose.has(dir)) loose.set(dir, next++);
      raw.set(i, loose.get(dir)!);
    }
  }

  // Renumber by size, largest first.
  const members = new Map<number, number[]>();
  for (const [file, c] of raw) {
    const list = members.get(c);
    if (list) list.push(file);
    else members.set(c, [file]);
  }
  const ordered = [...members].sort((a, b) => b[1].length - a[1].length || a[0] - b[0]);
  const id = new Map(ordered.map(([c], k) => [c, k]));
  const communityOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (fileOf[i]! >= 0 && raw.has(fileOf[i]!)) communityOf[i] = id.get(raw.get(fileOf[i]!)!) ?? -1;

  // One dependency per ordered pair of communities, counting its calls and imports.
  const pairs = new Map<string, Dependency>();
  for (const [a, b] of between) {
    const [from, to] = [communityOf[a]!, communityOf[b]!];
    if (from === to) continue;
    const pair = pairs.get(`${from} ${to}`);
    if (pair) pair.weight += 1;
    else pairs.set(`${from} ${to}`, { from, to, weight: 1, cycle: false });
  }
  const dependencies = [...pairs.values()];
  const cycles = cyclesOf(dependencies.map((d) => [String(d.from), String(d.to)])).map((c) => c.map(Number).sort((a, b) => a - b));
  const cycleOf = new Map<number, number>();
  cycles.forEach((cycle, k) => cycle.forEach((c) => cycleOf.set(c, k)));
  for (const d of dependencies) d.cycle = cycleOf.has(d.from) && cycleOf.get(d.from) === cycleOf.get(d.to);
  dependencies.sort((a, b) => b.weight - a.weight);

  const directoryLinks = new Set<string>();
  for (const [a, b] of between) {
    const [da, db] = [dirname(nodes.file[a] ?? ''), dirname(nodes.file[b] ?? '')];
    if (da !== db) directoryLinks.add(`${da}\n${db}`);
  }
  const directoryCycles = cyclesOf([...directoryLinks].map((l) => l.split('\n') as [string, string])).map((c) => c.sort());

  const insideOf: number[][] = ordered.map(() => []);
  for (let i = 0; i < n; i++) if (communityOf[i]! >= 0) insideOf[communityOf[i]!]!.push(i);
  const dominant = ordered.map(([, fileList]) => {
    const dirs = new Map<string, number>();
    for (const f of fileList) {
      const dir = dirname(nodes.file[f] ?? '');
      dirs.set(dir, (dirs.get(dir) ?? 0) + 1);
    }
    return [...dirs].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? '';
  });
  const shorts = shortDirectories(dominant);
  const communities: Community[] = ordered.map(([, fileList], k) => {
    const directory = dominant[k]!;
    const test = fileList.filter(isTest).length * 2 > fileList.length;
    const base = shorts.get(directory) ?? directory;
    const short = test && !/test|spec/i.test(base) ? `${base} tests` : base;
    const inside = insideOf[k]!;
    const symbols = [...new Set(inside
      .filter((i) => nodes.level[i]! > LEVEL_FILE && degree[i]! > 0)
      .sort((a, b) => degree[b]! - degree[a]! || nodes.key[a]!.localeCompare(nodes.key[b]!))
      .map((i) => nodes.label[i]!))]
      .slice(0, NAMED_SYMBOLS);
    return {
      id: k,
      name: communityName(short, symbols),
      directory,
      short,
      test,
      symbols,
      files: [...fileList].sort((a, b) => a - b),
      keys: inside.map((i) => nodes.key[i]!),
      inCycle: cycleOf.has(k),
    };
  });
  return {
    communities, dependencies, cycles, directoryCycles, communityOf, modularity: found.modularity,
    directoryLinks, root: sharedRoot(dominant.filter((d) => d !== '')), testFiles, withTests,
  };
}

/**
 * A cycle's members as a chain that follows its links and returns to its
 * start (`bind → reflect → bind`): the shortest way round through the first
 * member, or all of them joined by ⇄ where no link is known.
 */
export function cycleChain<T>(members: T[], links: (from: T, to: T) => boolean): T[] {
  const [start] = members;
  if (start === undefined) return [];
  // Breadth first from the start, back to it, within the cycle's members.
  const previous = new Map<T, T>();
  const queue: T[] = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const next of members) {
      if (!links(at, next)) continue;
      if (next === start) {
        const path = [at];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next) && next !== start) {
        previous.set(next, at);
        queue.push(next);
      }
    }
  }
  return members;
}
