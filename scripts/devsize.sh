#!/bin/bash
# Index size per dev-split repository (issue 13: at most 3x the source).
# usage: scripts/devsize.sh BIN OUTDIR
# Indexes each dev-split benchmark root of /work/bench/semble (per
# /work/shared/bench/semble/repos.json) with `BIN index --embed off` into
# OUTDIR/NAME, and prints per repository index.db bytes / indexed bytes
# (files.size summed) and a TOTAL line: index bytes, source bytes, ratio.
# OUTDIR/sizes.tsv keeps NAME, index bytes, source bytes.
BIN=$1; OUT=$2; mkdir -p $OUT
python3 -c "
import json
for r in json.load(open('/work/shared/bench/semble/repos.json')):
    print(r['name'], r.get('benchmark_root') or '.')" | while read n root; do
  d=$OUT/$n; rm -rf $d
  $BIN index /work/bench/semble/$n/$root --data-dir $d --embed off --json >/dev/null 2>$OUT/$n.err || echo "FAIL $n"
  db=$(stat -c %s $d/index.db); src=$(sqlite3 $d/index.db "SELECT sum(size) FROM files")
  echo -e "$n\t$db\t$src"
done | tee $OUT/sizes.tsv | awk '{db+=$2; src+=$3; printf "%s %.2f\n", $1, $2/$3} END {printf "TOTAL %d %d %.3f\n", db, src, db/src}'
