//go:build linux

package ebpf

import (
	"testing"
	"time"
)

// TestLaggingRingBoundsHeld (issue 14 item 1): the drain reads a batch at
// a time from the ring whose mark is the least, so that the events the
// assembler holds back (read, but newer than the watermark, the least
// mark) stay within about a batch per CPU however unequal the CPUs'
// rates. Here CPU 0 writes a record every µs and CPU 1 one every 5 µs,
// each buffer holding a second of them, read in batches of 1,000
// records; reading the rings in turns held 80 % of CPU 1's second.
func TestLaggingRingBoundsHeld(t *testing.T) {
	const batch = 1000
	steps := []int64{1000, 5000} // ns between two records of a CPU
	held := func(pick func(marks []int64, done []bool, turn int) int) int {
		n := make([]int64, len(steps)) // records read per CPU
		total := []int64{1e9 / steps[0], 1e9 / steps[1]}
		marks := make([]int64, len(steps))
		done := make([]bool, len(steps))
		most := 0
		for turn := 0; ; turn++ {
			i := pick(marks, done, turn)
			if i < 0 {
				return most
			}
			n[i] = min(n[i]+batch, total[i])
			marks[i] = n[i] * steps[i]
			if n[i] == total[i] {
				done[i] = true
				marks[i] = 2e9 // the pass's start, after every record
			}
			w := min(marks[0], marks[1])
			h := 0
			for c := range steps {
				if r := n[c] - min(n[c], w/steps[c]); r > 0 {
					h += int(r)
				}
			}
			most = max(most, h)
		}
	}
	got := held(func(marks []int64, done []bool, _ int) int { return laggingRing(marks, done) })
	if got > 2*batch {
		t.Errorf("lagging ring first: %d events held, want at most %d", got, 2*batch)
	}
	turns := held(func(marks []int64, done []bool, turn int) int {
		for k := range done {
			if i := (turn + k) % len(done); !done[i] {
				return i
			}
		}
		return -1
	})
	t.Logf("events held: lagging ring first %d, in turns %d", got, turns)
}

// TestPollWait: the drain sleeps as long as the busiest buffer takes to
// fill a quarter at the rate of the last pass, within its bounds.
func TestPollWait(t *testing.T) {
	const perCPU = 16 << 20
	for _, tc := range []struct {
		name    string
		busiest int
		since   time.Duration
		want    time.Duration
	}{
		{"nothing written", 0, 50 * time.Millisecond, maxPollInterval},
		{"first pass", 1000, 0, maxPollInterval},
		{"slow", 1 << 20, 100 * time.Millisecond, maxPollInterval}, // a quarter in 400 ms
		{"a quarter in 40 ms", 1 << 20, 10 * time.Millisecond, 40 * time.Millisecond},
		{"storm", 8 << 20, 2 * time.Millisecond, minPollInterval}, // a quarter in 1 ms at most
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pollWait(tc.busiest, perCPU, tc.since, maxPollInterval); got != tc.want {
				t.Errorf("pollWait(%d, %d, %v, %v) = %v, want %v", tc.busiest, perCPU, tc.since, maxPollInterval, got, tc.want)
			}
		})
	}
}
