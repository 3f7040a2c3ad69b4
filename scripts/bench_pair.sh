#!/bin/bash
# Paired index benchmark: two viberag binaries, interleaved run by run on a
# private copy of one tree, so that both see the same machine load.
#
# usage: scripts/bench_pair.sh BIN_A BIN_B NAME TREE RUNS OUTDIR
#
# For each of RUNS rounds and each binary: a cold `viberag index` into an
# empty data dir, `--parse-only` into another, then a no-change re-index;
# then RUNS one-file re-indexes, each after appending a line to the first
# .go file over 8 KB. Writes OUTDIR/NAME.tsv (wall s, CPU s = user + sys,
# peak RSS KB, from /usr/bin/time), OUTDIR/NAME.size (index.db bytes, tree
# bytes) and OUTDIR/NAME.<A|B>.dbstat (bytes per table and index).
set -u
A=$1; B=$2; NAME=$3; SRC=$4; RUNS=$5; OUT=$6
mkdir -p "$OUT"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp -a "$SRC" "$W/tree"
T=$W/tree
log=$OUT/$NAME.tsv
echo -e "bin\trun\tkind\twall_s\tcpu_s\trss_kb" > "$log"
tm() {
	/usr/bin/time -f '%e %U %S %M' -o "$W/t" "$@" > "$W/out" 2> "$W/err" || { echo "FAIL $*" >&2; tail -5 "$W/err" >&2; }
	awk '{print $1, $2+$3, $4}' "$W/t" | tail -1
}
for r in $(seq "$RUNS"); do
	for b in A B; do
		bin=$A; [ $b = B ] && bin=$B
		rm -rf "$W/d-$b" "$W/p-$b"
		read -r w c m < <(tm "$bin" index "$T" --data-dir "$W/d-$b" --embed off --json); echo -e "$b\t$r\tcold\t$w\t$c\t$m" >> "$log"
		read -r w c m < <(tm "$bin" index "$T" --data-dir "$W/p-$b" --embed off --parse-only --json); echo -e "$b\t$r\tparse\t$w\t$c\t$m" >> "$log"
		read -r w c m < <(tm "$bin" index "$T" --data-dir "$W/d-$b" --embed off --json); echo -e "$b\t$r\tnochange\t$w\t$c\t$m" >> "$log"
	done
done
F=$(find "$T" -name '*.go' -size +8k | sort | head -1)
for r in $(seq "$RUNS"); do
	echo "// bench edit $r" >> "$F"
	for b in A B; do
		bin=$A; [ $b = B ] && bin=$B
		read -r w c m < <(tm "$bin" index "$T" --data-dir "$W/d-$b" --embed off --json); echo -e "$b\t$r\tonefile\t$w\t$c\t$m" >> "$log"
	done
done
for b in A B; do
	db=$W/d-$b/index.db
	echo "$b $(stat -c %s "$db") $(du -sb "$SRC" | cut -f1)" >> "$OUT/$NAME.size"
	sqlite3 "$db" "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC" > "$OUT/$NAME.$b.dbstat"
done
