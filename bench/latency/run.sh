#!/bin/sh
# bench/latency/run.sh: time `traceview latency` against `perf sched latency`
# on one large perf.data (>= 2 million sched events), wall time and peak RSS
# (/usr/bin/time -v) of each, median of RUNS runs, printed as a markdown table.
#
# Needs root (system-wide `perf sched record`) and perf 6.12
# (/work/shared/tools/install-perf.sh). The recording goes to bench/out/
# (never committed) and is reused by later runs; DATA=FILE uses another file.
#
#   bench/latency/run.sh            # record if needed, then 5 runs each
#   flock /tmp/me/bench.lock bench/latency/run.sh   # on a shared machine: one timed run at a time
#   RUNS=3 DATA=big.perf.data bench/latency/run.sh
set -eu
cd "$(dirname "$0")/../.."
OUT=bench/out
DATA=${DATA:-$OUT/latency.perf.data}
RUNS=${RUNS:-5}
mkdir -p "$OUT"

perf --version | grep -q 'perf version 6\.12' || {
	echo "bench/latency: need perf 6.12 (run /work/shared/tools/install-perf.sh)" >&2
	exit 1
}
if [ ! -s "$DATA" ]; then
	echo "recording $DATA: perf sched record -- perf bench sched messaging -g 20 -l 3000" >&2
	perf sched record -o "$DATA" -- perf bench sched messaging -g 20 -l 3000 >"$OUT/record.log" 2>&1
fi
go build -o "$OUT/traceview" ./cmd/traceview

# Sched events in the file (perf's own count of PERF_RECORD_SAMPLE).
events=$(perf report -i "$DATA" --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
size=$(stat -c %s "$DATA")

# measure CMD...: run once under /usr/bin/time -v; prints "wall_s rss_kib cpu_s"
# (cpu = user + system time: on a shared machine the fairer comparison).
measure() {
	/usr/bin/time -v "$@" >/dev/null 2>"$OUT/time.txt" || {
		echo "bench/latency: $* failed:" >&2
		tail -5 "$OUT/time.txt" >&2
		exit 1
	}
	awk -F': ' '
		/Elapsed \(wall clock\) time/ {
			n = split($2, p, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + p[i]
			wall = s
		}
		/Maximum resident set size/ { rss = $2 }
		/User time \(seconds\)/ { cpu += $2 }
		/System time \(seconds\)/ { cpu += $2 }
		END { printf "%.3f %d %.3f\n", wall, rss, cpu }' "$OUT/time.txt"
}

# median FILE COLUMN: median of one column of RUNS lines.
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {print v[int((NR + 1) / 2)]}'; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$OUT/perf.runs"
: >"$OUT/tv.runs"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure perf --no-pager sched latency -i "$DATA" >>"$OUT/perf.runs"
	measure "$OUT/traceview" latency -i "$DATA" >>"$OUT/tv.runs"
	i=$((i + 1))
done

pw=$(median "$OUT/perf.runs" 1)
pr=$(median "$OUT/perf.runs" 2)
pc=$(median "$OUT/perf.runs" 3)
tw=$(median "$OUT/tv.runs" 1)
tr=$(median "$OUT/tv.runs" 2)
tc=$(median "$OUT/tv.runs" 3)
echo "file: $DATA ($size bytes, $events sched events; $(nproc) CPUs, $(uname -r))"
echo
echo "load average before the runs: $load"
echo
echo "| tool | wall time (s) | CPU time user+sys (s) | peak RSS (MiB) |"
echo "| --- | --- | --- | --- |"
awk -v w="$pw" -v r="$pr" -v c="$pc" 'BEGIN {printf "| perf sched latency (6.12) | %.3f | %.3f | %.1f |\n", w, c, r / 1024}'
awk -v w="$tw" -v r="$tr" -v c="$tc" 'BEGIN {printf "| traceview latency | %.3f | %.3f | %.1f |\n", w, c, r / 1024}'
echo
echo "(medians of $RUNS runs each, alternating)"
awk -v pw="$pw" -v tw="$tw" -v pc="$pc" -v tc="$tc" -v pr="$pr" -v tr="$tr" \
	'BEGIN {printf "traceview: %.1fx faster in wall time, %.1fx less CPU time, %.2fx perf'"'"'s peak memory (target: >= 5x faster in wall time, <= 0.2x memory: issue 13)\n", pw / tw, pc / tc, tr / pr}'
