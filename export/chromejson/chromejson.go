package chromejson

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/schedule"
)

// Track ids of the CPU tracks: the CPUs are shown as the threads of one
// synthetic process, CPUPid, with thread ids CPUPid+cpu. Linux pids stay
// below 2^22 (PID_MAX_LIMIT, include/linux/threads.h), so these never meet
// a real task.
const CPUPid = 1 << 30

// Names of the task-state slices.
const (
	SliceRunning           = "Running"
	SliceRunnablePreempted = "Runnable (preempted)"
	SliceRunnableWoken     = "Runnable (woken)"
	SliceSleeping          = "Sleeping"        // S
	SliceUninterruptible   = "Uninterruptible" // D
)

// Options tune Write.
type Options struct {
	// Filter, when not nil, selects the runs, states and wakeups written
	// (see schedule.Filter), clipped to its window.
	Filter *schedule.Filter
	// Counters, when set, is called with the rebuilt schedule's counters
	// (schedule.Builder.C) once the trace is read: the caller's warnings
	// of what the schedule lacks.
	Counters func(*schedule.Counters)
}

// Write reads src to the end (it does not close it) and writes the
// schedule as Chrome trace-event JSON (the "JSON Object Format" of the Trace
// Event Format document, which ui.perfetto.dev and chrome://tracing open):
//
//   - one track per CPU (thread "CPU n" of the process "CPUs", pid
//     CPUPid) with a complete ("X") slice per run of a task the filter
//     selects (opts.Filter's tasks; every task without one), named by the
//     task's comm, args tid/pid;
//   - one track per task (its real pid/tid, named by its comm) with its
//     states as slices: Running (args cpu, and cgroup, the path of the
//     task's cgroup when the trace says it: Meta.Cgroups, else "id N"), Runnable (preempted) or
//     Runnable (woken) (args waker: "comm:tid", or "<irq>" for a wakeup in
//     interrupt context), Sleeping, Uninterruptible, or the
//     kernel's other state letter (e.g. "Idle (I)");
//   - a flow arrow ("s" at the waker's track at the wakeup, "f" 1 ns later
//     with "bp":"e", binding to the wakee's Runnable (woken) slice) for every
//     wakeup whose waker is a running task (none for a wakeup in interrupt
//     context: the running task was only interrupted).
//
// Times are microseconds with nanosecond decimals on the trace's clock.
// States and runs follow the same reconstruction as the latency report:
// state before a task's first event is unknown and not drawn; a run that
// started before the first sched_switch of its CPU is not drawn. Errors are
// the source's or w's.
// opts.Filter selects the runs, states and wakeups written.
func Write(w io.Writer, src trace.Source, opts Options) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	pw := &writer{w: bw, names: map[*schedule.Task]string{}}
	pw.raw(`{"displayTimeUnit":"ns","traceEvents":[`)
	flowID := 0
	p := schedule.New(schedule.Options{Filter: opts.Filter}, schedule.Hooks{
		Run: func(r *schedule.Run) {
			pw.cpus[r.CPU] = true
			if r.Quality == schedule.Unknown || r.Task.TID == 0 || !opts.Filter.Task(r.Task) {
				return // the filter's tasks only, as on the task tracks
			}
			t := r.Task
			pw.slice(t.Comm, "cpu", CPUPid, int64(CPUPid)+int64(r.CPU), r.Start, r.End,
				`"tid":`+strconv.Itoa(int(t.TID))+`,"pid":`+strconv.Itoa(int(t.PID)))
			pw.seen(t)
		},
		State: func(iv *schedule.Interval) {
			if iv.End <= iv.Start {
				return
			}
			t := iv.Task
			name, args := "", ""
			switch {
			case iv.State == schedule.StateRunning:
				name, args = SliceRunning, `"cpu":`+strconv.Itoa(int(iv.CPU))
				if t.Cgroup != 0 {
					args += `,"cgroup":` + pw.quoteCached(cgroupName(src.Meta(), t.Cgroup))
				}
			case iv.State == schedule.StateRunnable && iv.Cause == schedule.CausePreempted:
				name = SliceRunnablePreempted
			case iv.State == schedule.StateRunnable:
				name = SliceRunnableWoken
				switch {
				case iv.FromIRQ:
					args = `"waker":"<irq>"`
				case iv.Waker != nil:
					args = `"waker":` + pw.quote(fmt.Sprintf("%s:%d", iv.Waker.Comm, iv.Waker.TID))
				}
			default:
				name = sleepName(iv.Sleep)
				args = `"state":` + pw.quote(iv.Sleep.String())
			}
			pw.slice(name, "state", taskPid(t), int64(t.TID), iv.Start, iv.End, args)
			pw.seen(t)
		},
		Wakeup: func(at int64, waker, wakee *schedule.Task, _ trace.CPU) {
			if waker == nil || waker.TID == 0 || waker.State() != schedule.StateRunning || wakee.WokenFromIRQ() {
				return // no arrow from a task an interrupt only interrupted
			}
			flowID++
			pw.flow("s", flowID, taskPid(waker), int64(waker.TID), at)
			// The end goes 1 ns into the wakee's Runnable (woken) slice,
			// which starts at the wakeup: binding to the enclosing slice
			// at the slice's very first instant would depend on how the
			// viewer orders events of equal time.
			pw.flow("f", flowID, taskPid(wakee), int64(wakee.TID), at+1)
			pw.seen(waker)
			pw.seen(wakee)
		},
	})
	pw.cpus = map[trace.CPU]bool{}
	if err := p.Run(src); err != nil {
		return err
	}
	p.Finish()
	if opts.Counters != nil {
		opts.Counters(&p.C)
	}
	// Track names.
	pw.meta("process_name", CPUPid, -1, "CPUs")
	pw.meta("process_sort_index", CPUPid, -1, "")
	cpus := make([]trace.CPU, 0, len(pw.cpus))
	for c := range pw.cpus {
		cpus = append(cpus, c)
	}
	sort.Slice(cpus, func(i, j int) bool { return cpus[i] < cpus[j] })
	for _, c := range cpus {
		pw.meta("thread_name", CPUPid, int64(CPUPid)+int64(c), fmt.Sprintf("CPU %d", c))
	}
	procs := map[int64]bool{}
	for _, t := range pw.order {
		pid := taskPid(t)
		if !procs[pid] {
			procs[pid] = true
			pw.meta("process_name", pid, -1, p.ProcessName(t))
		}
		pw.meta("thread_name", pid, int64(t.TID), t.Comm)
	}
	pw.raw("]}\n")
	if pw.err != nil {
		return pw.err
	}
	return bw.Flush()
}

