#!/usr/bin/env python3
"""Index-speed benchmark: cold index, parse-only, no-change and one-file-change
re-index for each benchmark repository (and any extra trees), against a
ripgrep baseline measured in the same session.

usage: scripts/bench_index.py VIBERAG_BIN BENCH_DIR REPOS_DIR [--runs N] [--extra NAME=PATH ...] [--only a,b]

Every figure is the median of N runs (default 3). Each tree is copied to a
temporary directory first, so the one-file change never touches the checkout.
Prints one TSV row per tree and a summary; see BENCHMARKS.md.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

def timed(cmd, **kw):
    """Run cmd; return (wall seconds, peak RSS MB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(['/usr/bin/time', '-f', '%M'] + cmd, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr[-2000:]}")
    rss_kb = int(p.stderr.strip().splitlines()[-1])
    return wall, rss_kb / 1024, p.stdout

def main():
    args = sys.argv[1:]
    binary, bench, repos_dir = args[:3]
    runs, only, extra = 3, set(), []
    i = 3
    while i < len(args):
        if args[i] == '--runs': runs = int(args[i+1]); i += 2
        elif args[i] == '--only': only = set(args[i+1].split(',')); i += 2
        elif args[i] == '--extra': extra.append(args[i+1].split('=', 1)); i += 2
        else: sys.exit(f"unknown arg {args[i]}")
    trees = []
    for r in json.load(open(os.path.join(bench, 'repos.json'))):
        if only and r['name'] not in only: continue
        root = os.path.join(repos_dir, r['name'], r.get('benchmark_root') or '')
        if os.path.isdir(root): trees.append((r['name'], r['language'], root))
        else: print(f"# missing {root}", file=sys.stderr)
    for name, path in extra: trees.append((name, 'mixed', path))

    print("name\tlanguage\tfiles\tMB\trg_s\tcold_s\tcold_rss_MB\tparse_only_s\tnochange_s\tonefile_s\tcold_over_rg\tcold_over_parse\tnochange_over_cold\tonefile_over_cold\tMB_per_s\tfiles_per_s", flush=True)
    for name, lang, root in trees:
        work = tempfile.mkdtemp(prefix='vr-bench-')
        try:
            tree = os.path.join(work, 'tree')
            shutil.copytree(root, tree, symlinks=True)
            data = os.path.join(work, 'data')
            rg, cold, rss, parse, noch, onef = [], [], [], [], [], []
            res = {}
            for k in range(runs):
                rg.append(timed(['rg', '-c', '--no-messages', r'\w', tree], )[0] if True else 0)
                shutil.rmtree(data, ignore_errors=True)
                w, m, out = timed([binary, 'index', tree, '--data-dir', data, '--json'])
                cold.append(w); rss.append(m); res = json.loads(out)
                parse.append(timed([binary, 'index', tree, '--data-dir', data + '-p', '--parse-only', '--json'])[0])
                noch.append(timed([binary, 'index', tree, '--data-dir', data, '--json'])[0])
            # one-file change: append a line to the largest indexed source file
            files = []
            for dp, _, fs in os.walk(tree):
                for f in fs:
                    p = os.path.join(dp, f)
                    if not os.path.islink(p): files.append((os.path.getsize(p), p))
            files.sort()
            target = files[len(files) // 2][1] if files else None
            for k in range(runs):
                if target:
                    with open(target, 'a') as fh: fh.write(f"\n// bench edit {k}\n")
                onef.append(timed([binary, 'index', tree, '--data-dir', data, '--json'])[0])
            med = statistics.median
            size_mb = sum(s for s, _ in files) / 1e6
            nfiles = res.get('counts', {}).get('Files') or res.get('counts', {}).get('files') or 0
            c = med(cold)
            print(f"{name}\t{lang}\t{nfiles}\t{size_mb:.2f}\t{med(rg):.3f}\t{c:.3f}\t{med(rss):.0f}\t{med(parse):.3f}\t{med(noch):.3f}\t{med(onef):.3f}\t{c/med(rg):.1f}\t{c/med(parse):.2f}\t{med(noch)/c:.3f}\t{med(onef)/c:.3f}\t{size_mb/c:.2f}\t{nfiles/c:.0f}", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)

if __name__ == '__main__':
    main()
