package perfdata

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/traceview/traceview/trace"
)

// TestCutRound cuts messaging.2cpu.perf.data inside its data section
// (offset 1224, 673760 bytes). perf wrote it in three rounds: FINISHED_ROUND
// records at offsets 28808 and 29136 end two short passes (CPU 0 and CPU 1
// both in each; the largest time at the second is 635.164688993 s, CPU 1's
// last 635.164688903 s), and the third pass, up to 674976, holds CPU 0's
// buffer (3301 samples from offset 29728, to 635.571071742 s) and then CPU
// 1's (2416 samples from offset 405424, to 635.571066141 s). Offsets and
// times from walking the records (sample_type 0x10587: time at byte 32 of a
// sample, CPU at 40).
//
//   - cut at 200000 (inside the sample at 199936), in CPU 0's part: the
//     third round's 1480 events (1461 samples, 3 COMM and 16 EXIT
//     records; its 160 FORK records repeat sched_process_fork samples)
//     hold CPU 0 only, to 635.367853888 s; CPU 1 is unobserved from
//     635.164688903 s to there.
//   - cut at 500000 (inside the sample at 499920), in CPU 1's part: 4244
//     events (4137 samples, 3 COMM, 104 EXIT) of both CPUs; CPU 0's last
//     at 635.571071742 s, CPU 1's at 635.357378665 s: CPU 1 is unobserved
//     in between.
//   - sched-pipe-mode.data (pipe mode; its second round, from offset 70724
//     to 99812, holds CPU 0's buffer from 70732, then CPU 1's from 96828)
//     cut at 90000 (inside the sample at 89980): 172 samples of CPU 0 to
//     919.431551621 s; CPU 1, last at 919.427762572 s (the first round's
//     largest time), is unobserved from there.
//   - the cut at 200000 with the three FINISHED_ROUND records made
//     FINISHED_INIT (no round marks): one round of 1494 events (the 1480,
//     the first passes' 13 samples and perf's FORK record from before the
//     first sample, which a cut file keeps since new-user pass 61 F4); CPUs
//     other than those seen may be missing, and CPU 1 is unobserved as in
//     the first case.
//
// In every case no CPU seen is silently absent from a time span: each
// one's events or its unobserved window reach the last event read.
func TestCutRound(t *testing.T) {
	useRecordingTracefs(t)
	b := readFile(t, "../../testdata/traces/messaging.2cpu.perf.data")
	noRounds := append([]byte(nil), b...)
	for _, off := range []int{28808, 29136, 674976} {
		if binary.LittleEndian.Uint32(noRounds[off:]) != recFinishedRound {
			t.Fatalf("no FINISHED_ROUND at offset %d", off)
		}
		binary.LittleEndian.PutUint32(noRounds[off:], recFinishedInit)
	}
	pipeMode := readFile(t, pipeTrace)
	for _, c := range []struct {
		name string
		data []byte
		warn string
		lost []trace.LostWindow
	}{
		{"in CPU 0's part", b[:200000],
			"the trace is truncated there; the 1480 events after the last complete round (FINISHED_ROUND at 635.164688 s) come from a round perf was writing when the input ends: perf writes each CPU's buffer in turn, so from 635.164688 s to 635.367853 s the trace holds CPU 0 but not CPU 1 (seen before), and the buffer of CPU 0 is cut; the time of CPU 1 from its last event to 635.367853 s is unobserved (not idle) and delays waiting there are not measured",
			[]trace.LostWindow{{CPU: 1, Start: 635164688903, End: 635367853888}}},
		{"in CPU 1's part", b[:500000],
			"the 4244 events after the last complete round (FINISHED_ROUND at 635.164688 s) come from a round perf was writing when the input ends: perf writes each CPU's buffer in turn, so from 635.164688 s to 635.571071 s the trace holds CPU 0-1, and the buffer of CPU 1 is cut; the time of CPU 1 from its last event to 635.571071 s is unobserved (not idle)",
			[]trace.LostWindow{{CPU: 1, Start: 635357378665, End: 635571071742}}},
		{"pipe mode", pipeMode[:90000],
			"the 172 events after the last complete round (FINISHED_ROUND at 919.427762 s) come from a round perf was writing when the input ends: perf writes each CPU's buffer in turn, so from 919.427762 s to 919.431551 s the trace holds CPU 0 but not CPU 1 (seen before), and the buffer of CPU 0 is cut; the time of CPU 1 from its last event to 919.431551 s is unobserved (not idle)",
			[]trace.LostWindow{{CPU: 1, Start: 919427762572, End: 919431551621}}},
		{"no round marks", noRounds[:200000],
			"the input holds no FINISHED_ROUND record (perf's whole recording was one round, 1494 events, cut short): perf writes each CPU's buffer in turn, so CPUs other than CPU 0-1 may be missing entirely, and the buffer of CPU 0 is cut; the time of CPU 1 from its last event to 635.367853 s is unobserved (not idle)",
			[]trace.LostWindow{{CPU: 1, Start: 635164688903, End: 635367853888}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, pipe := range []bool{false, true} {
				evs, r, err := drain(c.data, pipe)
				if err != nil {
					t.Fatalf("pipe %v: %v", pipe, err)
				}
				var msgs []string
				found := false
				for _, w := range r.Meta().Warnings.List() {
					msgs = append(msgs, w.Key+": "+w.Message)
					found = found || w.Key == "truncated" && strings.Contains(w.Message, c.warn)
				}
				if !found {
					t.Errorf("pipe %v: no truncated warning %q in\n%s", pipe, c.warn, strings.Join(msgs, "\n"))
				}
				if d := cmp.Diff(c.lost, r.Meta().Lost); d != "" {
					t.Errorf("pipe %v: lost windows (-want +got):\n%s", pipe, d)
				}
				checkNoSilentCPU(t, evs, r.Meta().Lost)
			}
			// A reader asked to skip every kind but sched_switch (as map
			// reads) sees the same cut round and windows (new-user pass
			// 49 F5: map said 3709 events and two windows where the
			// others said 11198 and one).
			r, err := NewReader(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			r.SkipKinds(trace.KindWaking, trace.KindWakeup, trace.KindWakeupNew, trace.KindMigrate, trace.KindRuntime, trace.KindFork, trace.KindExit)
			for {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			if d := cmp.Diff(c.lost, r.Meta().Lost); d != "" {
				t.Errorf("skipping kinds: lost windows (-want +got):\n%s", d)
			}
			// A reader taking forks, execs and exits from the records (as
			// timehist and map read) counts the same events after the
			// round: a FORK record that repeats a sched_process_fork
			// sample counts once (new-user pass 60 F5: 4694 against 4533,
			// the difference the file's forks).
			tr, err := NewReader(bytes.NewReader(c.data))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			tr.UseTaskRecords()
			for {
				if _, err := tr.Next(); err != nil {
					break
				}
			}
			if !slices.ContainsFunc(tr.Meta().Warnings.List(), func(w trace.Warning) bool {
				return w.Key == "truncated" && strings.Contains(w.Message, c.warn)
			}) {
				t.Errorf("task records: no truncated warning %q in %+v", c.warn, tr.Meta().Warnings.List())
			}
		})
	}
}

// checkNoSilentCPU fails when a CPU with events has neither an event at
// the last event time nor an unobserved window (Count 0) from its last
// event to there, with a KindLost event at the end.
func checkNoSilentCPU(t *testing.T, evs []trace.Event, lost []trace.LostWindow) {
	t.Helper()
	last, end := map[trace.CPU]int64{}, int64(0)
	lostAt, lostEnd := map[trace.CPU]int64{}, map[trace.CPU]int64{}
	for _, e := range evs {
		if e.CPU < 0 {
			continue
		}
		end = max(end, e.Time)
		if e.Kind == trace.KindLost {
			// At the CPU's last record, the window's length in Runtime
			// (known ahead: trace.Event.Runtime).
			lostAt[e.CPU], lostEnd[e.CPU] = e.Time, e.Time+e.Runtime
			continue
		}
		last[e.CPU] = e.Time
	}
	for cpu, t0 := range last {
		if t0 == end {
			continue
		}
		ok := false
		for _, w := range lost {
			ok = ok || w.CPU == cpu && w.Count == 0 && w.Start <= t0 && w.End == end
		}
		if !ok || lostAt[cpu] != t0 || lostEnd[cpu] != end {
			t.Errorf("CPU %d: last event at %d, trace ends at %d, and no unobserved window covers the gap (windows %v)", cpu, t0, end, lost)
		}
	}
}

// cutRoundLost builds a pipe-mode stream: switch records of task 10 on
// CPU (cpu, µs) in order, a FINISHED_ROUND after each index in rounds, then
// the switches 10 -> 11 at 200 µs and 11 -> 10 at 300 µs on CPU 0 and a
// record cut short; it returns the KindLost events of CPU 1 read from it.
func cutRoundLost(t *testing.T, at [][2]int64, rounds ...int) []trace.Event {
	t.Helper()
	p := newPipeBuilder()
	p.comm(10, "a")
	p.comm(11, "b")
	body := make([]byte, 8)
	binary.LittleEndian.PutUint32(body[0:], 11)
	binary.LittleEndian.PutUint32(body[4:], 11)
	for i, a := range at {
		p.kernel(recSwitchCPUWide, miscSwitchOut, body, 10, uint64(a[1])*1000, uint32(a[0]))
		for _, r := range rounds {
			if r == i {
				p.record(recFinishedRound, 0, nil)
			}
		}
	}
	p.switchOut(200_000, 10, 11, true)
	p.switchOut(300_000, 11, 10, true)
	cut := append(p.b.Bytes(), 9, 0, 0, 0, 0, 0, 40, 0, 1, 2) // a record of 40 bytes, 10 there
	evs, _, err := drain(cut, true)
	if err != nil {
		t.Fatal(err)
	}
	var lost []trace.Event
	for _, e := range evs {
		if e.Kind == trace.KindLost && e.CPU == 1 {
			lost = append(lost, e)
		}
	}
	return lost
}

// TestCutRoundLastDelivered: when a cut round's CPU 1 had its last event
// delivered last (the round rule released up to exactly its time), its
// window still starts there, with its length, so the delays waiting
// meanwhile are known lossy when they end. It came at the trace's end,
// after them (a cut perf.data: a 250 ms delay on CPU 0 while CPU 1 was
// unobserved, not lossy). Hand-made stream: CPU 0 at 90 µs, CPU 1 at
// 100 µs, two FINISHED_ROUNDs (the round rule lets both out), CPU 0 at
// 200 and 300 µs, then a record cut short: CPU 1 is unobserved from
// 100 µs to 300 µs (the trace's last event: a switch's OUT and IN records
// make one event, at the OUT's time).
func TestCutRoundLastDelivered(t *testing.T) {
	lost := cutRoundLost(t, [][2]int64{{0, 90}, {1, 100}}, 1, 1)
	if len(lost) != 1 || lost[0].Time != 100_000 || lost[0].Runtime != 200_000 {
		t.Errorf("CPU 1's lost events %v, want one at 100000 ns with Runtime 200000", lost)
	}
}

// TestCutRoundAfterDelivered: when events after the cut CPU's last one
// have left already (the round rule let CPU 0's out up to 150 µs, CPU 1's
// last event being at 100 µs), the window is said from the earliest time
// still to come, 150 µs, to the trace's last, 300 µs: the delays waiting
// after it are known lossy when they end (it came at 300 µs, after them:
// a cut file printed sch delays up to 13 ms after its last round).
func TestCutRoundAfterDelivered(t *testing.T) {
	lost := cutRoundLost(t, [][2]int64{{0, 90}, {1, 100}, {0, 150}, {0, 160}}, 2, 3)
	if len(lost) != 1 || lost[0].Time != 150_000 || lost[0].Runtime != 150_000 {
		t.Errorf("CPU 1's lost events %v, want one at 150000 ns with Runtime 150000", lost)
	}
}
