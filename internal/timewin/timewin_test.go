package timewin

import (
	"testing"
)

func TestParse(t *testing.T) {
	// A trace from 1 s to 11 s: its span is 10 s, so 10 % is 1 s.
	const first, last = 1_000_000_000, 11_000_000_000
	for _, c := range []struct {
		in   string
		want Window
		err  string
	}{
		{"", Window{}, ""},
		{"754.33,754.35", Window{754_330_000_000, 754_350_000_000}, ""},
		{"754.330001,754.350000", Window{754_330_001_000, 754_350_000_000}, ""},
		{"100.5,", Window{100_500_000_000, 0}, ""},
		{",200", Window{0, 200_000_000_000}, ""},
		{"1.000000001,1.000000001", Window{1_000_000_001, 1_000_000_001}, ""},
		// 10%/2: the second tenth, [1 s + 1 s, 1 s + 2 s - 1 ns].
		{"10%/2", Window{2_000_000_000, 2_999_999_999}, ""},
		// the last tenth reaches the last sample, its end open (100%).
		{"10%/10", Window{10_000_000_000, 0}, ""},
		// 0% is an open start: the first half from the trace's beginning.
		{"50%", Window{0, 5_999_999_999}, ""},
		{"0%-25%", Window{0, 3_499_999_999}, ""},
		// the whole trace, as with no window (new-user pass 34 F7).
		{"0%-100%", Window{}, ""},
		{"5%-100%", Window{1_500_000_000, 0}, ""},
		{"2,1", Window{}, "reversed window: start 2 s is after stop 1 s"},
		{"1.5", Window{}, "want START,STOP in seconds (either side may be empty, e.g. 100.5,) or a percentage such as 10%/2"},
		{"a,b", Window{}, `"a" is not a time in seconds (want e.g. 754.330000)`},
		{"-1,2", Window{}, `"-1" is not a time in seconds (want e.g. 754.330000)`},
		{"1.0123456789,", Window{}, `"1.0123456789" has more than 9 decimals (the trace clock counts ns)`},
		{"1,2,3,4", Window{}, "one window only (START,STOP), got several"},
		{"10%/11", Window{}, `"10%/11" is outside 0%-100% of the trace`},
		{"10%/0", Window{}, `"10%/0" is outside 0%-100% of the trace`},
		{"0%/1", Window{}, `"0%/1": the slice size must be above 0%`},
		{"x%/1", Window{}, `"x%" is not a percentage (want e.g. 10%)`},
		{"20%-10%", Window{}, `reversed window "20%-10%"`},
		{"10%/1,10%/3", Window{}, `one window only, got several ("10%/1,10%/3")`},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in, first, last)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("Parse(%q) error %v, want %q", c.in, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			}
		})
	}
}

func TestParsePercentWithoutSpan(t *testing.T) {
	if _, err := Parse("10%/2", 0, 0); err == nil {
		t.Fatal("a percentage window of a trace without first/last sample times parsed")
	}
}

func TestContains(t *testing.T) {
	w := Window{Start: 10, End: 20}
	for at, want := range map[int64]bool{9: false, 10: true, 20: true, 21: false} {
		if got := w.Contains(at); got != want {
			t.Errorf("[10,20].Contains(%d) = %v, want %v", at, got, want)
		}
	}
	if !(Window{Start: 10}).Contains(1 << 62) {
		t.Error("a window open at its end does not contain a late time")
	}
	if got := (Window{Start: 1_500_000_000}).String(); got != "1.500000000," {
		t.Errorf("String() = %q", got)
	}
}
