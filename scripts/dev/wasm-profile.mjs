#!/usr/bin/env node
// Where the engine's wasm spends its time in V8, without a browser: reads an
// archive with the built pkg/ (make wasm), parses it in shares as the parse
// workers do (`parseShare`), passes after passes on one thread, then builds
// the index (`finishStaged`), under V8's sampling profiler. Prints each
// pass's seconds and the functions with the most time, by their own time
// and with what they call.
//
//   node scripts/dev/wasm-profile.mjs ARCHIVE [--passes N] [--top N]
//
// Native profiles (callgrind) count instructions; V8 runs the same code
// differently (no SIMD, bounds checks, its own tiers), and this is what a
// parse worker's time in Chromium looks like. A developer's tool: no test
// or build runs it.
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import init, { Workspace, parseShare } from '../../pkg/fathom_wasm.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { passes: { type: 'string', default: '2' }, top: { type: 'string', default: '30' } },
});
const [archive] = positionals;
if (!archive) {
  console.error('usage: node scripts/dev/wasm-profile.mjs ARCHIVE [--passes N] [--top N]');
  process.exit(2);
}
const passes = Number(values.passes);
const top = Number(values.top);

await init({ module_or_path: readFileSync(new URL('../../pkg/fathom_wasm_bg.wasm', import.meta.url)) });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 200 });
await session.post('Profiler.start');

const bytes = readFileSync(archive);
const seconds = (since) => ((performance.now() - since) / 1000).toFixed(3);
for (let pass = 1; pass <= passes; pass += 1) {
  const workspace = new Workspace();
  let started = performance.now();
  workspace.stageZip(basename(archive), bytes, [], () => {});
  const read = seconds(started);
  const shares = workspace.stagedShares(32);
  started = performance.now();
  const parsed = shares.map((share) => parseShare(workspace.stagedShare(share)));
  const parse = seconds(started);
  started = performance.now();
  shares.forEach((share, at) => workspace.acceptParsed(share, parsed[at]));
  const accept = seconds(started);
  started = performance.now();
  workspace.finishStaged(() => {});
  console.log(`pass ${pass}: read ${read} s, parse ${parse} s, accept ${accept} s, graph to index ${seconds(started)} s`);
  workspace.free();
}

const { profile } = await session.post('Profiler.stop');
session.disconnect();

// Each sample's time goes to its node's function (own time) and, once, to
// every function on its stack (time with callees).
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const own = new Map();
const inclusive = new Map();
const add = (map, name, us) => map.set(name, (map.get(name) ?? 0) + us);
let total = 0;
profile.samples.forEach((id, at) => {
  const us = profile.timeDeltas[at] ?? 0;
  total += us;
  add(own, byId.get(id).callFrame.functionName || '(anonymous)', us);
  const seen = new Set();
  for (let node = id; node !== undefined; node = parent.get(node)) {
    const name = byId.get(node).callFrame.functionName || '(anonymous)';
    if (!seen.has(name)) add(inclusive, name, us);
    seen.add(name);
  }
});
const table = (title, map) => {
  console.log(`\n${title} (of ${(total / 1e6).toFixed(2)} s sampled)`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %  ${name.slice(0, 110)}`);
  }
};
table('own time', own);
table('with what it calls', inclusive);
