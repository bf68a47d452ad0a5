package schedule_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

func sw(t int64, cpu trace.CPU, prev trace.TID, st trace.TaskState, next trace.TID) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindSwitch)
	e.CurTID, e.TID, e.PrevState, e.NextTID = prev, prev, st, next
	return e
}

func waking(t int64, cpu trace.CPU, waker, wakee trace.TID, target trace.CPU) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindWaking)
	e.CurTID, e.TID, e.TargetCPU = waker, wakee, target
	return e
}

func lost(t int64, cpu trace.CPU, n uint64) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindLost)
	e.Count = n
	return e
}

func runtime(t int64, cpu trace.CPU, tid trace.TID, rt int64) trace.Event {
	e := trace.NewEvent(t, cpu, trace.KindRuntime)
	e.CurTID, e.TID, e.Runtime = tid, tid, rt
	return e
}

// handTrace (ns): CPU 0 runs A=1 from 100; A wakes B=2 (asleep on CPU 1
// since 150) at 200 and is preempted by it at 300 (B waited 100, cause
// wakeup; A 0 from 300, cause preempted); B sleeps at 400 and A runs
// again (waited 100). CPU 1: C=3 switched out at 150 into idle; at 600 the
// trace shows C running (sched_stat_runtime of 50 ns: switch-in at 550, not
// recorded) and at 700 C switches out: C's run 550-700 is recovered,
// 150-550 unknown (idle, then C). CPU 1 loses events at 800 (window
// 700..800); idle's run 700-900 then overlaps it and is unknown.
func handTrace() []trace.Event {
	return []trace.Event{
		sw(100, 0, 0, 0, 1),
		sw(150, 1, 2, trace.StateInterruptible, 0),
		waking(200, 0, 1, 2, 0),
		sw(300, 0, 1, trace.StatePreempted, 2),
		sw(400, 0, 2, trace.StateInterruptible, 1),
		runtime(600, 1, 3, 50),
		sw(700, 1, 3, trace.StateInterruptible, 0),
		lost(800, 1, 7),
		sw(900, 1, 0, 0, 0),
		sw(900, 0, 1, trace.StateInterruptible, 0),
	}
}

