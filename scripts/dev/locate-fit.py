#!/usr/bin/env python3
"""Studies how to weigh localisation evidence, offline.

`FATHOM_EVAL_DUMP=DIR make eval` (or `fathom-eval locate`) writes
DIR/locate.jsonl: every instance's files with their evidence. This script
scores the file rankings that a weighting gives, fits the weights by
coordinate search on all instances, and reports leave-one-repository-out
figures beside the fitted ones (fit on five repositories, score the sixth).

`make eval`'s own leave-one-repository-out rows come from
`crates/fathom_bench/src/fit.rs`, the same search in Rust over the weights
`fathom_search::locate::Weights` has; this script also tries evidence the
engine does not weigh (`title`, `name_max`, `name_title`, `name_error`) and
the static lane (`statics`), for study. A change to the search belongs in
both.

    python3 scripts/dev/locate-fit.py DIR/locate.jsonl [--fit] [--study]

`--study` measures two levers of issue 49 with the shipped weights: a hub
discount (a file's word evidence scaled down by the share of the same
repository's other reports that put it in the word lane's first five: an
oracle, since no report's neighbours are known when it is asked) and the
phrase weight.
"""
import collections
import json
import math
import sys

HARD = {"pydicom/pydicom", "pylint-dev/astroid", "sqlfluff/sqlfluff"}

# Mirrors fathom_search::locate::Weights; the defaults are the ones shipped.
DEFAULTS = dict(
    word=2.0, word_exp=2.0, word_mass=0.5, rrf_k=30, code=0.5, prose=0.0,
    name=0.1, name_max=0.0, name_dotted=0.5, name_title=0.0, name_error=0.0, title=0.0, name_prose=0.3, name_import=1.0, name_cap=1.5,
    module=0.0, path=8.0, stem=0.1, stem_coded=3.0, phrase=3.0, phrase_cap=2.0,
    frame=0.5, frame_decay=0.5, logged=0.5, neighbour=0.2, test=0.05, aside=0.05, foreign=0.05, companion=0.99,
    statics=0.0, title_named=4.0, title_run=2.5,
)

# Roles by the family the ranking weighs them in (fathom_search::roles::Role::family).
FAMILY = {"test": "test", "docs": "aside", "build": "aside", "vendored": "foreign", "generated": "foreign"}


def file_score(f, w):
    s = 0.0
    if f.get("word_rank"):
        s += w["word"] * (w["rrf_k"] + 1) / (w["rrf_k"] + f["word_rank"]) * (f["word_score"] ** w["word_exp"])
        s += w["word_mass"] * f["word_mass"]
    named = 0.0
    best = 0.0
    for n in f["named"]:
        v = n["specificity"] * (w["name_prose"] if n["place"] == "prose" else 1.0)
        if n["imported"]:
            v *= 1.0 + w["name_import"]
        if "." in n["mention"]:
            v *= 1.0 + w["name_dotted"]
        if n.get("in_title"):
            v *= 1.0 + w["name_title"]
        if n.get("in_error"):
            v *= 1.0 + w["name_error"]
        named += v
        best = max(best, v)
    s += w["name"] * min(named, w["name_cap"]) + w["name_max"] * best
    s += w["module"] * f["module_named"]
    s += w["title_named"] * f.get("title_named", 0.0)
    s += w["title_run"] * f.get("title_run", 0.0)
    s += w["path"] * f["path_named"]
    s += w["stem"] * f["stem_named"] + w["stem_coded"] * f["stem_coded"]
    s += w["phrase"] * min(f["phrases"], w["phrase_cap"])
    if f.get("code_rank"):
        s += w["code"] * (w["rrf_k"] + 1) / (w["rrf_k"] + f["code_rank"]) * (f["code_score"] ** w["word_exp"])
    if f.get("title_rank"):
        s += w["title"] * (w["rrf_k"] + 1) / (w["rrf_k"] + f["title_rank"]) * (f["title_score"] ** w["word_exp"])
    if f.get("static_rank"):
        s += w["statics"] * (w["rrf_k"] + 1) / (w["rrf_k"] + f["static_rank"]) * (f["static_score"] ** w["word_exp"])
    if f.get("prose_rank"):
        s += w["prose"] * (w["rrf_k"] + 1) / (w["rrf_k"] + f["prose_rank"]) * (f["prose_score"] ** w["word_exp"])
    if f.get("frame_depth") is not None:
        s += w["frame"] * (w["frame_decay"] ** f["frame_depth"])
    s += w["logged"] * f.get("logged", 0.0)
    s += w["neighbour"] * f["neighbour"]
    family = FAMILY.get(f.get("role"))
    if family:
        s *= w[family]
    return s


