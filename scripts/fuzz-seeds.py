#!/usr/bin/env python3
"""Seeds for each fuzz target (`make fuzz`), built from the test fixtures,
the hostile corpus, the engine's stored bundles, the Cypher queries the tests
ask and the development set's real fix diffs (when ../shared/data is there).

    python3 scripts/fuzz-seeds.py OUT

OUT/<target>/ gets one file per seed; an existing OUT is rebuilt.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
# Language::ALL's order (crates/fathom_model/src/language.rs): the extract
# target's first byte picks from it.
LANGUAGES = {".py": 0, ".js": 1, ".ts": 2, ".tsx": 3, ".java": 4, ".kt": 5, ".cs": 6, ".go": 7, ".rs": 8,
             ".c": 9, ".cpp": 10, ".rb": 11, ".php": 12}
MAX_SEED = 256 << 10


def fixture_files(folder):
    for base, _, names in os.walk(folder):
        for name in sorted(names):
            path = os.path.join(base, name)
            yield os.path.relpath(path, folder), open(path, "rb").read()


def write(out, target, name, data):
    if len(data) <= MAX_SEED:
        with open(os.path.join(out, target, re.sub(r"[^\w.-]", "_", name)), "wb") as f:
            f.write(data)


def main():
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    for target in ("archive", "extract", "resolve", "cypher", "bundle", "diff", "scip"):
        os.makedirs(os.path.join(out, target))
    for fixture in sorted(os.listdir(FIXTURES)):
        folder = os.path.join(FIXTURES, fixture)
        if not os.path.isdir(folder):
            continue
        files = list(fixture_files(folder))
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
            for path, data in files:
                z.writestr(f"{fixture}/{path}", data)
        write(out, "archive", f"{fixture}.zip", raw.getvalue())
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w:gz") as t:
            for path, data in files:
                info = tarfile.TarInfo(f"{fixture}/{path}")
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        write(out, "archive", f"{fixture}.tar.gz", raw.getvalue())
        sources = [(p, d) for p, d in files if os.path.splitext(p)[1] in LANGUAGES]
        for path, data in sources:
            write(out, "extract", f"{fixture}-{path}", bytes([LANGUAGES[os.path.splitext(path)[1]]]) + data)
        write(out, "resolve", fixture, b"\0".join(p.encode() + b"\n" + d for p, d in sources[:16]))
    with tempfile.TemporaryDirectory() as hostile:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "hostile", "generate.py"), hostile],
                       check=True, stdout=subprocess.DEVNULL)
        for name in sorted(os.listdir(hostile)):
            path = os.path.join(hostile, name)
            if os.path.isfile(path) and name != "manifest.json":
                write(out, "archive", f"hostile-{name}", open(path, "rb").read())
        subprocess.run(["chmod", "-R", "u+rwx", hostile], check=False)
    data = os.path.join(ROOT, "crates", "fathom_engine", "tests", "data")
    for name in sorted(os.listdir(data)):
        if name.endswith(".fathom"):
            write(out, "bundle", name, open(os.path.join(data, name), "rb").read())
    # The SCIP target reads its index into this fixture's files.
    scip = open(os.path.join(FIXTURES, "scip-python", "index.scip"), "rb").read()
    write(out, "scip", "scip-python.scip", scip)
    write(out, "scip", "scip-python-half.scip", scip[: len(scip) // 2])
    queries = set()
    for base, _, names in os.walk(os.path.join(ROOT, "crates")):
        for name in names:
            if name.endswith(".rs"):
                text = open(os.path.join(base, name), encoding="utf-8", errors="replace").read()
                queries.update(re.findall(r'"((?:MATCH|OPTIONAL MATCH|UNWIND|WITH|RETURN)[^"\\]{4,400})"', text))
    for i, query in enumerate(sorted(queries)):
        write(out, "cypher", f"q{i:03}", query.encode())
    instances = os.path.join(ROOT, "..", "shared", "data", "swe-dev", "instances.jsonl")
    if os.path.exists(instances):
        for line in open(instances):
            instance = json.loads(line)
            write(out, "diff", instance["instance_id"], instance["patch"].encode())
            write(out, "diff", instance["instance_id"] + "-tests", instance["test_patch"].encode())
    counts = {t: len(os.listdir(os.path.join(out, t))) for t in sorted(os.listdir(out))}
    print("fuzz seeds:", ", ".join(f"{t} {n}" for t, n in counts.items()))


if __name__ == "__main__":
    main()
