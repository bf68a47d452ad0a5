package schedule_test

import (
	"fmt"
	"testing"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// TestFilterHand filters handTrace (see its comment for the schedule):
// delays B=2 200-300 (switched in on CPU 0 at 300) and A=1 300-400 (on
// CPU 0 at 400); C=3's sched_stat_runtime of 50 ns on CPU 1 at 600.
func TestFilterHand(t *testing.T) {
	for _, c := range []struct {
		name   string
		f      schedule.Filter
		delays []string
		runs   []string // CPU 0's runs, then CPU 1's
		span   string
		cpus   string
		// per task 1, 2, 3: switches counted, on-CPU ns, sched_stat_runtime ns
		tasks string
	}{
		{
			name:   "none",
			delays: []string{"2 200-300", "1 300-400"},
			runs:   []string{"0:1 100-300", "0:2 300-400", "0:1 400-900", "1:? 100-150", "1:? 150-550", "1:3 550-700", "1:? 700-900"},
			span:   "100-900", cpus: "[0 1]",
			tasks: "1:2/700/0 2:1/100/0 3:0/150/50",
		},
		{
			// Both delays end inside 250..450; runs clipped to it.
			name:   "window",
			f:      schedule.Filter{Start: 250, End: 450},
			delays: []string{"2 200-300", "1 300-400"},
			runs:   []string{"0:1 250-300", "0:2 300-400", "0:1 400-450", "1:? 250-450"},
			span:   "250-450", cpus: "[0 1]",
			// 1 switched in at 400 (its 100 is before the window), runs
			// 250-300 and 400-450; 2 switched in at 300.
			tasks: "1:1/100/0 2:1/100/0 3:0/0/0",
		},
		{
			// Only A's delay ends after 350; C's runtime at 600 is inside.
			name:   "open end",
			f:      schedule.Filter{Start: 350},
			delays: []string{"1 300-400"},
			runs:   []string{"0:2 350-400", "0:1 400-900", "1:? 350-550", "1:3 550-700", "1:? 700-900"},
			span:   "350-900", cpus: "[0 1]",
			tasks: "1:1/500/0 2:0/50/0 3:0/150/50",
		},
		{
			// Both delays were switched in on CPU 0: none on CPU 1.
			name: "cpu 1",
			f:    schedule.Filter{CPUs: []trace.CPU{1}},
			runs: []string{"1:? 100-150", "1:? 150-550", "1:3 550-700", "1:? 700-900"},
			span: "100-900", cpus: "[1]",
			tasks: "1:0/0/0 2:0/0/0 3:0/150/50",
		},
		{
			// Runs are per CPU: all kept; B's delay and on-CPU time only.
			name:   "tid 2",
			f:      schedule.Filter{TIDs: []trace.TID{2}},
			delays: []string{"2 200-300"},
			runs:   []string{"0:1 100-300", "0:2 300-400", "0:1 400-900", "1:? 100-150", "1:? 150-550", "1:3 550-700", "1:? 700-900"},
			span:   "100-900", cpus: "[0 1]",
			tasks: "1:0/0/0 2:1/100/0 3:0/0/0",
		},
		{
			name: "unknown comm",
			f:    schedule.Filter{Comms: []string{"nosuch"}},
			runs: []string{"0:1 100-300", "0:2 300-400", "0:1 400-900", "1:? 100-150", "1:? 150-550", "1:3 550-700", "1:? 700-900"},
			span: "100-900", cpus: "[0 1]",
			tasks: "1:0/0/0 2:0/0/0 3:0/0/0",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			s, err := schedule.Build(trace.NewSliceSource(handTrace(), nil), schedule.Options{Filter: &f})
			if err != nil {
				t.Fatal(err)
			}
			var delays []string
			for _, d := range s.Delays {
				delays = append(delays, fmt.Sprintf("%d %d-%d", d.Task.TID, d.Start, d.End))
			}
			if fmt.Sprint(delays) != fmt.Sprint(c.delays) {
				t.Errorf("delays %q, want %q", delays, c.delays)
			}
			var runs []string
			for _, cpu := range []trace.CPU{0, 1} {
				for _, r := range s.Runs[cpu] {
					who := "?"
					if r.Task != nil {
						who = fmt.Sprint(r.Task.TID)
					}
					runs = append(runs, fmt.Sprintf("%d:%s %d-%d", cpu, who, r.Start, r.End))
				}
			}
			if fmt.Sprint(runs) != fmt.Sprint(c.runs) {
				t.Errorf("runs\n got %q\nwant %q", runs, c.runs)
			}
			if got := fmt.Sprintf("%d-%d", s.Start, s.End); got != c.span {
				t.Errorf("span %s, want %s", got, c.span)
			}
			b := schedule.New(schedule.Options{Filter: &f}, schedule.Hooks{})
			if err := b.Run(trace.NewSliceSource(handTrace(), nil)); err != nil {
				t.Fatal(err)
			}
			b.Finish()
			if cpus, _ := b.CPUs(); fmt.Sprint(cpus) != c.cpus {
				t.Errorf("CPUs() = %v, want %s", cpus, c.cpus)
			}
			tasks := ""
			for _, tid := range []trace.TID{1, 2, 3} {
				tk := b.Lookup(tid)
				if tasks != "" {
					tasks += " "
				}
				tasks += fmt.Sprintf("%d:%d/%d/%d", tid, tk.Switches, tk.OnCPU, tk.StatRuntime)
			}
			if tasks != c.tasks {
				t.Errorf("tasks %s, want %s", tasks, c.tasks)
			}
		})
	}
}

