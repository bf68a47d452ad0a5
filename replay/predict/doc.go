// Package predict is the prediction a replay makes, in one place for the
// replay command, the fidelity suite and the experiments: simulate a
// workload model under a policy (Simulate), compute the latency tables of
// the observed and the predicted schedule (Table), and score one against
// the other (Predict, with report.ScoreReplay); and the self-replay that
// says how far a model can be trusted (StartSelfReplay, SelfReplay, with
// report.ScoreSelfReplay and report.NewReplayTrust).
//
// It is a package of its own because it joins replay and report: replay
// cannot import report, whose tests import replay.
package predict
