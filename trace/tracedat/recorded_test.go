package tracedat

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/internal/testtraces"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/textfmt"
)

func decodeBytes(t testing.TB, b []byte) ([]trace.Event, *trace.Meta) {
	t.Helper()
	r, err := Open(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	if err != nil {
		t.Fatalf("after %d events: %v", len(evs), err)
	}
	return evs, r.Meta()
}

// TestRecordedVersions decodes one recording in the three shapes trace-cmd
// writes (extract's v7 with zstd, convert --compression none, convert
// --file-version 6): the three event streams must be identical, and equal,
// line by line, to trace-cmd report's text of the v7 file. The recording
// was extracted from an instance (trace-cmd extract -B), so the files hold
// an empty top buffer and the instance "tv-helperE", which is read.
func TestRecordedVersions(t *testing.T) {
	report, err := trace.ReadAll(textfmt.NewReader(bytes.NewReader(load(t, "pipe-multi.report.txt.gz")), textfmt.FormatTraceCmd))
	if err != nil {
		t.Fatal(err)
	}
	report = withoutComm(report)
	var first []trace.Event
	for _, name := range []string{"pipe-multi.v7zstd.dat", "pipe-multi.v7none.dat.gz", "pipe-multi.v6.dat.gz"} {
		t.Run(name, func(t *testing.T) {
			evs, meta := decodeBytes(t, load(t, name))
			got := withoutComm(evs)
			if len(got) != len(report) {
				t.Errorf("%d events, trace-cmd report has %d", len(got), len(report))
			}
			bad := 0
			for i := 0; i < min(len(got), len(report)); i++ {
				if g, w := pluginView(got[i]), pluginView(report[i]); g != w {
					if bad++; bad <= 3 {
						t.Errorf("event %d:\n got %v\nwant %v", i, g, w)
					}
				}
			}
			if meta.Arch != "x86_64" || meta.NrCPUs != 2 {
				t.Errorf("arch %q, %d CPUs", meta.Arch, meta.NrCPUs)
			}
			if first == nil {
				first = evs
			} else if d := cmp.Diff(first, evs); d != "" {
				t.Errorf("differs from the v7 zstd file:\n%s", d)
			}
		})
	}
}

// TestFtraceTextMatchesTraceDat checks the ftrace text reader against the
// trace.dat reader on the same ring buffer: pipe-multi.ftrace.txt is the
// instance's "trace" file, read just before trace-cmd extract took the same
// pages. ftrace prints times rounded to the microsecond
// (kernel/trace/trace.c ns2usecs adds 500 ns); everything else, including
// the irq context of wakeups (the flags column vs common_flags) and the
// preempted "R+" state, must match.
func TestFtraceTextMatchesTraceDat(t *testing.T) {
	text, err := trace.ReadAll(textfmt.NewReader(bytes.NewReader(load(t, "pipe-multi.ftrace.txt.gz")), textfmt.FormatFtrace))
	if err != nil {
		t.Fatal(err)
	}
	text = withoutComm(text)
	evs, _ := decodeBytes(t, load(t, "pipe-multi.v7zstd.dat"))
	dat := withoutComm(evs)
	// The instance's buffer held 10089 events: the text's header says
	// "entries-in-buffer/entries-written: 10089/10089", and per_cpu stats
	// (pipe-multi.meta.txt) 5156 + 4933 entries, overrun 0.
	if len(dat) != 10089 {
		t.Errorf("trace.dat: %d sched events, the buffer held 10089", len(dat))
	}
	if len(dat) != len(text) {
		t.Errorf("trace.dat %d events, ftrace text %d", len(dat), len(text))
	}
	bad := 0
	for i := 0; i < min(len(dat), len(text)); i++ {
		g := dat[i]
		g.Time = (g.Time + 500) / 1000 * 1000
		w := text[i]
		if g.Kind == trace.KindWakeupNew {
			w.FromIRQ = g.FromIRQ // tpformat leaves wakeup_new's irq context unknown
		}
		if g != w {
			if bad++; bad <= 3 {
				t.Errorf("event %d:\n dat %v (cur %d irq %d)\ntext %v (cur %d irq %d)", i, g, g.CurTID, g.FromIRQ, w, w.CurTID, w.FromIRQ)
			}
		}
	}
	if bad > 3 {
		t.Errorf("%d events differ", bad)
	}
}

// load returns a testdata/traces file's bytes, gunzipped when it ends in .gz.
func load(t testing.TB, name string) []byte {
	t.Helper()
	return testtraces.Load(t, filepath.Join(testtraces.Repo(t), name))
}
