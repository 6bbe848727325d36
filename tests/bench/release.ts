// What `make bench`'s documentation-site measurements share: the release
// `fathom` (built as `make bench` builds its other tools) and where the
// pinned projects are.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
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
