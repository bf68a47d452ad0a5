package replay

import (
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// policyTrace: two hogs on one CPU, each 100 ms of CPU in ten 10 ms turns
// (TID 1 runs [0,10), TID 2 [10,20), ... both exit at 200 ms), their
// switch-outs naming TID 1's policy p1 and TID 2's p2 (an eBPF capture's
// task records; a perf.data names none: PolicyUnknown).
func policyTrace(p1, p2 trace.SchedPolicy) []trace.Event {
	ms := int64(1_000_000)
	pol := map[trace.TID]trace.SchedPolicy{1: p1, 2: p2}
	evs := []trace.Event{sw(0, 0, 0, 1)}
	cur := trace.TID(1)
	for k := int64(1); k <= 20; k++ {
		next := 3 - cur
		st := trace.StatePreempted
		if k >= 19 {
			st = trace.StateDead
		}
		if k == 20 {
			next = 0
		}
		e := sw(10*ms*k, cur, st, next)
		e.Policy, e.NextPolicy = pol[cur], pol[next]
		evs = append(evs, e)
		cur = next
	}
	return evs
}

// TestRecordedPolicy: the model takes each task's scheduling policy from
// its switch-outs (Task.Policy), and the simulation runs it so. With TID 2
// under SCHED_IDLE (weight 3 against nice 0's 1024, WEIGHT_IDLEPRIO,
// kernel/sched/sched.h) EEVDF on one CPU, preempting at ticks (HZ 250,
// 4 ms): TID 1 runs first; at the first tick (4 ms) its vruntime 4 ms is
// above the average V = (1024·4 + 3·0) / 1027 = 3.99 ms, so it is not
// eligible and TID 2 (v 0) is picked and runs to the next tick (8 ms),
// which moves its vruntime by 4 ms × 1024/3 = 1365 ms: it is not eligible
// again before TID 1 is done. TID 1's 100 ms of work ends at 104 ms and
// TID 2 ends at 200 ms. Without policies (a perf.data) both run as SCHED_NORMAL
// and share the CPU: TID 1 ends after 190 ms. Under SCHED_BATCH TID 2 is
// a fair task whose wakeups do not preempt (Task.Batch), counted in
// ModelStats.SchedBatch.
func TestRecordedPolicy(t *testing.T) {
	ms := int64(1_000_000)
	end := func(m *Model, tid trace.TID) int64 {
		t.Helper()
		res, err := Simulate(m, newPolicy(t, "eevdf", 1), DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		evs, err := trace.ReadAll(res.Source())
		if err != nil {
			t.Fatal(err)
		}
		var last int64 = -1
		for _, e := range evs {
			if e.Kind == trace.KindSwitch && e.TID == tid {
				last = e.Time
			}
		}
		return last
	}
	task := func(m *Model, tid trace.TID) *Task {
		i, ok := taskOfTID(m, tid)
		if !ok {
			t.Fatalf("no task %d", tid)
		}
		return &m.Tasks[i]
	}

	m, err := Extract(trace.NewSliceSource(policyTrace(trace.PolicyNormal, trace.PolicyIdle), nil))
	if err != nil {
		t.Fatal(err)
	}
	if tk := task(m, 2); tk.Policy != trace.PolicyIdle || m.Stats.SchedIdle != 1 || m.Stats.SchedBatch != 0 {
		t.Fatalf("TID 2 policy %v, SCHED_IDLE tasks %d, SCHED_BATCH %d; want idle, 1, 0", tk.Policy, m.Stats.SchedIdle, m.Stats.SchedBatch)
	}
	if c, _, _ := task(m, 2).Class(); c != policies.ClassIdle {
		t.Errorf("TID 2 class %v, want idle", c)
	}
	if c, _, _ := task(m, 1).Class(); c != policies.ClassFair || task(m, 1).Policy != trace.PolicyNormal {
		t.Errorf("TID 1 class %v policy %v, want normal, other", c, task(m, 1).Policy)
	}
	if got := end(m, 1); got != 104*ms {
		t.Errorf("TID 1 beside a SCHED_IDLE task ends at %d ns, want 104 ms", got)
	}
	if got := end(m, 2); got < 199*ms || got > 201*ms {
		t.Errorf("the SCHED_IDLE task ends at %d ns, want about 200 ms", got)
	}

	m, err = Extract(trace.NewSliceSource(policyTrace(trace.PolicyUnknown, trace.PolicyUnknown), nil))
	if err != nil {
		t.Fatal(err)
	}
	if tk := task(m, 2); tk.Policy != trace.PolicyUnknown || m.Stats.SchedIdle != 0 {
		t.Fatalf("no policies: TID 2 policy %v, SCHED_IDLE tasks %d", tk.Policy, m.Stats.SchedIdle)
	}
	if got := end(m, 1); got < 190*ms {
		t.Errorf("TID 1 beside a task of unknown policy ends at %d ns, want after 190 ms (equal shares)", got)
	}

	m, err = Extract(trace.NewSliceSource(policyTrace(trace.PolicyNormal, trace.PolicyBatch), nil))
	if err != nil {
		t.Fatal(err)
	}
	if tk := task(m, 2); !tk.Batch() || m.Stats.SchedBatch != 1 {
		t.Errorf("TID 2 Batch() %v, SCHED_BATCH tasks %d; want true, 1", tk.Batch(), m.Stats.SchedBatch)
	}
	if c, _, _ := task(m, 2).Class(); c != policies.ClassFair {
		t.Errorf("SCHED_BATCH TID 2 class %v, want normal (fair)", c)
	}
}
