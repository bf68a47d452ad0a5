package trace

import "testing"

// TestOneCapture: the files of a record --rotate series (same host,
// recorder, command line and clock; consecutive spans) are one capture;
// two runs of the same command overlap nothing but differ in command line
// or overlap in time, and perf.data files are never taken for one.
func TestOneCapture(t *testing.T) {
	file := func(first, last int64) *Meta {
		return &Meta{Hostname: "vm", Tool: "traceview record (tp_btf)", Cmdline: []string{"traceview", "record", "--rotate", "1s", "-o", "rot.tv"},
			Clock: "CLOCK_MONOTONIC (bpf_ktime_get_ns)", FirstTime: first, LastTime: last}
	}
	other := file(3e9, 4e9)
	other.Cmdline = []string{"traceview", "record", "-o", "x.tv"}
	perf := file(3e9, 4e9)
	perf.Tool = "perf 6.12"
	for _, c := range []struct {
		name  string
		metas []*Meta
		want  bool
	}{
		{"series", []*Meta{file(2e9, 3e9), file(1e9, 2e9), file(3e9, 3.5e9)}, true},
		{"one file", []*Meta{file(1e9, 2e9)}, false},
		{"overlap", []*Meta{file(1e9, 2e9), file(1.5e9, 3e9)}, false},
		{"other command", []*Meta{file(1e9, 2e9), other}, false},
		{"perf", []*Meta{perf, perf}, false},
		{"nil", []*Meta{file(1e9, 2e9), nil}, false},
	} {
		if got := OneCapture(c.metas...); got != c.want {
			t.Errorf("%s: OneCapture = %v, want %v", c.name, got, c.want)
		}
	}
}
