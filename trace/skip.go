package trace

// KindSkipper is implemented by sources that can leave out events of some
// kinds without decoding them, for consumers that ignore those kinds (a
// perf sched map needs only sched_switch and the task records; its input is
// mostly sched_stat_runtime and sched_waking). Skipping never changes the
// order or content of the events still delivered.
type KindSkipper interface {
	// SkipKinds makes later Next calls leave out events of these kinds.
	// Call it before the first Next.
	SkipKinds(kinds ...Kind)
}

// SkipKinds asks src to leave out events of the given kinds when it
// supports that (see KindSkipper) and reports whether it does. Consumers
// must still ignore those kinds: a source without support delivers them.
func SkipKinds(src Source, kinds ...Kind) bool {
	if s, ok := src.(KindSkipper); ok {
		s.SkipKinds(kinds...)
		return true
	}
	return false
}

// TaskRecorder is implemented by sources whose recorder writes task
// records of its own beside the sched tracepoints (perf.data:
// PERF_RECORD_FORK, PERF_RECORD_COMM with the exec flag, PERF_RECORD_EXIT)
// and that can deliver forks, execs and exits from those records, at their
// own times, instead of from the sched_process_fork/exec/exit tracepoints.
// perf's own reports act on the records only, so a consumer that must
// print what perf prints asks for them. An exit from a record has no Comm.
// By default such a source delivers each fact once, from the tracepoint
// when the trace holds it.
type TaskRecorder interface {
	// UseTaskRecords makes later Next calls deliver forks, execs and
	// exits from the recorder's task records only. Call it before the
	// first Next.
	UseTaskRecords()
}

// UseTaskRecords asks src to deliver forks, execs and exits from its
// recorder's task records (see TaskRecorder) and reports whether it does.
func UseTaskRecords(src Source) bool {
	if s, ok := src.(TaskRecorder); ok {
		s.UseTaskRecords()
		return true
	}
	return false
}

// RepeatKeeper is implemented by sources that drop an event recorded twice
// (the same time, kind, task and values on one CPU: perf.data's
// duplicate-event, a region written twice) and can deliver it as often as
// the file holds it, as perf's own reports read it.
type RepeatKeeper interface {
	// KeepRepeats makes later Next calls deliver repeated events too.
	// Call it before the first Next.
	KeepRepeats()
}

// KeepRepeats asks src to deliver events recorded twice as often as the
// file holds them (see RepeatKeeper) and reports whether it does. A
// consumer that must print what perf prints asks for it.
func KeepRepeats(src Source) bool {
	if s, ok := src.(RepeatKeeper); ok {
		s.KeepRepeats()
		return true
	}
	return false
}
