#!/bin/sh
# bench/replaymem/run.sh: memory and speed of `traceview replay` on a large
# trace, side by side with `traceview latency` on the same file in one run:
# wall time, CPU time, peak RSS (/usr/bin/time -v "Maximum resident set
# size"), the input events (traceview info's "events by kind"), bytes of
# peak RSS per input event and input events per second of wall time.
#
# The file is not committed: record it once (perf 6.12, root) with
#   perf sched record -o big.perf.data -- perf bench sched messaging -g 20 -l 3000
# (about 2.2 M events, 234 MB: issue 29's file), or make a synthetic one with
#   traceview synth ... -w big.tv
#
#   bench/replaymem/run.sh big.perf.data
#   POLICY=cfs RUNS=3 bench/replaymem/run.sh big.perf.data
#   TV=/tmp/old/traceview bench/replaymem/run.sh big.perf.data   # another build
#
# Targets (issue 29 item 1): replay peak RSS <= 64 bytes per input event and
# >= 2 M input events/s end to end on the 234 MB messaging file.
# Last measured (docs/replay.md, "Memory and speed on big captures", ninth round;
# before it the sixth
# round and seventh, then both together; the figures and the commands are
# there). Both branches' builds were measured alternating with a33f8ee on
# 2 vCPUs shared with other tests, so read CPU and RSS, not wall time.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 TRACE" >&2; exit 2; }
DATA=$1
[ -s "$DATA" ] || { echo "bench/replaymem: $DATA: no such file (see the comment at the top for how to record it)" >&2; exit 1; }
POLICY=${POLICY:-eevdf}
RUNS=${RUNS:-1}
cd "$(dirname "$0")/../.."
OUT=bench/out
mkdir -p "$OUT"
case $DATA in /*) ;; *) DATA=$OLDPWD/$DATA ;; esac
if [ -z "${TV:-}" ]; then
	TV=$OUT/traceview
	go build -o "$TV" ./cmd/traceview
fi
[ -x /usr/bin/time ] || { echo "bench/replaymem: need /usr/bin/time (apt-get install -y time)" >&2; exit 1; }

events=$("$TV" info -i "$DATA" | sed -n 's/^events by kind (\([0-9]*\) in all.*/\1/p')
[ -n "$events" ] || { echo "bench/replaymem: traceview info gave no event count for $DATA" >&2; exit 1; }
size=$(stat -c %s "$DATA")

# measure NAME CMD...: run once under /usr/bin/time -v and print one table
# row: wall s, CPU s, peak RSS MiB, bytes per event, events per second.
measure() {
	name=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$OUT/replaymem.time" || {
		echo "bench/replaymem: $* failed:" >&2
		tail -5 "$OUT/replaymem.time" >&2
		exit 1
	}
	awk -F': ' -v name="$name" -v n="$events" '
		/Elapsed \(wall clock\) time/ {
			k = split($2, p, ":"); s = 0
			for (i = 1; i <= k; i++) s = s * 60 + p[i]
			wall = s
		}
		/Maximum resident set size/ { rss = $2 * 1024 }
		/User time \(seconds\)/ { cpu += $2 }
		/System time \(seconds\)/ { cpu += $2 }
		END { printf "| %s | %.2f | %.2f | %.1f | %.0f | %.2f |\n", name, wall, cpu, rss / 1048576, rss / n, n / wall / 1e6 }' "$OUT/replaymem.time"
}

echo "file: $DATA ($size bytes, $events input events; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| command | wall (s) | CPU user+sys (s) | peak RSS (MiB) | RSS bytes/event | M events/s |"
echo "| --- | --- | --- | --- | --- | --- |"
i=0
while [ "$i" -lt "$RUNS" ]; do
	measure "latency" "$TV" latency -i "$DATA"
	measure "replay --policy $POLICY" "$TV" replay --policy "$POLICY" -i "$DATA"
	i=$((i + 1))
done
echo
echo "(targets, issue 29: replay <= 64 bytes/event and >= 2 M events/s)"
