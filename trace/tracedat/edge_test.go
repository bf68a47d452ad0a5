package tracedat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

type testFile struct {
	data    []byte
	switchF string
}

// handmade builds the common two-CPU file of the edge cases. Times (ns):
//
//	CPU 0, page ts 1000: switch 1:a -> 2:b at 1000+5 = 1005; a discarded
//	  record with delta 10 (1015); waking of 3 with delta 20 at 1035;
//	  exec of 2 (a 150-byte filename: a type_len-0 record) delta 5 at 1040.
//	CPU 1, page ts 1010: time extend of 3<<27 + 7, then switch 0 -> 3 with
//	  delta 0 at 1010 + 402653184 + 7 = 402654201; absolute stamp
//	  402655201, then switch 3 -> 0 (preempted) with delta 1 at 402655202.
func handmade(t testing.TB, cpu1Lost int64) []byte {
	swText, sw := testFormat(t, "sched_switch")
	wkText, wk := testFormat(t, "sched_waking")
	exText, ex := testFormat(t, "sched_process_exec")
	le := binary.LittleEndian
	swRec := func(prev, next int, pcomm, ncomm string, state int) []byte {
		return payload(sw, le, map[string]any{"common_pid": prev, "prev_comm": pcomm, "prev_pid": prev, "prev_prio": 120,
			"prev_state": state, "next_comm": ncomm, "next_pid": next, "next_prio": 120})
	}
	long := "/usr/bin/" + strings.Repeat("x", 140)
	cpu0 := page(1000, -1,
		evRecord(5, swRec(1, 2, "a", "b", 1)),
		evPadding(10, 20),
		evRecord(20, payload(wk, le, map[string]any{"common_pid": 2, "comm": "c", "pid": 3, "prio": 120, "target_cpu": 1})),
		evRecord(5, payload(ex, le, map[string]any{"common_pid": 2, "filename": long, "pid": 2, "old_pid": 2})),
	)
	cpu1 := page(1010, cpu1Lost,
		evExtend(3<<27+7),
		evRecord(0, swRec(0, 3, "swapper/1", "c", 0)),
		evAbs(402655201),
		evRecord(1, swRec(3, 0, "c", "swapper/1", 0x100)),
	)
	return buildV6([]string{swText, wkText, exText}, "1 a\n2 b\n", [][]byte{cpu0, cpu1})
}

// cpuOffset returns where the top buffer's data of cpu starts in data.
func cpuOffset(t testing.TB, data []byte, cpu int) int {
	f, err := parseFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return int(f.buffers[0].cpus[cpu].offset)
}

func readBytes(data []byte) ([]trace.Event, *trace.Meta, error) {
	r, err := Open(bytes.NewReader(data), Options{})
	if err != nil {
		return nil, nil, err
	}
	evs, err := trace.ReadAll(r)
	return evs, r.Meta(), err
}

func TestHandmade(t *testing.T) {
	evs, meta, err := readBytes(handmade(t, -2))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.String())
	}
	want := []string{
		// saved cmdlines, at the first event's time
		"0.000001005 [-01] comm: a:1",
		"0.000001005 [-01] comm: b:2",
		"0.000001005 [000] sched_switch: a:1 [120] S ==> b:2 [120]",
		"0.000001035 [000] comm: c:3",
		"0.000001035 [000] sched_waking: c:3 [120] CPU:001",
		"0.000001040 [000] sched_process_exec: " + strings.Repeat("x", 15) + ":2",
		"0.402654201 [001] sched_switch: swapper/1:0 [120] R ==> c:3 [120]",
		"0.402655202 [001] sched_switch: c:3 [120] R+ ==> swapper/1:0 [120]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if meta.NrCPUs != 2 || len(meta.Lost) != 0 || len(meta.Warnings.List()) != 0 {
		t.Errorf("meta %+v", meta)
	}
}

