package main

import "testing"

// TestGroupRuntimeIsItsRows: with run time from the switches, a group's
// line of latency --by cgroup holds exactly its rows' run time and delays
// (README), also where a run whose switch-in the trace lacks is dated
// (Recovered) before the end of the wait before it: the row counts it from
// the wait's end, and so does the group (new-user pass 27 F4:
// testdata/traces/quota-recovered.tv's /t27svc read 0.147 ms above its
// rows).
func TestGroupRuntimeIsItsRows(t *testing.T) {
	type row struct {
		Comm       string `json:"comm"`
		Runtime    int64  `json:"runtime_ns"`
		Count      int64  `json:"count"`
		Source     string `json:"runtime_source"`
		Unrecorded int64  `json:"unrecorded_switches"`
	}
	type doc struct {
		Groups []struct {
			Key    string `json:"key"`
			Tasks  []row  `json:"tasks"`
			Cgroup *struct {
				Runtime int64 `json:"runtime_ns"`
				Delays  int64 `json:"delays"`
			} `json:"cgroup"`
		} `json:"groups"`
	}
	d := cliJSON[doc](t, "latency", "-i", "../../testdata/traces/quota-recovered.tv", "--by", "cgroup", "-p", "-o", "json")
	checked, recovered := 0, int64(0)
	for _, g := range d.Groups {
		if g.Cgroup == nil {
			continue
		}
		var run, n int64
		for _, r := range g.Tasks {
			if r.Source != "switches" {
				t.Fatalf("%s: row %s has run time from %s", g.Key, r.Comm, r.Source)
			}
			run += r.Runtime
			n += r.Count
			if g.Key == "/t27svc" {
				recovered += r.Unrecorded
			}
		}
		if run != g.Cgroup.Runtime || n != g.Cgroup.Delays {
			t.Errorf("%s: group %d ns, %d delays; its rows %d ns, %d delays", g.Key, g.Cgroup.Runtime, g.Cgroup.Delays, run, n)
		}
		checked++
	}
	if checked < 3 || recovered == 0 {
		t.Errorf("%d groups checked, %d switch-ins the trace lacks in /t27svc: want /t27svc, /t27batch, the autogroup and such a switch-in", checked, recovered)
	}
}
