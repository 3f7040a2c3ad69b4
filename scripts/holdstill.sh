#!/usr/bin/env bash
# Shows whether a build of viberag held behaviour still against another:
# both binaries run, interleaved so that both see the same machine load,
#   1. the broad benchmark and the dev split, lexically (eval --embed off
#      --per-query --json), one repository at a time, alternating which
#      binary goes first; each binary keeps its indexes in OUT/cache/<side>
#      (the first run indexes cold; later runs update them);
#   2. cold `viberag index --embed off` of a fixed set of trees (the dev
#      split's benchmark roots and Go's src/net), INDEX_RUNS rounds, A B
#      then B A; wall and CPU time and peak RSS from /usr/bin/time, the
#      index's bytes from du;
# then prints scripts/evaldiff's comparison (also kept in OUT/report.txt).
#
# usage: scripts/holdstill.sh BASE_BIN NEW_BIN OUT
#
# Environment (no defaults for the paths: they are this machine's):
#   BROAD_REPOS  the broad benchmark's checkouts (bench/broad/checkout.sh OUT_DIR)
#   MIRROR_ROOT  the snapshots, to regenerate the broad queries into
#                OUT/broad-bench (scripts/broadgen -regen); or set
#   BROAD_BENCH  to a directory that already holds them (repos.json, annotations/)
#   DEV_BENCH    the dev split (repos.json, annotations/)
#   DEV_REPOS    its checkouts (its checkout.sh OUT_DIR)
#   INDEX_RUNS   rounds of cold index per tree and binary (default 3)
#   QUERY_RUNS   eval --runs, runs per query whose median is its time (default 5)
#   ONLY         space-separated parts to run: broad dev index (default all three)
#
# Outputs already in OUT/A and OUT/B are kept (a stopped run goes on where
# it was); remove them to measure again. OUT/A is BASE_BIN's side, OUT/B
# NEW_BIN's, so `go run ./scripts/evaldiff OUT_BASE/A OUT/B` compares a
# saved base run with a later one.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: scripts/holdstill.sh BASE_BIN NEW_BIN OUT" >&2; exit 2; }
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
A=$(abs "$1"); B=$(abs "$2"); mkdir -p "$3"; OUT=$(abs "$3")
[ -x "$A" ] && [ -x "$B" ] || { echo "holdstill: $A or $B is not an executable" >&2; exit 2; }
cd "$(dirname "$0")/.."
ONLY=${ONLY:-broad dev index}
INDEX_RUNS=${INDEX_RUNS:-3}
QUERY_RUNS=${QUERY_RUNS:-5}
want() { [[ " $ONLY " == *" $1 "* ]]; }
bin() { if [ "$1" = A ]; then echo "$A"; else echo "$B"; fi; }
log() { echo "holdstill: $*" >&2; }

# names NAME... of a benchmark's repos.json, with each one's benchmark root.
names() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["name"], r.get("benchmark_root") or ".")' "$1/repos.json"
}

# evalBench NAME BENCH REPOS: every repository, A and B alternating first.
evalBench() {
	local name=$1 bench=$2 repos=$3 i=0 repo root side
	mkdir -p "$OUT/A/$name" "$OUT/B/$name" "$OUT/log"
	while read -r repo root; do
		local order="A B"
		[ $((i % 2)) = 1 ] && order="B A"
		i=$((i + 1))
		for side in $order; do
			local dst="$OUT/$side/$name/$repo.json"
			[ -s "$dst" ] && continue
			log "$name $repo $side"
			if nice -n 10 "$(bin "$side")" eval --bench "$bench" --repos "$repos" --only "$repo" --embed off \
				--per-query --json --runs "$QUERY_RUNS" --index-cache "$OUT/cache/$side/$name" \
				> "$dst.part" 2> "$OUT/log/$name.$repo.$side.err"; then
				mv "$dst.part" "$dst"
			else
				log "$name $repo $side: eval failed (see $OUT/log/$name.$repo.$side.err)"
				rm -f "$dst.part"
			fi
		done
	done < <(names "$bench")
}

if want broad; then
	: "${BROAD_REPOS:?set BROAD_REPOS to the checkouts of the broad benchmark}"
	if [ -z "${BROAD_BENCH:-}" ]; then
		: "${MIRROR_ROOT:?set MIRROR_ROOT (the snapshots) or BROAD_BENCH (the generated queries)}"
		BROAD_BENCH=$OUT/broad-bench
		go run ./scripts/broadgen -regen -mirror "$MIRROR_ROOT" -out "$BROAD_BENCH"
	fi
	evalBench broad "$BROAD_BENCH" "$BROAD_REPOS"
fi
if want dev; then
	: "${DEV_BENCH:?set DEV_BENCH to the dev split (repos.json, annotations/)}"
	: "${DEV_REPOS:?set DEV_REPOS to the checkouts of the dev split}"
	evalBench dev "$DEV_BENCH" "$DEV_REPOS"
fi

index=$OUT/index.tsv
if want index; then
	trees=()
	if [ -n "${DEV_BENCH:-}" ] && [ -n "${DEV_REPOS:-}" ]; then
		while read -r repo root; do
			[ -d "$DEV_REPOS/$repo/$root" ] && trees+=("dev/$repo=$DEV_REPOS/$repo/$root")
		done < <(names "$DEV_BENCH")
	fi
	trees+=("go/src/net=$(go env GOROOT)/src/net")
	echo -e "side\ttree\trun\twall_s\tcpu_s\trss_kb\tbytes" > "$index"
	work=$OUT/index-work
	for run in $(seq "$INDEX_RUNS"); do
		order="A B"
		[ $((run % 2)) = 0 ] && order="B A"
		for t in "${trees[@]}"; do
			label=${t%%=*} dir=${t#*=}
			for side in $order; do
				rm -rf "$work/$side" && mkdir -p "$work/$side"
				if ! nice -n 10 /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$(bin "$side")" index "$dir" \
					--data-dir "$work/$side/data" --embed off --json > /dev/null 2> "$work/err"; then
					log "index $label $side failed:" && tail -3 "$work/err" >&2 && continue
				fi
				read -r wall user sys rss < <(tail -1 "$work/time")
				bytes=$(du -sb "$work/$side/data" | cut -f1)
				echo -e "$side\t$label\t$run\t$wall\t$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')\t$rss\t$bytes" >> "$index"
			done
		done
		log "index round $run of $INDEX_RUNS done"
	done
	rm -rf "$work"
fi

args=()
[ -s "$index" ] && args=(-index "$index")
go run ./scripts/evaldiff "${args[@]}" "$OUT/A" "$OUT/B" | tee "$OUT/report.txt"