// TestLostPage: a page whose commit has RB_MISSED_EVENTS|RB_MISSED_STORED
// and 7 stored after the data gives a KindLost event of 7 at the page's
// time stamp (1010 ns on CPU 1), a Meta.Lost window and a warning; with
// only RB_MISSED_EVENTS the count is unknown (0) and the warning says so.
// The page is CPU 1's first: the window starts at the trace's first event
// (CPU 0's at 1005), where the lost events may have been (new-user pass 94
// F4: a window of no width at the page's stamp).
func TestLostPage(t *testing.T) {
	for _, c := range []struct {
		lost int64
		key  string
	}{{7, "tracedat-lost"}, {0, "tracedat-lost-unknown"}} {
		evs, meta, err := readBytes(handmade(t, c.lost))
		if err != nil {
			t.Fatal(err)
		}
		var lost []trace.Event
		for _, e := range evs {
			if e.Kind == trace.KindLost {
				lost = append(lost, e)
			}
		}
		if len(lost) != 1 || lost[0].Count != uint64(c.lost) || lost[0].CPU != 1 || lost[0].Time != 1010 {
			t.Errorf("lost %d: events %v", c.lost, lost)
		}
		if len(meta.Lost) != 1 || meta.Lost[0] != (trace.LostWindow{CPU: 1, Count: uint64(c.lost), Start: 1005, End: 1010}) {
			t.Errorf("lost %d: windows %+v", c.lost, meta.Lost)
		}
		found := false
		for _, w := range meta.Warnings.List() {
			found = found || w.Key == c.key
		}
		if !found {
			t.Errorf("lost %d: no %s warning in %+v", c.lost, c.key, meta.Warnings.List())
		}
	}
}

// TestBadInput: broken files give one-line errors wrapping
// trace.ErrCorrupt (or naming what is unsupported), never a panic (a file
// cut inside its data: TestTruncatedFile).
func TestBadInput(t *testing.T) {
	good := handmade(t, -2)
	cut := func(n int) []byte { return append([]byte(nil), good[:n]...) }
	corruptCommit := append([]byte(nil), good...)
	// Make the commit of CPU 0's first page larger than the page, with a
	// byte after its records that is not zero (else its records, which
	// parse, are read up to the zeroes: TestCommitRaised).
	binary.LittleEndian.PutUint64(corruptCommit[cpuOffset(t, good, 0)+8:], 5000)
	corruptCommit[cpuOffset(t, good, 0)+16+400] = 0xff
	cases := []struct {
		name    string
		data    []byte
		openErr string // substring of Open's error, "" if Open succeeds
		events  int    // events delivered before the error
		readErr string
	}{
		{"empty", nil, "not a trace.dat", 0, ""},
		{"magic", []byte("\x17\x08Dtracinh6\x00\x00\x08\x00\x10\x00\x00"), "not a trace.dat", 0, ""},
		{"version", append([]byte(Magic), "9\x00\x00\x08\x00\x10\x00\x00"...), "version 9", 0, ""},
		{"header", cut(30), "header", 0, ""},
		{"formats", cut(400), "event formats", 0, ""},
		{"commit", corruptCommit, "", 0, "CPU 0 page 1: commit says 5000 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Open(bytes.NewReader(c.data), Options{})
			if c.openErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.openErr) {
					t.Fatalf("Open error %v, want one containing %q", err, c.openErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("multi-line error %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			evs, err := trace.ReadAll(r)
			if err == nil || !strings.Contains(err.Error(), c.readErr) || !errors.Is(err, trace.ErrCorrupt) {
				t.Fatalf("read error %v, want ErrCorrupt containing %q", err, c.readErr)
			}
			if len(evs) != c.events {
				t.Errorf("%d events before the error, want %d", len(evs), c.events)
			}
		})
	}
}

// TestLenientSkipsBrokenCPU: with Options.Lenient (trace.ReadOptions.Lenient
// through the registry) a broken page (CPU 0's only one, its commit says 5000
// bytes) is skipped with a warning, and, as it was the CPU's last, the CPU
// is unobserved from the trace's first event (CPU 1's at 1010 + 3<<27 + 7 =
// 402654201 ns) to its last (the absolute 402655201 + 1 = 402655202 ns); the
// other CPU is still read. Without it the page is an error.
func TestLenientSkipsBrokenCPU(t *testing.T) {
	data := handmade(t, -2)
	binary.LittleEndian.PutUint64(data[cpuOffset(t, data, 0)+8:], 5000)
	data[cpuOffset(t, data, 0)+16+400] = 0xff // (after the records: no reading up to where they end)
	if _, _, err := readBytes(data); err == nil {
		t.Error("no error for the broken page without Lenient")
	}
	src, err := trace.ReadOptions{Lenient: true}.OpenReader(bytes.NewReader(data), "broken.dat")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	evs, err := trace.ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	meta := src.Meta()
	n := 0
	for _, e := range evs {
		if e.Kind == trace.KindSwitch && e.CPU == 1 {
			n++
		}
	}
	w := meta.Warnings.List()
	if n != 2 || len(w) != 2 || w[0].Key != "tracedat-corrupt-page" || w[1].Key != "tracedat-skipped-cpus" {
		t.Errorf("%d CPU 1 switches, warnings %+v", n, w)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 402654201, End: 402655202}}
	if !slices.Equal(meta.Lost, want) {
		t.Errorf("lost windows %#v, want %#v", meta.Lost, want)
	}
}

