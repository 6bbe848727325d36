#!/usr/bin/env python3
"""Builds a held-out localisation set from SWE-bench-format instances.

The development set (`../shared/data/swe-dev`) is what Fathom's localisation
is tuned on. This script turns another file of SWE-bench instances (a JSON
list or JSON lines, with `repo`, `instance_id`, `base_commit`,
`problem_statement`, `patch`, `test_patch`) into the same format, keeping the
instances whose repository is cloned under REPOS (`<owner>+<name>`, a bare
clone or a folder holding one as `repo`) and whose base commit it holds. The
gold files are the files the fix changes.

    python3 scripts/dev/heldout-set.py INSTANCES.json REPOS OUT_DIR
    FATHOM_EVAL_LOCATE_SET=OUT_DIR FATHOM_SWE_REPOS=REPOS FATHOM_EVAL_DENSE=0 \\
        fathom-eval locate

A check on what the development set taught, not a set to tune on; see
bench/PERFORMANCE.md, *Localisation*.
"""
import json
import os
import re
import subprocess
import sys


def instances(path):
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def git_dir(repos, repo):
    base = os.path.join(repos, repo.replace("/", "+"))
    for candidate in (base, os.path.join(base, "repo")):
        if os.path.isdir(os.path.join(candidate, "objects")):
            return candidate
    return None


def has_commit(gitdir, commit):
    found = subprocess.run(
        ["git", "--git-dir", gitdir, "cat-file", "-t", commit], capture_output=True, text=True
    )
    return found.stdout.strip() == "commit"


def changed_files(patch):
    files = []
    for match in re.finditer(r"^diff --git a/(\S+) b/(\S+)", patch, re.M):
        if match.group(2) not in files:
            files.append(match.group(2))
    return files


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, repos, out_dir = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    kept, absent = 0, {}
    with open(os.path.join(out_dir, "instances.jsonl"), "w") as out:
        for inst in instances(source):
            gitdir = git_dir(repos, inst["repo"])
            if gitdir is None or not has_commit(gitdir, inst["base_commit"]):
                absent[inst["repo"]] = absent.get(inst["repo"], 0) + 1
                continue
            row = {key: inst[key] for key in ("instance_id", "repo", "base_commit", "problem_statement", "patch", "test_patch")}
            row["gold_files"] = changed_files(inst["patch"])
            row["created_at"] = inst.get("created_at")
            out.write(json.dumps(row) + "\n")
            kept += 1
    print(f"{kept} instances kept")
    for repo, count in sorted(absent.items()):
        print(f"  left out: {repo} ({count}; not cloned under {repos}, or its commit is missing)")


if __name__ == "__main__":
    main()
