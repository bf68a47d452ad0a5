package replay

import (
	"bufio"
	"cmp"
	"fmt"
	"github.com/traceview/traceview/trace"
	"io"
	"reflect"
	"slices"
	"strings"
)

// WriteText writes a plain-text account of what Extract inferred from the
// trace, one task per paragraph, for review and for golden files: a change
// to an inference pass shows as a diff of this text rather than as a moved
// ratio in a fidelity table. Lines, in order:
//
//   - "model": CPUs, span (ns), tick rate and phase, workload root;
//   - "costs": every measured cost in ns (0: none measured) and the ones
//     refused as not measurable;
//   - "stats": every ModelStats counter, name=value in declaration order;
//   - "pool": one per worker pool, producer and members by task index;
//   - per task: "task IDX COMM:TID pid PID", then its start, how it ends and
//     paces itself (UntilKind, Deadline), the flags set (workload, censored,
//     periodic with its period, open-loop, pool, spinner, affinity,
//     cgroup, session), its bursts by how they end, its CPU time, its
//     blocking points by cause (dependencies by waker, the three most
//     frequent), its actions and update points.
//
// Times are integer ns; the text holds no addresses, maps in fixed order,
// so equal models give equal text. Errors are w's.
func (m *Model) WriteText(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "model: %d tasks, %d CPUs, span %d ns, tick %d Hz phase %d ns, workload root tid %d\n",
		len(m.Tasks), m.NrCPUs, m.End-m.Start, m.HZ, m.TickPhase, m.WorkloadRoot)
	fmt.Fprintf(b, "costs: idle exit %d, wakeup preemption %d, context switch %d, remote wakeup %d (%d samples) / wakee %d (%d samples), idle start %d (%d samples)\n",
		m.IdleExit, m.WakePreempt, m.ContextSwitchCost, m.RemoteWakeupCost, m.WakeupCostSamples, m.RemoteWakeeCost, m.WakeeCostSamples, m.IdleStartCost, m.IdleStartCostSamples)
	for _, u := range m.Unmeasured {
		fmt.Fprintf(b, "unmeasured: %s measured %d bound %d\n", u.Name, u.Measured, u.Bound)
	}
	b.WriteString("stats:")
	sv := reflect.ValueOf(m.Stats)
	for i := 0; i < sv.NumField(); i++ {
		f := sv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		fmt.Fprintf(b, " %s=%v", name, sv.Field(i).Interface())
	}
	b.WriteString("\n")
	if e := m.TracedSession; e.Leader != 0 {
		fmt.Fprintf(b, "traced session: leader %d, %d tasks; workload wait %d ns over %d, run %d ns; background wait %d ns over %d\n",
			e.Leader, e.Tasks, e.WorkloadWaitNS, e.WorkloadWaits, e.WorkloadRunNS, e.BackgroundWaitNS, e.BackgroundWaits)
	}
	for k, p := range m.Pools {
		fmt.Fprintf(b, "pool %d: producer %d, members %v, one request per arrival %v\n", k+1, p.Producer, p.Members, p.Requests)
	}
	for i := range m.Tasks {
		writeTaskText(b, m, i)
	}
	return b.Flush()
}

