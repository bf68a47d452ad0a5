package replay

import (
	"sort"
	"strconv"

	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// Latency computes the latency table of src with percentiles (p99), one row
// per command name, or per task when perTask.
func Latency(src trace.Source, perTask bool) (*report.LatencyResult, error) {
	return report.ComputeLatency(src, report.LatencyOptions{PerTask: perTask, Percentiles: true})
}

// ObservedLatency computes the latency table of the input trace from the
// model's recorded schedule.
func (m *Model) ObservedLatency(perTask bool) (*report.LatencyResult, error) {
	return Latency(m.Recorded.Source(&m.Meta), perTask)
}

// RowPair is one command name (or task) in an observed and a predicted
// latency table; a side the name is missing from is the zero row.
type RowPair struct {
	Key            string
	Observed, Pred report.LatencyRow
}

func rowKey(r *report.LatencyRow) string {
	if r.NrTasks <= 1 && r.TID > 0 {
		return r.Comm + ":" + strconv.Itoa(int(r.TID))
	}
	return r.Comm
}

// Pair matches the rows of obs and pred, sorted by observed runtime,
// largest first, then name. Rows of a single task (NrTasks <= 1, TID > 0)
// match by TID, the task's identity: the two sides may name one task
// differently (the observed table takes names from perf's COMM records and
// says ":70" for a thread it has none for, the predicted trace names every
// task from its tracepoints, "tokio-rt-worker"). Other rows match by
// command name (and TID for per-task tables). A matched pair is named as
// the observed table (the reports') names it; a side a row is missing from
// is the zero row.
func Pair(obs, pred *report.LatencyResult) []RowPair {
	idx := map[string]int{}
	byTID := map[trace.TID]int{} // single-task observed rows
	var out []RowPair
	key := func(r *report.LatencyRow) string {
		if obs.Options.PerTask {
			return rowKey(r)
		}
		return r.Comm
	}
	single := func(r *report.LatencyRow) bool { return r.NrTasks <= 1 && r.TID > 0 }
	for _, r := range obs.Rows {
		k := key(&r)
		idx[k] = len(out)
		if single(&r) {
			byTID[r.TID] = len(out)
		}
		out = append(out, RowPair{Key: k, Observed: r})
	}
	paired := make([]bool, len(out))
	for _, r := range pred.Rows {
		i, ok := -1, false
		if single(&r) {
			i, ok = byTID[r.TID]
		}
		if !ok {
			i, ok = idx[key(&r)]
		}
		if ok && !paired[i] {
			if r.Comm != out[i].Observed.Comm {
				r.Comm = out[i].Observed.Comm // one name for both sides
			}
			out[i].Pred, paired[i] = r, true
			continue
		}
		k := key(&r)
		if _, taken := idx[k]; !taken {
			idx[k] = len(out)
		}
		out = append(out, RowPair{Key: k, Pred: r})
		paired = append(paired, true)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Observed.Runtime != out[j].Observed.Runtime {
			return out[i].Observed.Runtime > out[j].Observed.Runtime
		}
		if out[i].Pred.Runtime != out[j].Pred.Runtime {
			return out[i].Pred.Runtime > out[j].Pred.Runtime
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// Ratio returns predicted/observed, 0 when observed is 0.
func Ratio(pred, obs int64) float64 {
	if obs == 0 {
		return 0
	}
	return float64(pred) / float64(obs)
}
