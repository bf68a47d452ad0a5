// Package duration parses the durations that traceview's command lines and
// parameters take ("2ms", "1.5s", "250us", "0"): Go's time.ParseDuration
// syntax, never negative. Every flag and parameter that takes a duration
// as text parses it here, so they accept the same spellings and say the
// same thing when they do not.
package duration

import (
	"errors"
	"fmt"
	"time"
)

// ErrNegative is wrapped by Parse for a negative duration.
var ErrNegative = errors.New("negative")

// Parse parses s, a decimal number with a unit suffix or a sequence of
// them (ns, us or µs, ms, s, m, h: time.ParseDuration), or "0". Errors
// name s and say what is wanted; a negative duration wraps ErrNegative.
func Parse(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q (want a number and a unit, such as 2ms or 1.5s)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q: %w", s, ErrNegative)
	}
	return d, nil
}

// ParseNS is Parse in nanoseconds, the unit of trace times.
func ParseNS(s string) (int64, error) {
	d, err := Parse(s)
	return int64(d), err
}