func TestBuildHand(t *testing.T) {
	s, err := schedule.Build(trace.NewSliceSource(handTrace(), nil), schedule.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, cpu := range []trace.CPU{0, 1} {
		for _, r := range s.Runs[cpu] {
			who := "?"
			if r.Task != nil {
				who = fmt.Sprint(r.Task.TID)
			}
			got = append(got, fmt.Sprintf("cpu%d %s %d-%d %s lossy=%v", cpu, who, r.Start, r.End, r.Quality, r.Lossy))
		}
	}
	want := []string{
		"cpu0 1 100-300 known lossy=false",
		"cpu0 2 300-400 known lossy=false",
		"cpu0 1 400-900 known lossy=false",
		"cpu1 ? 100-150 unknown lossy=false", // before CPU 1's first switch (the span starts at 100)
		"cpu1 ? 150-550 unknown lossy=false", // idle, then C from an unknown time
		"cpu1 3 550-700 recovered lossy=false",
		"cpu1 ? 700-900 unknown lossy=true",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs:\n got %q\nwant %q", got, want)
	}
	var delays []string
	for _, d := range s.Delays {
		delays = append(delays, fmt.Sprintf("%d %d-%d %s", d.Task.TID, d.Start, d.End, d.Cause))
	}
	if w := []string{"2 200-300 wakeup", "1 300-400 preempted"}; fmt.Sprint(delays) != fmt.Sprint(w) {
		t.Errorf("delays %q, want %q", delays, w)
	}
	if len(s.Lost) != 1 || s.Lost[0] != (trace.LostWindow{CPU: 1, Count: 7, Start: 700, End: 800}) {
		t.Errorf("lost %+v, want CPU 1 700..800", s.Lost)
	}
	if s.Counters.LossyRuns != 0 || s.Counters.UnknownRunNs != 50+400+200 {
		t.Errorf("counters %+v: want no lossy task run (idle's does not count), 650 ns unknown", s.Counters)
	}
}

// FuzzBuilder: no event stream makes the reconstruction panic, give a
// negative or reversed delay or interval, overlap two runs of a CPU or two
// intervals of a task, or count more busy time than a CPU's runs span.
func FuzzBuilder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 2, 3, 0, 4, 1, 3, 4, 8, 0, 2, 9, 1, 10, 1, 0, 40})
	f.Add([]byte{0, 0, 1, 9, 3, 1, 0, 9, 0, 1, 0, 9, 7, 1, 1, 9, 0, 2, 1, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		evs := fuzzEvents(data)
		for _, keep := range []bool{false, true} {
			runEnd := map[trace.CPU]int64{}
			taskEnd := map[*schedule.Task]int64{}
			b := schedule.New(schedule.Options{KeepLossy: keep}, schedule.Hooks{
				Run: func(r *schedule.Run) {
					if r.End <= r.Start || r.Start < runEnd[r.CPU] {
						t.Fatalf("run %+v after %d", r, runEnd[r.CPU])
					}
					if (r.Task == nil) != (r.Quality == schedule.Unknown) {
						t.Fatalf("run %+v: task and quality disagree", r)
					}
					runEnd[r.CPU] = r.End
				},
				State: func(iv *schedule.Interval) {
					if iv.End < iv.Start || iv.Start < taskEnd[iv.Task] {
						t.Fatalf("interval %+v after %d", iv, taskEnd[iv.Task])
					}
					taskEnd[iv.Task] = iv.End
				},
				Delay: func(d *schedule.Delay) {
					if d.End < d.Start || d.FirstWaking > d.Start {
						t.Fatalf("delay %+v", d)
					}
				},
				Runqueue: func(_ trace.CPU, _ int64, n int) {
					if n < 0 {
						t.Fatalf("runqueue length %d", n)
					}
				},
			})
			for i := range evs {
				b.Observe(&evs[i])
			}
			b.Finish()
			from, to := b.Span()
			cpus, stats := b.CPUs()
			for i, c := range stats {
				if c.Busy < 0 || c.Unknown < 0 || c.Busy+c.Idle+c.Unknown > to-from {
					t.Fatalf("CPU %d: %+v over a span of %d ns", cpus[i], c, to-from)
				}
			}
		}
	})
}

// fuzzEvents turns fuzz input into a time-ordered stream of 4-byte events
// on 3 CPUs and 5 TIDs, every kind the Builder reads.
func fuzzEvents(data []byte) []trace.Event {
	kinds := []trace.Kind{trace.KindSwitch, trace.KindSwitch, trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew,
		trace.KindMigrate, trace.KindFork, trace.KindRuntime, trace.KindLost, trace.KindExit, trace.KindCgroupMove}
	var evs []trace.Event
	var now int64
	for i := 0; i+4 <= len(data); i += 4 {
		b := data[i : i+4]
		now += int64(b[3] >> 3)
		e := trace.NewEvent(now, trace.CPU(b[2]%3), kinds[int(b[0])%len(kinds)])
		e.CurTID, e.TID = trace.TID(b[1]%5), trace.TID(b[1]/5%5)
		e.NextTID, e.ChildTID = trace.TID(b[2]/3%5), trace.TID(b[2]/3%5)
		e.PrevState = []trace.TaskState{0, trace.StatePreempted, trace.StateInterruptible, trace.StateDead}[b[3]%4]
		e.TargetCPU, e.DestCPU = trace.CPU(b[3]%4)-1, trace.CPU(b[3]%3)
		e.Runtime = int64(b[3]) - 8
		e.Count = uint64(b[3])
		e.Cgroup = uint64(b[1] % 3) // 0 unknown; a move's group left, a switch-out's group
		evs = append(evs, e)
	}
	return evs
}

// Example: the delays of a two-task schedule with their causes.
func Example() {
	b := schedule.New(schedule.Options{}, schedule.Hooks{
		Delay: func(d *schedule.Delay) {
			fmt.Printf("task %d waited %d ns (%s), switched in on CPU %d\n", d.Task.TID, d.End-d.Start, d.Cause, d.CPU)
		},
	})
	for _, e := range handTrace()[:5] {
		b.Observe(&e)
	}
	b.Finish()
	// Output:
	// task 2 waited 100 ns (wakeup), switched in on CPU 0
	// task 1 waited 100 ns (preempted), switched in on CPU 0
}

