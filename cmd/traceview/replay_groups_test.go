package main

import (
	"strings"
	"testing"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
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

// TestReplayNoSessionsNote: pipe.perf.data (perf sched record, which
// reads no autogroups) holds one task outside the traced command that ran
// a tenth of the trace or more (appstreamcli, 34.9 ms of 103 ms): the
// model lines say the sessions are not known and how to place them
// (new-user pass 26 F13: a perf.data's sessions were replayed as peers
// with no word); fork-cpu1.perf.data has none, and no such line.
func TestReplayNoSessionsNote(t *testing.T) {
	for _, c := range []struct {
		file string
		want bool
	}{{"pipe.perf.data", true}, {"fork-cpu1.perf.data", false}} {
		out, stderr, code := runCLI(t, "replay", "-i", "../../testdata/traces/"+c.file, "--policy", "eevdf", "--no-self-replay")
		got := strings.Contains(out+stderr, "task groups: none known: the trace records no autogroup sessions (perf.data does not), so the 1 task outside the traced command")
		if code != 0 || got != c.want {
			t.Errorf("%s: exit %d, note %v, want %v:\n%s%s", c.file, code, got, c.want, out, stderr)
		}
	}
}

// TestGroupThrottleNoTime: a replay whose group ran out of quota in 6
// periods but was never picked while throttled predicts 0 ns throttled
// (v6.18's accounting starts at the first task throttled); the line says
// why beside the "0.000 ms" (new-user pass 34 F4 read "6 throttled
// periods of 22, 0.000 ms throttled" as a contradiction). A group with
// throttled time gets no such words.
func TestGroupThrottleNoTime(t *testing.T) {
	obs := &report.LatencyResult{Cgroups: []report.CgroupThrottle{{Path: "/q", QuotaNS: 20_000_000,
		Kernel: &trace.CgroupStat{NrPeriods: 23, NrThrottled: 18, ThrottledNS: 660_911_000}}}}
	var b strings.Builder
	writeGroupThrottle(&b, []policies.GroupStats{{Path: "/q", NrPeriods: 22, NrThrottled: 6}}, nil, obs, true)
	want := "  /q: predicted 6 throttled periods of 22, 0.000 ms throttled (out of quota in those periods, but no task of the group was picked before the refill"
	if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "recorded 18 of 23, 660.911 ms (its cpu.stat); ratio 0.000") {
		t.Errorf("got:\n%s\nwant a line starting %q", b.String(), want)
	}
	b.Reset()
	writeGroupThrottle(&b, []policies.GroupStats{{Path: "/q", NrPeriods: 22, NrThrottled: 6, ThrottledNS: 1}}, nil, obs, true)
	if strings.Contains(b.String(), "no task of the group was picked") {
		t.Errorf("throttled time 1 ns: %s", b.String())
	}
}

// TestGroupsJSONAutogroupShares: replay -o json gives an autogroup no
// cpu.shares (the replay's own Shares for it is the nice's load weight,
// 1024 at nice 0), in its changes neither; a v1 group keeps its shares,
// and the run's groups themselves are not changed (new-user pass 72 F6).
func TestGroupsJSONAutogroupShares(t *testing.T) {
	ag := replay.GroupInfo{}
	ag.Path, ag.Shares, ag.Weight = "/autogroup-3", 1024, 100
	ag.Changes = []trace.CgroupSettings{{Path: "/autogroup-3", Shares: 1024, Time: 5}}
	v1 := replay.GroupInfo{}
	v1.Path, v1.Shares = "/g", 512
	in := []replay.GroupInfo{ag, v1}
	out := groupsJSON(in)
	if out[0].Shares != 0 || out[0].Changes[0].Shares != 0 || out[0].Weight != 100 || out[1].Shares != 512 {
		t.Errorf("groupsJSON: %+v", out)
	}
	if in[0].Shares != 1024 || in[0].Changes[0].Shares != 1024 {
		t.Errorf("the run's groups changed: %+v", in)
	}
}

// TestSliceWhatIfNotModelled: --slice (a custom slice request,
// sched_attr.sched_runtime) is an EEVDF request: under cfs the run is what
// it is without it, so the warning and the policy line say so, where
// before the line read "with --slice hog=10ms" alone (new-user pass 74
// F3); under eevdf no such word.
func TestSliceWhatIfNotModelled(t *testing.T) {
	out, errOut, code := runCLI(t, "replay", "-i", "../../testdata/traces/nice.2cpu.perf.data", "--policy", "cfs,eevdf", "--slice", "hog=10ms", "--no-self-replay")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "warning: cfs has no custom slice") || strings.Contains(errOut, "warning: eevdf has no custom slice") {
		t.Errorf("stderr:\n%s", errOut)
	}
	if !strings.Contains(out, "policy cfs on 2 CPUs with --slice hog=10ms (--slice not modelled: cfs has no custom slice): ") ||
		!strings.Contains(out, "policy eevdf on 2 CPUs with --slice hog=10ms: ") {
		t.Errorf("policy lines:\n%s", out)
	}
}
