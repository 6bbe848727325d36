// The native `fathom` command, for the tests that use it beside the browser:
// the binary that `cargo test` builds for the CLI's own tests, so that these
// tests reuse `make test-native`'s build. `cargo build -p fathom_cli` would
// unify the dependencies' features differently and rebuild about a hundred
// crates, on a cold machine inside a test's time limit.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let built: string | undefined;

/** One line of `cargo --message-format=json`, as far as it is read here. */
interface CargoMessage {
  reason?: string;
  target?: { name?: string; kind?: string[] };
  profile?: { test?: boolean };
  executable?: string | null;
}

/** The path of a `fathom` binary built from this checkout. */
export function fathomBinary(): string {
  if (built) return built;
  // The cache make uses, outside the clone (see the Makefile).
  const target = process.env.CARGO_TARGET_DIR ?? `${homedir()}/.cache/fathom/target`;
  const messages = execFileSync('cargo', ['test', '--locked', '--workspace', '--all-features', '--no-run', '--message-format=json'], {
    cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 28, timeout: 30 * 60_000,
    env: { ...process.env, CARGO_TARGET_DIR: target },
  });
  // Cargo says where the binary it built is.
  for (const line of messages.split('\n')) {
    if (!line.startsWith('{')) continue;
    const message = JSON.parse(line) as CargoMessage;
    const bin = message.reason === 'compiler-artifact' && message.target?.name === 'fathom' && message.target.kind?.includes('bin');
    if (bin && !message.profile?.test && message.executable) built = message.executable;
  }
  if (!built) throw new Error('cargo test --no-run named no fathom binary');
  return built;
}

/** Runs `fathom` with `args` from the repository root and returns its stdout. */
export function fathom(args: string[]): string {
  return execFileSync(fathomBinary(), args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export const repoRoot = root;