// TestRunEndsAndIRQ: a run carries the next_prio it was switched in with
// and the prev_state of the switch that ended it; a runnable interval the
// from-IRQ flag of its wakeup. CPU 0: A=1 (prio 120) runs 100-300 and
// sleeps (S), B=2 (prio 100) runs 300-500 and is preempted (R+, the state
// bit alone), then A, woken from an interrupt at 350 (runnable 350-500), whose
// run is empty: the trace ends at 500.
func TestRunEndsAndIRQ(t *testing.T) {
	swp := func(ts int64, prev trace.TID, st trace.TaskState, next trace.TID, prio int32) trace.Event {
		e := sw(ts, 0, prev, st, next)
		e.NextPrio = prio
		return e
	}
	wk := waking(350, 0, 2, 1, 0)
	wk.FromIRQ = trace.Yes
	evs := []trace.Event{
		swp(100, 0, 0, 1, 120),
		swp(300, 1, trace.StateInterruptible, 2, 100),
		wk,
		swp(500, 2, trace.StatePreempted, 1, 120),
	}
	var runs []string
	var irq []string
	b := schedule.New(schedule.Options{}, schedule.Hooks{
		Run: func(r *schedule.Run) {
			if r.Task != nil {
				runs = append(runs, fmt.Sprintf("%d %d-%d prio=%d end=%v/%d", r.Task.TID, r.Start, r.End, r.Prio, r.EndSwitch, r.EndState))
			}
		},
		State: func(iv *schedule.Interval) {
			if iv.State == schedule.StateRunnable {
				irq = append(irq, fmt.Sprintf("%d %d-%d irq=%d", iv.Task.TID, iv.Start, iv.End, iv.IRQ))
			}
		},
	})
	if err := b.Run(trace.NewSliceSource(evs, nil)); err != nil {
		t.Fatal(err)
	}
	b.Finish()
	want := []string{
		fmt.Sprintf("1 100-300 prio=120 end=true/%d", trace.StateInterruptible),
		fmt.Sprintf("2 300-500 prio=100 end=true/%d", trace.StatePreempted),
	}
	if fmt.Sprint(runs) != fmt.Sprint(want) {
		t.Errorf("runs\n got %q\nwant %q", runs, want)
	}
	// B's runnable interval after its preemption closes, empty, at the
	// trace's end: preempted, so no wakeup and no IRQ flag.
	if w := []string{"1 350-500 irq=1", "2 500-500 irq=0"}; fmt.Sprint(irq) != fmt.Sprint(w) {
		t.Errorf("runnable intervals %q, want %q", irq, w)
	}
}

// TestWokenTwiceSincePreempted: a waking that finds a preempted task still
// queued sets its state back to running (ttwu_runnable), so a second
// waking proves the task ran and slept since, where the trace does not
// show it (here CPU 1, which records nothing: a file cut short there). CPU
// 0 (ns): A=1 is preempted by B=2 at 100; A is woken at 200 (found
// queued) and again at 500 with target CPU 1; B sleeps at 700 and A runs.
// Before, A's delay was 100-700 (600 ns, the preemption to the switch-in);
// now that wait is unknown (Dropped) and A's delay is 500-700, from the
// second waking. B's delay is before the trace (none).
func TestWokenTwiceSincePreempted(t *testing.T) {
	evs := []trace.Event{
		sw(50, 0, 0, 0, 1),
		sw(100, 0, 1, trace.StatePreempted, 2),
		waking(200, 0, 2, 1, 0),
		waking(500, 0, 2, 1, 1),
		sw(700, 0, 2, trace.StateInterruptible, 1),
	}
	s, delays := buildDelays(t, evs, schedule.Options{}, func(d *schedule.Delay) string {
		return fmt.Sprintf("%d %d-%d %s", d.Task.TID, d.Start, d.End, d.Cause)
	})
	if w := []string{"1 500-700 wakeup"}; fmt.Sprint(delays) != fmt.Sprint(w) {
		t.Errorf("delays %q, want %q", delays, w)
	}
	if s.Counters.Dropped != 1 {
		t.Errorf("Dropped = %d, want 1", s.Counters.Dropped)
	}
}

