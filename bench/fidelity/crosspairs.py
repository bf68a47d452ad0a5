#!/usr/bin/env python3
"""crosspairs: is a what-if miss the model's, or the recording's?

A what-if check compares one prediction (replay of recording A under a change)
with one recording B of the changed system. When the workload's tasks have few
switches, one placement decision of the kernel can move B (or A) far from its
repeat (docs/replay.md, G2, G12). With several repeats of each side this script
replays every A under the change and compares each prediction with every B:
the ratios' range over all pairs is what one pair can show, and a range that
holds 1.0 says the single pair's miss is within the run-to-run spread.

It also prints each recording's own value range (the spread of B alone), and,
with --self, each A's self-replay ratio.

Usage (the recordings of docs/replay.md, G12; the flags after -- go to
`traceview replay`):

  python3 bench/fidelity/crosspairs.py --tv ./traceview \\
      --from '/tmp/srvr/s*.perf.data' --to '/tmp/srvr/o*.perf.data' \\
      --tasks hog,reqsrv -- --policy eevdf --cpus 1

Rows: task, metric (runtime_ns, switches, avg_delay_ns; the latency table's
columns, per comm), the observed range over the B recordings, the predicted
range over the A recordings, the ratio predicted/observed over all pairs (min,
median, max), and how many pairs fall within the fidelity suite's bounds
(runtime ±5 %, switches ±20 %, average delay ±25 %; bench/fidelity/fidelity.go).
"""
import argparse
import glob
import json
import statistics
import subprocess
import sys

BOUNDS = {"runtime_ns": 0.05, "switches": 0.20, "avg_delay_ns": 0.25}
SCALE = {"runtime_ns": 1e6, "switches": 1, "avg_delay_ns": 1e6}
UNIT = {"runtime_ns": "ms", "switches": "", "avg_delay_ns": "ms"}


def run_json(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("crosspairs: %s failed: %s" % (" ".join(cmd), out.stderr.strip().splitlines()[-1:]))
    return json.loads(out.stdout)


def by_comm(tasks, comm):
    rows = [t for t in tasks if t["comm"] == comm]
    return rows[0] if rows else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tv", default="traceview", help="the traceview binary")
    ap.add_argument("--from", dest="src", required=True, help="glob of the recordings to replay (A)")
    ap.add_argument("--to", dest="dst", required=True, help="glob of the recordings of the changed system (B)")
    ap.add_argument("--tasks", required=True, help="comma-separated comms to compare")
    ap.add_argument("--self", action="store_true", help="also print each A's self-replay ratios")
    ap.add_argument("replay", nargs="*", help="flags for traceview replay (after --)")
    a = ap.parse_args()
    src = sorted(glob.glob(a.src))
    dst = sorted(glob.glob(a.dst))
    if not src or not dst:
        sys.exit("crosspairs: --from matched %d files, --to %d; both need at least one" % (len(src), len(dst)))
    comms = a.tasks.split(",")
    pred = {}
    selfr = {}
    for f in src:
        d = run_json([a.tv, "replay", "-i", f, "-o", "json"] + a.replay)
        pred[f] = d["runs"][0]["predicted"]["tasks"]
        if a.self:
            s = run_json([a.tv, "replay", "-i", f, "-o", "json", "--policy", "eevdf"])
            selfr[f] = (s["observed"]["tasks"], s["runs"][0]["predicted"]["tasks"])
    obs = {f: run_json([a.tv, "latency", "-i", f, "-o", "json"])["tasks"] for f in dst}
    print("A (replayed): %s\nB (recorded): %s\nreplay flags: %s\n" % (" ".join(src), " ".join(dst), " ".join(a.replay)))
    print("| task | metric | observed B (min-max) | predicted from A (min-max) | ratio min / median / max | pairs within bound |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in comms:
        for m in ("runtime_ns", "switches", "avg_delay_ns"):
            o = [by_comm(obs[f], c) for f in dst]
            p = [by_comm(pred[f], c) for f in src]
            if None in o or None in p:
                print("| %s | %s | missing in %d B, %d A | | | |" % (c, m, o.count(None), p.count(None)))
                continue
            ov = [r[m] for r in o]
            pv = [r[m] for r in p]
            ratios = [x / y for x in pv for y in ov if y > 0]
            ok = sum(1 for r in ratios if abs(r - 1) <= BOUNDS[m])
            s, u = SCALE[m], UNIT[m]
            print("| %s | %s | %.3f-%.3f %s | %.3f-%.3f %s | %.2f / %.2f / %.2f | %d of %d |" % (
                c, m, min(ov) / s, max(ov) / s, u, min(pv) / s, max(pv) / s, u,
                min(ratios), statistics.median(ratios), max(ratios), ok, len(ratios)))
    if a.self:
        print("\nself-replay ratios (predicted / observed) of each A:")
        for f in src:
            ob, pr = selfr[f]
            parts = []
            for c in comms:
                o, p = by_comm(ob, c), by_comm(pr, c)
                if o is None or p is None:
                    continue
                parts.append("%s switches %.2f avg_delay %.2f" % (
                    c, p["switches"] / max(o["switches"], 1), p["avg_delay_ns"] / max(o["avg_delay_ns"], 1)))
            print("  %s: %s" % (f, "; ".join(parts)))


if __name__ == "__main__":
    main()
