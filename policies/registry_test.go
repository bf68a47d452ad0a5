package policies

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSpecs(t *testing.T) {
	tests := []struct {
		in   string
		want []string // Spec.String of each
	}{
		{"as-traced", []string{"as-traced"}},
		{"as-traced,fifo,rr", []string{"as-traced", "fifo", "rr"}},
		{"rr:rr_timeslice=5ms,fifo", []string{"rr:rr_timeslice=5ms", "fifo"}},
		{" fifo , rr:rr_timeslice=1ms ", []string{"fifo", "rr:rr_timeslice=1ms"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			specs, err := ParseSpecs(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range specs {
				got = append(got, s.String())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("specs (-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{"", "nosuch", "nosuch:x=1", "rr:rr_timeslice=fast", "rr:NO_SUCH", "fifo:bogus=1"} {
		if _, err := ParseSpecs(bad); err == nil {
			t.Errorf("ParseSpecs(%q): no error", bad)
		}
	}
	if _, err := ParseSpecs("nosuch"); !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("unknown policy error %v does not wrap ErrUnknownPolicy", err)
	}
	s, _ := ParseSpecs("rr:rr_timeslice=5ms")
	if got := s[0].Values.Duration("rr_timeslice", 1); got != 5_000_000 {
		t.Errorf("rr_timeslice = %d ns, want 5000000", got)
	}
}

func TestCalcDelta(t *testing.T) {
	// calc_delta_fair: delta × 1024 / weight through the inverse weight.
	// nice 5 (weight 335): inv = floor(2^32/335) = 12820798;
	// 1e6 × 12820798 × 1024 >> 32 = 3056716 (exact quotient 3056716.4).
	tests := []struct{ delta, weight, want int64 }{
		{1_000_000, 1024, 1_000_000},
		{1_000_000, 335, 3_056_716},
		{-1_000_000, 335, -3_056_716},
		// nice -5 (3121): inv = 1376151; 4e6 × 1376151 × 1024 >> 32 = 1312399
		// (exact quotient 1312399.9: the inverse truncates, as in the kernel).
		{4_000_000, 3121, 1_312_399},
	}
	for _, tc := range tests {
		if got := CalcDelta(tc.delta, tc.weight); got != tc.want {
			t.Errorf("CalcDelta(%d, %d) = %d, want %d", tc.delta, tc.weight, got, tc.want)
		}
	}
	if Weight(0) != 1024 || Weight(5) != 335 || Weight(-5) != 3121 || Weight(-30) != 88761 || Weight(40) != 15 {
		t.Error("Weight table does not match sched_prio_to_weight")
	}
}

func TestCPUList(t *testing.T) {
	s, err := ParseCPUList("0-2,5")
	if err != nil || s != 0b100111 || s.String() != "0-2,5" || s.Count() != 4 || s.First() != 0 {
		t.Errorf("ParseCPUList(0-2,5) = %b (%s), %v", s, s, err)
	}
	for _, bad := range []string{"", "x", "3-1", "64"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q): no error", bad)
		}
	}
}

func ExampleParseSpecs() {
	specs, err := ParseSpecs("as-traced,rr:rr_timeslice=10ms")
	if err != nil {
		panic(err)
	}
	for _, s := range specs {
		fmt.Println(s.Info.Name, s.Values.Duration("rr_timeslice", RRTimeslice))
	}
	// Output:
	// as-traced 100000000
	// rr 10000000
}