func writeTaskText(b *bufio.Writer, m *Model, i int) {
	tk := &m.Tasks[i]
	fmt.Fprintf(b, "\ntask %d %s:%d pid %d parent %d init %d cpu %d start %+d ns\n", i, tk.Comm, tk.TID, tk.PID, tk.Parent, tk.Init, tk.CPU, tk.Start-m.Start)
	until := tk.Until.String()
	if tk.Until == UntilDeadline {
		until += fmt.Sprintf(" %d ns", tk.Deadline)
	}
	if tk.UntilInferred {
		until += " (inferred)"
	}
	var flags []string
	add := func(ok bool, s string, a ...any) {
		if ok {
			flags = append(flags, fmt.Sprintf(s, a...))
		}
	}
	add(tk.Workload, "workload")
	add(tk.Unnamed, "unnamed")
	add(tk.Censored, "censored")
	add(tk.CutSpan > 0, "cut span %d ns", tk.CutSpan)
	add(tk.Periodic, "periodic %d ns", tk.Period)
	add(tk.OpenLoop, "open-loop")
	add(tk.WakeAny, "wake-any")
	add(tk.Pool > 0, "pool %d", tk.Pool)
	add(tk.Spinner, "spinner at burst %d", tk.SpinBurst)
	add(tk.Repeat >= 0, "repeats burst %d", tk.Repeat)
	if h := int(tk.LoopsUntilExitOf) - 1; h >= 0 && h < len(m.Tasks) {
		add(true, "loops until %s:%d exits", m.Tasks[h].Comm, m.Tasks[h].TID)
	}
	add(tk.Affinity != 0, "affinity %s", tk.Affinity)
	add(tk.Cgroup != "", "cgroup %s", tk.Cgroup)
	add(tk.Session != 0, "session %d", tk.Session)
	add(tk.Policy != trace.PolicyUnknown, "policy %s", tk.Policy)
	fmt.Fprintf(b, "  until %s; %s\n", until, strings.Join(append(flags, fmt.Sprintf("prio %d", tk.Prio)), ", "))
	if len(tk.Renames) > 0 {
		names := make([]string, len(tk.Renames))
		for k, r := range tk.Renames {
			how := "comm"
			if r.Exec {
				how = "exec"
			}
			names[k] = fmt.Sprintf("%s %q at %d ns of its run time", how, r.Comm, r.CPU)
		}
		fmt.Fprintf(b, "  first named %q; %s\n", tk.FirstComm, strings.Join(names, ", "))
	}
	var ends [3]int
	var cpu int64
	var causes [4]int
	var inferred, wakes, forks, yields, updates, poolBlocks int
	wakers := map[int]int{}
	for j, bu := range tk.Bursts {
		if int(bu.End) < len(ends) {
			ends[bu.End]++
		}
		cpu += bu.Len
		updates += len(tk.UpdatesOf(&bu))
		for _, a := range tk.ActionsOf(&bu) {
			switch a.Kind {
			case ActFork:
				forks++
			case ActYield:
				yields++
			default:
				wakes++
			}
		}
		if bu.End != EndBlock {
			continue
		}
		if int(bu.Wake.Kind) < len(causes) {
			causes[bu.Wake.Kind]++
		}
		if bu.Wake.Kind == CauseDependency {
			wakers[int(bu.Wake.Waker)]++
		}
		if bu.Wake.Inferred {
			inferred++
		}
		if j < len(tk.PoolBlock) && tk.PoolBlock[j] {
			poolBlocks++
		}
	}
	fmt.Fprintf(b, "  bursts %d (block %d, exit %d, trace end %d), cpu %d ns\n", len(tk.Bursts), ends[EndBlock], ends[EndExit], ends[EndTrace], cpu)
	type wk struct{ task, n int }
	var top []wk
	for t, n := range wakers {
		top = append(top, wk{t, n})
	}
	slices.SortFunc(top, func(x, y wk) int { return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.task, y.task)) })
	var ws []string
	for k, x := range top {
		if k == 3 {
			ws = append(ws, fmt.Sprintf("%d more", len(top)-3))
			break
		}
		name := "?"
		if x.task >= 0 && x.task < len(m.Tasks) {
			name = fmt.Sprintf("%s:%d", m.Tasks[x.task].Comm, m.Tasks[x.task].TID)
		}
		ws = append(ws, fmt.Sprintf("%s x%d", name, x.n))
	}
	fmt.Fprintf(b, "  blocks: dependency %d [%s], timer %d, external %d, never %d; %d inferred, %d on a pool's queue\n",
		causes[CauseDependency], strings.Join(ws, ", "), causes[CauseTimer], causes[CauseExternal], causes[CauseNever], inferred, poolBlocks)
	ys := ""
	if yields > 0 {
		ys = fmt.Sprintf(", %d yields", yields)
	}
	fmt.Fprintf(b, "  actions: %d wakeups, %d forks%s; %d update points\n", wakes, forks, ys, updates)
}