def ranking(inst, w):
    scores = {f["file"]: file_score(f, w) for f in inst["files"]}
    # A generated file follows the best of the files it is generated from.
    if w["companion"] > 0:
        for f in inst["files"]:
            best = max((scores.get(p, 0.0) for p in f.get("follows", [])), default=0.0)
            scores[f["file"]] = max(scores[f["file"]], w["companion"] * best)
    scored = sorted(((s, f) for f, s in scores.items()), key=lambda x: (-x[0], x[1]))
    return [f for s, f in scored if s > 0]


def metrics(insts, w):
    acc = {1: 0, 3: 0, 5: 0, 10: 0}
    rr = 0.0
    for inst in insts:
        r = ranking(inst, w)
        gold = set(inst["gold"])
        for k in acc:
            if gold <= set(r[:k]):
                acc[k] += 1
        first = next((i for i, f in enumerate(r) if f in gold), None)
        rr += 0 if first is None else 1 / (first + 1)
    n = max(len(insts), 1)
    return {f"acc@{k}": round(100 * v / n, 1) for k, v in acc.items()} | {"mrr": round(rr / n, 4), "n": len(insts)}


def objective(insts, w):
    m = metrics(insts, w)
    return m["acc@1"] + m["acc@5"] + 50 * m["mrr"]


GRID = dict(
    word=[0.5, 1.0, 2.0], word_exp=[0.0, 0.5, 1.0, 2.0], word_mass=[0.0, 0.2, 0.5, 1.0], rrf_k=[1, 3, 10, 30, 60],
    name=[0.0, 0.1, 0.3, 0.6, 1.0, 2.0], name_max=[0.0, 0.3, 0.6, 1.0, 2.0], name_dotted=[0.0, 0.5, 1.0, 3.0], name_title=[0.0, 1.0, 3.0, 10.0], name_error=[0.0, 1.0, 3.0, 10.0], title=[0.0, 0.25, 0.5, 1.0, 2.0], name_prose=[0.0, 0.1, 0.3, 0.6, 1.0], name_import=[0.0, 0.5, 1.0, 3.0],
    name_cap=[0.5, 1.0, 1.5, 3.0, 10.0], module=[0.0, 0.25, 0.5, 1.0, 2.0], path=[0.0, 0.15, 0.3, 0.6, 1.0, 2.0, 4.0, 8.0, 16.0],
    stem=[0.0, 0.05, 0.1, 0.3, 0.6], stem_coded=[0.0, 0.3, 0.6, 1.0, 2.0, 3.0, 4.0], phrase=[0.0, 0.15, 0.3, 0.6, 1.0, 2.0, 3.0, 4.0],
    phrase_cap=[0.5, 1.0, 2.0, 5.0], code=[0.0, 0.25, 0.5, 1.0], prose=[0.0, 0.25, 0.5, 1.0],
    frame=[0.0, 0.5, 1.0, 2.0], frame_decay=[0.3, 0.5, 0.8, 1.0], logged=[0.0, 0.25, 0.5, 1.0, 2.0], neighbour=[0.0, 0.1, 0.2, 0.5, 1.0],
    test=[0.05, 0.1, 0.3, 0.6, 1.0], aside=[0.05, 0.1, 0.3, 0.6, 1.0], foreign=[0.05, 0.1, 0.3, 0.6, 1.0], companion=[0.0, 0.5, 0.9, 0.99], statics=[0.0, 0.05, 0.1, 0.2, 0.4], title_named=[0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0], title_run=[0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0],
)


