#!/usr/bin/env bash
# Fetches the pinned real-world corpora used by the precision tests (and, later,
# the benchmarks) into a cache outside the clone. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${FATHOM_CORPORA:-$HOME/.cache/fathom/corpora}
mkdir -p "$dest"
cd "$dest"

if [ ! -d flask-3.0.3 ]; then
  echo "corpora: Flask 3.0.3 (PyPI sdist)"
  pip download --quiet --no-deps --no-binary :all: flask==3.0.3 -d .
  tar xzf flask-3.0.3.tar.gz
fi
if [ ! -d rxjs-7.8.1 ]; then
  echo "corpora: rxjs 7.8.1 (npm tarball)"
  npm pack --silent rxjs@7.8.1 >/dev/null
  rm -rf package && tar xzf rxjs-7.8.1.tgz && mv package rxjs-7.8.1
fi
if [ "${1:-}" = "--bench" ]; then
  if [ ! -d Django-5.0.6 ]; then
    echo "corpora: Django 5.0.6 (PyPI sdist)"
    pip download --quiet --no-deps --no-binary :all: django==5.0.6 -d .
    tar xzf Django-5.0.6.tar.gz
  fi
  if [ ! -d tokio-1.40.0 ]; then
    echo "corpora: tokio 1.40.0 (crates.io)"
    curl -sSfL -o tokio-1.40.0.crate https://static.crates.io/crates/tokio/tokio-1.40.0.crate
    tar xzf tokio-1.40.0.crate
  fi
  if [ ! -f synthetic-50000.zip ]; then
    echo "corpora: 50,000 synthetic files (scripts/synthetic.py)"
    python3 "$root/scripts/synthetic.py" 50000 synthetic-50000.zip.part && mv synthetic-50000.zip.part synthetic-50000.zip
  fi
fi

# Real history for `make eval`'s test recommendation set: consecutive
# releases of two projects, as their sdists (which ship their tests).
# tests/eval/history.json pins the versions; each is unpacked once.
if [ "${1:-}" = "--history" ]; then
  mkdir -p history
  python3 - "$root/tests/eval/history.json" <<'PY' | while read -r package name version; do
import json, sys
for project in json.load(open(sys.argv[1]))["projects"]:
    for version in project["versions"]:
        print(project["package"], project["name"], version)
PY
    [ -d "history/$name-$version" ] && continue
    echo "corpora: $name $version (PyPI sdist)"
    # Older sdists spell the name as the project does (Flask-2.0.0.tar.gz).
    sdist() { find history/sdists -maxdepth 1 -iname "$name-$version.tar.gz" | head -n 1; }
    [ -n "$(sdist)" ] || pip download --quiet --no-deps --no-binary :all: "$package==$version" -d history/sdists
    rm -rf history/.unpack && mkdir -p history/.unpack
    tar xzf "$(sdist)" -C history/.unpack
    mv history/.unpack/* "history/$name-$version"
  done
fi
