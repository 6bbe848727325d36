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
# The newcomer suite (tests/e2e/newcomer.test.ts): one project per language
# of `make eval`'s question set, each from a registry this machine reaches, as
# the archive a user would drop (a .tar.gz, which the page reads).
# A Debian source package's upstream tarball, checked: debian POOL FILE SHA256 OUT.
debian() {
  [ -f "$4" ] && return
  echo "corpora: $4 (Debian source, $2)"
  curl -sSfL -o "$4.part" "http://deb.debian.org/debian/pool/main/$1/$2"
  echo "$3  $4.part" | sha256sum --check --quiet
  case "$2" in
    *.xz) xz -dc "$4.part" | gzip -n > "$4.tmp" && rm "$4.part" && mv "$4.tmp" "$4" ;;
    *) mv "$4.part" "$4" ;;
  esac
}
debian libg/libgoogle-gson-java libgoogle-gson-java_2.10.1.orig.tar.xz \
  ee8d226848374c5cd0b3a0af7915eb96d5c977fdc84d34db1cfd7c8a5b66a345 gson-2.10.1.tar.gz
debian j/jq jq_1.7.1.orig.tar.gz fc75b1824aba7a954ef0886371d951c3bf4b6e0a921d1aefc553f309702d6ed1 jq-1.7.1.tar.gz
debian c/catch2 catch2_3.7.1.orig.tar.gz c991b247a1a0d7bb9c39aa35faf0fe9e19764213f28ffba3109388e62ee0269c catch2-3.7.1.tar.gz
debian g/golang-github-spf13-cobra golang-github-spf13-cobra_1.8.1.orig.tar.gz \
  5d45f6fcce63f9f4dd12b34a15669335a35ca3f7bf297ba465c3fbf62308e5fe cobra-1.8.1.tar.gz
if [ ! -f express-4.21.2.tgz ]; then
  echo "corpora: express 4.21.2 (npm tarball)"
  npm pack --silent express@4.21.2 >/dev/null
fi
if [ ! -f bytes-1.7.2.crate ]; then
  echo "corpora: bytes 1.7.2 (crates.io)"
  curl -sSfL -o bytes-1.7.2.crate.part https://static.crates.io/crates/bytes/bytes-1.7.2.crate
  echo "428d9aa8fbc0670b7b8d6030a7fadd0f86151cae55e4dbbece15f3780a3dfaf3  bytes-1.7.2.crate.part" | sha256sum --check --quiet
  mv bytes-1.7.2.crate.part bytes-1.7.2.crate
fi
[ -f marshmallow-3.21.3.tar.gz ] || { echo "corpora: marshmallow 3.21.3 (PyPI sdist)"; pip download --quiet --no-deps --no-binary :all: marshmallow==3.21.3 -d .; }

if [ "${1:-}" = "--bench" ]; then
  # pvlib: `make bench` times localisation on a repository of its size, with
  # the real pvlib bug reports of shared/data/swe-dev as the questions.
  sdist pvlib 0.10.5 pvlib-0.10.5
  if [ ! -d tokio-1.40.0 ]; then
    echo "corpora: tokio 1.40.0 (crates.io)"
    curl -sSfL -o tokio-1.40.0.crate https://static.crates.io/crates/tokio/tokio-1.40.0.crate
    tar xzf tokio-1.40.0.crate
  fi
  # grpc-go: a Go project of about 1,000 files (864 Go), the split bundle's bench (tests/bench/split.test.ts).
  debian g/golang-google-grpc golang-google-grpc_1.64.0.orig.tar.xz \
    2ac0cd286e5f625689db1757069f97a3c481c8f564dd343dde87fe058af4fe8d grpc-go-1.64.0.tar.gz
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
