#!/usr/bin/env bash
# Records a set of what-if recordings for the fidelity harness into DIR
# (default /tmp/fidelity-recordings), named as bench/fidelity/run pairs them:
# NAME.2cpu -> NAME.1cpu (2 -> 1 CPU) and NAME.2cpu -> NAME.nice0 (every
# workload task at nice 0). These are the recordings the session of
# 2026-12-02 held back from tuning (16:17, 16:55 and 17:23 UTC); record them
# afresh on a quiet machine (nothing else running: a build or a test during a
# recording shows up in its self-replay and spoils its what-if), then
#   go run ./bench/fidelity/run -dir DIR
# Needs root, perf (../shared/tools/install-perf.sh installs perf 6.12), gcc,
# and the workload sources in ../shared/workloads. SET=1|2|3 picks one set
# (default all). About 40 s per set.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-/tmp/fidelity-recordings}
src=../shared/workloads
bin=$dir/bin
mkdir -p "$dir" "$bin"
gcc -O2 -Wall -o "$bin/massive_intr" "$src/massive_intr.c"
gcc -O2 -Wall -o "$bin/hog" "$src/hog.c"
gcc -O2 -Wall -pthread -o "$bin/reqsrv" "$src/reqsrv.c" -lm
export PATH=$bin:$PATH
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
cd "$dir"
r() { name=$1; shift; echo "recording $name" >&2; perf sched record -o "$name.perf.data" -- sh -c "$*" > "$name.out" 2>&1; sleep 1; }
pin() { echo "taskset -c 0 sh -c '$1'"; }
hogs3() { echo "nice -n 0 hog 2 nice0 & nice -n $1 hog 2 nice$1 & nice -n -$1 hog 2 nice-$1 & wait"; }
hogs0() { echo "nice -n 0 hog 2 nice0 & nice -n 0 hog 2 was-nice$1 & nice -n 0 hog 2 was-nice-$1 & wait"; }
set1() {
	r mi5.2cpu 'massive_intr 5 6 3 2'; r mi5.1cpu "$(pin 'massive_intr 5 6 3 2')"
	w='reqsrv 1800 300 3 2 7 500 & hog 2 b1 & hog 2 b2 & wait'; r srvD.2cpu "$w"; r srvD.1cpu "$(pin "$w")"
	r nice4.2cpu "$(hogs3 4)"; r nice4.nice0 "$(hogs0 4)"; r nice4.1cpu "$(pin "$(hogs3 4)")"
	w='reqsrv 3000 150 4 2 13 500 & nice -n 3 hog 2 b3 & wait'; r srvK.2cpu "$w"; r srvK.1cpu "$(pin "$w")"
	r mi3.2cpu 'massive_intr 3 10 1 2'; r mi3.1cpu "$(pin 'massive_intr 3 10 1 2')"
}
set2() {
	r mi4.2cpu 'massive_intr 4 8 3 2'; r mi4.1cpu "$(pin 'massive_intr 4 8 3 2')"
	w='reqsrv 1500 200 2 2 5 500 & nice -n -5 hog 2 a & hog 2 b & wait'; r srvN.2cpu "$w"; r srvN.1cpu "$(pin "$w")"
	r srvN.nice0 'reqsrv 1500 200 2 2 5 500 & hog 2 a & hog 2 b & wait'
	w='reqsrv 2200 250 3 2 17 500 & hog 2 x & wait'; r srvE.2cpu "$w"; r srvE.1cpu "$(pin "$w")"
	r nice2.2cpu "$(hogs3 2)"; r nice2.nice0 "$(hogs0 2)"
}
set3() {
	r mi7.2cpu 'massive_intr 7 4 2 2'; r mi7.1cpu "$(pin 'massive_intr 7 4 2 2')"
	w='reqsrv 2000 200 4 2 23 500 & hog 2 b1 & hog 2 b2 & wait'; r srvF.2cpu "$w"; r srvF.1cpu "$(pin "$w")"
	r nice6.2cpu "$(hogs3 6)"; r nice6.nice0 "$(hogs0 6)"; r nice6.1cpu "$(pin "$(hogs3 6)")"
	r msg.2cpu 'perf bench sched messaging -g 3 -l 60'; r msg.1cpu 'taskset -c 0 perf bench sched messaging -g 3 -l 60'
}
case "${SET:-all}" in
1) set1 ;; 2) set2 ;; 3) set3 ;;
*) set1; set2; set3 ;;
esac
echo "recorded in $dir; now: go run ./bench/fidelity/run -dir $dir" >&2
