// The native `fathom` command, for the tests that use it beside the browser:
// built once per run (a no-op when cargo's cache is current).
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let built: string | undefined;

/** The path of a `fathom` binary built from this checkout. */
export function fathomBinary(): string {
  if (built) return built;
  // The cache make uses, outside the clone (see the Makefile).
  const target = process.env.CARGO_TARGET_DIR ?? `${homedir()}/.cache/fathom/target`;
  execFileSync('cargo', ['build', '--locked', '--quiet', '-p', 'fathom_cli'], {
    cwd: root, stdio: 'inherit', timeout: 30 * 60_000, env: { ...process.env, CARGO_TARGET_DIR: target },
  });
  built = `${target}/debug/fathom`;
  return built;
}

/** Runs `fathom` with `args` from the repository root and returns its stdout. */
export function fathom(args: string[]): string {
  return execFileSync(fathomBinary(), args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export const repoRoot = root;
