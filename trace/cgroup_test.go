package trace

import (
	"slices"
	"strings"
	"testing"
)

func TestCgroupSettingsCheck(t *testing.T) {
	ok := []CgroupSettings{
		{Path: "/tv-a", Weight: 100, QuotaNS: -1, PeriodNS: DefaultCfsPeriod},
		{Path: "/tv-a", Weight: WeightFromShares(512), Shares: 512, QuotaNS: 20_000_000, PeriodNS: 100_000_000, BurstNS: 5_000_000},
		{Path: "/autogroup-3", Weight: AutogroupWeight(5), Nice: 5},
		{Path: "/x"}, // nothing known
		{Path: "/x", Weight: 100, QuotaNS: 20_000_000, PeriodNS: DefaultCfsPeriod, Source: "what-if"},
	}
	for _, s := range ok {
		if err := s.Check(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
	bad := map[string]CgroupSettings{
		"relative path":     {Path: "tv-a", Weight: 100},
		"weight high":       {Path: "/a", Weight: 10001},
		"weight negative":   {Path: "/a", Weight: -1},
		"shares low":        {Path: "/a", Shares: 1},
		"shares not weight": {Path: "/a", Shares: 2048, Weight: 100},
		"quota no period":   {Path: "/a", QuotaNS: 20_000_000},
		"quota -2":          {Path: "/a", QuotaNS: -2, PeriodNS: DefaultCfsPeriod},
		"period too long":   {Path: "/a", QuotaNS: 1, PeriodNS: 2 * MaxCfsPeriod},
		"burst negative":    {Path: "/a", BurstNS: -5},
		"nice 20":           {Path: "/autogroup-1", Nice: 20},
		"source escape":     {Path: "/a", Source: "what\x1b[2Jif"},
		"source long":       {Path: "/a", Source: strings.Repeat("x", MaxSettingsSource+1)},
	}
	for name, s := range bad {
		if s.Check() == nil {
			t.Errorf("%s: %+v passes Check", name, s)
		}
	}
}

func TestCgroupStat(t *testing.T) {
	a := CgroupStat{Path: "/a", Time: 10, NrPeriods: 5, NrThrottled: 2, ThrottledNS: 1000}
	b := CgroupStat{Path: "/a", Time: 20, NrPeriods: 15, NrThrottled: 9, ThrottledNS: 81000, NrBursts: 1, BurstNS: 7}
	d, ok := CgroupStatDelta(a, b)
	if want := (CgroupStat{Path: "/a", Time: 20, NrPeriods: 10, NrThrottled: 7, ThrottledNS: 80000, NrBursts: 1, BurstNS: 7}); !ok || d != want {
		t.Errorf("delta = %+v %v, want %+v", d, ok, want)
	}
	if _, ok := CgroupStatDelta(b, a); ok {
		t.Error("a delta of counters that went backwards is ok")
	}
	if a.Check() != nil || (CgroupStat{Path: "/a", NrPeriods: 1, NrThrottled: 2}).Check() == nil ||
		(CgroupStat{Path: "/a", ThrottledNS: 5}).Check() == nil {
		t.Error("CgroupStat.Check")
	}
}

func TestAutogroupWeight(t *testing.T) {
	for nice, want := range map[int]int{0: 100, -20: 8668, 19: 1, 5: 33, 40: 1} {
		if got := AutogroupWeight(nice); got != want {
			t.Errorf("AutogroupWeight(%d) = %d, want %d", nice, got, want)
		}
	}
}

// TestUnattributedV1Groups: a file that lists v1 groups (settings with
// shares) whose tasks' events all name cgroup v2 groups warns, naming
// them; a group named by the events, or one with a named group below it,
// does not; v2 groups (no shares) never do.
func TestUnattributedV1Groups(t *testing.T) {
	m := &Meta{
		Cgroups: map[uint64]string{1: "/", 7: "/user.slice", 1<<63 | 1: "/named/ctr"},
		CgroupSettings: []CgroupSettings{
			{Path: "/nu3", Shares: 512, Weight: 50, QuotaNS: 25_000_000, PeriodNS: 100_000_000},
			{Path: "/nu3", Shares: 512, Weight: 50, Time: 5},
			{Path: "/named", Shares: 1024, Weight: 100},
			{Path: "/named/ctr", Shares: 1024, Weight: 100},
			{Path: "/v2only", Weight: 100},
			{Path: "/a", Shares: 2048, Weight: 200},
		},
	}
	if got, want := UnattributedV1Groups(m), []string{"/a", "/nu3"}; !slices.Equal(got, want) {
		t.Errorf("UnattributedV1Groups = %q, want %q", got, want)
	}
	w, ok := UnattributedV1Warning(m)
	if !ok || w.Key != "cgroup-v1-unattributed" || !strings.Contains(w.Message, "cgroup v1 groups were recorded but tasks could not be attributed to them: /a, /nu3;") {
		t.Errorf("warning %+v, %v", w, ok)
	}
	m.CgroupSettings = m.CgroupSettings[2:4]
	if _, ok := UnattributedV1Warning(m); ok {
		t.Error("a warning although every v1 group is named")
	}
}

// TestAutogroupCgroupID: an autogroup path's id is bit 62 with its number;
// anything else, or a number reaching bit 62, has none.
func TestAutogroupCgroupID(t *testing.T) {
	for _, c := range []struct {
		path string
		id   uint64
		ok   bool
	}{
		{"/autogroup-7", 1<<62 | 7, true},
		{"/autogroup-0", 1 << 62, true},
		{"/autogroup-4611686018427387903", 1<<62 | (1<<62 - 1), true},
		{"/autogroup-4611686018427387904", 0, false}, // 2^62
		{"/autogroup-x", 0, false},
		{"/tv-a", 0, false},
		{"/", 0, false},
	} {
		if id, ok := AutogroupCgroupID(c.path); id != c.id || ok != c.ok {
			t.Errorf("AutogroupCgroupID(%q) = %#x, %v; want %#x, %v", c.path, id, ok, c.id, c.ok)
		}
	}
}
