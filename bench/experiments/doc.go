// Package experiments reproduces the classic Linux scheduler experiments
// with traceview's replay: each experiment builds (synth) or loads (a
// shared recording) a workload, replays it under the policies the original
// debate compared, and sets the prediction beside the published figure.
//
// A Row compares one policy with the experiment's baseline: the published
// effect (policy value / baseline value, or the published ratio itself),
// the predicted effect, whether both point the same way (a ratio within 1%
// of 1 counts as "no change"), and how large the predicted effect is
// against the published one ((pred − 1) / (pub − 1) of the effects).
// Values carry their unit in Row.Unit. Run cmd via bench/experiments/run.sh
// to regenerate docs/experiments.md.
package experiments
