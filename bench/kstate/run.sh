#!/bin/sh
# bench/kstate/run.sh: the kernel's EEVDF state at each wakeup, sleep and
# switch of the tasks named COMM while WORKLOAD runs (kstate.bpf.c says what
# each line holds), for checking the replay's rules against the kernel
# (docs/replay.md, WAKEUP_DEQUEUE_DELAYED and G12). Needs root, BTF, clang
# and libbpf-dev (apt-get install -y clang libbpf-dev), bpftool, tracefs.
#
#   bench/kstate/run.sh reqsrv "taskset -c 0 sh -c 'reqsrv 1800 250 3 2 13 500 & nice -n 4 hog 2 batch & wait'"
#
# Output: $OUT/kstate.txt (the bpf_printk lines of trace_pipe).
set -eu
[ $# -eq 2 ] || { echo "usage: $0 COMM WORKLOAD" >&2; exit 2; }
COMM=$1
WORKLOAD=$2
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/traceview-kstate}
SECS=${SECS:-10}
mkdir -p "$OUT"
TR=/sys/kernel/tracing
[ -e $TR/trace_pipe ] || mount -t tracefs nodev $TR
bpftool btf dump file /sys/kernel/btf/vmlinux format c > "$OUT/vmlinux.h"
clang -O2 -g -target bpf -I"$OUT" -DCOMM="\"$COMM\"" -c bench/kstate/kstate.bpf.c -o "$OUT/kstate.bpf.o"
go build -o "$OUT/kstate" ./bench/kstate
on=$(cat $TR/tracing_on)
echo 1 > $TR/tracing_on
echo > $TR/trace
cat $TR/trace_pipe > "$OUT/pipe.txt" &
cat_pid=$!
"$OUT/kstate" "$OUT/kstate.bpf.o" "$SECS" &
load_pid=$!
sleep 1
sh -c "$WORKLOAD" > /dev/null
wait $load_pid
kill $cat_pid
echo "$on" > $TR/tracing_on
grep bpf_trace_printk "$OUT/pipe.txt" | sed 's/.*bpf_trace_printk: //' > "$OUT/kstate.txt"
echo "bench/kstate: $(wc -l < "$OUT/kstate.txt") lines in $OUT/kstate.txt"
