package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/trace"
)

// --topology sets llc_size on the policies that have it and do not set it,
// from the trace's caches or a number; policy keeps their defaults.
func TestWithTopology(t *testing.T) {
	specs, err := policies.ParseSpecs("eevdf,eevdf:llc_size=0,fifo")
	if err != nil {
		t.Fatal(err)
	}
	meta := &trace.Meta{LLCs: []string{"0-3", "4-7"}}
	for _, c := range []struct {
		topo, want, warn, bad string
	}{
		{"policy", "eevdf eevdf:llc_size=0 fifo", "", ""},
		{"auto", "eevdf:llc_size=4 eevdf:llc_size=0 fifo", "", ""},
		{"trace", "eevdf:llc_size=4 eevdf:llc_size=0 fifo", "", ""},
		{"llc=2", "eevdf:llc_size=2 eevdf:llc_size=0 fifo", "", ""},
		{"llc=-1", "", "", "want llc=N"},
		{"numa", "", "", "want policy, auto, trace or llc=N"},
	} {
		t.Run(c.topo, func(t *testing.T) {
			var errw bytes.Buffer
			got, err := withTopology(specs, c.topo, "", meta, &errw)
			if c.bad != "" {
				if err == nil || !strings.Contains(err.Error(), c.bad) {
					t.Errorf("error %v, want one saying %q", err, c.bad)
				}
				return
			}
			var names []string
			for _, s := range got {
				names = append(names, s.String())
			}
			if s := strings.Join(names, " "); err != nil || s != c.want {
				t.Errorf("specs %q (err %v), want %q", s, err, c.want)
			}
		})
	}
	if specs[0].String() != "eevdf" {
		t.Errorf("the specs given were changed: %s", specs[0])
	}
	var errw bytes.Buffer
	got, err := withTopology(specs, "trace", "t.data", &trace.Meta{}, &errw)
	if err != nil || got[0].String() != "eevdf" || !strings.HasPrefix(errw.String(), "warning: t.data: --topology trace: the trace does not describe") {
		t.Errorf("a trace without caches: %v, %v, %q; want the defaults and a warning", got[0], err, errw.String())
	}
	// auto on a trace without caches (the shared traces' VM reports none):
	// the defaults, silently.
	errw.Reset()
	got, err = withTopology(specs, "auto", "t.data", &trace.Meta{}, &errw)
	if err != nil || got[0].String() != "eevdf" || errw.Len() != 0 {
		t.Errorf("auto without caches: %v, %v, %q; want the defaults and no warning", got[0], err, errw.String())
	}
}
