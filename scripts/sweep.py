#!/usr/bin/env python3
"""Corpus sweep (issue 10): index real public repositories one after another
and report per language how long files take, what falls back and why.

    python3 scripts/sweep.py [--only owner/name,...] [--work DIR] [--timeout S]

Each repository of scripts/sweep-repos.tsv is written at its pinned commit
from the bare snapshot that the `fetch` tool brought to
$MIRROR_ROOT/<owner>+<name>/repo (default /work/.mirror) into
WORK/src/<owner>+<name> (default WORK=/work/sweep; blobs a snapshot does not
hold, its largest files, are listed in WORK/src/<name>.missing and left out).
The current tree is built to WORK/viberag, then each repository is indexed
sequentially with

    /usr/bin/time -v timeout -k 5 S viberag index --embed off --force \
        --data-dir TMP --json --file-times WORK/out/<name>/times.tsv

followed by `viberag status --json`. Per repository WORK/out/<name>/ keeps
index.json, status.json, times.tsv (one line per extracted file with its
milliseconds, a 'running' line for any file still extracting after 1 s),
time.txt (wall clock, peak RSS) and stderr. The report, markdown on stdout
and in WORK/out/report.md, has per language: repositories, files, MB, slowest
file, p99 file time, files over 1 s, hangs, budget hits (fallbacks for a
reader's step budget, a reader abandoned as stuck, a parse timeout),
fallbacks by reason; per repository:
wall time, peak RSS, exit status; then every file over 1 s, every 'running'
line, every panic and every fallback with its problem.

Timings taken while other work shares the machine can be inflated: every
file over --recheck-ms (default 500) in the sweep is then timed again alone
(`index --include <that path>`, median of 3) into WORK/out/<name>/recheck.tsv,
and the report gives both. A file with a 'running' line and no 'done' line
never finished: a hang (the run ends by --timeout, or by a signal).

--report-only rebuilds the report from WORK/out without indexing;
--recheck-only rechecks and reports; --skip-done resumes a sweep.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_list(path):
    repos = []
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            repo, commit, langs, why = line.rstrip("\n").split("\t")
            repos.append({"repo": repo, "commit": commit, "langs": langs, "why": why,
                          "dir": repo.replace("/", "+")})
    return repos


def checkout(r, mirror, src):
    """Write r's tree at its commit into src/<dir>, skipping blobs the
    snapshot lacks (listed in src/<dir>.missing)."""
    dest = os.path.join(src, r["dir"])
    if os.path.isdir(dest):
        return
    gitdir = os.path.join(mirror, r["dir"], "repo")
    if not os.path.isdir(gitdir):
        sys.exit(f"no snapshot of {r['repo']} at {gitdir}: bring it with the fetch tool (github:{r['repo']})")
    tree = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "-z", r["commit"]],
                          check=True, capture_output=True).stdout.split(b"\0")
    entries = []
    for e in tree:
        if not e:
            continue
        meta, path = e.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":  # no symlinks: they may point outside
            entries.append((sha.decode(), path.decode("utf-8", "surrogateescape")))
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    missing = []
    batch = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for sha, path in entries:
        batch.stdin.write(sha.encode() + b"\n")
        batch.stdin.flush()
        head = batch.stdout.readline().split()
        if len(head) < 3 or head[1] == b"missing":
            missing.append(path)
            continue
        data = batch.stdout.read(int(head[2]))
        batch.stdout.read(1)  # the newline after the object
        out = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(data)
    batch.stdin.close()
    batch.wait()
    os.makedirs(tmp, exist_ok=True)
    os.rename(tmp, dest)
    with open(dest + ".missing", "w") as f:
        f.write("".join(p + "\n" for p in missing))


def run_one(r, binary, src, out, timeout):
    d = os.path.join(out, r["dir"])
    os.makedirs(d, exist_ok=True)
    data = tempfile.mkdtemp(prefix="vb-sweep-")
    try:
        cmd = ["/usr/bin/time", "-v", "-o", os.path.join(d, "time.txt"),
               "timeout", "-k", "5", str(timeout), binary, "index", "--embed", "off", "--force",
               "--data-dir", data, "--json", "--file-times", os.path.join(d, "times.tsv"),
               os.path.join(src, r["dir"])]
        with open(os.path.join(d, "index.json"), "w") as so, open(os.path.join(d, "stderr"), "w") as se:
            rc = subprocess.run(cmd, stdout=so, stderr=se).returncode
        with open(os.path.join(d, "status.json"), "w") as so:
            subprocess.run([binary, "status", "--json", "--data-dir", data, os.path.join(src, r["dir"])],
                           stdout=so, stderr=subprocess.DEVNULL)
        with open(os.path.join(d, "exit"), "w") as f:
            f.write(f"{rc}\n")
        return rc
    finally:
        shutil.rmtree(data, ignore_errors=True)


def recheck(r, binary, src, out, threshold_ms, runs=3):
    """Time again, alone, each file of r that took over threshold_ms in the
    sweep (or never finished): `index --include <path>`, runs times. Written
    to out/<dir>/recheck.tsv: path, sweep ms, alone ms (median of the file's
    own time; -1 when it never finished within 120 s) and CPU ms (median CPU
    time of the whole process, user + system, less that of the same run
    selecting no file). The sweep shares the machine with whatever else
    runs; CPU time tells a slow file from a busy machine."""
    d = os.path.join(out, r["dir"])
    slow = {}
    try:
        for line in open(os.path.join(d, "times.tsv"), errors="replace"):
            f = line.rstrip("\n").split("\t")
            if len(f) == 7 and f[0] == "done" and float(f[4]) > threshold_ms:
                slow[f[1]] = float(f[4])
            elif f[0] == "running" and len(f) >= 2:
                slow.setdefault(f[1], -1.0)
    except FileNotFoundError:
        return
    if not slow:
        return

    def one(include, path):
        data = tempfile.mkdtemp(prefix="vb-recheck-")
        try:
            tf = os.path.join(data, "times.tsv")
            p = subprocess.Popen(["timeout", "-k", "5", "120", binary, "index", "--embed", "off", "--force",
                                  "--data-dir", data, "--include", include, "--file-times", tf,
                                  os.path.join(src, r["dir"])], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, _, ru = os.wait4(p.pid, 0)
            cpu = (ru.ru_utime + ru.ru_stime) * 1000
            ms = None
            for line in open(tf, errors="replace"):
                f = line.rstrip("\n").split("\t")
                if len(f) == 7 and f[0] == "done" and f[1] == path:
                    ms = float(f[4])
            return ms, cpu
        except FileNotFoundError:
            return None, 0.0
        finally:
            shutil.rmtree(data, ignore_errors=True)

    med = lambda v: sorted(v)[len(v) // 2]
    base = med([one("viberag-sweep-selects-no-file", "")[1] for _ in range(runs)])
    rows = []
    for path, ms in slow.items():
        res = [one(glob_escape(path), path) for _ in range(runs)]
        times = [m for m, _ in res if m is not None]
        alone = med(times) if len(times) == len(res) else -1.0  # -1: did not finish every time
        cpu = max(0.0, med([c for _, c in res]) - base)
        rows.append(f"{path}\t{ms:.3f}\t{alone:.3f}\t{cpu:.0f}\n")
    with open(os.path.join(d, "recheck.tsv"), "w") as f:
        f.write("".join(rows))


def glob_escape(path):
    return re.sub(r"([*?\[\]{}\\])", r"\\\1", path)


def lang_of(path):
    """The language of a 'running' line written before lines named it."""
    ext = os.path.splitext(path)[1].lower()
    return {".ts": "typescript", ".tsx": "tsx", ".js": "javascript", ".mjs": "javascript", ".py": "python",
            ".kt": "kotlin", ".scala": "scala", ".zig": "zig", ".rs": "rust", ".go": "go", ".java": "java",
            ".rb": "ruby", ".php": "php", ".lua": "lua", ".cs": "csharp", ".swift": "swift", ".hs": "haskell",
            ".ex": "elixir", ".exs": "elixir", ".c": "c", ".h": "c", ".cpp": "cpp", ".hpp": "cpp", ".cc": "cpp",
            ".sh": "bash", ".zsh": "bash", ".md": "markdown"}.get(ext, "?")


def read_time(path):
    wall, rss = "", 0
    try:
        for line in open(path):
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                wall = line.rsplit(" ", 1)[1]
            elif line.startswith("Maximum resident set size"):
                rss = int(line.rsplit(" ", 1)[1])
    except FileNotFoundError:
        pass
    return wall, rss


def seconds(wall):
    if not wall:
        return 0.0
    parts = [float(p) for p in wall.split(":")]
    s = 0.0
    for p in parts:
        s = s * 60 + p
    return s


def pct(vals, q):
    if not vals:
        return 0.0
    vals = sorted(vals)
    i = min(len(vals) - 1, max(0, int(round(q * len(vals) + 0.5)) - 1))
    return vals[i]


def reason(problem):
    """A fallback's problem, reduced to a reason label."""
    p = problem.lower()
    for key, label in (("timed out", "timeout"), ("budget", "budget"), ("panic", "panic"),
                       ("nest", "memory"), ("memory", "memory"), ("covers", "coverage"),
                       ("error nodes", "degraded"), ("stuck", "stuck")):
        if key in p:
            return label
    return re.sub(r"[0-9]+", "N", problem)[:40] or "?"


