#!/usr/bin/env python3
"""refs_worse.py [-language L] BASE NEW — compare two scripts/refsbench runs
of the same sample (their OUT directories) symbol by symbol: list each symbol
of language L whose precision or recall is lower in NEW, with the false lines
NEW adds and the lines it misses that BASE found (three of each), then the
count. A change that lifts a sample's average can still lower one symbol;
this finds it. Exit status 1 when any symbol fell or is missing from NEW."""
import json, sys

args = sys.argv[1:]
lang = 'typescript'
if args[:1] == ['-language']:
    lang, args = args[1], args[2:]
if len(args) != 2:
    sys.exit(__doc__)


def records(out):
    return {(s['class'], s['qualname']): s
            for s in json.load(open(out + '/results.json'))['symbols'] if s['language'] == lang}


base, new = records(args[0]), records(args[1])
fell = 0
for key, a in sorted(base.items()):
    b = new.get(key)
    if b is None:
        fell += 1
        print('missing', key)
        continue
    for field in ('precision', 'recall'):
        x, y = a.get(field), b.get(field)
        if x is None or y is None or y >= x - 1e-9:
            continue
        fell += 1
        print(key, field, round(x, 3), '->', round(y, 3))
        for what, lines in (('+false', 'false_lines'), ('+missed', 'missed_lines')):
            added = set(map(str, b.get(lines) or [])) - set(map(str, a.get(lines) or []))
            for line in sorted(added)[:3]:
                print('  ', what, line[:140])
print(args[1], 'fell:', fell)
sys.exit(1 if fell else 0)