func TestFilterString(t *testing.T) {
	f := &schedule.Filter{Start: 1_500_000_000, CPUs: []trace.CPU{0, 2}, Comms: []string{"a", "b"}}
	if got, want := f.String(), "--time 1.500000000, --cpu 0,2 --comm a,b"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	var none *schedule.Filter
	if none.Active() || !none.Time(5) || !none.CPU(3) || !none.Task(nil) {
		t.Error("a nil filter does not select everything")
	}
}

// TestFilterMatchUncompiled: a Filter used directly (not through a
// Builder, which matches on its own prepared copy) matches the same.
func TestFilterMatchUncompiled(t *testing.T) {
	f := &schedule.Filter{Start: 10, End: 20, CPUs: []trace.CPU{1, 3}, PIDs: []trace.PID{7}, Comms: []string{"a"}}
	_ = schedule.New(schedule.Options{Filter: f}, schedule.Hooks{})
	g := &schedule.Filter{Cgroups: []uint64{5}}
	for _, c := range []struct {
		got, want bool
		what      string
	}{
		{f.CPU(1), true, "CPU 1"}, {f.CPU(2), false, "CPU 2"}, {f.CPU(-1), false, "CPU -1"},
		{f.Time(10), true, "10 ns"}, {f.Time(21), false, "21 ns"},
		{f.TaskIDs(9, 7, "a", 0), true, "pid 7 a"}, {f.TaskIDs(9, 7, "b", 0), false, "pid 7 b"}, {f.TaskIDs(9, 8, "a", 0), false, "pid 8 a"},
		{g.TaskIDs(9, 7, "a", 5), true, "cgroup 5"}, {g.TaskIDs(9, 7, "a", 6), false, "cgroup 6"}, {g.TaskIDs(9, 7, "a", 0), false, "cgroup unknown"},
		{g.Task(&schedule.Task{TID: 9, Cgroup: 5}), true, "task in cgroup 5"}, {g.Task(nil), false, "no task, cgroups given"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

// FuzzBuilderFiltered: whatever the stream and the filter (a window, a
// CPU, a TID from the input's first bytes), the Builder reports nothing the
// filter leaves out: runs, intervals and runqueue steps inside the window
// and on the CPU, delays switched in there by the TID, and CPU totals no
// larger than the clipped span.
func FuzzBuilderFiltered(f *testing.F) {
	f.Add([]byte{5, 30, 1, 2}, []byte{0, 1, 2, 3, 2, 3, 0, 4, 1, 3, 4, 8, 0, 2, 9, 1, 10, 1, 0, 40})
	f.Add([]byte{0, 0, 0, 1}, []byte{0, 0, 1, 9, 3, 1, 0, 9, 0, 1, 0, 9, 7, 1, 1, 9, 0, 2, 1, 9})
	f.Fuzz(func(t *testing.T, sel, data []byte) {
		if len(sel) < 4 {
			return
		}
		flt := &schedule.Filter{Start: int64(sel[0]), CPUs: []trace.CPU{trace.CPU(sel[2] % 3)}}
		if sel[1] != 0 {
			flt.End = flt.Start + int64(sel[1])
		}
		if sel[3]%2 == 1 {
			flt.TIDs = []trace.TID{trace.TID(sel[3] / 2 % 5)}
		}
		inWindow := func(a, b int64) bool { return flt.Time(a) && flt.Time(b) }
		b := schedule.New(schedule.Options{Filter: flt}, schedule.Hooks{
			Run: func(r *schedule.Run) {
				if !flt.CPU(r.CPU) || !inWindow(r.Start, r.End) {
					t.Fatalf("run %+v outside %s", r, flt)
				}
			},
			State: func(iv *schedule.Interval) {
				if !inWindow(iv.Start, iv.End) || !flt.Task(iv.Task) {
					t.Fatalf("interval %+v outside %s", iv, flt)
				}
			},
			Delay: func(d *schedule.Delay) {
				if !flt.Time(d.End) || !flt.Task(d.Task) || (d.CPU >= 0 && !flt.CPU(d.CPU)) {
					t.Fatalf("delay %+v outside %s", d, flt)
				}
			},
			Runqueue: func(cpu trace.CPU, at int64, n int) {
				if !flt.CPU(cpu) || !flt.Time(at) || n < 0 {
					t.Fatalf("runqueue %d at %d ns on CPU %d outside %s", n, at, cpu, flt)
				}
			},
		})
		evs := fuzzEvents(data)
		for i := range evs {
			b.Observe(&evs[i])
		}
		b.Finish()
		from, to := b.Span()
		cpus, stats := b.CPUs()
		for i, c := range stats {
			if !flt.CPU(cpus[i]) {
				t.Fatalf("CPU %d listed outside %s", cpus[i], flt)
			}
			if span := max(to-from, 0); c.Busy < 0 || c.Busy+c.Idle+c.Unknown > span {
				t.Fatalf("CPU %d: %+v over a clipped span of %d ns", cpus[i], c, span)
			}
		}
	})
}

// TestFilterClipsRuntime: a sched_stat_runtime of R ns recorded at T
// accounts the run [T−R, T] on its CPU, so a window keeps the part of it
// inside. Window 10-20 ms, task 7 running on CPU 0 throughout:
//
//	at  9 ms, 2 ms: run  7-9,  outside:     0
//	at 12 ms, 3 ms: run  9-12, kept 10-12:  2 ms
//	at 18 ms, 6 ms: run 12-18, all inside:  6 ms
//	at 25 ms, 7 ms: run 18-25, kept 18-20:  2 ms (recorded after the window)
//	at 30 ms, 5 ms: run 25-30, outside:     0
//
// 10 ms, the window's length (the events recorded inside it held 9 ms).
// Second case, runs 7-12 (at 12 ms) and 12-20 (at 20 ms): 2 + 8 = 10 ms,
// where the events recorded inside held 13 ms, more than a 10 ms window of
// one CPU can.
func TestFilterClipsRuntime(t *testing.T) {
	const ms = 1_000_000
	rt := func(at, r int64) trace.Event {
		e := trace.NewEvent(at*ms, 0, trace.KindRuntime)
		e.TID, e.PID, e.Comm, e.Runtime = 7, 7, "w", r*ms
		return e
	}
	for _, evs := range [][]trace.Event{
		{rt(9, 2), rt(12, 3), rt(18, 6), rt(25, 7), rt(30, 5)},
		{rt(12, 5), rt(20, 8)},
	} {
		var hooked int64
		f := schedule.Filter{Start: 10 * ms, End: 20 * ms}
		b := schedule.New(schedule.Options{Filter: &f}, schedule.Hooks{Runtime: func(_ *schedule.Task, e *trace.Event, _ bool) { hooked += e.Runtime }})
		if err := b.Run(trace.NewSliceSource(evs, nil)); err != nil {
			t.Fatal(err)
		}
		b.Finish()
		if got := b.Lookup(7).StatRuntime; got != 10*ms || hooked != 10*ms {
			t.Errorf("StatRuntime %d ns, hooks %d ns; want %d", got, hooked, 10*ms)
		}
	}
}

// TestRuntimeEventAllocs: observing a sched_stat_runtime allocates nothing,
// clipped to a window or not (a copy of the event per call escaped to the
// heap: 12 MB more peak RSS and 0.4 s more CPU on bench/replaymem's 2
// M-event file).
func TestRuntimeEventAllocs(t *testing.T) {
	for _, f := range []*schedule.Filter{nil, {Start: 10, End: 1 << 40}} {
		b := schedule.New(schedule.Options{Filter: f}, schedule.Hooks{Runtime: func(*schedule.Task, *trace.Event, bool) {}})
		e := trace.NewEvent(100, 0, trace.KindRuntime)
		e.TID, e.PID, e.Comm, e.Runtime = 7, 7, "w", 95 // clipped at 10 by the window
		b.Observe(&e)                                   // the task's first event makes it
		if n := testing.AllocsPerRun(100, func() { e.Time += 100; b.Observe(&e) }); n != 0 {
			t.Errorf("filter %v: %.1f allocations per sched_stat_runtime, want 0", f, n)
		}
	}
}

// TestGroupWhole: with Hooks.GroupWhole, GroupRun and GroupDelay see the
// whole of handTrace, every CPU, whatever the filter's time window and
// CPUs, while Run and Delay keep to them; without, they see what Run and
// Delay see. Window 350..450 on CPU 0 (see TestFilterHand): Run gets 2
// 350-400, 1 400-450; GroupRun, whole, CPU 0's 1 100-300, 2 300-400, 1
// 400-900 and CPU 1's four (three unknown: "?"), as they close. Of the delays (2 200-300,
// 1 300-400, both switched in on CPU 0) only the second ends inside.
func TestGroupWhole(t *testing.T) {
	for _, c := range []struct {
		whole                  bool
		groupRuns, groupDelays string
	}{
		{true, "[? 100-150 1 100-300 2 300-400 ? 150-550 3 550-700 ? 700-900 1 400-900]", "[2 200-300 1 300-400]"},
		{false, "[2 350-400 1 400-450]", "[1 300-400]"},
	} {
		var runs, groupRuns, delays, groupDelays []string
		show := func(r *schedule.Run) string {
			if r.Task == nil {
				return fmt.Sprintf("? %d-%d", r.Start, r.End)
			}
			return fmt.Sprintf("%d %d-%d", r.Task.TID, r.Start, r.End)
		}
		showD := func(d *schedule.Delay) string { return fmt.Sprintf("%d %d-%d", d.Task.TID, d.Start, d.End) }
		f := schedule.Filter{Start: 350, End: 450, CPUs: []trace.CPU{0}}
		b := schedule.New(schedule.Options{Filter: &f}, schedule.Hooks{
			Run:        func(r *schedule.Run) { runs = append(runs, show(r)) },
			GroupRun:   func(r *schedule.Run) { groupRuns = append(groupRuns, show(r)) },
			Delay:      func(d *schedule.Delay) { delays = append(delays, showD(d)) },
			GroupDelay: func(d *schedule.Delay) { groupDelays = append(groupDelays, showD(d)) },
			GroupWhole: c.whole,
		})
		if err := b.Run(trace.NewSliceSource(handTrace(), nil)); err != nil {
			t.Fatal(err)
		}
		b.Finish()
		if got := fmt.Sprint(runs, delays); got != "[2 350-400 1 400-450] [1 300-400]" {
			t.Errorf("whole %v: Run, Delay %s", c.whole, got)
		}
		if got := fmt.Sprint(groupRuns); got != c.groupRuns {
			t.Errorf("whole %v: GroupRun %s, want %s", c.whole, got, c.groupRuns)
		}
		if got := fmt.Sprint(groupDelays); got != c.groupDelays {
			t.Errorf("whole %v: GroupDelay %s, want %s", c.whole, got, c.groupDelays)
		}
	}
}

// TestFilterRuntimeOnTasksCPU: a sched_stat_runtime recorded on one CPU
// for a task running on another (update_curr charging a remote runqueue's
// task: a wakeup's preemption check, load balancing) is run time of the
// CPU the task runs on (new-user pass 36 F5: --cpu 0 read 2293.790 ms of
// run time in a 2034.839 ms trace). Task 7 is switched in on CPU 1 at 1
// ms; CPU 0 charges it 2 ms at 3 ms, CPU 1 itself 1 ms at 4 ms: 3 ms on
// CPU 1, none on CPU 0. A task not running is charged where the event
// is: task 8, asleep after its run on CPU 1, charged 1 ms on CPU 0 at 6
// ms (its last run's tail), counts on CPU 0.
func TestFilterRuntimeOnTasksCPU(t *testing.T) {
	const ms = 1_000_000
	rt := func(at int64, cpu trace.CPU, tid trace.TID, r int64) trace.Event {
		e := trace.NewEvent(at*ms, cpu, trace.KindRuntime)
		e.TID, e.PID, e.Comm, e.Runtime = tid, trace.PID(tid), "w", r*ms
		return e
	}
	in := trace.NewEvent(1*ms, 1, trace.KindSwitch)
	in.TID, in.NextTID, in.PrevState, in.Prio, in.NextPrio, in.NextComm = 0, 7, trace.StateRunning, 120, 120, "w"
	in8 := trace.NewEvent(4*ms, 1, trace.KindSwitch)
	in8.TID, in8.NextTID, in8.PrevState, in8.Prio, in8.NextPrio, in8.Comm, in8.NextComm = 7, 8, trace.StateInterruptible, 120, 120, "w", "w"
	out8 := trace.NewEvent(5*ms, 1, trace.KindSwitch)
	out8.TID, out8.NextTID, out8.PrevState, out8.Prio, out8.NextPrio, out8.Comm = 8, 0, trace.StateInterruptible, 120, 120, "w"
	evs := []trace.Event{in, rt(3, 0, 7, 2), rt(4, 1, 7, 1), in8, out8, rt(6, 0, 8, 1)}
	for _, c := range []struct {
		cpu    trace.CPU
		t7, t8 int64
	}{{0, 0, 1 * ms}, {1, 3 * ms, 0}} {
		f := schedule.Filter{CPUs: []trace.CPU{c.cpu}}
		b := schedule.New(schedule.Options{Filter: &f}, schedule.Hooks{})
		if err := b.Run(trace.NewSliceSource(evs, nil)); err != nil {
			t.Fatal(err)
		}
		b.Finish()
		if got7, got8 := b.Lookup(7).StatRuntime, b.Lookup(8).StatRuntime; got7 != c.t7 || got8 != c.t8 {
			t.Errorf("--cpu %d: task 7 %d ns, task 8 %d ns; want %d and %d", c.cpu, got7, got8, c.t7, c.t8)
		}
	}
}
