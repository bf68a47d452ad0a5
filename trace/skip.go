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
