package perfdata

import (
	"path/filepath"
	"strings"

	"github.com/traceview/traceview/trace"
)

// Context-switch records (include/uapi/linux/perf_event.h, Linux 6.x).
const (
	recSwitch            = 14      // PERF_RECORD_SWITCH: the sampled task itself switched in or out
	recSwitchCPUWide     = 15      // PERF_RECORD_SWITCH_CPU_WIDE: {next_prev_pid, next_prev_tid} + sample_id
	miscSwitchOut        = 1 << 13 // PERF_RECORD_MISC_SWITCH_OUT
	miscSwitchOutPreempt = 1 << 14 // PERF_RECORD_MISC_SWITCH_OUT_PREEMPT: the task left while runnable
)

// switchRecord turns the switch-out half of a PERF_RECORD_SWITCH_CPU_WIDE
// (`perf record --switch-events -a`, no sched tracepoints) into a
// sched_switch event. The kernel (kernel/events/core.c,
// perf_event_switch(), Linux 6.x) writes two records per context switch on
// a CPU: OUT in the context of the task leaving (its pid/tid in the
// sample_id trailer, the next task's in the body, MISC_SWITCH_OUT_PREEMPT
// when it was still runnable: preempted) and IN in the context of the task
// entering (the previous task in the body). The OUT record alone makes the
// event: Task is the trailer's task, Next the body's; PrevState is
// StatePreempted (R+) for a preemption, else StateInterruptible (S): the
// record does not tell a sleep from an I/O wait, an exit or a yield. The IN
// record says the same switch again and is not used.
//
// Switch records carry no wakeups, so a delay can only start at a
// preemption; the first switch record adds a warning saying so. Records
// are ignored when the file also has the sched_switch tracepoint (which
// says the same with states and priorities), and PERF_RECORD_SWITCH (a
// per-task recording, without the other task) is counted and skipped.
func (r *Reader) switchRecord(typ uint32, rec []byte, off int64) error {
	if r.haveSwitchTP() {
		return nil
	}
	if typ == recSwitch {
		r.meta.Warnings.Add("switch-record-per-task", "perf.data: PERF_RECORD_SWITCH records (a per-task --switch-events recording) name no other task; skipped")
		return nil
	}
	o := r.end
	if o.Uint16(rec[4:])&miscSwitchOut == 0 {
		return nil
	}
	sid, end, ok := r.trailer(rec)
	body := rec[8:end]
	if !ok || !sid.hasTime || sid.cpu < 0 || len(body) < 8 {
		r.meta.Warnings.Add("bad-record", "perf.data: record of type %d at offset %d too short; skipped", typ, off)
		return nil
	}
	if r.cpuOutOfRange(sid.cpu, typ, off) {
		r.meta.LostInFile++ // (a record the file held, dropped)
		return nil
	}
	if !r.switchRecords {
		r.switchRecords = true
		r.meta.Warnings.Add("switch-records", "perf.data: no sched tracepoints: the schedule comes from PERF_RECORD_SWITCH_CPU_WIDE records (perf record --switch-events), which carry no wakeups: a scheduling delay starts only at a preemption, the wait of a woken task is not measured, and a switch-out that is not a preemption reads as a sleep (S)")
	}
	if r.skip[trace.KindSwitch] {
		return nil
	}
	ev := r.q.slot()
	ev.Reset(sid.time, trace.CPU(sid.cpu), trace.KindSwitch)
	ev.TID, ev.PID = trace.TID(sid.tid), trace.PID(sid.pid)
	ev.CurTID, ev.CurPID = ev.TID, ev.PID
	ev.NextPID, ev.NextTID = trace.PID(int32(o.Uint32(body))), trace.TID(int32(o.Uint32(body[4:])))
	if ev.TID >= 0 && ev.PID >= 0 {
		r.learnPID(ev.TID, ev.PID)
	}
	if ev.NextTID >= 0 && ev.NextPID >= 0 {
		r.learnPID(ev.NextTID, ev.NextPID)
	}
	ev.PrevState = trace.StateInterruptible
	if o.Uint16(rec[4:])&miscSwitchOutPreempt != 0 {
		ev.PrevState = trace.StatePreempted
	}
	r.queue(ev, true)
	return nil
}

// haveSwitchTP reports whether an attribute decodes the sched_switch
// tracepoint.
func (r *Reader) haveSwitchTP() bool {
	for _, a := range r.attrs {
		if a.dec != nil && a.dec.Kind == trace.KindSwitch {
			return true
		}
	}
	return false
}

// checkScope warns, once, when the header's command line shows a recording
// that is not system-wide: `perf record -p PID`, `-t TID`, `-u USER` or a
// plain `perf record -- CMD`, without -a or -C. The kernel then records only
// the chosen tasks' events (perf_event_open with a pid), so a CPU's
// switches into other tasks are missing: a monitored task seems to run, or
// to wait, while others run, and delays measured across those gaps are not
// real. `perf sched record` always records system-wide (it passes -a).
func (r *Reader) checkScope() {
	if r.scopeChecked || len(r.meta.Cmdline) == 0 {
		return
	}
	r.scopeChecked = true
	if how := notSystemWide(r.meta.Cmdline); how != "" {
		r.meta.Warnings.Add("not-system-wide", "perf.data: recorded %s (%s), not system-wide: only those tasks' events are in the trace; switches into other tasks are missing, so their runs, delays and CPU idle time between them are not measured (record with -a, or perf sched record)",
			how, strings.Join(r.meta.Cmdline, " "))
	}
}

// notSystemWide says how a perf command line limited what it recorded
// ("per process (-p)", "per thread (-t)", "per user (-u)", "per command"),
// or "" for a system-wide or CPU-wide recording, or a command line it does
// not know. Options are read up to "--" (perf's parse_options stops at the
// workload).
func notSystemWide(argv []string) string {
	if len(argv) < 2 || !strings.HasPrefix(filepath.Base(argv[0]), "perf") || argv[1] != "record" {
		return "" // perf sched/trace/kvm record pass -a themselves; other tools unknown
	}
	how := "per command"
	for _, a := range argv[2:] {
		if a == "--" {
			break
		}
		switch {
		case a == "--all-cpus" || strings.HasPrefix(a, "--cpu") || strings.HasPrefix(a, "-C"):
			return ""
		case len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a, 'a') && strings.Trim(a[1:], "abdgnNqRsTvwW") == "":
			return "" // -a, or -a among other boolean flags (-ag)
		case a == "-p" || strings.HasPrefix(a, "--pid"):
			how = "per process (-p)"
		case a == "-t" || strings.HasPrefix(a, "--tid"):
			how = "per thread (-t)"
		case a == "-u" || strings.HasPrefix(a, "--uid"):
			how = "per user (-u)"
		}
	}
	return how
}
