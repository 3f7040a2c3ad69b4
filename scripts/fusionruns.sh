#!/usr/bin/env bash
# Runs BENCHMARKS.md's "Fusion with models of different quality" (issue
# 34): `viberag eval --json` on the dev split and the broad benchmark,
# lexical and then each model calibrated (the default users get) and at
# the fixed weights, into OUT/SET-RUN.json as scripts/fusiontable reads
# them:
#   random  scripts/randvec: vectors that carry no signal (the control);
#   static  scripts/trainstatic's static word model (STATIC_MODEL);
#   large   the same method on more of its corpus (LARGE_MODEL;
#           trainstatic -source-bytes 10485760 -dim 256 -min-count 10).
#
# usage: scripts/fusionruns.sh BIN OUT
#
# Environment (no defaults for the paths: they are this machine's):
#   BROAD_BENCH, BROAD_REPOS  the broad benchmark's queries and checkouts
#   DEV_BENCH, DEV_REPOS      the dev split and its checkouts
#   BROAD_CACHE, DEV_CACHE    warm lexical indexes (eval --index-cache) of
#                             BIN's facts version; read only, never written
#   STATIC_MODEL, LARGE_MODEL directories holding each model's static.bin
#   MODELS  models to run (default: random static large)
#   SETS    sets to run (default: dev broad)
#   MODES   weights to run, in order (default: cal fixed)
#   PORT    loopback port of scripts/randvec (default 8790)
#
# Each model's indexes (OUT/cache/MODEL-SET) start as copies of the warm
# lexical ones, so only its vectors are computed; they hold no
# calibration, so BIN measures every one. The lexical run reads
# OUT/cache/random-SET before vectors are added. Outputs already in OUT
# are kept; then `go run ./scripts/fusiontable -dir OUT`.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/fusionruns.sh BIN OUT" >&2; exit 2; }
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
BIN=$(abs "$1"); mkdir -p "$2"; OUT=$(abs "$2")
cd "$(dirname "$0")/.."
MODELS=${MODELS:-random static large}
SETS=${SETS:-dev broad}
MODES=${MODES:-cal fixed}
PORT=${PORT:-8790}
log() { echo "fusionruns: $(date -u +%H:%M:%S) $*" >&2; }
mkdir -p "$OUT/cache" "$OUT/log" "$OUT/bin"
go build -o "$OUT/bin/randvec" ./scripts/randvec

bench() { if [ "$1" = broad ]; then echo "${BROAD_BENCH:?}"; else echo "${DEV_BENCH:?}"; fi; }
repos() { if [ "$1" = broad ]; then echo "${BROAD_REPOS:?}"; else echo "${DEV_REPOS:?}"; fi; }
warm() { if [ "$1" = broad ]; then echo "${BROAD_CACHE:?}"; else echo "${DEV_CACHE:?}"; fi; }

# seed MODEL SET: consistent copies of the warm indexes (sqlite3 .backup:
# another process may be updating them).
seed() {
	local d=$OUT/cache/$1-$2
	[ -f "$d/.seeded" ] && return 0
	rm -rf "$d"
	for r in "$(warm "$2")"/*/; do
		mkdir -p "$d/$(basename "$r")"
		sqlite3 -readonly "$r/index.db" ".backup '$d/$(basename "$r")/index.db'"
	done
	touch "$d/.seeded"
}

# run NAME CACHE SET ARGS...: one eval into OUT/SET-NAME.json.
run() {
	local name=$1 cache=$2 set=$3
	shift 3
	local dst=$OUT/$set-$name.json
	[ -s "$dst" ] && return 0
	log "$set-$name"
	nice -n 19 "$BIN" eval --bench "$(bench "$set")" --repos "$(repos "$set")" --index-cache "$OUT/cache/$cache-$set" \
		--runs 1 --breakdown --per-query --json "$@" > "$dst.part" 2> "$OUT/log/$set-$name.err"
	mv "$dst.part" "$dst"
}

args() {
	case $1 in
	random) echo --embed openai --embed-url "http://127.0.0.1:$PORT/v1" --embed-model random ;;
	static) echo --embed static --model-dir "${STATIC_MODEL:?}" ;;
	large) echo --embed static --model-dir "${LARGE_MODEL:?}" ;;
	*) log "unknown model $1" && exit 2 ;;
	esac
}

randvec=
trap '[ -n "$randvec" ] && kill "$randvec"' EXIT
"$OUT/bin/randvec" -addr "127.0.0.1:$PORT" 2> "$OUT/log/randvec.err" &
randvec=$!
sleep 1
for set in $SETS; do
	seed random "$set"
	run lexical random "$set" --embed off
done
for mode in $MODES; do
	flag=
	[ "$mode" = fixed ] && flag=--fixed-weights
	for model in $MODELS; do
		for set in $SETS; do
			seed "$model" "$set"
			# shellcheck disable=SC2046 # args are words without spaces
			run "$model-$mode" "$model" "$set" $(args "$model") $flag
		done
	done
done
