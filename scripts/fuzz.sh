#!/usr/bin/env bash
# `make fuzz`: every libFuzzer target in crates/fathom_fuzz for FUZZ_SECONDS
# each (default 60), FUZZ_PARALLEL of them at a time (default 1), seeded from
# the fixtures, the hostile corpus, stored bundles, the tests' Cypher queries
# and real fix diffs (scripts/fuzz-seeds.py). The corpora grow under $FUZZ_DIR
# (outside the clone) from run to run. A crash, hang (over 20 s) or
# allocation past 2 GB is written to crates/fathom_fuzz/artifacts/<target>/
# and the run goes on: fix it, then copy the input to
# crates/fathom_fuzz/regressions/<target>/, which `make test` replays on
# stable. Each target's last statistics are printed at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
parallel=${FUZZ_PARALLEL:-1}
targets=${FUZZ_TARGETS:-archive extract resolve cypher bundle diff scip}
work=${FUZZ_DIR:-$HOME/.cache/fathom/fuzz}
# The instrumented build, apart from the ordinary one.
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$HOME/.cache/fathom/fuzz-target}
# The grammars' C as the product builds it (the Makefile says why).
export CFLAGS=${CFLAGS:--DNDEBUG}
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
python3 "$root/scripts/fuzz-seeds.py" "$work/seeds"
cd "$root/crates/fathom_fuzz"
# Built once, before any target runs, so parallel runs do not wait on the build.
cargo +nightly fuzz build --fuzz-dir .

run() {
  local target=$1
  mkdir -p "$work/corpus/$target" "artifacts/$target"
  echo "fuzz: $target for ${seconds}s"
  # -fork 1 (not -jobs): one worker that restarts after a finding, so one run
  # reports every crash it finds, each saved, instead of stopping at the first.
  cargo +nightly fuzz run --fuzz-dir . "$target" "$work/corpus/$target" "$work/seeds/$target" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=20 -max_len=1048576 \
    -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -print_final_stats=1 \
    -artifact_prefix="artifacts/$target/" >"$work/$target.log" 2>&1 || true
}

running=0
for target in $targets; do
  if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
  run "$target" &
  running=$((running + 1))
done
wait

status=0
for target in $targets; do
  # The fork server's last pulse: executions, coverage, corpus, crashes.
  last=$(grep -E '^#[0-9]+' "$work/$target.log" | tail -1 || true)
  # Slow units (over 10 s, under the 20 s timeout) are kept to look at, not counted.
  found=$(find "artifacts/$target" -type f ! -name 'slow-unit-*' | wc -l)
  echo "fuzz: $target: ${last:-no statistics (see $work/$target.log)}"
  echo "fuzz: $target: $found input(s) in artifacts/$target"
  [ "$found" -eq 0 ] || status=1
done
exit $status
