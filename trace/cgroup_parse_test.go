package trace

import (
	"strings"
	"testing"
)

// TestParseCgroupSettings: --recorded-cgroup values as cgroup files state
// them (v2 cpu.weight and cpu.max with durations or µs, v1 cpu.shares
// mapped as the kernel maps them: 2048 -> 200) and the one-line errors.
func TestParseCgroupSettings(t *testing.T) {
	for _, c := range []struct {
		in   string
		want CgroupSettings
	}{
		{"/tv-a:weight=300", CgroupSettings{Path: "/tv-a", Weight: 300}},
		{"/tv-a:shares=2048", CgroupSettings{Path: "/tv-a", Weight: 200, Shares: 2048}},
		{"/svc:max=25ms/100ms", CgroupSettings{Path: "/svc", QuotaNS: 25_000_000, PeriodNS: 100_000_000}},
		{"/svc:max=25000 100000", CgroupSettings{Path: "/svc", QuotaNS: 25_000_000, PeriodNS: 100_000_000}},
		{"/svc:max=max", CgroupSettings{Path: "/svc", QuotaNS: -1}},
		{"/svc:max=50ms,burst=10ms,weight=50", CgroupSettings{Path: "/svc", QuotaNS: 50_000_000, BurstNS: 10_000_000, Weight: 50}},
	} {
		got, err := ParseCgroupSettings(c.in)
		if err != nil || got != c.want {
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"/svc", "want PATH:weight=W"},
		{":max=1ms/2ms", "want PATH:weight=W"},
		{"/svc:weight=0", "want 1..10000"},
		{"/svc:shares=1", "want 2..262144"},
		{"/svc:max=bogus", "want max or QUOTA/PERIOD"},
		{"/svc:max=100us/100ms", "at least 1ms"},
		{"/svc:max=10ms/5s", "1ms..1s"},
		{"/svc:color=red", "unknown key"},
		{"/svc:weight", "want KEY=VALUE"},
	} {
		_, err := ParseCgroupSettings(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line with %q", c.in, err, c.want)
		}
	}
}

// TestParseCPUMaxZero: a zero quota is refused with the reason, not as a
// malformed value (new-user pass 20 F5); "max" and 25ms/100ms parse.
func TestParseCPUMaxZero(t *testing.T) {
	if _, _, err := ParseCPUMax("0ms/100ms"); err == nil || !strings.Contains(err.Error(), "a quota of 0ms gives the group no CPU time") {
		t.Errorf("0ms/100ms: %v", err)
	}
	if q, p, err := ParseCPUMax("25ms/100ms"); err != nil || q != 25_000_000 || p != 100_000_000 {
		t.Errorf("25ms/100ms: %d %d %v", q, p, err)
	}
	if q, _, err := ParseCPUMax("max"); err != nil || q != -1 {
		t.Errorf("max: %d %v", q, err)
	}
}