// TestLostAhead: a KindLost with Runtime > 0 says its CPU is unobserved
// from its time for that long (a perf.data cut in the round perf was
// writing). CPU 1 is unobserved from 100 to 10000 ns. Task 3, woken on CPU
// 0 to CPU 1 at 200 and migrated back at 900 (seen on CPU 0), is switched
// in on CPU 0 at 1000: it may have run on CPU 1 meanwhile, so its delay is
// lossy and excluded (it was a 800 ns delay: the window was known only at
// its end, after the delay). Task 2's delay on CPU 0 (300-400) is lossy
// too: while CPU 1's events are missing, a task waiting on CPU 0 may have
// been pulled there and run (markDelay); it was not lossy before.
func TestLostAhead(t *testing.T) {
	cut := trace.NewEvent(100, 1, trace.KindLost)
	cut.Runtime = 9900
	mig := trace.NewEvent(900, 0, trace.KindMigrate)
	mig.TID, mig.OrigCPU, mig.DestCPU = 3, 1, 0
	evs := []trace.Event{
		sw(50, 1, 0, 0, 5),
		sw(60, 0, 0, 0, 1),
		cut,
		waking(200, 0, 1, 3, 1),
		waking(300, 0, 1, 2, 0),
		sw(400, 0, 1, trace.StateInterruptible, 2),
		mig,
		sw(1000, 0, 2, trace.StateInterruptible, 3),
	}
	_, delays := buildDelays(t, evs, schedule.Options{}, func(d *schedule.Delay) string {
		return fmt.Sprintf("%d %d-%d lossy=%v excluded=%v", d.Task.TID, d.Start, d.End, d.Lossy, d.Excluded)
	})
	want := []string{"2 300-400 lossy=true excluded=true", "3 200-1000 lossy=true excluded=true"}
	if fmt.Sprint(delays) != fmt.Sprint(want) {
		t.Errorf("delays %q, want %q", delays, want)
	}
}

// TestRecordedCPUsOnly: with Options.RecordedCPUs (perf record -C 1), a CPU
// outside them stays unrecorded whatever records name it (perf's COMM
// records come from every CPU): task 3, woken new onto CPU 0 at 100 (it
// ran there unseen) and migrated to CPU 1 at 900, switched in on CPU 1 at
// 1000: its 900 ns delay is Unrecorded (excluded). Without the option the
// COMM record on CPU 0 made CPU 0 look recorded and the delay counted.
func TestRecordedCPUsOnly(t *testing.T) {
	comm := trace.NewEvent(50, 0, trace.KindComm)
	comm.TID, comm.Comm = 3, "c"
	wn := trace.NewEvent(100, 1, trace.KindWakeupNew)
	wn.CurTID, wn.TID, wn.TargetCPU = 2, 3, 0
	mig := trace.NewEvent(900, 1, trace.KindMigrate)
	mig.TID, mig.OrigCPU, mig.DestCPU = 3, 0, 1
	evs := []trace.Event{sw(10, 1, 0, 0, 2), comm, wn, mig, sw(1000, 1, 2, trace.StateInterruptible, 3)}
	for _, c := range []struct {
		cpus []trace.CPU
		want string
	}{{[]trace.CPU{1}, "[3 100-1000 excluded=true]"}, {nil, "[3 100-1000 excluded=false]"}} {
		s, err := schedule.Build(trace.NewSliceSource(evs, nil), schedule.Options{RecordedCPUs: c.cpus})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range s.Delays {
			got = append(got, fmt.Sprintf("%d %d-%d excluded=%v", d.Task.TID, d.Start, d.End, d.Excluded))
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("RecordedCPUs %v: delays %q, want %s", c.cpus, got, c.want)
		}
	}
}

