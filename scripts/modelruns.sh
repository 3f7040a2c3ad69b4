#!/usr/bin/env bash
# Measures fusion with embedding models of different quality (issue 34):
# the broad benchmark and the dev split, each with its pseudo-queries
# (scripts/pseudogen), traced by `viberag eval --trace` under
#   off     no vectors (lexical);
#   random  scripts/randvec: vectors that carry no signal (the control);
#   static  the static word model scripts/trainstatic trains on public code
#           that no benchmark uses (STATIC_MODEL: its directory);
#   large   the same method on more of the same corpus, with more words and
#           dimensions (LARGE_MODEL: its directory; trainstatic
#           -source-bytes 10485760 -dim 256 -min-count 10);
#   repo    per repository, a static model trained by scripts/trainstatic
#           -tree on that repository's own files (its factorised word
#           vectors and a random projection of its words);
# then prints scripts/fusionlab's report (also OUT/report.md), with the
# per-repository choices in OUT/<set>-<model>.tsv.
#
# usage: scripts/modelruns.sh BIN OUT
#
# Environment (no defaults for the paths: they are this machine's):
#   BROAD_BENCH  the broad benchmark's queries (scripts/broadgen -regen -out DIR)
#   BROAD_REPOS  its checkouts
#   DEV_BENCH    the dev split (repos.json, annotations/)
#   DEV_REPOS    its checkouts
#   MIRROR_ROOT  the git snapshots, for commit pseudo-queries
#   STATIC_MODEL directory holding the static model's static.bin
#   LARGE_MODEL  directory holding the large static model's static.bin
#   MODELS       models to run (default: off random static repo)
#   SETS         benchmarks to run (default: broad dev)
#   PORT         loopback port of scripts/randvec (default 8790)
#
# Each model's indexes start as copies of the lexical ones (OUT/cache), so
# only the vectors are computed; outputs already in OUT/runs are kept.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/modelruns.sh BIN OUT" >&2; exit 2; }
abs() { (cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")"); }
BIN=$(abs "$1"); mkdir -p "$2"; OUT=$(abs "$2")
cd "$(dirname "$0")/.."
MODELS=${MODELS:-off random static repo}
SETS=${SETS:-broad dev}
PORT=${PORT:-8790}
log() { echo "modelruns: $*" >&2; }
mkdir -p "$OUT/runs" "$OUT/cache" "$OUT/bin" "$OUT/log"
go build -o "$OUT/bin/pseudogen" ./scripts/pseudogen
go build -o "$OUT/bin/randvec" ./scripts/randvec
go build -o "$OUT/bin/trainstatic" ./scripts/trainstatic
go build -o "$OUT/bin/fusionlab" ./scripts/fusionlab

bench() { if [ "$1" = broad ]; then echo "${BROAD_BENCH:?}"; else echo "${DEV_BENCH:?}"; fi; }
repos() { if [ "$1" = broad ]; then echo "${BROAD_REPOS:?}"; else echo "${DEV_REPOS:?}"; fi; }

# eval_traced MODEL SET KIND BENCH [ARGS...]: one traced run into OUT/runs.
eval_traced() {
	local model=$1 set=$2 kind=$3 b=$4
	shift 4
	local dst=$OUT/runs/$model-$set$kind.jsonl.gz
	[ -s "$dst" ] && return 0
	log "$model $set$kind"
	nice -n 10 "$BIN" eval --bench "$b" --repos "$(repos "$set")" --runs 1 --json --index-cache "$OUT/cache/$model-$set" \
		--trace "$dst.part" "$@" > "$OUT/runs/$model-$set$kind.json" 2> "$OUT/log/$model-$set$kind.err"
	mv "$dst.part" "$dst"
}

# seed_cache MODEL SET: the model's indexes start from the lexical ones.
seed_cache() {
	[ -d "$OUT/cache/$1-$2" ] || cp -a "$OUT/cache/off-$2" "$OUT/cache/$1-$2"
}

