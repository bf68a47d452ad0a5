#!/bin/sh
# bench/capture/run.sh: `traceview record` against `perf sched record`, in one run:
#   fidelity  both record the same workload at the same time; per task of the workload, the
#             sched_switch counts must agree within 1 % (tracestat -max-diff 1);
#   overhead  the workload's own figures (perf bench sched messaging total time, perf bench sched
#             pipe usecs/op) with no tracing, under perf sched record and under traceview record,
#             median of REPS interleaved runs; target: our slowdown at most half of perf's;
#   size      bytes per event of our file vs the perf.data of the same capture; target <= 1/4.
# Needs root and perf (/work/shared/tools/install-perf.sh installs perf 6.12).
# Usage: sudo bench/capture/run.sh   (env: OUT=dir REPS=5 MSG="-g 4 -l 100" PIPE="-l 50000")
set -eu
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/traceview-capture-bench}
REPS=${REPS:-5}
MSG=${MSG:--g 4 -l 100}
PIPE=${PIPE:--l 50000}
mkdir -p "$OUT"
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (sudo)" >&2; exit 1; }
command -v perf >/dev/null || { echo "run.sh: perf not found (see /work/shared/tools/install-perf.sh)" >&2; exit 1; }
[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
TV=$OUT/traceview
TS=$OUT/tracestat
go build -o "$TV" ./cmd/traceview
go build -o "$TS" ./bench/capture/tracestat
SUM=$OUT/summary.txt
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }

say "# traceview record vs perf sched record ($(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) CPUs, $(perf --version))"
say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- fidelity and size: both recorders on the same run -------------------------------------
"$TV" record -o "$OUT/fid.tv" 2>"$OUT/fid.tv.log" &
TVPID=$!
i=0; while [ ! -s "$OUT/fid.tv" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.5
perf sched record -o "$OUT/fid.perf.data" -- perf bench sched messaging $MSG >"$OUT/fid.workload.log" 2>"$OUT/fid.perf.log"
kill -INT $TVPID
wait $TVPID
say ""
say "## fidelity: perf bench sched messaging $MSG recorded by both at once (A = perf.data, B = traceview)"
if "$TS" -comm '^sched-messaging$' -max-diff 1 "$OUT/fid.perf.data" "$OUT/fid.tv" >"$OUT/fidelity.txt"; then FID=PASS; else FID=FAIL; fi
head -2 "$OUT/fidelity.txt" | tee -a "$SUM"
tail -1 "$OUT/fidelity.txt" | tee -a "$SUM"
say "fidelity (every task within 1 %): $FID"

say ""
say "## size"
"$TV" convert "$OUT/fid.perf.data" -o "$OUT/fid.converted.tv" | tee -a "$SUM"
PB=$(head -1 "$OUT/fidelity.txt" | sed 's/.* \([0-9.]*\) bytes\/event.*/\1/')
TB=$(sed -n 2p "$OUT/fidelity.txt" | sed 's/.* \([0-9.]*\) bytes\/event.*/\1/')
say "bytes/event: perf.data $PB, traceview record $TB (ratio $(echo "$TB $PB" | awk '{printf "%.3f", $1/$2}'), target <= 0.25)"

# --- overhead ---------------------------------------------------------------------------------
msg() { awk '/Total time/ {print $3}'; }
pipe() { awk '/usecs\/op/ {print $1}'; }
run() { # run MODE WORKLOAD-ARGS...
	mode=$1; shift
	case $mode in
	none) perf bench sched "$@" 2>/dev/null ;;
	perf) perf sched record -o "$OUT/ovh.perf.data" -- perf bench sched "$@" 2>/dev/null ;;
	traceview) "$TV" record -o "$OUT/ovh.tv" -- perf bench sched "$@" 2>/dev/null ;;
	esac
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2}'; }
for mode in none perf traceview; do : >"$OUT/msg.$mode"; : >"$OUT/pipe.$mode"; done
r=0
while [ $r -lt "$REPS" ]; do
	for mode in none perf traceview; do
		run $mode messaging $MSG | msg >>"$OUT/msg.$mode"
		run $mode pipe $PIPE | pipe >>"$OUT/pipe.$mode"
	done
	r=$((r+1))
done
say ""
say "## overhead (median of $REPS interleaved runs)"
for w in msg pipe; do
	n=$(median <"$OUT/$w.none"); p=$(median <"$OUT/$w.perf"); t=$(median <"$OUT/$w.traceview")
	unit=$([ $w = msg ] && echo "s total (messaging $MSG)" || echo "usecs/op (pipe $PIPE)")
	say "$unit: none $n, perf sched record $p, traceview record $t"
	echo "$n $p $t" | awk '{ps=($2/$1-1)*100; ts=($3/$1-1)*100; printf "  slowdown: perf %.1f %%, traceview %.1f %% (ours/perf %.2f, target <= 0.5)\n", ps, ts, (ps>0? ts/ps : 0)}' | tee -a "$SUM"
done
say "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "raw runs and files in $OUT"
