package duration

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"0", 0, false},
		{"2ms", 2 * time.Millisecond, false},
		{"1.5s", 1500 * time.Millisecond, false},
		{"250us", 250 * time.Microsecond, false},
		{"250µs", 250 * time.Microsecond, false},
		{"1h2m", time.Hour + 2*time.Minute, false},
		{"", 0, true},
		{"2", 0, true},
		{"ms", 0, true},
		{"-1ms", 0, true},
		{"2 ms", 0, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			if (err != nil) != c.bad || got != c.want {
				t.Errorf("Parse(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.bad)
			}
			ns, _ := ParseNS(c.in)
			if ns != int64(c.want) {
				t.Errorf("ParseNS(%q) = %d, want %d", c.in, ns, int64(c.want))
			}
		})
	}
	if _, err := Parse("-2s"); !errors.Is(err, ErrNegative) {
		t.Errorf("Parse(-2s): %v, want ErrNegative", err)
	}
}

func ExampleParse() {
	d, _ := Parse("1.5ms")
	fmt.Println(d, int64(d))
	// Output: 1.5ms 1500000
}
