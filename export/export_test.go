package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats" // the readers
)

// The four formats of `traceview export`, with what each takes.
func TestRegistry(t *testing.T) {
	if got, want := List(), "chrome-json, parquet, perfetto or pprof"; got != want {
		t.Errorf("List() = %q, want %q", got, want)
	}
	for _, c := range []struct {
		opt, want string
	}{{OptCompact, "perfetto"}, {OptKallsyms, "pprof"}, {OptTraceID, "parquet"}} {
		if got := Taking(c.opt); got != c.want {
			t.Errorf("Taking(%q) = %q, want %q", c.opt, got, c.want)
		}
	}
	for _, n := range Names() {
		f, err := Lookup(n)
		if err != nil || (f.Write == nil) == (f.WriteDir == nil) || !f.Filters && f.NoFilters == "" {
			t.Errorf("%s: err %v; want exactly one of Write and WriteDir, and a reason when it refuses filters", n, err)
		}
	}
	if _, err := Lookup("svg"); !errors.Is(err, ErrUnknown) || err.Error() != `unknown format "svg" (want chrome-json, parquet, perfetto or pprof)` {
		t.Errorf("Lookup(svg) = %v", err)
	}
}

// A new format is one Register call: here one that writes the number of
// events, through the same Lookup the command uses (6047 events in the
// shipped messaging.2cpu.perf.data).
func TestRegisterFormat(t *testing.T) {
	Register(Format{Name: "count", Description: "the number of events", Filters: true,
		Write: func(w io.Writer, src trace.Source, _ Options) error {
			evs, err := trace.ReadAll(src)
			fmt.Fprintln(w, len(evs))
			return err
		}})
	defer func() { mu.Lock(); delete(formats, "count"); mu.Unlock() }()
	f, err := Lookup("count")
	if err != nil {
		t.Fatal(err)
	}
	src, err := trace.Open("../testdata/traces/messaging.2cpu.perf.data")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out bytes.Buffer
	if err := f.Write(&out, src, Options{}); err != nil || out.String() != "6047\n" {
		t.Errorf("count wrote %q, %v; want 6047", out.String(), err)
	}
}
