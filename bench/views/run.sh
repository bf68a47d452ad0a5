#!/bin/sh
# bench/views/run.sh: time `traceview timehist` and `traceview map` against
# `perf sched timehist` and `perf sched map` (perf 6.12), output to /dev/null,
# on the large benchmark perf.data (>= 2 million sched events). Each command
# runs RUNS times (default 5); the table gives the median wall time, the
# median CPU time (user + sys: on a shared, loaded machine this is the fairer
# figure) and the median peak RSS, as measured by /usr/bin/time.
#
# The file is the one bench/latency/run.sh records (bench/out/latency.perf.data,
# never committed: run that script first). DATA=FILE times another file;
# TRACEVIEW=BINARY times a prebuilt traceview instead of building
# ./cmd/traceview.
#
#   bench/views/run.sh
#   flock /tmp/me/bench.lock bench/views/run.sh   # on a shared machine: one timed run at a time
#   RUNS=3 DATA=/tmp/big.perf.data bench/views/run.sh
set -eu
cd "$(dirname "$0")/../.."
OUT=bench/out DATA=${DATA:-bench/out/latency.perf.data} RUNS=${RUNS:-5}
[ -s "$DATA" ] || {
	echo "bench/views: $DATA is missing; bench/latency/run.sh records it (needs root)" >&2
	exit 1
}
case $(perf --version) in
*" 6.12"*) ;;
*) echo "bench/views: perf 6.12 needed (/work/shared/tools/install-perf.sh)" >&2 && exit 1 ;;
esac
TV=${TRACEVIEW:-$OUT/traceview-views}
[ -n "${TRACEVIEW:-}" ] || go build -o "$TV" ./cmd/traceview

events=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
size=$(stat -c %s "$DATA")

# run CMD...: one run; appends "wall_s cpu_s rss_kib" to $runs.
run() {
	if ! /usr/bin/time -f '%e %U %S %M' -o "$OUT/views-time.txt" "$@" >/dev/null 2>"$OUT/views-stderr.txt"; then
		echo "bench/views: $* failed:" >&2
		tail -5 "$OUT/views-stderr.txt" >&2
		exit 1
	fi
	tail -1 "$OUT/views-time.txt" | awk '{printf "%.3f %.3f %d\n", $1, $2 + $3, $4}' >>"$runs"
}

# median COLUMN: median of one column of the $runs file.
median() { sort -n -k"$1" "$runs" | awk -v c="$1" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }

# row NAME: the table row of the $runs file; sets w, c for the ratio line.
row() {
	w=$(median 1)
	c=$(median 2)
	r=$(median 3)
	awk -v n="$1" -v w="$w" -v c="$c" -v r="$r" 'BEGIN {printf "| %s | %.3f | %.3f | %.1f |\n", n, w, c, r / 1024}'
}

echo "file: $DATA ($size bytes, $events sched events; $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1 /proc/loadavg))"
echo
echo "| command (output to /dev/null) | wall time (s) | CPU time (s) | peak RSS (MiB) |"
echo "| --- | --- | --- | --- |"
for view in timehist map; do
	runs=$OUT/views-perf-$view.runs
	: >"$runs"
	runs=$OUT/views-tv-$view.runs
	: >"$runs"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		runs=$OUT/views-perf-$view.runs
		run perf --no-pager sched "$view" -i "$DATA"
		runs=$OUT/views-tv-$view.runs
		run "$TV" "$view" -i "$DATA"
		i=$((i + 1))
	done
	runs=$OUT/views-perf-$view.runs
	row "perf sched $view (6.12)"
	pw=$w pc=$c
	runs=$OUT/views-tv-$view.runs
	row "traceview $view"
	awk -v v="$view" -v pw="$pw" -v tw="$w" -v pc="$pc" -v tc="$c" \
		'BEGIN {printf "| %s speed-up | %.1fx | %.1fx | |\n", v, pw / tw, pc / tc}'
done
echo
echo "medians of $RUNS runs each, alternating; target: traceview >= 5x faster than perf, <= 0.2x its peak RSS (issue 13)"
