// `fathom mcp` with the official MCP TypeScript SDK as the client: the
// server lists its tools, each with a JSON schema and a description for an
// LLM, and answers every one of them on a fixture's bundle, with file:line
// citations; mistakes come back as tool errors that name the cause. Served
// a split bundle's directory, it offers the tools a split bundle answers, and
// each answers as the whole bundle's server does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fathom, fathomBinary, repoRoot } from './cli';

const TOOLS = ['callees', 'callers', 'cypher', 'impact', 'locate', 'schema', 'search', 'symbol', 'tests_for'];

let client: Client;
let dir: string;

/** Calls a tool and returns its text, asserting it did not fail. */
async function call(name: string, args: Record<string, unknown>, on: Client = client): Promise<string> {
  const result = await on.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
  expect(result.isError, text).toBeFalsy();
  return text;
}

async function failure(name: string, args: Record<string, unknown>, on: Client = client): Promise<string> {
  const result = await on.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  return (result.content as { text: string }[])[0]?.text ?? '';
}

describe('fathom mcp, driven by the MCP TypeScript SDK', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fathom-mcp-'));
    const bundle = join(dir, 'mini.fathom');
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', bundle, '--no-embed']);
    client = new Client({ name: 'fathom-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: fathomBinary(), args: ['mcp', bundle, '--lexical'], cwd: repoRoot, stderr: 'pipe' }));
  }, 30 * 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('lists nine tools, each with a schema and a description; cypher carries the graph schema', async () => {
    expect(client.getServerVersion()?.name).toBe('fathom');
    expect(client.getInstructions()).toContain('mini-py-js');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(80);
    }
    const cypher = tools.find((t) => t.name === 'cypher');
    for (const word of ['HAS_METHOD', 'CALLS', 'TESTS', 'qualified_name', 'confidence']) expect(cypher?.description).toContain(word);
    expect(Object.keys(cypher?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['query', 'params']));
    expect(cypher?.inputSchema.required).toEqual(['query']);
  });

  test('cypher and search answer correctly, with citations', async () => {
    const rows = await call('cypher', {
      query: 'MATCH (c:CLASS)-[:HAS_METHOD]->(m) WHERE c.name = $name RETURN m.name ORDER BY m.name',
      params: { name: 'Calculator' },
    });
    expect(rows).toBe('m.name\n__init__\nadd\ndescribe\nsubtract\n4 rows\n');
    const found = await call('search', { query: 'compute the total of the values', k: 5 });
    expect(found).toMatch(/^lexical search, \d+ results\n/);
    expect(found).toMatch(/pkg\.calc\.compute_total\s+pkg\/calc\.py:36-\d+/);
    const files = await call('search', { query: 'Calculator', files: true });
    expect(files).toContain('pkg/calc.py');
  });

  test('locate reads a bug report: files first, each with its evidence and the definitions to open', async () => {
    const report = [
      'compute_total gives the wrong sum',
      '',
      'Traceback (most recent call last):',
      '  File "/srv/app/pkg/calc.py", line 39, in compute_total',
      '    calc.add(value)',
      '  File "/srv/app/pkg/calc.py", line 15, in add',
      '    self.total += amount',
      "TypeError: unsupported operand type(s) for +=: 'int' and 'str'",
    ].join('\n');
    const found = await call('locate', { issue: report, k: 3 });
    expect(found).toMatch(/^\d+ files for the report\n 1\. pkg\/calc\.py /);
    expect(found).toContain('a traceback frame, where it raised');
    expect(found).toMatch(/method pkg\.calc\.Calculator\.add pkg\/calc\.py:14-\d+ {2}\[traceback line 15/);
  });

  test('symbol, callers, callees, impact, tests_for and schema', async () => {
    const symbol = await call('symbol', { symbol: 'pkg.calc.compute_total' });
    expect(symbol).toMatch(/^function pkg\.calc\.compute_total \(pkg\/calc\.py:36\)/);
    expect(symbol).toContain('tests: test_calc.test_compute_total');
    const callers = await call('callers', { symbol: 'Calculator.add' });
    expect(callers).toContain('pkg.calc.compute_total (pkg/calc.py:36)  depth 1');
    const callees = await call('callees', { symbol: 'pkg.calc.compute_total' });
    expect(callees).toContain('pkg.calc.Calculator.add (pkg/calc.py:14)');
    const impact = await call('impact', { symbol: 'pkg.calc.Calculator.add', depth: 3 });
    expect(impact).toMatch(/test_calc\.test_compute_total \(tests\/test_calc\.py:8\)\s+depth 2/);
    const tests = await call('tests_for', { symbols: ['pkg.calc.compute_total'] });
    expect(tests).toMatch(/ 1\. test_calc\.test_compute_total \(tests\/test_calc\.py:8\)/);
    expect(tests).toContain('-TESTS-> pkg.calc.compute_total');
    const imaginary = await call('tests_for', { change: 'quantum teleportation of flux capacitors' });
    expect(imaginary).toContain('no recommendation');
    const schema = await call('schema', {});
    expect(schema).toContain('Edge types');
  });

  test('mistakes come back as tool errors naming the cause', async () => {
    expect(await failure('cypher', { query: 'MATCH (n RETURN n' })).toMatch(/line 1/);
    expect(await failure('cypher', { query: 'MATCH (n) DETACH DELETE n' })).toMatch(/DETACH DELETE is not allowed/);
    expect(await failure('symbol', { symbol: 'no.such.thing' })).toContain('no.such.thing');
    expect(await failure('tests_for', {})).toContain('say what changed');
    expect(await failure('callers', { symbol: 'pkg.calc.compute_total', depth: 9 })).toMatch(/depth/);
  });
});

