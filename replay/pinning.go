package replay

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// pinMinSwitches is how many switch-ins of the traced command on a single
// CPU of a multi-CPU trace make Extract infer that it was pinned there.
const pinMinSwitches = 50

// stopperMove forgets where a task ran before a CPU's stopper thread
// (migration/N) moved it off that CPU: sched_setaffinity on a task that
// runs where its new mask forbids hands it to the stopper
// (__set_cpus_allowed_ptr -> affine_move_task -> stop_one_cpu_nowait
// (migration_cpu_stop) -> move_queued_task, kernel/sched/core.c, Linux
// 6.x), which preempts it and emits its sched_migrate_task. `taskset -c 0
// CMD` forked on the other CPU runs there for a few µs before it pins
// itself: without this, those µs hid the pinning from inferPinning. Its
// children inherit the mask, so only the moved task's history is reset.
// The stopper also serves active balancing (active_load_balance_cpu_stop),
// which moves a running task the same way; a workload that was not pinned
// still runs on several CPUs afterwards, so inferPinning stays off for it.
func (x *extractor) stopperMove(ev *trace.Event) {
	if ev.TID <= 0 || ev.CurTID <= 0 || ev.CPU != ev.OrigCPU {
		return
	}
	cur, ok := x.byTID.get(ev.CurTID)
	if !ok || !strings.HasPrefix(x.m.Tasks[cur].Comm, "migration/") {
		return
	}
	if i, ok := x.byTID.get(ev.TID); ok {
		x.m.Tasks[i].insOn, x.m.Tasks[i].timeOn = x.m.Tasks[i].insOn[:0], x.m.Tasks[i].timeOn[:0]
	}
}

// countIn counts a switch-in of the task on cpu (0..policies.MaxCPUs-1).
func (tk *Task) countIn(cpu trace.CPU) {
	for int(cpu) >= len(tk.insOn) {
		tk.insOn = append(tk.insOn, 0)
	}
	tk.insOn[cpu]++
}

// countTime adds ns of run time on cpu to the task's.
func (tk *Task) countTime(cpu trace.CPU, ns int64) {
	if cpu < 0 || cpu >= policies.MaxCPUs {
		return
	}
	for int(cpu) >= len(tk.timeOn) {
		tk.timeOn = append(tk.timeOn, 0)
	}
	tk.timeOn[cpu] += ns
}

// pinStray is the share of the traced command's run time that may lie on
// other CPUs than the one it is inferred pinned to: `perf sched record --
// sh -c 'taskset -c 0 CMD'` runs the shell perf starts, which is not
// pinned, for a run or two on the other CPU (at its start, before
// taskset's sched_setaffinity, and when its wait returns). Run time, not
// switch-ins, decides: a spinner alone on the other CPU of a two-CPU
// recording switches in a dozen times against a service's thousands, but
// holds half the run time. Measured on the 22 one-CPU recordings of
// ../shared/traces and this project's recordings of 2026-12-03: at most
// 0.034 % of the workload's run time elsewhere (mi9.1cpu: the outer
// shell's 0.69 ms of 2017 ms); on their 36 two-CPU recordings at least
// 22 % (a service beside one spinner), mostly about 50 %.
const pinStray = 0.01

// inferPinning gives the traced command's tasks the affinity of the single
// CPU they ran on (a taskset-pinned workload; the trace cannot say), when
// the trace has several CPUs, at least pinMinSwitches switch-ins of the
// command's tasks were on that CPU and at most pinStray of their run time
// elsewhere.
func (x *extractor) inferPinning() {
	m := x.m
	if m.NrCPUs < 2 || m.WorkloadRoot < 0 {
		return
	}
	var ins []int
	var ns []int64
	var total int64
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if !tk.Workload {
			continue
		}
		for c, k := range tk.insOn {
			for c >= len(ins) {
				ins = append(ins, 0)
			}
			ins[c] += k
		}
		for c, v := range tk.timeOn {
			for c >= len(ns) {
				ns = append(ns, 0)
			}
			ns[c] += v
			total += v
		}
	}
	top := 0
	for c := range ns {
		if ns[c] > ns[top] {
			top = c
		}
	}
	if total <= 0 || top >= len(ins) || ins[top] < pinMinSwitches || float64(total-ns[top]) > pinStray*float64(total) {
		return
	}
	if !otherCPUIdled(m, top) {
		return
	}
	for i := range m.Tasks {
		if m.Tasks[i].Workload {
			m.Tasks[i].Affinity = policies.CPUSet(1) << uint(top)
			m.Stats.PinnedTasks++
		}
	}
}

// otherCPUIdled reports whether a CPU other than top spent at least
// pinOtherIdle of the trace idle: only then does a workload that stayed on
// top say it was pinned there, as Linux pulls a waiting task to a CPU that
// goes idle (see pinOtherIdle). Where the other CPUs were busy (another
// job held them) the balancer had nowhere to move it, pinned or not
// (new-user pass 82 F1: a workload on CPU 1 while two nice -20 hogs held
// CPU 0, 1 % idle, was inferred pinned and kept on one CPU of four). The
// one-CPU recordings of ../shared/traces (taskset -c 0) left CPU 1 idle
// 98.7-99.7 % of the trace.
func otherCPUIdled(m *Model, top int) bool {
	busy, span := cpuBusy(m)
	for c := range busy {
		if c != top && span > 0 && float64(span-busy[c]) >= pinOtherIdle*float64(span) {
			return true
		}
	}
	return false
}