// cgroupName is cgroup id's path in m's table, "id N" when it is absent.
func cgroupName(m *trace.Meta, id uint64) string {
	if m != nil {
		if p, ok := m.Cgroups[id]; ok {
			return p
		}
	}
	return "id " + strconv.FormatUint(id, 10)
}

func taskPid(t *schedule.Task) int64 {
	if t.PID >= 0 {
		return int64(t.PID)
	}
	return int64(t.TID)
}

// sleepName names a sleeping state by its kernel letter.
func sleepName(s trace.TaskState) string {
	switch s.Char() {
	case 'S':
		return SliceSleeping
	case 'D':
		return SliceUninterruptible
	case 'I':
		return "Idle (I)"
	case 'T':
		return "Stopped (T)"
	case 't':
		return "Traced (t)"
	case 'P':
		return "Parked (P)"
	}
	return "Sleeping (" + s.String() + ")"
}

// writer writes trace events by hand (one append per field) so a
// multi-million-event trace exports without building a document in memory.
type writer struct {
	w     *bufio.Writer
	buf   []byte
	n     int
	err   error
	cpus  map[trace.CPU]bool
	names map[*schedule.Task]string
	order []*schedule.Task
}

func (pw *writer) raw(s string) {
	if pw.err == nil {
		_, pw.err = pw.w.WriteString(s)
	}
}

