#!/usr/bin/env python3
"""refs_pool.py [-language L] OUT... — pool several scripts/refsbench samples
(their OUT directories) of one language: each symbol counted once (the first
sample's record where samples draw it twice), then precision and recall are
averaged over symbols, per class (names unique in the repository, shared by
several definitions). More samples of one repository give a steadier figure
than any one of 40 names."""
import json, sys

args = sys.argv[1:]
lang = 'typescript'
if args[:1] == ['-language']:
    lang, args = args[1], args[2:]
if not args:
    sys.exit(__doc__)
seen = {}
for out in args:
    for s in json.load(open(out + '/results.json'))['symbols']:
        if s['language'] == lang:
            seen.setdefault((s['class'], s['qualname']), s)
for cls in ('unique', 'shared'):
    xs = [s for (c, _), s in seen.items() if c == cls]
    for f in ('precision', 'recall'):
        v = [s[f] for s in xs if s.get(f) is not None]
        if v:
            print(f'{lang} {cls} {f}: {sum(v)/len(v):.3f} over {len(v)} symbols')
