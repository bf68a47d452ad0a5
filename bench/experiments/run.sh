#!/usr/bin/env bash
# Reproduces the five classic scheduler experiments (000-004) and writes
# docs/experiments.md: synthesizes each workload (traceview synth), replays
# it, and also replays recordings of the same programs.
#
#   bench/experiments/run.sh            recordings from ../shared/traces
#   bench/experiments/run.sh --record   record them afresh on this machine
#                                       (root, perf, gcc) into
#                                       bench/out/experiments/, then replay
#   bench/experiments/run.sh --small    reduced workloads (seconds; CI)
#   go run ./bench/experiments/run -json the same rows as one JSON array
#
# --record builds ../shared/workloads/{pipeline,massive_intr}.c and records,
# as ../shared/traces/README.md describes:
#   pipeline.2cpu      pipeline 4 300 300 1 2
#   massive_intr.2cpu  massive_intr 8 8 1 2 & cyclictest -t1 -i 1000 -l 2000 -q
#                      (without cyclictest when rt-tests is missing)
#   messaging.1cpu     taskset -c 0 perf bench sched messaging -g 4 -l 50
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=../shared/traces
args=()
for a in "$@"; do
	case "$a" in
	--record)
		out=bench/out/experiments
		mkdir -p "$out/bin"
		gcc -O2 -Wall -pthread -o "$out/bin/pipeline" ../shared/workloads/pipeline.c
		gcc -O2 -Wall -o "$out/bin/massive_intr" ../shared/workloads/massive_intr.c
		export PATH="$PWD/$out/bin:$PATH"
		probe="wait"
		if command -v cyclictest >/dev/null; then
			probe="cyclictest -t1 -i 1000 -l 2000 -q; wait"
		fi
		rec() { perf sched record -o "$out/$1.perf.data" -- sh -c "$2" >"$out/$1.log" 2>&1; }
		rec pipeline.2cpu "pipeline 4 300 300 1 2"
		rec massive_intr.2cpu "massive_intr 8 8 1 2 & $probe"
		rec messaging.1cpu "taskset -c 0 perf bench sched messaging -g 4 -l 50"
		dir=$out
		;;
	--small) args+=(-small) ;;
	*) echo "run.sh: unknown option $a (want --record or --small)" >&2; exit 2 ;;
	esac
done
go run ./bench/experiments/run -dir "$dir" "${args[@]}" > docs/experiments.md
echo "wrote docs/experiments.md (recordings from $dir)"
