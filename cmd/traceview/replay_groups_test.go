package main

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/replay"
)

// TestAutogroupFlagNames: --autogroup SEL=NAME takes a session as the
// task-group lines print it, /autogroup-578, or as autogroup-578 or 578:
// all name /autogroup-578 (new-user pass 26 F9: the first was refused and
// the second made /autogroup-autogroup-578); a name with a slash inside
// is refused with what NAME may be.
func TestAutogroupFlagNames(t *testing.T) {
	for _, v := range []string{"/autogroup-578", "autogroup-578", "578"} {
		g := groupFlags{autogroup: []string{"pid:7=" + v}}
		var cfg replay.Config
		if err := g.apply(&cfg); err != nil || len(cfg.Overrides) != 1 || cfg.Overrides[0].Cgroup == nil || *cfg.Overrides[0].Cgroup != "/autogroup-578" {
			t.Errorf("%s: %v, overrides %+v; want one to /autogroup-578", v, err, cfg.Overrides)
		}
	}
	g := groupFlags{autogroup: []string{"pid:7=a/b"}}
	if err := g.apply(&replay.Config{}); err == nil || !strings.Contains(err.Error(), "(578, or /autogroup-578)") {
		t.Errorf("a/b: %v; want the error to say what NAME may be", err)
	}
}
