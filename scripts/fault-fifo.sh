#!/usr/bin/env bash
# fault-fifo.sh BIN [RUNS] — issue 18's FIFO race: a tree of 2,000 files,
# each replaced by a named pipe 20–100 ms after `viberag index` starts.
# Every run must end within 30 s; prints per run: exit status, wall time,
# and the not_regular / unreadable skips the run recorded.
set -u
bin=${1:?usage: fault-fifo.sh BIN [RUNS]}
runs=${2:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$runs"); do
	tree=$work/tree$r data=$work/data$r
	mkdir -p "$tree/pkg"
	for i in $(seq 1 2000); do
		printf 'def f%d(x):\n    return x + %d\n' "$i" "$i" >"$tree/pkg/m$i.py"
	done
	start=$(date +%s.%N)
	timeout -s KILL 60 "$bin" index --embed off --data-dir "$data" "$tree" >"$work/out$r" 2>&1 &
	pid=$!
	sleep "0.0$((RANDOM % 9 + 2))"
	for i in $(seq 1 2000); do rm -f "$tree/pkg/m$i.py" && mkfifo "$tree/pkg/m$i.py"; done
	wait "$pid"
	rc=$?
	end=$(date +%s.%N)
	skips=$(grep -o 'not_regular [0-9]*\|unreadable [0-9]*' "$work/out$r" | tr '\n' ' ')
	printf 'run %d: exit %d, %.1f s, skipped: %s\n' "$r" "$rc" "$(echo "$end - $start" | bc)" "${skips:-none}"
	rm -rf "$tree" "$data"
done
