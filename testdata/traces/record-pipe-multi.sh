#!/bin/sh
# Records one run of `perf bench sched pipe -l 20` with perf and ftrace at
# once (helper E, issue 7): perf sched record around the run, while a private
# ftrace instance "tv-helperE" records the same sched tracepoints. Produces,
# in the current directory:
#   pipe-multi.perf.data      perf sched record
#   pipe-multi.script.txt     perf script -F comm,pid,tid,cpu,time,event,trace
#   pipe-multi.script-ns.txt  perf script --ns (default fields, ns times)
#   pipe-multi.ftrace.txt     the instance's trace file (irq-info columns)
#   pipe-multi.v7zstd.dat     trace-cmd extract -B tv-helperE (v7, zstd)
#   pipe-multi.v7none.dat     trace-cmd convert --compression none
#   pipe-multi.v6.dat         trace-cmd convert --file-version 6
#   pipe-multi.report.txt     trace-cmd report of the v7 file
# `trace-cmd record` is refused in this VM (EPERM on ftrace_enabled), so
# events are enabled in tracefs directly. /proc/kallsyms is hidden by a bind
# mount in a private mount namespace during extract so the files stay small.
# Needs root, tracefs at /sys/kernel/tracing, perf and trace-cmd.
set -eu
T=/sys/kernel/tracing
I=$T/instances/tv-helperE
EV="sched_switch sched_waking sched_wakeup sched_wakeup_new sched_migrate_task sched_process_fork sched_process_exec sched_process_exit sched_stat_runtime"
mkdir "$I"
echo 0 > "$I/tracing_on"
echo 512 > "$I/buffer_size_kb"
echo > "$I/trace"
for e in $EV; do echo 1 > "$I/events/sched/$e/enable"; done
perf sched record -o pipe-multi.perf.data -- sh -c "echo 1 > $I/tracing_on; perf bench sched pipe -l 20; echo 0 > $I/tracing_on" > pipe-multi.workload.txt 2>&1
cat "$I/per_cpu/cpu0/stats" "$I/per_cpu/cpu1/stats" | grep -E 'entries|overrun' >> pipe-multi.workload.txt
for e in $EV; do echo 0 > "$I/events/sched/$e/enable"; done
cp "$I/trace" pipe-multi.ftrace.txt
: > /tmp/empty-kallsyms
unshare -m sh -c "mount --bind /tmp/empty-kallsyms /proc/kallsyms && trace-cmd extract -B tv-helperE -o pipe-multi.v7zstd.dat" >> pipe-multi.workload.txt 2>&1
# trace-cmd extract -B removes the instance itself.
if [ -d "$I" ]; then rmdir "$I"; fi
trace-cmd convert -i pipe-multi.v7zstd.dat --compression none -o pipe-multi.v7none.dat
trace-cmd convert -i pipe-multi.v7zstd.dat --file-version 6 -o pipe-multi.v6.dat
trace-cmd report -i pipe-multi.v7zstd.dat > pipe-multi.report.txt
perf script -F comm,pid,tid,cpu,time,event,trace -i pipe-multi.perf.data > pipe-multi.script.txt 2>/dev/null
perf script --ns -i pipe-multi.perf.data > pipe-multi.script-ns.txt 2>/dev/null
ls -l pipe-multi.*
