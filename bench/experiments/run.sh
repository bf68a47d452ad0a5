#!/usr/bin/env bash
# Reproduces the five classic scheduler experiments of issue 6 and writes
# docs/experiments.md: synthesizes each workload (traceview synth), replays
# it, and also replays this machine's recordings in ../shared/traces where
# they hold the same program. Run from anywhere.
#
# To record a workload afresh instead (root, perf, the programs of
# ../shared/workloads built and on PATH), e.g. the pipeline:
#   perf sched record -o pipeline.perf.data -- pipeline 4 300 300 1 2
#   traceview replay -i pipeline.perf.data --cpus 4 --policy bfs,cfs:NEXT_BUDDY,cfs
set -euo pipefail
cd "$(dirname "$0")/../.."
go run ./bench/experiments/run -dir ../shared/traces "$@" > docs/experiments.md
echo "wrote docs/experiments.md"
