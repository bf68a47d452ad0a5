package textfmt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/traceview/traceview/trace"
)

// FuzzText feeds arbitrary text to Classify and the reader (seeded with the
// .in cases of testdata/cases.txtar): no panic, events in time order unless
// an out-of-order warning was counted, and every error wraps
// trace.ErrCorrupt or is an I/O error of the input.
func FuzzText(f *testing.F) {
	ar, err := txtar.ParseFile("testdata/cases.txtar")
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if strings.HasSuffix(file.Name, ".in") {
			f.Add(file.Data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Classify(data)
		r := NewReader(bytes.NewReader(data), "fuzz")
		var last int64
		for i := 0; ; i++ {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if ev.Kind == trace.KindInvalid {
				t.Fatalf("event %d has no kind", i)
			}
			if i > 0 && ev.Time < last && !hasWarning(r.Meta(), "text-out-of-order") {
				t.Fatalf("event %d at %d before %d without an out-of-order warning", i, ev.Time, last)
			}
			last = ev.Time
		}
	})
}

func hasWarning(m *trace.Meta, key string) bool {
	for _, w := range m.Warnings.List() {
		if w.Key == key {
			return true
		}
	}
	return false
}
