package trace

import "errors"

// ErrNoSchedEvents is returned (wrapped) by a reader at the end of a trace
// that recorded no scheduler event kind at all (for example `perf record
// -e cpu-clock`): there is nothing for a scheduler report to read, which
// `info` reports as a fact rather than a failure.
var ErrNoSchedEvents = errors.New("no sched tracepoints recorded (record with 'perf sched record')")

// Description is what a reader can tell about its container beyond Meta,
// for `traceview info`. Empty fields: the format has no such notion.
type Description struct {
	Mode      string // how the container was written, e.g. "file" or "pipe" (perf.data)
	ByteOrder string // "little-endian" or "big-endian", of the recording machine
	// Recorded lists the events the recorder was asked for, in its order
	// (perf.data's attributes, e.g. "sched:sched_switch"), and Samples the
	// records read so far of each.
	Recorded []string
	Samples  map[string]uint64
}

// Describer is implemented by readers that describe their container (see
// Description); wrappers such as Tap and the decompressors pass it on.
type Describer interface {
	Describe() Description
}

// Describe returns src's Description, and false when src has none.
func Describe(src Source) (Description, bool) {
	if d, ok := src.(Describer); ok {
		return d.Describe(), true
	}
	return Description{}, false
}
