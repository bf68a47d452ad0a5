#!/bin/sh
# bench/report/run.sh: time traceview's report, stats, export and compare
# commands on one large trace (default: bench/out/latency.perf.data, the
# >= 2-million-event recording that bench/latency/run.sh makes). Prints a
# markdown table of the median wall time, CPU time (user+sys) and peak RSS of
# RUNS runs per command. Outputs go to bench/out/ (never committed).
#
#   bench/report/run.sh
#   RUNS=3 DATA=other.perf.data bench/report/run.sh
#   TV=/path/to/traceview bench/report/run.sh
#
# Target (issue 3): `traceview report` under 10 s on the 2M-event file.
set -eu
cd "$(dirname "$0")/../.."
OUT=bench/out
DATA=${DATA:-$OUT/latency.perf.data}
RUNS=${RUNS:-5}
[ -s "$DATA" ] || {
	echo "bench/report: $DATA missing (bench/latency/run.sh records it)" >&2
	exit 1
}
mkdir -p "$OUT"
# TV=path uses a prebuilt binary instead of building the work tree.
if [ -z "${TV:-}" ]; then
	go build -o "$OUT/traceview-g" ./cmd/traceview
	TV=$OUT/traceview-g
fi
events=$("$TV" stats -i "$DATA" -o json 2>/dev/null | awk -F': ' '/"events"/ {gsub(",", "", $2); print $2; exit}')

# one NAME CMD...: RUNS runs of CMD, each line "wall cpu rss_kib".
one() {
	name=$1
	shift
	runs=$OUT/report-$name.runs
	: >"$runs"
	n=0
	while [ "$n" -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %U %S %M' -o "$OUT/report-time.txt" "$@" >/dev/null 2>"$OUT/report-stderr.txt" || {
			echo "bench/report: $name failed:" >&2
			tail -3 "$OUT/report-stderr.txt" >&2
			exit 1
		}
		awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$OUT/report-time.txt" >>"$runs"
		n=$((n + 1))
	done
	wall=$(sort -n -k1 "$runs" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
	cpu=$(sort -n -k2 "$runs" | awk '{a[NR] = $2} END {print a[int((NR + 1) / 2)]}')
	rss=$(sort -n -k3 "$runs" | awk '{a[NR] = $3} END {printf "%.0f", a[int((NR + 1) / 2)] / 1024}')
	printf '| `%s` | %s s | %s s | %s MiB |\n' "$name" "$wall" "$cpu" "$rss"
}

echo "Trace: $DATA ($(stat -c %s "$DATA") bytes, $events events), median of $RUNS runs, $(nproc) CPUs"
echo
echo "| command | wall | CPU (user+sys) | peak RSS |"
echo "| --- | --- | --- | --- |"
one "report -o x.html" "$TV" report -i "$DATA" -o "$OUT/report.html"
one "stats" "$TV" stats -i "$DATA"
one "export --format pprof" "$TV" export --format pprof -i "$DATA" -o "$OUT/delay.pb.gz"
one "export --format perfetto" "$TV" export --format perfetto -i "$DATA" -o "$OUT/sched.json"
one "compare A A" "$TV" compare "$DATA" "$DATA"