def fit(insts, w0):
    w = dict(w0)
    best = objective(insts, w)
    for _ in range(3):
        improved = False
        for key, values in GRID.items():
            for v in values:
                trial = dict(w, **{key: v})
                o = objective(insts, trial)
                if o > best + 1e-9:
                    best, w, improved = o, trial, True
        if not improved:
            break
    return w


def report(label, insts, w):
    print(f"{label:<36}", metrics(insts, w))


def study(insts, w):
    """The hub discount (an oracle: see the module's doc) and the phrase weight."""
    by_repo = collections.defaultdict(list)
    for inst in insts:
        by_repo[inst["repo"]].append(inst)
    top5 = {i["instance"]: {f["file"] for f in i["files"] if f.get("word_rank") and f["word_rank"] <= 5} for i in insts}
    for alpha in [0.0, 0.3, 0.6, 0.9]:
        discounted = []
        for inst in insts:
            others = [o for o in by_repo[inst["repo"]] if o is not inst]
            seen = collections.Counter(f for o in others for f in top5[o["instance"]])
            files = []
            for f in inst["files"]:
                hub = seen[f["file"]] / max(len(others), 1)
                files.append(dict(f, word_score=f["word_score"] * (1 - alpha * hub), word_mass=f["word_mass"] * (1 - alpha * hub)))
            discounted.append(dict(inst, files=files))
        report(f"hub discount {alpha}", discounted, w)
    for phrase in [0.0, 1.5, 3.0, 6.0]:
        report(f"phrase {phrase}", insts, dict(w, phrase=phrase))


def main():
    insts = [json.loads(l) for l in open(sys.argv[1])]
    if "--study" in sys.argv:
        study(insts, dict(DEFAULTS))
        return
    repos = sorted({i["repo"] for i in insts})
    w = dict(DEFAULTS)
    lexical = dict(DEFAULTS, name=0, module=0, path=0, title_named=0, title_run=0, frame=0, neighbour=0, test=1, aside=1, word_exp=0, rrf_k=60)
    report("words only (rank)", insts, lexical)
    for repo in repos:
        report("  " + repo, [i for i in insts if i["repo"] == repo], w)
    report("hard", [i for i in insts if i["repo"] in HARD], w)
    report("overall (defaults)", insts, w)
    if "--fit" in sys.argv:
        fitted = fit(insts, w)
        print("fitted:", fitted)
        report("overall (fitted)", insts, fitted)
        report("hard (fitted)", [i for i in insts if i["repo"] in HARD], fitted)
        held = []
        for repo in repos:
            train = [i for i in insts if i["repo"] != repo]
            test = [i for i in insts if i["repo"] == repo]
            wr = fit(train, w)
            report(f"  LORO {repo}", test, wr)
            held += [(i, wr) for i in test]
        # Pooled: each instance scored by the weights fitted without its repository.
        acc = {1: 0, 3: 0, 5: 0, 10: 0}
        for inst, wr in held:
            r = ranking(inst, wr)
            for k in acc:
                acc[k] += set(inst["gold"]) <= set(r[:k])
        print("LORO pooled", {k: round(100 * v / len(held), 1) for k, v in acc.items()})
        hard = [(i, wr) for i, wr in held if i["repo"] in HARD]
        acc = {1: 0, 5: 0}
        for inst, wr in hard:
            r = ranking(inst, wr)
            for k in acc:
                acc[k] += set(inst["gold"]) <= set(r[:k])
        print("LORO hard", {k: round(100 * v / len(hard), 1) for k, v in acc.items()})


if __name__ == "__main__":
    main()
