package report

import (
	"sort"
	"strconv"

	"github.com/traceview/traceview/trace"
)

// RowPair is one command name (or task) in an observed and a predicted
// latency table; a side the name is missing from is the zero row.
type RowPair struct {
	Key            string
	Observed, Pred LatencyRow
}

func rowKey(r *LatencyRow) string {
	if r.NrTasks <= 1 && r.TID > 0 {
		return r.Comm + ":" + strconv.Itoa(int(r.TID))
	}
	return r.Comm
}

// PairRows matches the rows of obs and pred (an observed and a predicted
// latency table: replay's comparison), sorted by observed runtime,
// largest first, then name. Rows of a single task (NrTasks <= 1, TID > 0)
// match by TID, the task's identity: the two sides may name one task
// differently (the observed table takes names from perf's COMM records and
// says ":70" for a thread it has none for, the predicted trace names every
// task from its tracepoints, "tokio-rt-worker"). Other rows match by
// command name (and TID for per-task tables). A TID the trace reused names
// several single-task rows (one per task, latency's incarnations): a
// predicted row pairs with one of the same name, the one whose run time is
// nearest its own, else with one of another name (new-user pass 28 F3: a
// reused TID paired one hog with nothing and listed the other as new, and
// the self-replay read 0.00x). A matched pair is named as the observed
// table (the reports') names it; a side a row is missing from is the zero
// row.
func PairRows(obs, pred *LatencyResult) []RowPair {
	idx := map[string]int{}
	byTID := map[trace.TID][]int{} // single-task observed rows
	var out []RowPair
	key := func(r *LatencyRow) string {
		if obs.Options.PerTask {
			return rowKey(r)
		}
		return r.Comm
	}
	single := func(r *LatencyRow) bool { return r.NrTasks <= 1 && r.TID > 0 }
	for _, r := range obs.Rows {
		k := key(&r)
		idx[k] = len(out)
		if single(&r) {
			byTID[r.TID] = append(byTID[r.TID], len(out))
		}
		out = append(out, RowPair{Key: k, Observed: r})
	}
	paired := make([]bool, len(out))
	// sameTask picks the unpaired observed row of r's TID for r.
	sameTask := func(r *LatencyRow) (int, bool) {
		best, bestName, bestGap := -1, false, int64(0)
		for _, i := range byTID[r.TID] {
			if paired[i] {
				continue
			}
			name := out[i].Observed.Comm == r.Comm
			gap := out[i].Observed.Runtime - r.Runtime
			if gap < 0 {
				gap = -gap
			}
			if best < 0 || name && !bestName || name == bestName && gap < bestGap {
				best, bestName, bestGap = i, name, gap
			}
		}
		return best, best >= 0
	}
	for _, r := range pred.Rows {
		i, ok := -1, false
		if single(&r) {
			i, ok = sameTask(&r)
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

// PredRatio returns predicted/observed, 0 when observed is 0.
func PredRatio(pred, obs int64) float64 {
	if obs == 0 {
		return 0
	}
	return float64(pred) / float64(obs)
}