describe('fathom mcp over a split bundle', () => {
  let whole: Client;
  let split: Client;
  let splitDir: string;
  let stderr = '';

  beforeAll(async () => {
    splitDir = mkdtempSync(join(tmpdir(), 'fathom-mcp-split-'));
    const bundle = join(splitDir, 'mini.fathom');
    fathom(['index', 'tests/fixtures/mini-py-js', '-o', bundle, '--no-embed']);
    fathom(['index', 'tests/fixtures/mini-py-js', '--split', '-o', join(splitDir, 'mini'), '--vectors', 'none']);
    whole = new Client({ name: 'fathom-test', version: '1.0.0' });
    await whole.connect(new StdioClientTransport({ command: fathomBinary(), args: ['mcp', bundle, '--lexical'], cwd: repoRoot, stderr: 'pipe' }));
    split = new Client({ name: 'fathom-test', version: '1.0.0' });
    const transport = new StdioClientTransport({ command: fathomBinary(), args: ['mcp', `${join(splitDir, 'mini')}/`], cwd: repoRoot, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    await split.connect(transport);
  }, 30 * 60_000);

  afterAll(async () => {
    await whole?.close();
    await split?.close();
    rmSync(splitDir, { recursive: true, force: true });
  });

  test('offers the seven tools a split bundle answers, says why not the other two, and prices a costly query', async () => {
    const { tools } = await split.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.filter((t) => t !== 'locate' && t !== 'tests_for'));
    expect(split.getInstructions()).toContain('mini-py-js');
    expect(split.getInstructions()).toContain('split bundle');
    const cypher = tools.find((t) => t.name === 'cypher');
    expect(Object.keys(cypher?.inputSchema.properties ?? {})).toContain('fetch_mb');
    // Before any question has read the graph: a query over all of it, held
    // to nothing, is refused with what it would fetch.
    const costly = await failure('cypher', { query: 'MATCH (n) RETURN count(n)', fetch_mb: 0 }, split);
    expect(costly).toMatch(/would fetch at least .* past fetch_mb 0/);
  });

  test('each tool answers as the whole bundle\'s server does, reading only parts', async () => {
    const asks: [string, Record<string, unknown>][] = [
      ['search', { query: 'compute the total of the values', k: 5 }],
      ['search', { query: 'Calculator', files: true }],
      ['cypher', { query: 'MATCH (c:CLASS)-[:HAS_METHOD]->(m) WHERE c.name = $name RETURN m.name ORDER BY m.name', params: { name: 'Calculator' } }],
      ['cypher', { query: 'MATCH (f:FUNCTION) RETURN f.name, f.file, f.start_line ORDER BY f.name LIMIT 5' }],
      ['symbol', { symbol: 'pkg.calc.compute_total' }],
      ['callers', { symbol: 'Calculator.add' }],
      ['callees', { symbol: 'pkg.calc.compute_total' }],
      ['impact', { symbol: 'pkg.calc.Calculator.add', depth: 3 }],
      ['schema', {}],
    ];
    for (const [name, args] of asks) {
      expect(await call(name, args, split), `${name} ${JSON.stringify(args)}`).toBe(await call(name, args, whole));
    }
    expect(await call('callers', { symbol: 'Calculator.add' }, split)).toContain('pkg.calc.compute_total (pkg/calc.py:36)  depth 1');
    // Each question says on stderr what the reader holds: it read items, in waves.
    expect(stderr).toMatch(/fathom: read \d+ items \([^)]+\) in \d+ waves/);
  });

  test('a query over the whole graph answers within its limit, and mistakes name their cause', async () => {
    expect(await call('cypher', { query: 'MATCH (n) RETURN count(n)' }, split)).toBe(await call('cypher', { query: 'MATCH (n) RETURN count(n)' }, whole));
    expect(await failure('cypher', { query: 'MATCH (n RETURN n' }, split)).toMatch(/line 1/);
    expect(await failure('symbol', { symbol: 'no.such.thing' }, split)).toContain('no.such.thing');
    expect(await failure('callers', { symbol: 'pkg.calc.compute_total', depth: 9 }, split)).toMatch(/depth/);
    // A tool it does not offer is refused, whichever way the SDK reports it.
    const refused = await split.callTool({ name: 'locate', arguments: { issue: 'anything' } }).then((r) => r.isError === true, () => true);
    expect(refused).toBe(true);
  });
});
