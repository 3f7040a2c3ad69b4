#!/bin/bash
# One-shot `viberag search` with vectors: two binaries, interleaved query
# by query on one index, so that both see the same machine load.
#
# usage: scripts/bench_vecsearch.sh BIN_A BIN_B DATA_DIR RUNS OUT.tsv
#
# For each of RUNS rounds, each of five concept queries and each binary:
# `nice -n 10 BIN search QUERY --data-dir DATA_DIR --json`, timed by
# /usr/bin/time (wall s, CPU s = user + sys, peak RSS KB). Prints the
# medians per binary. The index needs vectors; a binary that maps the
# vector file and one that loads the vectors table can share it.
set -u
A=$1; B=$2; D=$3; RUNS=$4; OUT=$5
queries=("parse an http request header" "gzip compression writer flush"
	"tls handshake client certificate verification" "walk a directory tree recursively"
	"garbage collector write barrier")
T=$(mktemp)
trap 'rm -f "$T"' EXIT
echo -e "bin\trun\tquery\twall_s\tcpu_s\trss_kb" > "$OUT"
for r in $(seq "$RUNS"); do
	for q in "${queries[@]}"; do
		for b in A B; do
			bin=$A; [ $b = B ] && bin=$B
			nice -n 10 /usr/bin/time -f '%e %U %S %M' -o "$T" "$bin" search "$q" --data-dir "$D" --json > /dev/null 2>&1 ||
				{ echo "FAIL $bin search $q" >&2; continue; }
			awk -v b=$b -v r=$r -v q="$q" '{printf "%s\t%s\t%s\t%s\t%.2f\t%s\n", b, r, q, $1, $2+$3, $4}' "$T" | tail -1 >> "$OUT"
		done
	done
done
for b in A B; do
	awk -F'\t' -v b=$b 'NR>1 && $1==b {print $4, $5, $6}' "$OUT" | sort -n | awk -v b=$b '{w[NR]=$1} END {printf "%s wall median %s s (n=%d)\n", b, w[int((NR+1)/2)], NR}'
	awk -F'\t' -v b=$b 'NR>1 && $1==b {print $5}' "$OUT" | sort -n | awk -v b=$b '{c[NR]=$1} END {printf "%s CPU median %s s\n", b, c[int((NR+1)/2)]}'
	awk -F'\t' -v b=$b 'NR>1 && $1==b {print $6}' "$OUT" | sort -n | awk -v b=$b '{m[NR]=$1} END {printf "%s peak RSS median %d MB\n", b, m[int((NR+1)/2)]/1024}'
done
