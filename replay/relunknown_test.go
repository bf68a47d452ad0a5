package replay

import "testing"

// TestRelativeUnknownWakes: a block of unknown cause (CauseExternal,
// inferred) of a task that sleeps on relative timers becomes a timer of
// the length slept in the trace (5 ms here), so that a replay running
// the task ahead of the trace does not hold it asleep until the recorded
// time (new-user pass 70 F2: 1.25 s of sleep the trace never showed). Kept
// at its time: the same block of a task whose timers are absolute
// (CauseExternal, not inferred), of a periodic one, a deadline task's
// replenishment (Throttle) and a block of unknown length (Slept 0).
func TestRelativeUnknownWakes(t *testing.T) {
	const ms = 1_000_000
	mk := func(unknown Cause, slept int64, other Cause) Task {
		return Task{Repeat: -1, Bursts: []Burst{
			{Len: ms, End: EndBlock, Wake: other, Slept: 2 * ms},
			{Len: ms, End: EndBlock, Wake: unknown, Slept: slept},
			{Len: ms, End: EndExit},
		}}
	}
	timer := Cause{Kind: CauseTimer, Delay: 2 * ms, At: 3 * ms}
	unknown := Cause{Kind: CauseExternal, At: 10 * ms, Inferred: true}
	m := &Model{Tasks: []Task{
		mk(unknown, 5*ms, timer),                                                                 // converted
		mk(unknown, 5*ms, Cause{Kind: CauseExternal, At: 3 * ms}),                                // absolute timers
		mk(Cause{Kind: CauseExternal, At: 10 * ms, Inferred: true, Throttle: true}, 5*ms, timer), // replenishment
		mk(unknown, 0, timer),                                                                    // length unknown
		mk(unknown, 5*ms, timer),
	}}
	m.Tasks[4].Periodic = true
	relativeUnknownWakes(m)
	want := Cause{Kind: CauseTimer, Delay: 5 * ms, At: 10 * ms, Inferred: true}
	if got := m.Tasks[0].Bursts[1].Wake; got != want {
		t.Errorf("task 0: %+v, want %+v", got, want)
	}
	for i := 1; i < len(m.Tasks); i++ {
		if got := m.Tasks[i].Bursts[1].Wake; got.Kind != CauseExternal {
			t.Errorf("task %d: %+v, want its CauseExternal kept", i, got)
		}
	}
	if m.Stats.RelativeUnknownWakes != 1 {
		t.Errorf("RelativeUnknownWakes = %d, want 1", m.Stats.RelativeUnknownWakes)
	}
}