// cpuBusy returns each CPU's run time of tasks other than idle, in ns,
// and the trace's span, its tasks' first start to last event.
func cpuBusy(m *Model) (busy []int64, span int64) {
	first, last := int64(-1), int64(0)
	busy = make([]int64, m.NrCPUs)
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if first < 0 || tk.Start < first {
			first = tk.Start
		}
		last = max(last, tk.Last)
		if tk.TID == 0 {
			continue
		}
		for c, v := range tk.timeOn {
			if c < len(busy) {
				busy[c] += v
			}
		}
	}
	return busy, last - first
}

// tasksetComm is the command name of taskset(1), util-linux: a task the
// trace names so set its CPU affinity (sched_setaffinity) before it
// exec'd the command it runs, which its children inherit.
const tasksetComm = "taskset"

// inferTasksetPinning gives each part of the traced command that ran
// under taskset(1) (a workload task the trace named "taskset", and the
// tasks it forked, down its process tree) the CPUs that part ran on, when
// the whole command was not pinned (inferPinning) and those are fewer than
// the trace's: `taskset -c 0 A & taskset -c 1 B & wait` runs A's tasks on
// CPU 0 only and B's on CPU 1 only, which inferPinning, asking for one CPU
// for the whole command, cannot say. A CPU counts when it holds more than
// pinStray of the part's run time (the taskset task itself may run on
// another CPU until sched_setaffinity moves it: stopperMove). The mask is
// the CPUs the trace shows, a subset of the one taskset set when the part
// never ran on some of its CPUs.
func (x *extractor) inferTasksetPinning() {
	m := x.m
	if m.NrCPUs < 2 || m.WorkloadRoot < 0 || m.Stats.PinnedTasks > 0 {
		return
	}
	kids := map[int][]int{}
	for i := range m.Tasks {
		if p := m.Tasks[i].Parent; p >= 0 && m.Tasks[i].Workload {
			kids[p] = append(kids[p], i)
		}
	}
	done := make([]bool, len(m.Tasks))
	for i := range m.Tasks {
		if tk := &m.Tasks[i]; !tk.Workload || !tk.taskset || done[i] {
			continue
		}
		part := []int{i}
		for k := 0; k < len(part); k++ {
			for _, c := range kids[part[k]] {
				if !done[c] {
					done[c] = true
					part = append(part, c)
				}
			}
		}
		var ns []int64
		var total int64
		for _, j := range part {
			for c, v := range m.Tasks[j].timeOn {
				for c >= len(ns) {
					ns = append(ns, 0)
				}
				ns[c] += v
				total += v
			}
		}
		var mask policies.CPUSet
		for c, v := range ns {
			if c < policies.MaxCPUs && float64(v) > pinStray*float64(total) {
				mask |= policies.CPUSet(1) << uint(c)
			}
		}
		if total <= 0 || mask == 0 || mask.Count() >= m.NrCPUs {
			continue
		}
		for _, j := range part {
			if m.Tasks[j].Affinity == 0 {
				m.Tasks[j].Affinity = mask
				m.Stats.PinnedTasks++
			}
		}
	}
}

// perCPUKthread matches the names the kernel gives the kernel threads it
// binds to one CPU, N: the smpboot threads "ksoftirqd/N"
// (kernel/softirq.c), "migration/N" (kernel/stop_machine.c), "cpuhp/N"
// (kernel/cpu.c), "rcuc/N" (kernel/rcu/tree.c), "idle_inject/N"
// (drivers/powercap/idle_inject.c), "watchdog/N" (kernel/watchdog.c
// before v5.0), and the workers of a per-CPU workqueue pool,
// "kworker/N:M" and "kworker/N:MH" for its high-priority pool, which
// workqueue.c binds to the pool's CPU (an unbound pool's are
// "kworker/uN:M"); a trace may show a kworker with the name of its current
// workqueue after a dash ("kworker/1:2-mm_percpu_wq", cut to 15 bytes).
// Linux v6.18.
var perCPUKthread = regexp.MustCompile(`^(?:(?:ksoftirqd|migration|cpuhp|rcuc|idle_inject|watchdog)/(\d+)|kworker/(\d+):\d+H?(?:-.*)?)$`)

// bindPerCPUKthreads gives the kernel threads that perCPUKthread names
// the affinity of their CPU, where the trace has that CPU: the kernel runs
// them nowhere else, and a replay that let a CPU's kworker run on an idle
// one would never show it preempting what runs on its own CPU. A replay on
// fewer CPUs runs one whose CPU it lacks anywhere (the simulator drops an
// affinity outside its CPUs), as the kernel, taking a CPU offline, moves
// its work to the CPUs left.
func (x *extractor) bindPerCPUKthreads() {
	m := x.m
	if m.NrCPUs < 2 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Workload || tk.Affinity != 0 {
			continue
		}
		g := perCPUKthread.FindStringSubmatch(tk.Comm)
		if g == nil {
			continue
		}
		n, err := strconv.Atoi(g[1] + g[2])
		if err != nil || n < 0 || n >= m.NrCPUs || n >= policies.MaxCPUs {
			continue
		}
		tk.Affinity = policies.CPUSet(1) << uint(n)
		m.Stats.BoundKthreads++
	}
}

