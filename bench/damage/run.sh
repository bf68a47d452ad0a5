#!/bin/sh
# bench/damage/run.sh: the damage sweep of issue 29 item 3. Builds traceview
# and the sweeper, damages every perf.data of testdata/traces and
# ../shared/traces (bit flips, 8-byte overwrites, zeroed and repeated 1 KiB
# blocks, cuts; N copies of each per file, seeded), replays each under eevdf
# and cfs with a 60 s timeout and a 4 GiB address-space cap, and prints the
# failures and a table of outcomes per class. Failing damaged files are kept
# in bench/out/damage/ (never committed).
#
#   bench/damage/run.sh                 # N=4: 1960 runs, about 5 minutes
#   N=1 TRACES='testdata/traces/*.data' bench/damage/run.sh
set -eu
cd "$(dirname "$0")/../.."
OUT=bench/out
mkdir -p "$OUT"
go build -o "$OUT/traceview" ./cmd/traceview
go build -o "$OUT/damage" ./bench/damage
# shellcheck disable=SC2086 # TRACES is a list of globs
exec "$OUT/damage" -bin "$OUT/traceview" -n "${N:-4}" -seed 1 -timeout 60s -j 1 -keep "$OUT/damage" \
	${TRACES:-testdata/traces/*.data ../shared/traces/*.perf.data}
