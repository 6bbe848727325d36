// Builds fixture archives in memory from the folders under tests/fixtures/.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipSync, type Zippable } from 'fflate';

const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * Zips tests/fixtures/<name>/ with every entry under a single `<name>/` root folder, like a GitHub download,
 * plus `extra` files (path → text) under the same root.
 */
export function zipFixture(name: string, extra: Record<string, string> = {}): Uint8Array {
  const entries: Zippable = {};
  for (const [path, text] of Object.entries(extra)) entries[`${name}/${path}`] = new TextEncoder().encode(text);
  const base = `${FIXTURES_DIR}${name}`;
  for (const path of readdirSync(base, { recursive: true, withFileTypes: true })) {
    if (!path.isFile()) continue;
    const absolute = `${path.parentPath}/${path.name}`;
    entries[`${name}/${absolute.slice(base.length + 1)}`] = readFileSync(absolute);
  }
  return zipSync(entries, { level: 6 });
}

/** Zips in-memory files ({ 'root/a.py': 'text' }). */
export function zipFiles(files: Record<string, string>): Uint8Array {
  const encoder = new TextEncoder();
  return zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, encoder.encode(text)])));
}

/** A damaged copy of a real archive: cut in half (no central directory) with garbled bytes. */
export function corruptZip(bytes: Uint8Array): Uint8Array {
  const damaged = bytes.slice(0, Math.floor(bytes.length / 2));
  for (let i = 30; i < damaged.length; i += 7) damaged[i] = (damaged[i] ?? 0) ^ 0x5a;
  return damaged;
}
