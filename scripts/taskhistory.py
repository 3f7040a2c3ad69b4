#!/usr/bin/env python3
"""Would a repository's own history help task localization?

For each task query of a broad-benchmark run (`viberag eval --per-query
--json`), reads the commits older than the query's own commit (a time
split: nothing the query's commit or later commits wrote is seen) from the
repository's git snapshot, and re-scores the run's first ten files with:

  sim   the files that older commits with the message's words changed, each
        commit weighted by the idf of the words it shares with the message
        and divided among its files;
  freq  how often each file changed (a prior: it only re-orders the ten).

The run's order scores 1/log2(rank+1); a signal adds w times its share of
the query's best value. RO=1 keeps sim to re-ordering the ten too. It prints
the run's NDCG@10 over the ten (deduplicated by path) and each (signal, w).

usage: scripts/taskhistory.py RUN.json MIRROR_ROOT [w ...]
       (MIRROR_ROOT holds <owner>+<name>/repo, the snapshots `fetch` brings;
       the logs are cached in $TMPDIR/taskhistory)
"""
import collections
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
STOP = set("the a an to of in for and or is be on with by from at as it this that fix add use when not no "
           "into if are was were do does can should".split())
HISTORY = 3000  # older commits read per query


def words(text):
    return [w.lower() for w in WORD.findall(text) if len(w) > 2 and w.lower() not in STOP]


def repos():
    out = {}
    for line in open(os.path.join(ROOT, "bench/broad/repos.tsv")):
        if line.startswith("#"):
            continue
        name, _, commit, _, root = line.rstrip("\n").split("\t")
        out[name] = (commit, root)
    return out


def git_log(mirror, name, commit, root, cache):
    """Commits from the pinned one back, newest first: (hash, message, files)."""
    path = os.path.join(cache, name + ".json")
    if os.path.exists(path):
        return json.load(open(path))
    args = ["git", "--git-dir", os.path.join(mirror, name, "repo"), "log", "--no-merges",
            "--format=%x00%H%x01%s%x01%b%x01", "--name-only", "-n6000", commit]
    if root != ".":
        args += ["--", root]
    out = subprocess.run(args, capture_output=True, text=True, errors="replace").stdout
    commits = []
    for rec in out.split("\0")[1:]:
        parts = rec.split("\x01")
        if len(parts) < 4:
            continue
        files = [f for f in parts[3].strip().split("\n") if f]
        if root != ".":
            files = [f[len(root) + 1:] for f in files if f.startswith(root + "/")]
        commits.append((parts[0], parts[1] + " " + parts[2][:400], files))
    json.dump(commits, open(path, "w"))
    return commits


def ndcg(ranked, targets):
    t = set(targets)
    dcg = sum(1 / math.log2(i + 2) for i, f in enumerate(ranked[:10]) if f in t)
    return dcg / sum(1 / math.log2(i + 2) for i in range(min(len(t), 10)))


def signals(query, older):
    df, docs = collections.Counter(), []
    for _, msg, files in older:
        ws = set(words(msg))
        docs.append((ws, files))
        df.update(ws)
    n = len(docs) + 1
    qw = set(words(query))
    idf = {w: math.log(n / (1 + df[w])) for w in qw}
    sim, freq = collections.Counter(), collections.Counter()
    for ws, files in docs:
        freq.update(files)
        s = sum(idf[w] for w in qw & ws if idf[w] > 0)
        if s > 0 and files:
            for f in files[:20]:
                sim[f] += s / len(files)
    return {"sim": sim, "freq": freq}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    run, mirror = json.load(open(sys.argv[1])), sys.argv[2]
    weights = [float(w) for w in sys.argv[3:]] or [0.1, 0.2, 0.4, 0.8]
    reorder_only = os.environ.get("RO") == "1"
    cache = os.path.join(tempfile.gettempdir(), "taskhistory")
    os.makedirs(cache, exist_ok=True)
    pinned = repos()
    scores, base, skipped = collections.defaultdict(list), [], 0
    for r in run["repos"]:
        name = r["name"]
        tasks = [q for q in r["per_query"] if q["category"] == "task"]
        if name not in pinned or not tasks:
            continue
        refs = [l.split("\t") for l in open(os.path.join(ROOT, "bench/broad/refs", name + ".tsv")) if l.startswith("task\t")]
        if len(refs) != len(tasks):
            print("skipped", name, "(its references and the run disagree)", file=sys.stderr)
            continue
        commits = git_log(mirror, name, *pinned[name], cache)
        at = {h: i for i, (h, _, _) in enumerate(commits)}
        for q, ref in zip(tasks, refs):
            if ref[1] not in at:
                skipped += 1
                continue
            older = commits[at[ref[1]] + 1: at[ref[1]] + 1 + HISTORY]
            sig = signals(q["query"], older)
            seen = list(dict.fromkeys(h["path"] for h in q["top"]))
            base.append(ndcg(seen, q["targets"]))
            for kind, values in sig.items():
                best = max(values.values(), default=1)
                for w in weights:
                    s = collections.Counter({p: 1 / math.log2(i + 2) for i, p in enumerate(seen)})
                    for f, v in values.items():
                        if (kind == "freq" or reorder_only) and f not in s:
                            continue
                        s[f] += w * v / best
                    ranked = [f for f, _ in sorted(s.items(), key=lambda x: -x[1])]
                    scores[(kind, w)].append(ndcg(ranked, q["targets"]))
    print(f"task queries {len(base)} (no commit in the log: {skipped}); the run's ten: {sum(base) / len(base):.4f}")
    for (kind, w), v in sorted(scores.items()):
        print(f"{kind:5} w={w:<4} {sum(v) / len(v):.4f}")


if __name__ == "__main__":
    main()