// TestOtherEvents: records of a format the reader does not decode (id
// 999, a sched_foo of the file's formats) are counted, not errors; a record
// whose id no format of the file has (998), or too short for its format's
// fields (id 999 on 8 bytes), is damage, counted lost (new-user passes 92
// F3 and 93 F1-F2: records misread after a damaged header, and ids
// changed).
func TestOtherEvents(t *testing.T) {
	swText, sw := testFormat(t, "sched_switch")
	fooText := regexp.MustCompile(`ID: \d+`).ReplaceAllString(strings.Replace(swText, "name: sched_switch", "name: sched_foo", 1), "ID: 999")
	rec := payload(sw, binary.LittleEndian, map[string]any{"prev_pid": 1, "next_pid": 2})
	other := append([]byte(nil), rec...)
	binary.LittleEndian.PutUint16(other, 999)
	bad := append([]byte(nil), rec...)
	binary.LittleEndian.PutUint16(bad, 998)
	short := append([]byte(nil), other[:8]...)
	data := buildV6([]string{swText, fooText}, "", [][]byte{page(100, -1, evRecord(1, other), evRecord(1, rec), evRecord(1, bad), evRecord(1, short))})
	evs, meta, err := readBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(withoutComm(evs)) != 1 {
		t.Errorf("events %v", evs)
	}
	w := meta.Warnings.List()
	if len(w) != 2 || w[0].Key != "tracedat-other-event" || w[0].Count != 1 || !strings.Contains(w[0].Message, "first: sched:sched_foo, id 999") ||
		w[1].Key != "tracedat-unknown-id" || w[1].Count != 2 || meta.LostInFile != 2 {
		t.Errorf("warnings %+v, lost in file %d; want one other event, two damaged ids, 2", w, meta.LostInFile)
	}
}

// TestTimeBackwards (issue 16 item 13): CPU 0's second page says ts 500
// (a damaged page header; the first page is at 1000). Its first record,
// b -> a at 500 + 5 = 505, is earlier than the CPU's previous event (the
// switch at 1005): dropped and counted. The next, a -> b with delta 1000 at
// 1505, is in order again and kept. Events: switches at 1005 and 1505; one
// tracedat-time-backwards warning.
func TestTimeBackwards(t *testing.T) {
	swText, sw := testFormat(t, "sched_switch")
	le := binary.LittleEndian
	swRec := func(prev, next int, pcomm, ncomm string) []byte {
		return payload(sw, le, map[string]any{"common_pid": prev, "prev_comm": pcomm, "prev_pid": prev, "prev_prio": 120,
			"prev_state": 1, "next_comm": ncomm, "next_pid": next, "next_prio": 120})
	}
	cpu0 := append(page(1000, -1, evRecord(5, swRec(1, 2, "a", "b"))),
		page(500, -1, evRecord(5, swRec(2, 1, "b", "a")), evRecord(1000, swRec(1, 2, "a", "b")))...)
	evs, meta, err := readBytes(buildV6([]string{swText}, "1 a\n2 b\n", [][]byte{cpu0}))
	if err != nil {
		t.Fatal(err)
	}
	var times []int64
	for _, e := range evs {
		if e.Kind == trace.KindSwitch {
			times = append(times, e.Time)
		}
	}
	if len(times) != 2 || times[0] != 1005 || times[1] != 1505 {
		t.Errorf("switch times %v, want [1005 1505]", times)
	}
	ws := meta.Warnings.List()
	if len(ws) != 1 || ws[0].Key != "tracedat-time-backwards" || ws[0].Count != 1 {
		t.Errorf("warnings %v", ws)
	}
}