// Thresholds of inferIdlePinning. pinWaitShare: the least time a task
// spent waiting for its CPU, as a share of its run time, for its staying
// there to say anything (25 %: a task that rarely waits has no reason to
// move, pinned or not). pinOtherIdle: the least share of the trace each
// other CPU spent idle (50 %). Linux pulls a waiting task to an idle CPU
// at that CPU's next balance (newidle balance as it goes idle, then the
// nohz idle balancer: sched_balance_newidle and nohz_idle_balance,
// kernel/sched/fair.c v6.18, within a tick or so), so a task that waited a
// quarter of its run on its CPU while another idled half the trace was
// kept there by its affinity. Both are the chosen margins, not fitted:
// new-user pass 25's three taskset -c 0 hogs in a whole-system capture
// waited 100-200 % of their run on CPU 0 while CPU 1 idled 97 %; the
// unpinned tasks of ../shared/traces' two-CPU recordings are workload
// tasks, inferPinning's, and none of this pass's.
const (
	pinWaitShare = 0.25
	pinOtherIdle = 0.5
)

// inferIdlePinning gives a task of a trace with no traced command (a
// capture of the whole system, where inferPinning has no workload to
// judge) the affinity of the single CPU it ran on when it ran there at
// least pinMinSwitches times with at most pinStray of its run time
// elsewhere, waited for that CPU at least pinWaitShare of its run time,
// and every other CPU was idle at least pinOtherIdle of the trace: tasks
// pinned with taskset before the capture, which a replay spread over the
// idle CPUs (a self-replay 2x off on run time and switches).
func (x *extractor) inferIdlePinning() {
	m := x.m
	if m.NrCPUs < 2 || m.WorkloadRoot >= 0 || m.NrCPUs > policies.MaxCPUs {
		return
	}
	busy, span := cpuBusy(m)
	if span <= 0 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.TID <= 0 || tk.Affinity != 0 || tk.anyCPU || i >= len(x.st) {
			continue
		}
		top, total := 0, int64(0)
		for c, v := range tk.timeOn {
			total += v
			if v > tk.timeOn[top] {
				top = c
			}
		}
		if total <= 0 || top >= len(tk.insOn) || tk.insOn[top] < pinMinSwitches || float64(total-tk.timeOn[top]) > pinStray*float64(total) ||
			float64(x.st[i].waitSum) < pinWaitShare*float64(total) {
			continue
		}
		others := true
		for c := range busy {
			if c != top && float64(span-busy[c]) < pinOtherIdle*float64(span) {
				others = false
			}
		}
		if others {
			tk.Affinity = policies.CPUSet(1) << uint(top)
			m.Stats.PinnedTasks++
		}
	}
}

// recordedAffinity gives each task whose process's CPU affinity the
// recording read (Meta.TaskAffinity: traceview record, Cpus_allowed_list
// of the process's main thread, which its threads and children inherit
// from taskset) that affinity, within the trace's CPUs, when it is fewer
// than them. It wins over the inferred one: a trace cannot tell a task
// pinned by taskset from one the balancer left where it was (new-user
// pass 26 F2: two hogs pinned to CPU 1 beside a free one on CPU 0). A
// process read as free to run on every CPU of the trace (recorded since
// 2026-12-07; earlier files list only the restricted ones) loses the
// pinning inferPinning and inferTasksetPinning gave it, and
// inferIdlePinning gives it none (new-user pass 82 F1: a workload that
// ran on CPU 1 while another job held CPU 0, "4 pinned (taskset)", kept
// on CPU 1 by a 4-CPU prediction).
func (x *extractor) recordedAffinity() {
	m := x.m
	if len(m.Meta.TaskAffinity) == 0 || m.NrCPUs < 2 {
		return
	}
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		cpus, ok := m.Meta.TaskAffinity[tk.PID]
		if !ok || tk.PID <= 0 {
			continue
		}
		var mask policies.CPUSet
		for _, c := range cpus {
			if c >= 0 && int(c) < m.NrCPUs && int(c) < policies.MaxCPUs {
				mask |= policies.CPUSet(1) << uint(c)
			}
		}
		if mask == 0 {
			continue
		}
		if mask.Count() >= m.NrCPUs {
			tk.anyCPU = true
			if tk.Affinity != 0 {
				tk.Affinity = 0
				m.Stats.PinnedTasks--
				m.Stats.UnpinnedByRecord++
			}
			continue
		}
		if tk.Affinity == 0 && tk.Workload {
			m.Stats.PinnedTasks++
		}
		tk.Affinity = mask
		m.Stats.AffinityRecorded++
	}
}
