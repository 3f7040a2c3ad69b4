#!/usr/bin/env python3
"""Cold index with and without vectors, per benchmark repository.

usage: scripts/bench_vectors.py VIBERAG_BIN MODEL_DIR BENCH_DIR REPOS_DIR [--runs N] [--extra NAME=PATH ...]

For each tree, N alternating pairs of cold runs (`--embed off`, then the
Model2Vec model in MODEL_DIR), so both see the same machine load; prints the
medians, the ratio, the embedding stage's own time and peak RSS, as TSV, and
the totals. See BENCHMARKS.md.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

def cold(binary, root, data, env, extra):
    shutil.rmtree(data, ignore_errors=True)
    t0 = time.perf_counter()
    p = subprocess.run(['/usr/bin/time', '-f', '%M', binary, 'index', '--json', '--data-dir', data] + extra + [root],
                       capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-2000:])
    res = json.loads(p.stdout)
    return wall, int(p.stderr.strip().splitlines()[-1]) / 1024, res

def main():
    a = sys.argv[1:]
    binary, model, bench, repos = a[:4]
    runs, extra = 3, []
    i = 4
    while i < len(a):
        if a[i] == '--runs': runs = int(a[i+1]); i += 2
        elif a[i] == '--extra': extra.append(a[i+1].split('=', 1)); i += 2
        else: sys.exit('unknown arg ' + a[i])
    trees = [(r['name'], os.path.join(repos, r['name'], r.get('benchmark_root') or ''))
             for r in json.load(open(os.path.join(bench, 'repos.json')))]
    trees += extra
    env_on = dict(os.environ, VIBERAG_MODEL_DIR=model)
    tmp = tempfile.mkdtemp()
    print('tree\tchunks\tvectors\toff_s\ton_s\tratio\tembed_stage_s\toff_rss_mb\ton_rss_mb')
    tot_off = tot_on = 0.0
    ratios = []
    for name, root in trees:
        if not os.path.isdir(root):
            print('# missing', root, file=sys.stderr); continue
        off, on, stage, rss_off, rss_on = [], [], [], [], []
        for _ in range(runs):
            w, r, res = cold(binary, root, os.path.join(tmp, 'off'), os.environ, ['--embed', 'off'])
            off.append(w); rss_off.append(r)
            w, r, res = cold(binary, root, os.path.join(tmp, 'on'), env_on, [])
            on.append(w); rss_on.append(r); stage.append(res['vectors']['elapsed_ms'] / 1000)
            assert res['vectors'].get('model'), res['vectors']
        mo, mn = statistics.median(off), statistics.median(on)
        tot_off += mo; tot_on += mn; ratios.append(mn / mo)
        print(f"{name}\t{res['counts']['chunks']}\t{res['vectors']['written']}\t{mo:.2f}\t{mn:.2f}\t{mn/mo:.2f}\t"
              f"{statistics.median(stage):.2f}\t{max(rss_off):.0f}\t{max(rss_on):.0f}", flush=True)
    print(f"# total\t\t\t{tot_off:.1f}\t{tot_on:.1f}\t{tot_on/tot_off:.2f}\tmedian ratio {statistics.median(ratios):.2f}")
    shutil.rmtree(tmp, ignore_errors=True)

main()
