#!/usr/bin/env python3
"""bench/kstate/summarize.py: counts from run.sh's kstate.txt (the line
formats are in kstate.bpf.c).

  summarize.py KSTATE.TXT [WAKEE_PID CURR_PID]

Prints, for the wakeups of WAKEE_PID while CURR_PID ran on its runqueue:
curr's slice protection (vprot above its vruntime), which of the two had
the larger vruntime, nr_queued and curr's thread flags after the check
(the reschedule bit is TIF_NEED_RESCHED, whose number depends on the
architecture and release: on this VM's 6.18 x86 build 0x10 is the one
set when the wakee preempted); then, per task, its sleeps (prev_state not
0) by delayed dequeue and sign of its lag; then the wakeups that enqueued
a task (not queued at sched_waking) by the change of nr_queued from
sched_waking to sched_wakeup, where 0 means a delayed entity left the
runqueue inside the wakeup (on the wakee's CPU, with interrupts off).
"""
import collections
import sys


def records(path):
    """Yields (kind, pid, fields) for each event of the file."""
    cur = None
    for line in open(path):
        if line[:2] in ("W ", "S ", "K "):
            if cur:
                yield cur
            parts = line.split()
            cur = (parts[0], parts[1], {})
            line = " ".join(parts[2:])
        if cur:
            cur[2].update(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if cur:
        yield cur


def sign(v):
    return "+" if v > 0 else ("-" if v < 0 else "0")


def main():
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    wakee, curr = (sys.argv[2], sys.argv[3]) if len(sys.argv) == 4 else (None, None)
    wakes, sleeps, enq = collections.Counter(), collections.Counter(), collections.Counter()
    for kind, pid, f in records(sys.argv[1]):
        if kind == "W" and pid == wakee and f.get("rc") == curr:
            cv, cp = int(f["cv"]), int(f["cp"])
            wakes[("protected" if cp - cv > 0 else "unprotected",
                   {"+": "curr ahead", "-": "wakee ahead", "0": "tie"}[sign(cv)],
                   "nq=" + f["nq"], "flags=" + f["fl"])] += 1
        elif kind == "S" and f.get("st") != "0":
            sleeps[(pid, "delayed" if f["del"] == "1" else "dequeued",
                    "lag " + sign(int(f["vlag"])) if f["del"] == "0" else "")] += 1
        elif kind == "K" and f.get("del") == "0" and f.get("onrq") == "0":
            enq["nr_queued %+d" % (int(f["a"]) - int(f["b"])) + (" (same CPU)" if f["cpu"] == f["now"] else "")] += 1
    if wakee:
        print("wakeups of %s onto %s:" % (wakee, curr))
        for k, v in sorted(wakes.items()):
            print("  %6d  %s" % (v, "  ".join(k)))
    print("sleeps:")
    for k, v in sorted(sleeps.items()):
        print("  %6d  %s" % (v, "  ".join(x for x in k if x)))
    print("enqueueing wakeups:")
    for k, v in sorted(enq.items()):
        print("  %6d  %s" % (v, k))


if __name__ == "__main__":
    main()
