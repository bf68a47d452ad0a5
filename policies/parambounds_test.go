package policies

import (
	"strings"
	"testing"
)

// TestParamBounds is the regression test for silent fallbacks: a value a
// policy would replace by its default (bfs:rr_interval=-5 ran with 6 ms
// while the header said -5), or clamp (cfs:nr_latency=0 to 1,
// newidle_idx=9 to 4, llc_size=-1 to "all CPUs"), is a ParseSpecs error
// naming the policy, the parameter and the accepted range; values at the
// ends of each range are accepted.
func TestParamBounds(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"bfs:rr_interval=-5", "policy bfs: rr_interval=-5: want an integer 1..1000"},
		{"bfs:rr_interval=0", "policy bfs: rr_interval=0: want an integer 1..1000"},
		{"bfs:rr_interval=-1", "policy bfs: rr_interval=-1: want an integer 1..1000"},
		{"bfs:rr_interval=1001", "policy bfs: rr_interval=1001: want an integer 1..1000"},
		{"sd:rr_interval=0", "policy sd: rr_interval=0: want a positive duration"},
		{"rr:rr_timeslice=0", "policy rr: rr_timeslice=0: want a positive duration"},
		{"fifo:rr_timeslice=0", "policy fifo: rr_timeslice=0: want a positive duration"},
		{"cfs:nr_latency=0", "policy cfs: nr_latency=0: want a positive integer"},
		{"cfs:newidle_idx=5", "policy cfs: newidle_idx=5: want an integer 0..4"},
		{"cfs:busy_idx=-1", "policy cfs: busy_idx=-1: want an integer 0..4"},
		{"eevdf:llc_size=-1", "policy eevdf: llc_size=-1: want an integer of at least 0"},
		{"cfs:llc_size=-2", "policy cfs: llc_size=-2: want an integer of at least 0"},
		{"o1:cache_hot_time=-1ms", "policy o1: cache_hot_time=-1ms: want a duration"},
		// Found by a review run: accepted before, and ran.
		{"eevdf:base_slice=0", "policy eevdf: base_slice=0: want a duration 100µs..100ms"},
		{"eevdf:base_slice=100h", "policy eevdf: base_slice=100h: want a duration 100µs..100ms"},
		{"cfs:latency=0", "policy cfs: latency=0: want a duration 100µs..1s"},
		{"cfs:wakeup_granularity=2s", "policy cfs: wakeup_granularity=2s: want a duration 0s..1s"},
		{"goodness24:proc_change_penalty=-999", "policy goodness24: proc_change_penalty=-999: want an integer of at least 0"},
	} {
		_, err := ParseSpecs(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSpecs(%q) = %v, want an error containing %q", c.spec, err, c.want)
		}
	}
	for _, ok := range []string{"bfs:rr_interval=1", "bfs:rr_interval=1000", "sd:rr_interval=1ns", "rr:rr_timeslice=1ms",
		"cfs:nr_latency=1,newidle_idx=0,busy_idx=4", "eevdf:llc_size=0", "o1:cache_hot_time=0",
		"eevdf:base_slice=100us", "eevdf:base_slice=100ms", "cfs:wakeup_granularity=0,latency=1s", "goodness24:proc_change_penalty=0"} {
		specs, err := ParseSpecs(ok)
		if err != nil {
			t.Errorf("ParseSpecs(%q): %v, want accepted", ok, err)
			continue
		}
		if _, err := specs[0].New(2); err != nil {
			t.Errorf("%s: New: %v", ok, err)
		}
	}
}
