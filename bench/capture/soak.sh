#!/bin/sh
# bench/capture/soak.sh: a long capture under a context-switch storm. `traceview record --rotate`
# runs for DURATION seconds while `stress-ng --switch 4` switches as fast as it can; every STEP
# seconds the recorder's resident memory (VmRSS, and its peak VmHWM) is sampled from /proc. At the
# end: the files of the series, the events in them, the losses the recorder counted (per CPU, also
# stored in each file's trailer and shown by `traceview info`), and RSS over time. Targets: RSS
# under 100 MiB whatever the duration; losses counted, never silent (the storm produces more
# events than any recorder on 2 CPUs can keep, so some are expected: the point is that they are
# counted, per CPU and window).
# Needs root and stress-ng, which nothing in the project installs (no test uses it, so .ci/run does not):
# on Debian, apt-get update && apt-get install -y stress-ng.
# Usage: sudo bench/capture/soak.sh   (env: OUT=dir DURATION=600 STEP=10 ROTATE=1m WORKERS=4)
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/traceview-soak}
DURATION=${DURATION:-600}
STEP=${STEP:-10}
ROTATE=${ROTATE:-1m}
WORKERS=${WORKERS:-4}
[ "$(id -u)" = 0 ] || { echo "soak.sh: needs root (sudo)" >&2; exit 1; }
command -v stress-ng >/dev/null || { echo "soak.sh: stress-ng not found (apt-get install stress-ng)" >&2; exit 1; }
mkdir -p "$OUT"
rm -f "$OUT"/soak.*.tv
TV=$OUT/traceview
go build -o "$TV" ./cmd/traceview
SUM=$OUT/soak.txt
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
say "# traceview record --rotate $ROTATE under stress-ng --switch $WORKERS for $DURATION s ($(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs)"
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
"$TV" record --rotate "$ROTATE" -d "${DURATION}s" -o "$OUT/soak.tv" 2>"$OUT/record.log" &
REC=$!
sleep 2
stress-ng --switch "$WORKERS" -t "$((DURATION - 4))s" --metrics-brief >"$OUT/stress.log" 2>&1 &
STRESS=$!
say ""
say "## recorder memory (kB)"
say "t_s VmRSS VmHWM"
t=0
while kill -0 $REC 2>/dev/null; do
	rss=$(awk '/^VmRSS/ {print $2}' /proc/$REC/status 2>/dev/null || true)
	hwm=$(awk '/^VmHWM/ {print $2}' /proc/$REC/status 2>/dev/null || true)
	[ -n "$rss" ] && say "$t $rss $hwm"
	sleep "$STEP"
	t=$((t + STEP))
done
wait $REC || say "record exited with status $?"
wait $STRESS || true
say ""
say "## result"
grep -v '^\[ traceview record: wrote ' "$OUT/record.log" | tee -a "$SUM"
say "files: $(ls "$OUT"/soak.*.tv | wc -l), $(du -ch "$OUT"/soak.*.tv | tail -1 | cut -f1) in all"
awk '/^[0-9]+ [0-9]+ [0-9]+$/ && $2 > max {max = $2} END {printf "largest VmRSS sampled: %.1f MiB (target < 100 MiB)\n", max / 1024}' "$SUM" | tee -a "$SUM"
say "stress-ng: $(grep -E 'switch ' "$OUT/stress.log" | tail -1)"
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
