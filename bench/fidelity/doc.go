// Package fidelity is the replay fidelity harness: the standard cases over
// ../shared/traces (a self-replay of every trace under eevdf, and the
// what-if pairs found by name), each run and scored against the recording
// with report.ScoreReplay, and the known gaps (KnownGaps) that the test
// logs instead of failing, each explained in docs/replay.md. The command
// in run/ prints the fidelity table; run.sh writes it to fidelity.md; the
// command in agree/ scores repeat recordings of the same recipes against
// each other with the same checks.
package fidelity