// quote is s as a JSON string, written as the other machine outputs write
// names (termsafe.ValidUTF8: a byte that is not UTF-8 as \xHH, a backslash
// doubled): encoding/json made every such byte U+FFFD, so bad\xfeutf and
// bad\xffutf were one name in the trace viewer (new-user pass 31 F4).
func (pw *writer) quote(s string) string {
	b, _ := json.Marshal(termsafe.ValidUTF8(s)) // a string always marshals
	return string(b)
}

func (pw *writer) seen(t *schedule.Task) {
	if _, ok := pw.names[t]; !ok {
		pw.names[t] = t.Comm
		pw.order = append(pw.order, t)
	}
}

// appendMicros appends ns as microseconds with three decimals.
func micros(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

func (pw *writer) begin() {
	pw.buf = pw.buf[:0]
	if pw.n > 0 {
		pw.buf = append(pw.buf, ",\n"...)
	} else {
		pw.buf = append(pw.buf, '\n')
	}
	pw.n++
}

func (pw *writer) end() {
	pw.buf = append(pw.buf, '}')
	if pw.err == nil {
		_, pw.err = pw.w.Write(pw.buf)
	}
}

func (pw *writer) slice(name, cat string, pid, tid, start, end int64, args string) {
	pw.begin()
	pw.buf = append(pw.buf, `{"ph":"X","name":`...)
	pw.buf = append(pw.buf, pw.quoteCached(name)...)
	pw.buf = append(pw.buf, `,"cat":"`...)
	pw.buf = append(pw.buf, cat...)
	pw.buf = append(pw.buf, `","pid":`...)
	pw.buf = strconv.AppendInt(pw.buf, pid, 10)
	pw.buf = append(pw.buf, `,"tid":`...)
	pw.buf = strconv.AppendInt(pw.buf, tid, 10)
	pw.buf = append(pw.buf, `,"ts":`...)
	pw.buf = micros(pw.buf, start)
	pw.buf = append(pw.buf, `,"dur":`...)
	pw.buf = micros(pw.buf, end-start)
	if args != "" {
		pw.buf = append(pw.buf, `,"args":{`...)
		pw.buf = append(pw.buf, args...)
		pw.buf = append(pw.buf, '}')
	}
	pw.end()
}

func (pw *writer) quoteCached(s string) string {
	// Comms are interned by readers and state names are constants: quoting
	// through encoding/json only when a byte needs escaping keeps the hot
	// path allocation-light.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			return pw.quote(s)
		}
	}
	return `"` + s + `"`
}

func (pw *writer) flow(ph string, id int, pid, tid, at int64) {
	pw.begin()
	pw.buf = append(pw.buf, `{"ph":"`...)
	pw.buf = append(pw.buf, ph...)
	pw.buf = append(pw.buf, `","name":"wakeup","cat":"wakeup","id":`...)
	pw.buf = strconv.AppendInt(pw.buf, int64(id), 10)
	pw.buf = append(pw.buf, `,"pid":`...)
	pw.buf = strconv.AppendInt(pw.buf, pid, 10)
	pw.buf = append(pw.buf, `,"tid":`...)
	pw.buf = strconv.AppendInt(pw.buf, tid, 10)
	pw.buf = append(pw.buf, `,"ts":`...)
	pw.buf = micros(pw.buf, at)
	if ph == "f" {
		pw.buf = append(pw.buf, `,"bp":"e"`...)
	}
	pw.end()
}

func (pw *writer) meta(name string, pid, tid int64, value string) {
	pw.begin()
	pw.buf = append(pw.buf, `{"ph":"M","name":"`...)
	pw.buf = append(pw.buf, name...)
	pw.buf = append(pw.buf, `","pid":`...)
	pw.buf = strconv.AppendInt(pw.buf, pid, 10)
	if tid >= 0 {
		pw.buf = append(pw.buf, `,"tid":`...)
		pw.buf = strconv.AppendInt(pw.buf, tid, 10)
	}
	if name == "process_sort_index" {
		pw.buf = append(pw.buf, `,"args":{"sort_index":-1}`...)
	} else {
		pw.buf = append(pw.buf, `,"args":{"name":`...)
		pw.buf = append(pw.buf, pw.quote(value)...)
		pw.buf = append(pw.buf, '}')
	}
	pw.end()
}
