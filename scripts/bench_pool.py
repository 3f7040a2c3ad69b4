#!/usr/bin/env python3
"""bench_pool.py AB.tsv BA.tsv — pool two scripts/bench_pair.sh runs of the same
two binaries made in both orders (AB: MAIN as A, NEW as B; BA: NEW as A, MAIN
as B): per binary, the medians of CPU s (user + sys), wall s and peak RSS of
each kind over all rounds, cold ÷ parse-only, re-index as a share of cold, and
per kind the median of the per-round NEW ÷ MAIN ratios ("paired")."""
import csv, statistics as st, sys
def rows(f):
    return list(csv.DictReader(open(f),delimiter='\t'))
out={'main':{}, 'new':{}}
ratios={}
for f,mainbin in ((sys.argv[1],'A'),(sys.argv[2],'B')):
    R=rows(f)
    for r in R:
        who='main' if r['bin']==mainbin else 'new'
        out[who].setdefault(r['kind'],[]).append(r)
    for k in ['cold','parse','nochange','onefile']:
        for run in set(r['run'] for r in R if r['kind']==k):
            m=[r for r in R if r['kind']==k and r['run']==run and r['bin']==mainbin]
            n=[r for r in R if r['kind']==k and r['run']==run and r['bin']!=mainbin]
            if m and n:
                ratios.setdefault(k,{'cpu':[],'wall':[]})
                ratios[k]['cpu'].append(float(n[0]['cpu_s'])/float(m[0]['cpu_s']))
                ratios[k]['wall'].append(float(n[0]['wall_s'])/float(m[0]['wall_s']))
for who in ['main','new']:
    d=out[who]
    s=[]
    for k in ['cold','parse','nochange','onefile']:
        if k not in d: continue
        c=[float(r['cpu_s']) for r in d[k]]; w=[float(r['wall_s']) for r in d[k]]; m=[int(r['rss_kb']) for r in d[k]]
        s.append('%s cpu %.3f (%s) wall %.2f rss %.0fMB'%(k,st.median(c),'/'.join('%.2f'%x for x in c),st.median(w),st.median(m)/1024))
    cold=st.median(float(r['cpu_s']) for r in d['cold']); par=st.median(float(r['cpu_s']) for r in d['parse'])
    coldw=st.median(float(r['wall_s']) for r in d['cold']); parw=st.median(float(r['wall_s']) for r in d['parse'])
    print(who, '\n  '+'\n  '.join(s), '\n  cold/parse cpu %.2f wall %.2f; nochange %.1f%% onefile %.1f%% of cold'%(cold/par, coldw/parw, 100*st.median(float(r['cpu_s']) for r in d['nochange'])/cold, 100*st.median(float(r['cpu_s']) for r in d['onefile'])/cold))
for k,v in ratios.items():
    print('paired new/main',k,'cpu median %.3f (%s) wall median %.3f'%(st.median(v['cpu']),' '.join('%.2f'%x for x in v['cpu']),st.median(v['wall'])))