def report(repos, out, src, slow_ms=1000.0):
    langs = collections.defaultdict(lambda: {"repos": set(), "files": 0, "bytes": 0, "times": [],
                                             "slowest": (0.0, ""), "over": 0, "over_alone": 0, "over_cpu": 0, "hangs": 0, "fallback": collections.Counter(),
                                             "repaired": 0})
    per_repo, slow, running, panics, fallbacks = [], [], [], [], []
    for r in repos:
        d = os.path.join(out, r["dir"])
        if not os.path.isdir(d):
            continue
        wall, rss = read_time(os.path.join(d, "time.txt"))
        try:
            rc = int(open(os.path.join(d, "exit")).read())
        except (FileNotFoundError, ValueError):
            rc = None
        alone = {}
        try:
            for line in open(os.path.join(d, "recheck.tsv"), errors="replace"):
                f = line.rstrip("\n").split("\t")
                alone[f[0]] = (float(f[2]), float(f[3]))
        except FileNotFoundError:
            pass
        files = 0
        ran, finished = [], set()
        for line in open(os.path.join(d, "times.tsv"), errors="replace"):
            f = line.rstrip("\n").split("\t")
            if f[0] == "running":
                ran.append((f[1], f[2] if len(f) > 2 and f[2] else lang_of(f[1])))
                continue
            if len(f) != 7:
                continue  # a line cut short by a killed process
            finished.add(f[1])
            _, path, lang, size, ms, status, problem = f
            ms = float(ms)
            files += 1
            L = langs[lang]
            L["repos"].add(r["repo"])
            L["files"] += 1
            L["bytes"] += int(size)
            L["times"].append(ms)
            if ms > L["slowest"][0]:
                L["slowest"] = (ms, f"{r['repo']}:{path}")
            if ms > slow_ms:
                L["over"] += 1
                a = alone.get(path)
                if a is not None and (a[0] > slow_ms or a[0] < 0):
                    L["over_alone"] += 1
                if a is not None and (a[1] > slow_ms or a[0] < 0):
                    L["over_cpu"] += 1
                slow.append((ms, r["repo"], path, lang, int(size), status, problem, a))
            if status == "fallback":
                L["fallback"][reason(problem)] += 1
                fallbacks.append((r["repo"], path, lang, int(size), ms, problem))
                if "panic" in problem.lower():
                    panics.append((r["repo"], path, problem))
            elif status == "repaired":
                L["repaired"] += 1
        for p, lang in ran:
            running.append((r["repo"], p, p in finished))
            if p not in finished:
                langs[lang]["hangs"] += 1
        try:
            stderr = open(os.path.join(d, "stderr"), errors="replace").read()
        except FileNotFoundError:
            stderr = ""
        if "panic:" in stderr or "goroutine " in stderr:
            panics.append((r["repo"], "(process)", stderr.strip().splitlines()[0][:200]))
        try:
            skipped = json.load(open(os.path.join(d, "index.json"))).get("skipped") or {}
            skipped = ", ".join(f"{k} {v}" for k, v in sorted(skipped.items())) or "0"
        except (FileNotFoundError, ValueError):
            skipped = "(run did not finish)"
        try:
            missing = sum(1 for _ in open(os.path.join(src, r["dir"] + ".missing")))
        except FileNotFoundError:
            missing = 0
        per_repo.append((r["repo"], r["commit"][:12], files, seconds(wall), rss // 1024, rc, skipped, missing))

    o = []
    o.append("| language | repos | files | MB | p99 file ms | slowest file ms | slowest file | files > 1 s (sweep / alone / alone CPU) | hangs | budget hits (budget / stuck / timeout) | repaired | fallbacks by reason |")
    o.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lang in sorted(langs):
        L = langs[lang]
        fb = ", ".join(f"{k} {v}" for k, v in sorted(L["fallback"].items())) or "0"
        o.append(f"| {lang} | {len(L['repos'])} | {L['files']} | {L['bytes'] / 1e6:.1f} | {pct(L['times'], 0.99):.1f} | "
                 f"{L['slowest'][0]:.0f} | {L['slowest'][1]} | {L['over']} / {L['over_alone']} / {L['over_cpu']} | {L['hangs']} | "
                 f"{L['fallback']['budget']} / {L['fallback']['stuck']} / {L['fallback']['timeout']} | {L['repaired']} | {fb} |")
    o.append("")
    hung = [x for x in running if not x[2]]
    o.append(f"Repositories: {len(per_repo)}; runs that did not exit 0: {sum(1 for p in per_repo if p[5] != 0)}; "
             f"files still extracting after 1 s: {len(running)}, of which never finished (hangs): {len(hung)}; "
             f"panics: {len(panics)}.")
    o.append("")
    o.append("| repository | commit | files extracted | wall s | peak RSS MB | exit | skipped by reason | not in snapshot |")
    o.append("|---|---|---|---|---|---|---|---|")
    for p in per_repo:
        o.append(f"| {p[0]} | {p[1]} | {p[2]} | {p[3]:.1f} | {p[4]} | {p[5]} | {p[6]} | {p[7]} |")
    o.append("")
    o.append("Files over 1 s in the sweep (alone: median of 3 runs of `index --include` on that file by itself; "
             "CPU: the process's CPU time for it, less a run that selects no file):")
    o.append("")
    for s in sorted(slow, key=lambda s: -s[0]):
        a = ("not rechecked" if s[7] is None else
             "never finished alone" if s[7][0] < 0 else f"alone {s[7][0]:.0f} ms, CPU {s[7][1]:.0f} ms")
        o.append(f"- {s[0]:.0f} ms ({a}) {s[1]}:{s[2]} ({s[3]}, {s[4]} bytes, {s[5]} {s[6]})")
    o.append("")
    o.append("Still extracting after 1 s:")
    o.append("")
    for x in running:
        o.append(f"- {x[0]}:{x[1]} ({'finished' if x[2] else 'NEVER FINISHED: the run was stopped while it extracted'})")
    o.append("")
    o.append("Panics:")
    o.append("")
    for x in panics:
        o.append(f"- {x[0]}:{x[1]} {x[2][:200]}")
    o.append("")
    o.append("Fallbacks:")
    o.append("")
    for x in sorted(fallbacks, key=lambda x: (x[2], x[0], x[1])):
        o.append(f"- {x[2]} {x[0]}:{x[1]} ({x[3]} bytes, {x[4]:.0f} ms): {x[5][:160]}")
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default=os.path.join(HERE, "sweep-repos.tsv"))
    ap.add_argument("--mirror", default=os.environ.get("MIRROR_ROOT", "/work/.mirror"))
    ap.add_argument("--work", default="/work/sweep")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per repository before it counts as a hang")
    ap.add_argument("--binary", default="", help="index with this viberag binary instead of building the tree")
    ap.add_argument("--out", default="", help="results directory (default WORK/out)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--skip-done", action="store_true", help="skip repositories that already have a result in WORK/out")
    ap.add_argument("--recheck-ms", type=float, default=500.0,
                    help="time again, alone, every file slower than this in the sweep (0: no recheck)")
    ap.add_argument("--recheck-only", action="store_true", help="recheck from WORK/out without indexing")
    a = ap.parse_args()
    repos = read_list(a.list)
    if a.only:
        want = set(a.only.split(","))
        repos = [r for r in repos if r["repo"] in want]
    src, out = os.path.join(a.work, "src"), a.out or os.path.join(a.work, "out")
    if not a.report_only:
        binary = a.binary
        if not binary:
            binary = os.path.join(a.work, "viberag")
            subprocess.run(["go", "build", "-o", binary, "./cmd/viberag"], cwd=ROOT, check=True,
                           stderr=subprocess.DEVNULL)
        if not a.recheck_only:
            for r in repos:
                if a.skip_done and os.path.exists(os.path.join(out, r["dir"], "exit")):
                    continue
                checkout(r, a.mirror, src)
                rc = run_one(r, binary, src, out, a.timeout)
                print(f"{r['repo']}: exit {rc}", file=sys.stderr, flush=True)
        if a.recheck_ms > 0:
            for r in repos:
                recheck(r, binary, src, out, a.recheck_ms)
    text = report(read_list(a.list) if a.only == "" else repos, out, src)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