randvec=
trap '[ -n "$randvec" ] && kill "$randvec"' EXIT
for set in $SETS; do
	pseudo=$OUT/pseudo-$set
	# The pseudo-queries are read from the lexical run's indexes.
	eval_traced off "$set" "" "$(bench "$set")" --embed off
	if [ ! -s "$pseudo/repos.json" ]; then
		log "pseudo-queries of $set"
		nice -n 10 "$OUT/bin/pseudogen" -bench "$(bench "$set")" -indexes "$OUT/cache/off-$set" -mirror "${MIRROR_ROOT:?}" \
			-avoid "$(bench "$set")" -out "$pseudo" 2> "$OUT/log/pseudogen-$set.err"
	fi
	for model in $MODELS; do
		case $model in
		off)
			eval_traced off "$set" "" "$(bench "$set")" --embed off
			eval_traced off "$set" -pseudo "$pseudo" --embed off
			;;
		random)
			seed_cache random "$set"
			if [ -z "$randvec" ]; then
				"$OUT/bin/randvec" -addr "127.0.0.1:$PORT" 2> "$OUT/log/randvec.err" &
				randvec=$!
				sleep 1
			fi
			args=(--embed openai --embed-url "http://127.0.0.1:$PORT/v1" --embed-model random)
			eval_traced random "$set" "" "$(bench "$set")" "${args[@]}"
			eval_traced random "$set" -pseudo "$pseudo" "${args[@]}"
			;;
		static)
			seed_cache static "$set"
			eval_traced static "$set" "" "$(bench "$set")" --embed static --model-dir "${STATIC_MODEL:?}"
			eval_traced static "$set" -pseudo "$pseudo" --embed static --model-dir "$STATIC_MODEL"
			;;
		large)
			seed_cache large "$set"
			eval_traced large "$set" "" "$(bench "$set")" --embed static --model-dir "${LARGE_MODEL:?}"
			eval_traced large "$set" -pseudo "$pseudo" --embed static --model-dir "$LARGE_MODEL"
			;;
		repo)
			# One model per repository: one eval per repository, traces
			# concatenated (gzip members read as one stream).
			seed_cache repo "$set"
			for kind in "" -pseudo; do
				dst=$OUT/runs/repo-$set$kind.jsonl.gz
				[ -s "$dst" ] && continue
				b=$(bench "$set")
				[ "$kind" = -pseudo ] && b=$pseudo
				parts=$OUT/runs/repo-$set$kind.d
				mkdir -p "$parts"
				python3 -c 'import json,sys
for r in json.load(open(sys.argv[1])): print(r["name"], r.get("benchmark_root") or ".")' "$b/repos.json" |
					while read -r name root; do
						[ -s "$parts/$name.jsonl.gz" ] && continue
						[ -d "$(repos "$set")/$name/$root" ] || continue
						model=$OUT/repo-models/$set/$name
						if [ ! -s "$model/static.bin" ]; then
							mkdir -p "$model"
							nice -n 10 "$OUT/bin/trainstatic" -tree "$(repos "$set")/$name/$root" -name "repo-words-$name" \
								-min-sources 1 -min-count 2 -vocab 65536 -source-bytes 67108864 -lexical-dim 256 -probe "" \
								-out "$model/static.bin" 2> "$OUT/log/trainstatic-$set-$name.err"
						fi
						nice -n 10 "$BIN" eval --bench "$b" --repos "$(repos "$set")" --only "$name" --runs 1 --json \
							--index-cache "$OUT/cache/repo-$set" --embed static --model-dir "$model" \
							--trace "$parts/$name.part" > /dev/null 2>> "$OUT/log/repo-$set$kind.err"
						mv "$parts/$name.part" "$parts/$name.jsonl.gz"
					done
				cat "$parts"/*.jsonl.gz > "$dst.part" && mv "$dst.part" "$dst"
			done
			;;
		*) log "unknown model $model" && exit 2 ;;
		esac
	done
done
models=$(echo "$MODELS" | tr ' ' ',')
sets=$(echo "$SETS" | tr ' ' ',')
"$OUT/bin/fusionlab" -dir "$OUT/runs" -models "$models" -sets "$sets" -tsv "$OUT" | tee "$OUT/report.md"
