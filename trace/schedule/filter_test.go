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
	for _, c := range []struct {
		got, want bool
		what      string
	}{
		{f.CPU(1), true, "CPU 1"}, {f.CPU(2), false, "CPU 2"}, {f.CPU(-1), false, "CPU -1"},
		{f.Time(10), true, "10 ns"}, {f.Time(21), false, "21 ns"},
		{f.TaskIDs(9, 7, "a"), true, "pid 7 a"}, {f.TaskIDs(9, 7, "b"), false, "pid 7 b"}, {f.TaskIDs(9, 8, "a"), false, "pid 8 a"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}
