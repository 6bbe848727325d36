#!/usr/bin/env bash
# Fetches the pinned real-world corpora used by the tests (and, with --bench,
# the benchmarks; with --history, `make eval`) into a cache outside the
# clone. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${FATHOM_CORPORA:-$HOME/.cache/fathom/corpora}
mkdir -p "$dest"
cd "$dest"

# A PyPI sdist, unpacked as the folder it holds: sdist PACKAGE VERSION FOLDER.
sdist() {
  [ -d "$3" ] && return
  echo "corpora: $3 (PyPI sdist)"
  pip download --quiet --no-deps --no-binary :all: "$1==$2" -d .
  tar xzf "$3.tar.gz"
}

sdist flask 3.0.3 flask-3.0.3
# Django: the browser's parse workers are checked against the CLI on it, and `make bench` measures it.
sdist django 5.0.6 Django-5.0.6
if [ ! -d rxjs-7.8.1 ]; then
  echo "corpora: rxjs 7.8.1 (npm tarball)"
  npm pack --silent rxjs@7.8.1 >/dev/null
  rm -rf package && tar xzf rxjs-7.8.1.tgz && mv package rxjs-7.8.1
fi
if [ "${1:-}" = "--bench" ]; then
  # pvlib: `make bench` times localisation on a repository of its size, with
  # the real pvlib bug reports of shared/data/swe-dev as the questions.
  sdist pvlib 0.10.5 pvlib-0.10.5
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
    found() { find history/sdists -maxdepth 1 -iname "$name-$version.tar.gz" | head -n 1; }
    [ -n "$(found)" ] || pip download --quiet --no-deps --no-binary :all: "$package==$version" -d history/sdists
    rm -rf history/.unpack && mkdir -p history/.unpack
    tar xzf "$(found)" -C history/.unpack
    mv history/.unpack/* "history/$name-$version"
  done
fi