// TestRanUnseenWhileWaiting: a waiting task that shows itself running
// elsewhere has no measurable delay (Delay.Unrecorded). Task 5 (named
// "sh") is preempted on CPU 1 at 100 and switched in there at 1000.
// Meanwhile, at 500:
//   - perf record -C 1 (RecordedCPUs [1]): a COMM record on CPU 0 in 5's
//     context (perf writes every CPU's): 5 ran on CPU 0, excluded;
//   - a machine of 2 CPUs of which CPU 0 recorded nothing (Meta NrCPUs 2):
//     a new name for 5 in no known context (traceview record names a task
//     anew at its switch-in): excluded; a rename of 5 by thread 7
//     (pthread_setname_np): 5 need not have run, kept; the same name
//     again: kept;
//   - CPU 0 recorded too (a switch there at 20): the new name in no known
//     context is kept (perf script text names a task anew where its name
//     first shows, maybe long after an exec seen running);
//   - a sched_stat_runtime of 5 on CPU 1 while 6 runs there: 5 runs on the
//     CPU left out (perf record -C 1: 466.934 ms where the whole machine's
//     recording has 1.4 ms): excluded; with CPU 0 recorded, kept.
func TestRanUnseenWhileWaiting(t *testing.T) {
	ev := func(k trace.Kind, cpu trace.CPU, cur trace.TID, name string) trace.Event {
		e := trace.NewEvent(500, cpu, k)
		e.TID, e.PID, e.CurTID, e.Comm = 5, 5, cur, name
		return e
	}
	for _, c := range []struct {
		name string
		cpus []trace.CPU
		nr   int
		mid  trace.Event
		want bool
	}{
		{"-C 1, a record on CPU 0", []trace.CPU{1}, 2, ev(trace.KindComm, 0, 5, "sh"), true},
		{"rename, no context", nil, 2, ev(trace.KindComm, 1, -1, "nice"), true},
		{"renamed by thread 7", nil, 2, ev(trace.KindComm, 1, 7, "nice"), false},
		{"same name", nil, 2, ev(trace.KindComm, 1, -1, "sh"), false},
		{"rename, no context, every CPU recorded", nil, 0, ev(trace.KindComm, 1, -1, "nice"), false},
		{"run time charged while 6 runs", nil, 2, runtimeOf(ev(trace.KindRuntime, 1, 6, "sh"), 50), true},
		{"run time charged, every CPU recorded", nil, 0, runtimeOf(ev(trace.KindRuntime, 1, 6, "sh"), 50), false},
	} {
		name := trace.NewEvent(5, 1, trace.KindComm)
		name.TID, name.PID, name.Comm = 5, 5, "sh"
		evs := []trace.Event{name, sw(10, 1, 0, 0, 5), sw(100, 1, 5, trace.StatePreempted, 6), c.mid, sw(1000, 1, 6, trace.StateInterruptible, 5)}
		if c.nr == 0 { // (CPU 0 recorded)
			c.nr = 2
			evs = slices.Insert(evs, 1, sw(20, 0, 0, 0, 9))
		}
		s, err := schedule.Build(trace.NewSliceSource(evs, nil), schedule.Options{RecordedCPUs: c.cpus, Meta: &trace.Meta{NrCPUs: c.nr}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range s.Delays {
			if d.Task.TID == 5 {
				got = append(got, fmt.Sprintf("%d-%d unrecorded=%v", d.Start, d.End, d.Unrecorded))
			}
		}
		if want := fmt.Sprintf("[100-1000 unrecorded=%v]", c.want); fmt.Sprint(got) != want {
			t.Errorf("%s: delays %q, want %s", c.name, got, want)
		}
	}
}

// runtimeOf sets e's run time (ns).
func runtimeOf(e trace.Event, ns int64) trace.Event {
	e.Runtime = ns
	return e
}

// buildDelays builds the schedule of evs with opts and returns it with
// each of its delays written by show.
func buildDelays(t *testing.T, evs []trace.Event, opts schedule.Options, show func(d *schedule.Delay) string) (*schedule.Schedule, []string) {
	t.Helper()
	s, err := schedule.Build(trace.NewSliceSource(evs, nil), opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range s.Delays {
		out = append(out, show(&s.Delays[i]))
	}
	return s, out
}

// TestRecordedCPUsMigrateOff: traceview record --cpu 1 (Meta.RecordedCPUs,
// no command line to read) writes the migrations that take a task off
// CPU 1 although CPU 0 emits them. Task 3, woken on CPU 1 at 100, is
// pulled to CPU 0 at 200 by a migration on CPU 0 (it runs there unseen),
// and comes back to CPU 1, switched in at 5000: its 4900 ns delay is
// Unrecorded (excluded). The migration's own CPU stays unrecorded: only
// a sched_switch would make CPU 0 recorded. Without the header's list,
// the migration on CPU 0 made CPU 0 look recorded and the delay counted.
func TestRecordedCPUsMigrateOff(t *testing.T) {
	wk := trace.NewEvent(100, 1, trace.KindWaking)
	wk.CurTID, wk.TID, wk.TargetCPU = 2, 3, 1
	off := trace.NewEvent(200, 0, trace.KindMigrate)
	off.TID, off.OrigCPU, off.DestCPU = 3, 1, 0
	back := trace.NewEvent(4900, 1, trace.KindMigrate)
	back.TID, back.OrigCPU, back.DestCPU = 3, 0, 1
	evs := []trace.Event{sw(10, 1, 0, 0, 2), sw(20, 1, 2, trace.StateRunning, 4), wk, off, back, sw(5000, 1, 4, trace.StateInterruptible, 3)}
	for _, c := range []struct {
		meta *trace.Meta
		want string
	}{
		{&trace.Meta{NrCPUs: 2, RecordedCPUs: []trace.CPU{1}}, "[3 100-5000 excluded=true]"},
		{&trace.Meta{NrCPUs: 2}, "[3 100-5000 excluded=false]"},
	} {
		if got := task3Delays(t, evs, c.meta); got != c.want {
			t.Errorf("RecordedCPUs %v: delays %s, want %s", c.meta.RecordedCPUs, got, c.want)
		}
	}
}

// TestRecordedCPUsIdleWithQueued: in a recording of CPU 1 only (perf
// record -C 1), task 3 preempted on CPU 1 at 100 is said queued there, yet
// CPU 1 switches to idle at 200: a CPU runs a queued task before idling,
// so it was pulled to CPU 0 (a migration CPU 0 emitted, not recorded) and
// may have run there: its wait until its switch-in at 1000 is not a
// measured delay. A whole-machine recording (no list) measures 900 ns.
func TestRecordedCPUsIdleWithQueued(t *testing.T) {
	evs := []trace.Event{
		sw(10, 1, 0, 0, 3),
		sw(100, 1, 3, trace.StateRunning, 4), // 3 preempted by 4
		sw(200, 1, 4, trace.StateInterruptible, 0),
		sw(900, 1, 0, 0, 4),
		sw(1000, 1, 4, trace.StateInterruptible, 3),
	}
	for _, c := range []struct {
		meta *trace.Meta
		want string
	}{
		{&trace.Meta{NrCPUs: 2, RecordedCPUs: []trace.CPU{1}}, "[3 100-1000 excluded=true]"},
		{&trace.Meta{NrCPUs: 2}, "[3 100-1000 excluded=false]"},
	} {
		if got := task3Delays(t, evs, c.meta); got != c.want {
			t.Errorf("RecordedCPUs %v: delays %s, want %s", c.meta.RecordedCPUs, got, c.want)
		}
	}
}

// task3Delays lists task 3's delays in the schedule of evs with meta, as
// "[3 START-END excluded=BOOL ...]".
func task3Delays(t *testing.T, evs []trace.Event, meta *trace.Meta) string {
	t.Helper()
	s, err := schedule.Build(trace.NewSliceSource(evs, nil), schedule.Options{Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Delays {
		if d.Task.TID == 3 {
			got = append(got, fmt.Sprintf("%d %d-%d excluded=%v", d.Task.TID, d.Start, d.End, d.Excluded))
		}
	}
	return fmt.Sprint(got)
}

// TestInconsistentRuntime: task 1 switched in on CPU 0 at 1.000 s and
// charged 4 ms at 1.004 s, 12 ms at 1.008 s (8 ms above the 4 ms since its
// last charge, over RuntimeSlack: damage, new-user pass 26 F1), 4 ms at
// 1.012 s and, switched out at 1.020 s and back at 1.030 s, 10 ms at
// 1.040 s (the time since its switch-in: fine). Its sched_stat_runtime
// total is 4 + 4 + 10 = 18 ms; one event of 12 ms is left out.
func TestInconsistentRuntime(t *testing.T) {
	const ms = int64(1e6)
	evs := []trace.Event{
		sw(1000*ms, 0, 0, trace.StateRunning, 1),
		runtime(1004*ms, 0, 1, 4*ms), runtime(1008*ms, 0, 1, 12*ms), runtime(1012*ms, 0, 1, 4*ms),
		sw(1020*ms, 0, 1, trace.StateRunning, 0), sw(1030*ms, 0, 0, trace.StateRunning, 1),
		runtime(1040*ms, 0, 1, 10*ms),
	}
	s, err := schedule.Build(trace.NewSliceSource(evs, nil), schedule.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rt int64
	for _, tk := range s.Tasks {
		if tk.TID == 1 {
			rt = tk.StatRuntime
		}
	}
	if rt != 18*ms || s.Counters.InconsistentRuntime != 1 || s.Counters.InconsistentRuntimeNs != 12*ms {
		t.Errorf("run time %d ns, %d inconsistent (%d ns); want 18000000, 1 (12000000)", rt, s.Counters.InconsistentRuntime, s.Counters.InconsistentRuntimeNs)
	}
}

// TestRaceUndoneSleeps: task 1 is woken at 100 while it runs, switches
// out asleep at 110 (the remembered waking may have raced its sleep), and
// is woken again at 700 and switched in at 800. The second wakeup shows
// the first found it still running (ttwu_runnable): it slept 110-700, then
// waited 700-800. Its intervals say so, as its delay does: not runnable
// from 110 (new-user pass 29 F3: the Chrome JSON export drew that sleep as
// Runnable).
func TestRaceUndoneSleeps(t *testing.T) {
	evs := []trace.Event{
		sw(50, 0, 0, 0, 1),
		sw(60, 1, 0, 0, 2),
		waking(100, 1, 2, 1, 0),
		sw(110, 0, 1, trace.StateInterruptible, 0),
		waking(700, 1, 2, 1, 0),
		sw(800, 0, 0, 0, 1),
		sw(900, 0, 1, trace.StateInterruptible, 0),
	}
	var got []string
	b := schedule.New(schedule.Options{}, schedule.Hooks{State: func(iv *schedule.Interval) {
		if iv.Task.TID == 1 {
			got = append(got, fmt.Sprintf("%s %d-%d", iv.State, iv.Start, iv.End))
		}
	}})
	if err := b.Run(trace.NewSliceSource(evs, &trace.Meta{NrCPUs: 2})); err != nil {
		t.Fatal(err)
	}
	want := []string{"running 50-110", "sleeping 110-700", "runnable 700-800", "running 800-900"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("task 1: %v, want %v", got, want)
	}
}

// TestOfflineAtEnd: CPU 1's last switch switches in its hotplug thread
// cpuhp/1 at 100 and the CPU records nothing more, while CPU 0 runs hog
// from 50 to the trace's end at 1000 (its switch at 1000). CPU 1 went
// offline: its run of cpuhp/1 ends at the CPU's last event (100: 0 ns,
// no run), its time 100-1000 is Unknown (900 ns), not busy, and
// Counters.OfflineCPUs is [1] (new-user pass 44 F2). A thread of another
// name there (hog2) runs to the end: 900 ns busy, no offline CPU. Either
// way CPU 1's 50-100, before its first switch, is Unknown too.
func TestOfflineAtEnd(t *testing.T) {
	for _, c := range []struct {
		comm          string
		busy, unknown int64
		offline       []trace.CPU
	}{
		{"cpuhp/1", 0, 50 + 900, []trace.CPU{1}},
		{"hog2", 900, 50, nil},
	} {
		in := sw(100, 1, 0, 0, 22)
		in.NextComm = c.comm
		evs := []trace.Event{sw(50, 0, 0, 0, 5), in, sw(1000, 0, 5, trace.StatePreempted, 0)}
		b := schedule.New(schedule.Options{}, schedule.Hooks{})
		for i := range evs {
			b.Observe(&evs[i])
		}
		b.Finish()
		cpus, stats := b.CPUs()
		for i, cpu := range cpus {
			if cpu == 1 && (stats[i].Busy != c.busy || stats[i].Unknown != c.unknown) {
				t.Errorf("%s: CPU 1 busy %d ns, unknown %d ns; want %d, %d", c.comm, stats[i].Busy, stats[i].Unknown, c.busy, c.unknown)
			}
		}
		if !slices.Equal(b.C.OfflineCPUs, c.offline) {
			t.Errorf("%s: offline CPUs %v, want %v", c.comm, b.C.OfflineCPUs, c.offline)
		}
	}
}
