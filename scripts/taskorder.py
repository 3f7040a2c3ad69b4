#!/usr/bin/env python3
"""How far a better order of a task search's own candidates could go.

Reads `viberag eval --trace` output (JSON lines, optionally gzipped) and,
for the task kind, asks two questions on two folds split by repository
(trained on one, read on the other):

  1. refit: each channel's weight for task text, by coordinate ascent;
  2. trees: gradient-boosted trees (scikit-learn) over the channels'
     scores and ranks, the priors, the path's words shared with the
     message, depth and the first file's directory.

It prints the held-out NDCG@10 of the trace's order beside each, the share
of messages with a target among the candidates and the best order's
NDCG@10. The scores are recomputed from the trace (weighted channel sum
times the priors), which matches the planner's order for most but not all
lists, so compare the columns with each other, not with eval's figure.

usage: scripts/taskorder.py TRACE[.gz]     (trees need python3-sklearn)
"""
import gzip
import json
import math
import re
import sys
import zlib

CHANNELS = ["blocks", "blocks_sum", "files", "path", "symbols", "directory", "embedded_names", "doc_match"]
GRID = [0, 0.25, 0.5, 0.75, 1, 1.5, 2, 3]
TOPK = 40


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            d = json.loads(line)
            if d.get("cat") != "task":
                continue
            fu = d.get("fusion") or {}
            files = fu.get("files") or []
            chans = {}
            for ch in fu.get("chans") or []:
                v = [0.0] * len(files)
                for i, s in zip(ch["f"], ch["s"]):
                    v[i] = s
                chans[ch["n"]] = (ch["w"], v)
            rows.append(dict(repo=d["repo"], q=d["q"], targets=d["targets"], files=files, chans=chans,
                             factors=fu.get("factors") or []))
    return rows


def ndcg(ranked, targets):
    t = set(targets)
    dcg = sum(1 / math.log2(i + 2) for i, f in enumerate(ranked[:10]) if f in t)
    idcg = sum(1 / math.log2(i + 2) for i in range(min(len(t), 10)))
    return dcg / idcg if idcg else 0


def fused(r, mult):
    sc = [0.0] * len(r["files"])
    for name, (w, v) in r["chans"].items():
        ww = w * mult.get(name, 1.0)
        for i, x in enumerate(v):
            sc[i] += ww * x
    return [sc[i] * r["factors"][i] for i in range(len(sc))]


def order(r, scores):
    idx = sorted(range(len(scores)), key=lambda i: (-scores[i], r["files"][i]))
    return [r["files"][i] for i in idx] + r["files"][len(scores):]


def total(rows, mult):
    return sum(ndcg(order(r, fused(r, mult)), r["targets"]) for r in rows)


def refit(train):
    mult, best = {}, total(train, {})
    for _ in range(2):
        for name in CHANNELS:
            for g in GRID:
                m = dict(mult, **{name: g})
                s = total(train, m)
                if s > best + 1e-9:
                    best, mult = s, m
    return mult


def words(s):
    s = re.sub(r"([a-z])([A-Z])", r"\1 \2", s)
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", s)}


def features(r):
    q = words(r["q"])
    fin = fused(r, {})
    mx = max(fin) or 1
    top = r["files"][0].rpartition("/")[0]
    ranks = {}
    for name, (_, v) in r["chans"].items():
        idx = sorted(range(len(v)), key=lambda i: -v[i])
        ranks[name] = {i: k for k, i in enumerate(idx) if v[i] > 0}
    out = []
    for i in range(min(len(r["files"]), TOPK)):
        f = r["files"][i]
        row = [i, fin[i] / mx, math.log(r["factors"][i]) if r["factors"][i] > 0 else -5, len(q),
               len(q & words(f)) / (len(q) or 1), len(q & words(f.rpartition("/")[2])), f.count("/"),
               int(f.rpartition("/")[0] == top), len(r["files"])]
        for name in CHANNELS:
            if name in r["chans"]:
                row += [r["chans"][name][1][i], ranks[name].get(i, 99)]
            else:
                row += [0, 99]
        out.append(row)
    return out


def trees(train, test):
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    X, y = [], []
    for r in train:
        t = set(r["targets"])
        for i, row in enumerate(features(r)):
            X.append(row)
            y.append(int(r["files"][i] in t))
    m = HistGradientBoostingClassifier(max_depth=4, max_iter=200, learning_rate=0.05, random_state=0)
    m.fit(np.array(X), np.array(y))
    s = 0.0
    for r in test:
        p = list(m.predict_proba(np.array(features(r)))[:, 1])
        s += ndcg(order(r, p), r["targets"])
    return s


def main():
    rows = load(sys.argv[1])
    have = [r for r in rows if r["files"]]
    hit = sum(1 for r in rows if set(r["targets"]) & set(r["files"]))
    best = sum(ndcg([f for f in r["files"] if f in set(r["targets"])], r["targets"]) for r in rows)
    print(f"task messages {len(rows)}; a target among the candidates {hit / len(rows):.3f}; best order {best / len(rows):.3f}")
    for k in (0, 1):
        test = [r for r in have if zlib.crc32(r["repo"].encode()) % 2 == k]
        train = [r for r in have if zlib.crc32(r["repo"].encode()) % 2 != k]
        mult = refit(train)
        line = f"fold {k} ({len(test)} held out): trace order {total(test, {}) / len(test):.4f}, refit {total(test, mult) / len(test):.4f}"
        try:
            line += f", trees {trees(train, test) / len(test):.4f}"
        except ImportError:
            line += ", trees: no scikit-learn"
        print(line, {n: g for n, g in sorted(mult.items())})


if __name__ == "__main__":
    main()
