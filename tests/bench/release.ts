// What `make bench`'s documentation-site measurements share: the release
// `fathom` (built as `make bench` builds its other tools), where the pinned
// projects are, the site's explorer and which projects a run measures.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../e2e/cli';

export const corpora = process.env.FATHOM_CORPORA ?? `${homedir()}/.cache/fathom/corpora`;

/** The release `fathom`, built if it is not. */
export function fathomRelease(): string {
  const target = process.env.CARGO_TARGET_DIR ?? `${homedir()}/.cache/fathom/target`;
  execFileSync('cargo', ['build', '--locked', '--release', '-q', '-p', 'fathom_cli'], {
    cwd: repoRoot, stdio: 'inherit', env: { ...process.env, CARGO_TARGET_DIR: target }, timeout: 40 * 60_000,
  });
  return join(target, 'release/fathom');
}

/** A new site folder (named from `prefix`) holding the built explorer and its assets, as a documentation site serves them. */
export function explorerSite(prefix: string): string {
  const site = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(repoRoot, 'dist/fathom-explorer.js'), join(site, 'fathom-explorer.js'));
  cpSync(join(repoRoot, 'dist/assets'), join(site, 'assets'), { recursive: true });
  return site;
}

/**
 * The projects a run measures (FATHOM_SPLIT_ONLY=NAME: those whose name
 * starts so, a development aid), each with its source under the corpora,
 * which must be there, and a slug its site's files are named by.
 */
export function* benchProjects<P extends { name: string; source: string }>(projects: P[]): Generator<{ project: P; source: string; slug: string }> {
  const only = process.env.FATHOM_SPLIT_ONLY;
  for (const project of projects) {
    if (only && !project.name.startsWith(only)) continue;
    const source = join(corpora, project.source);
    if (!existsSync(source)) throw new Error(`${source} is missing: run scripts/corpora.sh --bench`);
    yield { project, source, slug: project.name.split(' ')[0]?.toLowerCase() ?? 'p' };
  }
}

/** The peak resident memory of the browser's renderer processes (the tab, its workers and their wasm). */
export function rendererPeakKb(): number {
  let peak = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('--type=renderer') || cmdline.includes('--extension-process')) continue;
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      peak = Math.max(peak, Number(hwm?.[1] ?? 0));
    } catch {
      // The process ended.
    }
  }
  return peak;
}
