package tracedat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

// damageTrace builds a one-CPU trace.dat of pages and reads it (readTrace).
func damageTrace(t *testing.T, lenient bool, pages ...[]byte) (switches, losses []int64, meta *trace.Meta, err error) {
	t.Helper()
	return readTrace(t, switchTrace(t, bytes.Join(pages, nil)), lenient)
}

// switchTrace builds a v6 trace.dat of sched_switch pages, one run of
// pages per CPU.
func switchTrace(t *testing.T, cpus ...[]byte) []byte {
	t.Helper()
	swText, _ := testFormat(t, "sched_switch")
	return buildV6([]string{swText}, "1 a\n2 b\n", cpus)
}

// readTrace reads the trace.dat data (lenient as asked): the times of its
// sched_switch events and of its KindLost events, its Meta and the read
// error.
func readTrace(t *testing.T, data []byte, lenient bool) (switches, losses []int64, meta *trace.Meta, err error) {
	t.Helper()
	r, err := Open(bytes.NewReader(data), Options{Lenient: lenient})
	if err != nil {
		t.Fatal(err)
	}
	evs, err := trace.ReadAll(r)
	for _, e := range evs {
		switch e.Kind {
		case trace.KindSwitch:
			switches = append(switches, e.Time)
		case trace.KindLost:
			losses = append(losses, e.Time)
		}
	}
	return switches, losses, r.Meta(), err
}

// sw is a sched_switch record (a -> b) with time delta delta.
func sw(t *testing.T, delta uint32) []byte {
	_, f := testFormat(t, "sched_switch")
	return evRecord(delta, payload(f, binary.LittleEndian, map[string]any{"common_pid": 1, "prev_comm": "a", "prev_pid": 1, "prev_prio": 120,
		"prev_state": 1, "next_comm": "b", "next_pid": 2, "next_prio": 120}))
}

// TestPageTimeAhead (new-user pass 91 F5): page 2's time stamp is 5 s
// ahead (5000002000 instead of 2000). Its events (5000002005, 5000002010)
// run past page 3's stamp (3000) by 4999999010 ns, and page 2 jumps
// 4999990995 ns from the CPU's last kept event (1010): the page is the
// damaged one (2 x jump >= overshoot). It is dropped, its 2 events counted
// lost in the file, and the CPU is unobserved from 1010 to page 3's 3000
// (a KindLost there); page 3's event at 3005 is kept. Before, page 2 was
// kept and every later event of the CPU dropped as earlier than it.
func TestPageTimeAhead(t *testing.T) {
	sws, losses, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5)),
		page(5000002000, -1, sw(t, 5), sw(t, 5)),
		page(3000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	ws := meta.Warnings.List()
	if !slices.Equal(sws, []int64{1005, 1010, 3005}) || !slices.Equal(losses, []int64{3000}) || meta.LostInFile != 2 ||
		len(ws) != 1 || ws[0].Key != "tracedat-damaged-page" || !strings.Contains(ws[0].Message, "page 2: its events run to 5000002010 ns, past the time stamp of page 3, 3000 ns") {
		t.Errorf("switches %v, losses %v, lost in file %d, warnings %v; want [1005 1010 3005], [3000], 2, one tracedat-damaged-page of page 2", sws, losses, meta.LostInFile, ws)
	}
}

// TestDeltaAhead: the third event of page 1 has a damaged delta (100000
// instead of 5): it and the fourth (1010+100000 = 101010, 101015) run past
// page 2's stamp (2000) by 99015 ns; with no page after page 2 to tell by,
// the page's largest jump, that delta (100000 ns, at its event 3), is at
// least half of it, and page 2 lies wholly before the page's end: the
// records from event 3 are dropped, the two before kept (1005, 1010), then
// a KindLost at 2000 and page 2's 2005. How many events the dropped records
// held is unknown (after a damaged header they would be misread: new-user
// pass 92 F4), so the CPU is unobserved from 1010 to 2000 (a Count 0
// window) and nothing is added to LostInFile.
func TestDeltaAhead(t *testing.T) {
	sws, losses, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5), sw(t, 100000), sw(t, 5)),
		page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	ws := meta.Warnings.List()
	want := []trace.LostWindow{{CPU: 0, Start: 1010, End: 2000}}
	if !slices.Equal(sws, []int64{1005, 1010, 2005}) || !slices.Equal(losses, []int64{2000}) || meta.LostInFile != 0 || !slices.Equal(meta.Lost, want) ||
		len(ws) != 1 || !strings.Contains(ws[0].Message, "the page's records from its event 3 on dropped (how many events they held is unknown") {
		t.Errorf("switches %v, losses %v, lost in file %d, windows %v, warnings %v", sws, losses, meta.LostInFile, meta.Lost, ws)
	}
}

// TestPageAheadBetween (new-user pass 92 F1): the middle of three pages has
// its stamp 5000 ns ahead (7000 instead of 2000). Its events (7005, 7010)
// run past page 3's stamp (3000) by 4010 ns; page 3 ends (3005) 995 ns
// before page 4's stamp (4000): less than half the overshoot, so page 3
// is in line and page 2 is the damaged one: dropped (2 lost), pages 3 and 4
// kept whole. Before, the fewer-events rule kept page 2 and dropped page
// 3's event as earlier than it.
func TestPageAheadBetween(t *testing.T) {
	sws, losses, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5)),
		page(7000, -1, sw(t, 5), sw(t, 5)),
		page(3000, -1, sw(t, 5)),
		page(4000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1005, 1010, 3005, 4005}) || !slices.Equal(losses, []int64{3000}) || meta.LostInFile != 2 {
		t.Errorf("switches %v, losses %v, lost in file %d, warnings %v; want [1005 1010 3005 4005], [3000], 2", sws, losses, meta.LostInFile, meta.Warnings.List())
	}
}

// TestNextPageBack: page 2's stamp is early (500), before page 1's last
// event (2000) and before the CPU's first page (1000, where the trace
// starts): page 2 is out of every run in order (page 1 and page 3 make
// one), so page 1 is kept whole. Page 2's stamp lies 1500 ns before the
// CPU's last kept event, more than its largest step between events
// (1000), and its events run on past that event (2505): its stamp moved
// back, and every event of the page with it (new-user pass 99: the events
// of a page moved back that land after the kept event were read at the
// wrong time), so the page goes whole, its 3 events lost, and the CPU is
// unobserved from 2000 to page 3 (a KindLost at 4000, before 4005).
func TestNextPageBack(t *testing.T) {
	sws, losses, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5), sw(t, 990)),
		page(500, -1, sw(t, 5), sw(t, 1000), sw(t, 1000)),
		page(4000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	ws := meta.Warnings.List()
	if !slices.Equal(sws, []int64{1005, 1010, 2000, 4005}) || !slices.Equal(losses, []int64{4000}) || meta.LostInFile != 3 || len(ws) != 1 || ws[0].Key != "tracedat-damaged-page" {
		t.Errorf("switches %v, losses %v, lost in file %d, warnings %v; want [1005 1010 2000 4005], [4000], 3, one tracedat-damaged-page", sws, losses, meta.LostInFile, ws)
	}
}

// TestTwoPagesAhead (new-user pass 93 F4): pages 2 and 3 of six both
// stamped 1 s ahead. Page 2 is in order with page 3 but runs past pages
// 4-6, which with page 1 make the longest run in order: pages 2 and 3 are
// dropped (4 events lost), pages 4-6 kept. Before, both were kept and every
// later event of the CPU dropped as earlier than them.
func TestTwoPagesAhead(t *testing.T) {
	sws, _, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5)),
		page(1000002000, -1, sw(t, 5), sw(t, 5)),
		page(1000003000, -1, sw(t, 5), sw(t, 5)),
		page(4000, -1, sw(t, 5)),
		page(5000, -1, sw(t, 5)),
		page(6000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1005, 1010, 4005, 5005, 6005}) || meta.LostInFile != 4 {
		t.Errorf("switches %v, lost in file %d, warnings %v; want [1005 1010 4005 5005 6005], 4", sws, meta.LostInFile, meta.Warnings.List())
	}
}

// TestNullPaddingMidPage (new-user pass 91 F7): an event header turned
// into a null padding (type_len 29, delta 0) with 3 more records after it
// on the page. The kernel writes one only in the last 7 bytes of a page, so
// this is damage: an error, and with lenient the page's records from there
// skipped (the event at 1005 before it kept), the CPU unobserved from 1005
// to page 2's stamp (2000; a Count 0 window), page 2's 2005 read. A
// padding whose length runs past the page is damage too.
func TestNullPaddingMidPage(t *testing.T) {
	null := evHeader(typePadding, 0)
	p1 := page(1000, -1, sw(t, 5), null, sw(t, 5), sw(t, 5), sw(t, 5))
	p2 := page(2000, -1, sw(t, 5))
	_, _, _, err := damageTrace(t, false, p1, p2)
	if err == nil || !errors.Is(err, trace.ErrCorrupt) || !strings.Contains(err.Error(), "an end-of-page marker (null padding) at ") {
		t.Errorf("error %v, want a corrupt trace naming the end-of-page marker", err)
	}
	sws, losses, meta, err := damageTrace(t, true, p1, p2)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1005, End: 2000}}
	if !slices.Equal(sws, []int64{1005, 2005}) || !slices.Equal(losses, []int64{2000}) || !slices.Equal(meta.Lost, want) {
		t.Errorf("switches %v, losses %v, windows %#v; want [1005 2005], [2000], %#v", sws, losses, meta.Lost, want)
	}
	over := append(evHeader(typePadding, 3), binary.LittleEndian.AppendUint32(nil, 5000)...)
	_, _, _, err = damageTrace(t, false, page(1000, -1, sw(t, 5), over, sw(t, 5)))
	if err == nil || !strings.Contains(err.Error(), "padding at ") || !strings.Contains(err.Error(), "of 5000 bytes overruns the page") {
		t.Errorf("error %v, want the padding that overruns the page named", err)
	}
}

// TestBackwardDropWindow (new-user pass 92 F1): page 2's stamp is early
// (2000), before page 1's last event (1010 + 5000 = 6010), an overshoot of
// 4010 ns; page 2 ends (2010) 5990 ns before page 3's stamp (8000), more
// than half of it, so page 2 is the page out of line: page 1 is kept, page
// 2, stamped 4010 ns before the CPU's last kept event, more than its own
// step (5), goes whole (2 lost), and the CPU is unobserved from 6010 up to
// page 3: a KindLost at its stamp, 8000, before its switch. Before, no
// window: a run and delays were measured across the dropped events.
func TestBackwardDropWindow(t *testing.T) {
	sws, losses, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5), sw(t, 5000)),
		page(2000, -1, sw(t, 5), sw(t, 5)),
		page(8000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1005, 1010, 6010, 8005}) || !slices.Equal(losses, []int64{8000}) || meta.LostInFile != 2 {
		t.Errorf("switches %v, losses %v, lost in file %d, warnings %v; want [1005 1010 6010 8005], [8000], 2", sws, losses, meta.LostInFile, meta.Warnings.List())
	}
}

// TestCommitLowered (new-user pass 92 F2): page 1's commit word says 0
// bytes, and its three records follow: the kernel zeroes a page past its
// commit, so they are a damaged commit's; read (1005, 1010, 1015), with a
// tracedat-damaged-page warning. A lowered commit whose bytes after it do
// not parse as records drops them with the CPU unobserved to the next page.
func TestCommitLowered(t *testing.T) {
	p1 := page(1000, -1, sw(t, 5), sw(t, 5), sw(t, 5))
	binary.LittleEndian.PutUint64(p1[8:], 0)
	sws, _, meta, err := damageTrace(t, false, p1, page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	ws := meta.Warnings.List()
	if !slices.Equal(sws, []int64{1005, 1010, 1015, 2005}) || len(ws) != 1 || !strings.Contains(ws[0].Message, "the commit says 0 bytes of events, and records run on to ") {
		t.Errorf("switches %v, warnings %v; want [1005 1010 1015 2005] and the damaged commit named", sws, ws)
	}
	p1 = page(1000, -1, sw(t, 5), sw(t, 5))
	one := len(sw(t, 5))
	binary.LittleEndian.PutUint64(p1[8:], uint64(one))
	binary.LittleEndian.PutUint32(p1[16+one:], 0xffffffe0) // (type_len 0, a length far past the page)
	sws, losses, meta, err := damageTrace(t, false, p1, page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1005, End: 2000}}
	if !slices.Equal(sws, []int64{1005, 2005}) || !slices.Equal(losses, []int64{2000}) || !slices.Equal(meta.Lost, want) {
		t.Errorf("switches %v, losses %v, windows %v; want [1005 2005], [2000], %v", sws, losses, meta.Lost, want)
	}
}

// TestFirstPageBehind (new-user pass 92 F5): CPU 0's first page is stamped
// 1 s early (1000 instead of 1000001000): its events (1005, 1010) end
// before CPU 1's first page (1000000500) and 1000000990 ns before CPU 0's
// next page (1000002000), more than its own 10 ns span and mostly before
// CPU 1's start: dropped (2 lost); CPU 0's page 2 and CPU 1 read.
func TestFirstPageBehind(t *testing.T) {
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5), sw(t, 5)), page(1000002000, -1, sw(t, 5))}, nil)
	sws, _, meta, err := readTrace(t, switchTrace(t, cpu0, page(1000000500, -1, sw(t, 5))), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1000000505, 1000002005}) || meta.LostInFile != 2 {
		t.Errorf("switches %v, lost in file %d, warnings %v; want [1000000505 1000002005], 2", sws, meta.LostInFile, meta.Warnings.List())
	}
	// The dropped page's warning says the time it leaves unobserved,
	// from the trace's first event (new-user pass 116 F1: none said).
	if ws := fmt.Sprint(meta.Warnings.List()); !strings.Contains(ws, "page dropped, its 2 events lost; CPU 0 is unobserved from the trace's first event, 1.000000 s, to 1.000002 s") {
		t.Errorf("warnings %s: want the dropped first page's window from the trace's first event", ws)
	}
}

// TestCommitRaised (new-user pass 93 F3): page 1's commit word says 5000
// bytes (more than the page), then 400 (within its 496, past its records):
// past its three records the page holds the kernel's zeroes, so the commit
// is damaged and the records up to the zeroes are read (1005, 1010, 1015),
// with a tracedat-damaged-page warning; no error, nothing lost.
func TestCommitRaised(t *testing.T) {
	for _, commit := range []uint64{5000, 400} {
		p1 := page(1000, -1, sw(t, 5), sw(t, 5), sw(t, 5))
		binary.LittleEndian.PutUint64(p1[8:], commit)
		sws, _, meta, err := damageTrace(t, false, p1, page(2000, -1, sw(t, 5)))
		if err != nil {
			t.Fatalf("commit %d: %v", commit, err)
		}
		ws := meta.Warnings.List()
		if !slices.Equal(sws, []int64{1005, 1010, 1015, 2005}) || len(ws) != 1 || ws[0].Key != "tracedat-damaged-page" || meta.LostInFile != 0 || len(meta.Lost) != 0 {
			t.Errorf("commit %d: switches %v, warnings %v, lost %d / %v; want [1005 1010 1015 2005], one damaged commit, none lost", commit, sws, ws, meta.LostInFile, meta.Lost)
		}
	}
}

// TestChunkSkipped (new-user pass 93 F6): a v7 zlib file whose CPU 0 data
// is two chunks (pages 1-2, page 3), the first chunk's compressed bytes
// zeroed. With lenient only that chunk is skipped: page 3's event (3005)
// is read, the CPU unobserved from the trace's first event up to page 3
// (a Count 0 window to 3000), and the chunk named. Before, the rest of the
// CPU's data went with it. Without lenient, the error names the chunk.
func TestChunkSkipped(t *testing.T) {
	swText, _ := testFormat(t, "sched_switch")
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5)), page(3000, -1, sw(t, 5))}, nil)
	cpu1 := page(1500, -1, sw(t, 5))
	data := buildV7(t, []string{swText}, "1 a\n2 b\n", [][]byte{cpu0, cpu1}, "zlib")
	off := cpuOffset(t, data, 0) + 4 + 8 // (the chunk count, the first chunk's sizes)
	for i := off; i < off+16; i++ {
		data[i] = 0
	}
	if _, _, err := readBytes(data); err == nil || !strings.Contains(err.Error(), "chunk at offset") {
		t.Errorf("error %v, want the damaged chunk named", err)
	}
	sws, _, meta, err := readTrace(t, data, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1505, End: 3000}}
	ws := fmt.Sprint(meta.Warnings.List())
	if !slices.Equal(sws, []int64{1505, 3005}) || !slices.Equal(meta.Lost, want) || !strings.Contains(ws, "the chunk's pages skipped: lenient") {
		t.Errorf("switches %v, windows %v, warnings %v; want [1505 3005], %v, the chunk named", sws, meta.Lost, ws, want)
	}
}

// TestChunkSizeDamaged (new-user pass 94 F3): CPU 0's data in three zlib
// chunks (pages 1-2, 3-4, 5), the first chunk's compressed size made 5:
// it does not decompress, and where that size puts the next chunk none
// begins, so with lenient the reader finds the next chunk by its look (a
// size of whole pages, zlib's 0x78 first byte) and reads pages 3-5 (3005,
// 4005, 5005); the CPU unobserved from CPU 1's 1505 to page 3's 3000.
// Before, the rest of the CPU's data was skipped.
func TestChunkSizeDamaged(t *testing.T) {
	swText, _ := testFormat(t, "sched_switch")
	var pages [][]byte
	for i := range 5 {
		pages = append(pages, page(uint64(1000*(i+1)), -1, sw(t, 5)))
	}
	data := buildV7(t, []string{swText}, "1 a\n2 b\n", [][]byte{bytes.Join(pages, nil), page(1500, -1, sw(t, 5))}, "zlib")
	binary.LittleEndian.PutUint32(data[cpuOffset(t, data, 0)+4:], 5)
	sws, _, meta, err := readTrace(t, data, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1505, End: 3000}}
	if !slices.Equal(sws, []int64{1505, 3005, 4005, 5005}) || !slices.Equal(meta.Lost, want) {
		t.Errorf("switches %v, windows %v, warnings %v; want [1505 3005 4005 5005], %v", sws, meta.Lost, meta.Warnings.List(), want)
	}
}

// TestFirstPagesBehind (new-user pass 95 N2): CPU 0's first two pages both
// stamped 1 s early (1000 and 1500 instead of 1000001000 and 1000001500):
// they end (1505) before CPU 1's first page (1000000500), 1000000495 ns
// before CPU 0's third page (1000002000), more than their own 505 ns and
// mostly before CPU 1's start: both dropped (2 lost), page 3 and CPU 1 read.
func TestFirstPagesBehind(t *testing.T) {
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(1500, -1, sw(t, 5)), page(1000002000, -1, sw(t, 5))}, nil)
	sws, _, meta, err := readTrace(t, switchTrace(t, cpu0, page(1000000500, -1, sw(t, 5))), false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1000000505, 1000002005}) || meta.LostInFile != 2 {
		t.Errorf("switches %v, lost in file %d, warnings %v; want [1000000505 1000002005], 2", sws, meta.LostInFile, meta.Warnings.List())
	}
}

// TestDroppedPageKeepsMissed (new-user pass 95 N1): page 2, dropped for a
// stamp 5 s ahead, says 7 events were lost before it (RB_MISSED_STORED):
// the recorder's loss stands, a window of 7 on the CPU from its last kept
// event (1010) to page 3 (3000), beside the page's 2 events lost in the
// file.
func TestDroppedPageKeepsMissed(t *testing.T) {
	_, _, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5)),
		page(5000002000, 7, sw(t, 5), sw(t, 5)),
		page(3000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Count: 7, Start: 1010, End: 3000}}
	if !slices.Equal(meta.Lost, want) || meta.LostInFile != 2 {
		t.Errorf("windows %v, lost in file %d; want %v, 2", meta.Lost, meta.LostInFile, want)
	}
}

// TestCommitContradictedCount (new-user pass 96 N1, N3): a page whose
// commit word keeps both missed-events flags but says 0 bytes of events,
// with records after it: the count the kernel stores after the commit
// would be read from event bytes, so the loss before the page is counted
// as unknown (a Count 0 window), not as what those bytes say; the stored
// flag alone (a state the kernel never writes) with a count after the
// records is damage named, not silence.
func TestCommitContradictedCount(t *testing.T) {
	p1 := page(1000, 7, sw(t, 5), sw(t, 5))
	binary.LittleEndian.PutUint64(p1[8:], missedEvents|missedStored)
	_, _, meta, err := damageTrace(t, false, page(500, -1, sw(t, 5)), p1, page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range meta.Lost {
		if l.Count != 0 {
			t.Errorf("window %v: a count read at a damaged commit", l)
		}
	}
	p1 = page(1000, 7, sw(t, 5), sw(t, 5))
	c := binary.LittleEndian.Uint64(p1[8:])
	binary.LittleEndian.PutUint64(p1[8:], c&^missedEvents)
	_, _, meta, err = damageTrace(t, false, page(500, -1, sw(t, 5)), p1, page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if ws := fmt.Sprint(meta.Warnings.List()); !strings.Contains(ws, "page 2") {
		t.Errorf("warnings %v; want page 2's damaged commit named", ws)
	}
}

// TestPagesAheadBeforeLast (new-user pass 96 N4): of six pages, the three
// before the last stamped 1 s ahead. Near the CPU's end fewer intact pages
// follow (one) than the damaged run holds (three), but the run begins
// after the whole of the last page, which comes later in the file and
// abuts the CPU's last kept event (2010): the three are dropped (6 events
// lost), the last page kept (6005).
func TestPagesAheadBeforeLast(t *testing.T) {
	sws, _, meta, err := damageTrace(t, false,
		page(1000, -1, sw(t, 5), sw(t, 5)),
		page(2000, -1, sw(t, 5), sw(t, 5)),
		page(1000003000, -1, sw(t, 5), sw(t, 5)),
		page(1000004000, -1, sw(t, 5), sw(t, 5)),
		page(1000005000, -1, sw(t, 5), sw(t, 5)),
		page(6000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, []int64{1005, 1010, 2005, 2010, 6005}) || meta.LostInFile != 6 {
		t.Errorf("switches %v, lost in file %d, warnings %v; want [1005 1010 2005 2010 6005], 6", sws, meta.LostInFile, meta.Warnings.List())
	}
}

// TestCommitZeroRecordsThenGarbage (new-user pass 96 N5): page 1's commit
// word made 0 (its loss flags with it), its two records followed by a
// word that does not parse (the loss count the flags no longer say is
// there): the records up to it are read (1005, 1010) and only the rest is
// dropped, the CPU unobserved from 1010 to page 2 (2000).
func TestCommitZeroRecordsThenGarbage(t *testing.T) {
	p1 := page(1000, -1, sw(t, 5), sw(t, 5))
	two := 2 * len(sw(t, 5))
	binary.LittleEndian.PutUint64(p1[8:], 0)
	binary.LittleEndian.PutUint32(p1[16+two:], 0xffffffe0) // (type_len 0, a length far past the page)
	sws, _, meta, err := damageTrace(t, false, p1, page(2000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1010, End: 2000}}
	if !slices.Equal(sws, []int64{1005, 1010, 2005}) || !slices.Equal(meta.Lost, want) {
		t.Errorf("switches %v, windows %v; want [1005 1010 2005], %v", sws, meta.Lost, want)
	}
}

// TestStoredCountDamaged (new-user pass 97 F2, F3): page 2 of three says
// events were lost before it, with a stored count of 0 (the kernel stores
// one only for a loss) and then of 5e12 (more than one a nanosecond of the
// 1 us before it): either is a damaged count, the loss of unknown size (a
// Count 0 window) and a warning, never the number.
func TestStoredCountDamaged(t *testing.T) {
	for _, n := range []int64{0, 5e12} {
		p2 := page(2000, 1, sw(t, 5))
		binary.LittleEndian.PutUint64(p2[16+len(sw(t, 5)):], uint64(n))
		_, _, meta, err := damageTrace(t, false, page(1000, -1, sw(t, 5)), p2, page(3000, -1, sw(t, 5)))
		if err != nil {
			t.Fatal(err)
		}
		want := []trace.LostWindow{{CPU: 0, Start: 1005, End: 2000}}
		if !slices.Equal(meta.Lost, want) || !strings.Contains(fmt.Sprint(meta.Warnings.List()), "a damaged count") {
			t.Errorf("count %d: windows %v, warnings %v; want %v and the count named damaged", n, meta.Lost, meta.Warnings.List(), want)
		}
	}
}

// TestCommitPastStoredCount (new-user pass 96 N2): page 2 says 7 events
// were lost before it, its count stored after its two records, and its
// commit word's size raised to the whole page (flags kept). The count and
// the kernel's zeroes after it tell where the records end: both read
// (2005, 2010), no record made of the count, and the loss of 7 kept, a
// window from CPU 0's last event before it (1005) to the page (2000).
func TestCommitPastStoredCount(t *testing.T) {
	p2 := page(2000, 7, sw(t, 5), sw(t, 5))
	binary.LittleEndian.PutUint64(p2[8:], missedEvents|missedStored|uint64(testPage-16))
	sws, _, meta, err := damageTrace(t, false, page(1000, -1, sw(t, 5)), p2, page(3000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Count: 7, Start: 1005, End: 2000}}
	ws := fmt.Sprint(meta.Warnings.List())
	if !slices.Equal(sws, []int64{1005, 2005, 2010, 3005}) || !slices.Equal(meta.Lost, want) || !strings.Contains(ws, "damaged commit") {
		t.Errorf("switches %v, windows %v, warnings %v; want [1005 2005 2010 3005], %v and the commit named damaged", sws, meta.Lost, ws, want)
	}
}

// TestFirstPagesAheadSplit (new-user pass 97 F8): a CPU's first three
// pages are stamped 1800 ns late (2800, 3300 and 3800 instead of 1000,
// 1500 and 2000), 16 intact pages follow, every 100 ns from 3000 on,
// their events 5, 10 and 90 ns after their stamps; the first holds a gap
// of 400 ns between its second and third events (2810, 3210). Its part before the gap ends (2810) before the intact pages (the
// longest run in order is that part and the 14 intact pages read ahead),
// its part after runs past them (3215), and page 2 follows that part in
// order (3300): pages moved together, not a damaged delta, so page 1 is
// dropped whole with pages 2 and 3 (4 + 2 + 2 = 8 events lost in the
// file) and none of its events is kept 1800 ns late. The intact pages are
// read (3005, 3010, 3090, 3105, ..., 4590).
func TestFirstPagesAheadSplit(t *testing.T) {
	two := func(ts uint64) []byte { return page(ts, -1, sw(t, 5), sw(t, 5)) }
	pages := [][]byte{page(2800, -1, sw(t, 5), sw(t, 5), sw(t, 400), sw(t, 5)), two(3300), two(3800)}
	var want []int64
	for ts := int64(3000); ts <= 4500; ts += 100 {
		pages = append(pages, page(uint64(ts), -1, sw(t, 5), sw(t, 5), sw(t, 80)))
		want = append(want, ts+5, ts+10, ts+90)
	}
	readsAs(t, pages, want, 8)
}

// TestStoredFlagNoRoom (new-user pass 98 F7): page 2's records (two
// switches and a discarded record) fill it, and its commit word has both
// missed-events flags: the kernel sets the stored flag only when the
// count fits after the records, so the flags are damaged, named as such,
// and the loss before the page is of unknown size (a Count 0 window from
// CPU 0's last event before it, 1005, to the page, 2000).
func TestStoredFlagNoRoom(t *testing.T) {
	room := testPage - 16
	p2 := page(2000, -1, sw(t, 5), sw(t, 5), evPadding(1, room-2*len(sw(t, 5))-8))
	binary.LittleEndian.PutUint64(p2[8:], missedEvents|missedStored|uint64(room))
	sws, _, meta, err := damageTrace(t, false, page(1000, -1, sw(t, 5)), p2, page(3000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1005, End: 2000}}
	ws := fmt.Sprint(meta.Warnings.List())
	if !slices.Equal(sws, []int64{1005, 2005, 2010, 3005}) || !slices.Equal(meta.Lost, want) || !strings.Contains(ws, "no room for one") {
		t.Errorf("switches %v, windows %v, warnings %v; want [1005 2005 2010 3005], %v and the flags named damaged", sws, meta.Lost, ws, want)
	}
}

// TestPagesMovedWithinPage (new-user pass 98 F2): in a CPU's middle, pages
// 3 and 4 (stamps 1200 and 1300, events 5, 10 and 90 ns after them, as
// every page's but the fifth's) stamped 200 ns late (1400, 1500). The
// fifth page (1400, events 1405 to 1600 in steps of at most 50) lasts as
// long as both, so the two moved pages fit in order before the sixth
// (1610): that run is one page longer than the one with the fifth. But it
// enters 210 ns after the CPU's last kept event (1190) and leaves 175 ns
// off where the fifth page's time would end, gaps longer than any step
// between two events inside a page ahead (80), while the run with the
// fifth page abuts within 40: pages 3 and 4 are dropped (6 events lost),
// the fifth page's events read.
func TestPagesMovedWithinPage(t *testing.T) {
	three := func(ts uint64) []byte { return page(ts, -1, sw(t, 5), sw(t, 5), sw(t, 80)) }
	want := []int64{1005, 1010, 1090, 1105, 1110, 1190, 1405, 1450, 1500, 1550, 1600, 1615, 1620, 1700, 1715, 1720, 1800, 1815, 1820, 1900}
	readsAs(t, [][]byte{
		three(1000), three(1100), three(1400), three(1500),
		page(1400, -1, sw(t, 5), sw(t, 45), sw(t, 50), sw(t, 50), sw(t, 50)),
		three(1610), three(1710), three(1810)}, want, 6)
}

// fivePage is a page stamped ts with five switches 10 ns apart, from 5 ns
// after the stamp (ts+5 ... ts+45).
func fivePage(t *testing.T, ts uint64) []byte {
	return page(ts, -1, sw(t, 5), sw(t, 10), sw(t, 10), sw(t, 10), sw(t, 10))
}

// readsAs reads a one-CPU trace of pages and checks its switch times and
// the events it counts lost in the file.
func readsAs(t *testing.T, pages [][]byte, want []int64, lost uint64) {
	t.Helper()
	sws, _, meta, err := damageTrace(t, false, pages...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, want) || meta.LostInFile != lost {
		t.Errorf("switches %v, lost in file %d, warnings %v; want %v, %d", sws, meta.LostInFile, meta.Warnings.List(), want, lost)
	}
}

// TestFirstPagesLateInOrder (new-user pass 98 F1): a CPU's first three
// pages (stamps 1000, 1050, 1100, five events 10 ns apart from 5 ns after
// the stamp) are stamped 50 ns late (1050, 1100, 1150); 16 intact pages
// follow, every 50 ns from 1150. Only the third moved page runs past an
// intact one (to 1195, past 1150): the first two are in order with every
// page ahead. But each run in order that keeps them leaves pages out whose
// 40 ns each do not fit where it leaves them, by more than the 10 ns step
// inside a page (the third between the second, ending 1145, and the
// intact 1150; the intact 1150 between the third and 1200; up to three
// intact pages, each 10 ns short of its 50), or is shorter than the intact
// pages' run, which leaves none out: the three are dropped (15 events lost
// in the file), none kept 50 ns late, and the intact pages read.
func TestFirstPagesLateInOrder(t *testing.T) {
	pages := [][]byte{fivePage(t, 1050), fivePage(t, 1100), fivePage(t, 1150)}
	var want []int64
	for ts := int64(1150); ts <= 1900; ts += 50 {
		pages = append(pages, fivePage(t, uint64(ts)))
		want = append(want, ts+5, ts+15, ts+25, ts+35, ts+45)
	}
	readsAs(t, pages, want, 15)
}

// TestPagesMovedBack (new-user pass 100 F1): pages 3-5 of ten (stamps
// every 50 ns from 1000, five events 10 ns apart from 5 ns after the
// stamp) stamped 100 ns early (1000, 1050, 1100 instead of 1100, 1150,
// 1200). Page 3 lies 95 ns before the CPU's last kept event (1095), more
// than its own 10 ns steps: moved back. Pages 4 and 5 abut it (5 ns
// gaps), and the gap after page 5 (1145 to 1250, 105 ns) gives back the
// 95: the three moved together and go whole (15 events lost in the file),
// page 5's events after 1095 (1105 to 1145) with them. Before, only the
// events before 1095 were dropped and page 5 read 100 ns early.
func TestPagesMovedBack(t *testing.T) {
	var pages [][]byte
	var want []int64
	for ts := int64(1000); ts <= 1450; ts += 50 {
		at := ts
		if ts >= 1100 && ts <= 1200 {
			at = ts - 100
		} else {
			want = append(want, ts+5, ts+15, ts+25, ts+35, ts+45)
		}
		pages = append(pages, fivePage(t, uint64(at)))
	}
	readsAs(t, pages, want, 15)
}

// TestZeroedPage (new-user pass 101 F1): a page of zeros (stamp, commit
// and data) between two pages with events: the kernel hands out only
// pages it wrote events to, so it is a zeroed page: named, its events of
// unknown number, the CPU unobserved from its last event before it (1010)
// to the next page (3000). A page of zeros after the CPU's last events is
// the file's padding: nothing said.
func TestZeroedPage(t *testing.T) {
	sws, _, meta, err := damageTrace(t, false, page(1000, -1, sw(t, 5), sw(t, 5)), make([]byte, testPage), page(3000, -1, sw(t, 5)))
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.LostWindow{{CPU: 0, Start: 1010, End: 3000}}
	if !slices.Equal(sws, []int64{1005, 1010, 3005}) || !slices.Equal(meta.Lost, want) || !strings.Contains(fmt.Sprint(meta.Warnings.List()), "a zeroed page") {
		t.Errorf("switches %v, windows %v, warnings %v; want [1005 1010 3005], %v and the page named", sws, meta.Lost, meta.Warnings.List(), want)
	}
	_, _, meta, err = damageTrace(t, false, page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5)), make([]byte, testPage))
	if err != nil || len(meta.Warnings.List()) != 0 || len(meta.Lost) != 0 {
		t.Errorf("trailing zero page: error %v, warnings %v, windows %v; want none", err, meta.Warnings.List(), meta.Lost)
	}
}

// TestPagesMovedBackIntoTail (new-user pass 101 F4): twelve pages stamped
// every 100 ns, seven events each at +5, +15, +25, +35, +75, +85, +95 (the
// largest step, 40 ns, inside every page); pages 3-5 stamped 55 ns early
// (245, 345, 445 instead of 300, 400, 500). Page 3 begins inside page 2's
// part after its 40 ns jump (275-295), overlapping it by 50 ns: more than
// the jump, the most a damaged delta there could have moved that part, and
// more than page 3's own 40 ns step; and the gap after page 5 (540 to 600,
// 60 ns) gives the 50 back. So page 2 is kept whole and pages 3-5, 50 ns
// behind its last event, go as moved back (21 events lost in the file).
// Before, the run in order of page 2's first four events and the moved
// pages, longer than the one with page 2's last three, won: those three
// were dropped, their number unknown, and the moved pages dropped after.
func TestPagesMovedBackIntoTail(t *testing.T) {
	seven := func(ts uint64) []byte {
		return page(ts, -1, sw(t, 5), sw(t, 10), sw(t, 10), sw(t, 10), sw(t, 40), sw(t, 10), sw(t, 10))
	}
	var pages [][]byte
	var want []int64
	for ts := int64(0); ts <= 1100; ts += 100 {
		at := ts
		if ts >= 300 && ts <= 500 {
			at = ts - 55
		} else {
			want = append(want, ts+5, ts+15, ts+25, ts+35, ts+75, ts+85, ts+95)
		}
		pages = append(pages, seven(uint64(at)))
	}
	readsAs(t, pages, want, 21)
}

// TestPagesMovedBackIdle: ten pages stamped every 100 ns, four events
// each at +5, +15, +25, +65 (steps up to 40 ns, as on an idle CPU); pages
// 3 and 4 stamped 90 ns early (210, 310). Page 3 lies 55 ns behind the
// last kept event (265), more than its 40 ns steps: moved back. The gap
// between it and page 4 (275 to 310, 35 ns) is the pages' own, short of
// the 55; the one after page 4 (375 to 500, 125) gives it back: both go
// (8 events lost in the file). Before, a gap within the largest step of
// the 55 (35 + 40) ended the run at page 3, and page 4 was read 90 ns
// early (new-user pass 101's d_i2: two pages 30 ms back on an idle CPU,
// the second kept).
func TestPagesMovedBackIdle(t *testing.T) {
	four := func(ts uint64) []byte { return page(ts, -1, sw(t, 5), sw(t, 10), sw(t, 10), sw(t, 40)) }
	var pages [][]byte
	var want []int64
	for ts := int64(0); ts <= 900; ts += 100 {
		at := ts
		if ts == 300 || ts == 400 {
			at = ts - 90
		} else {
			want = append(want, ts+5, ts+15, ts+25, ts+65)
		}
		pages = append(pages, four(uint64(at)))
	}
	readsAs(t, pages, want, 8)
}

// TestChunkCountDamaged (new-user pass 112 F1): CPU 0's data in three
// zlib chunks (pages 1-2, 3-4, 5), its chunk count made 1 and then 0:
// chunks begin after the ones counted, within the CPU's data, so the count
// is damaged and every chunk is read (CPU 0's 1005 to 5005 beside CPU 1's
// 1505), with a tracedat-damaged-page warning naming it, lenient or not.
// Before, the CPU's data ended at the count: 1005 and 2005 with count 1,
// none with 0, and "lost: 0 events".
func TestChunkCountDamaged(t *testing.T) {
	swText, _ := testFormat(t, "sched_switch")
	var pages [][]byte
	for i := range 5 {
		pages = append(pages, page(uint64(1000*(i+1)), -1, sw(t, 5)))
	}
	for _, count := range []uint32{1, 0} {
		data := buildV7(t, []string{swText}, "1 a\n2 b\n", [][]byte{bytes.Join(pages, nil), page(1500, -1, sw(t, 5))}, "zlib")
		binary.LittleEndian.PutUint32(data[cpuOffset(t, data, 0):], count)
		for _, lenient := range []bool{false, true} {
			sws, _, meta, err := readTrace(t, data, lenient)
			if err != nil {
				t.Fatal(err)
			}
			ws := fmt.Sprint(meta.Warnings.List())
			if !slices.Equal(sws, []int64{1005, 1505, 2005, 3005, 4005, 5005}) || !strings.Contains(ws, fmt.Sprintf("its chunk count says %d chunks, and another begins at offset", count)) {
				t.Errorf("count %d, lenient %v: switches %v, warnings %v; want 1005-5005 and 1505, the count named", count, lenient, sws, ws)
			}
		}
	}
}

// TestCPUSizeDamaged (new-user pass 112 F1): a v6 file whose CPU table
// gives CPU 0's three pages (12288 bytes) as 4096, then as 0: CPU 1's data
// begin right after the three pages, so the size is damaged and the pages
// up to CPU 1's are read (1005, 2005, 3005 beside CPU 1's 1505), with a
// tracedat-damaged-cpu-size warning. Before, CPU 0 ended after its first
// page (or had none), without a word.
func TestCPUSizeDamaged(t *testing.T) {
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5)), page(3000, -1, sw(t, 5))}, nil)
	for _, size := range []uint64{4096, 0} {
		data := switchTrace(t, cpu0, page(1500, -1, sw(t, 5)))
		table := bytes.LastIndex(data, []byte("flyrecord\x00")) + 10
		if got := binary.LittleEndian.Uint64(data[table+8:]); got != uint64(len(cpu0)) {
			t.Fatalf("CPU 0's size in the table %d, want %d", got, len(cpu0))
		}
		binary.LittleEndian.PutUint64(data[table+8:], size)
		sws, _, meta, err := readTrace(t, data, false)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, w := range meta.Warnings.List() {
			found = found || w.Key == "tracedat-damaged-cpu-size" && strings.Contains(w.Message, fmt.Sprintf("the CPU table gives its data %d bytes", size))
		}
		if !slices.Equal(sws, []int64{1005, 1505, 2005, 3005}) || !found {
			t.Errorf("size %d: switches %v, warnings %v; want 1005, 1505, 2005, 3005 and the size named", size, sws, meta.Warnings.List())
		}
	}
}

// TestCPUTableOverlap (new-user pass 113 F5): a CPU table whose entries
// overlap. CPU 0 has three pages (switches at 1005, 2005, 3005), CPU 1 one
// (1505).
//   - CPU 1's entry gives CPU 0's offset and size: CPU 0's three switches
//     are read once, and a tracedat-damaged-cpu-size warning says so.
//     Before, 1005, 2005, 3005 came twice, without a word. In the v6 file,
//     laid out as trace-cmd lays it (each CPU from a page boundary), CPU
//     1's page is where it follows CPU 0's and is read there (1505); the
//     v7 ones hand-made here put CPU 1's data off a page boundary, and
//     they cannot be located.
//   - CPU 0's size runs on over CPU 1's data (its size plus CPU 1's: v7
//     uncompressed): CPU 0 is read up to CPU 1's offset, each switch once,
//     with the warning. Before, 1505 came twice (v7 had no check).
func TestCPUTableOverlap(t *testing.T) {
	swText, _ := testFormat(t, "sched_switch")
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5)), page(3000, -1, sw(t, 5))}, nil)
	cpu1 := page(1500, -1, sw(t, 5))
	// v6: CPU 1's entry (offset, size: 16 bytes after CPU 0's) made CPU 0's.
	v6 := switchTrace(t, cpu0, cpu1)
	table := bytes.LastIndex(v6, []byte("flyrecord\x00")) + 10
	copy(v6[table+16:table+32], v6[table:table+16])
	same := func(l []v7Loc) { l[1] = l[0] }
	cases := []struct {
		name string
		data []byte
		want []int64
		msg  string
	}{
		{"v6 same entry", v6, []int64{1005, 1505, 2005, 3005}, "gives its data as CPU 0's (1536 bytes at offset 2048)"},
		{"v7 same entry", buildV7Table(t, []string{swText}, "1 a\n2 b\n", [][]byte{cpu0, cpu1}, "", same), []int64{1005, 2005, 3005}, "where CPU 0's are"},
		{"v7 zlib same entry", buildV7Table(t, []string{swText}, "1 a\n2 b\n", [][]byte{cpu0, cpu1}, "zlib", same), []int64{1005, 2005, 3005}, "where CPU 0's are"},
		{"v7 size over the next", buildV7Table(t, []string{swText}, "1 a\n2 b\n", [][]byte{cpu0, cpu1}, "", func(l []v7Loc) { l[0].size += l[1].size }),
			[]int64{1005, 1505, 2005, 3005}, fmt.Sprintf("gives its data %d bytes", len(cpu0)+len(cpu1))},
	}
	for _, c := range cases {
		sws, _, meta, err := readTrace(t, c.data, false)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var found bool
		for _, w := range meta.Warnings.List() {
			found = found || w.Key == "tracedat-damaged-cpu-size" && strings.Contains(w.Message, c.msg)
		}
		if !slices.Equal(sws, c.want) || !found {
			t.Errorf("%s: switches %v, warnings %v; want %v and a tracedat-damaged-cpu-size warning with %q", c.name, sws, meta.Warnings.List(), c.want, c.msg)
		}
	}
}

// TestCPUOffsetPastEnd (new-user pass 113 F6): a v6 CPU table whose CPU 1
// offset lies 1 MiB, then 1 TiB, past the file's end while CPU 0's data
// (three 512-byte pages from offset 2048: to 3584) end inside it. CPU 1's
// page follows CPU 0's there, and is read from 3584: switches 1005, 1505,
// 2005, 3005, with a tracedat-damaged-cpu-size warning naming the offset
// and no truncated-file warning. Before, CPU 0 was read up to the offset
// (CPU 1's page as its fourth), its pages 2 and 3 dropped as out of line
// (1005, 1505 only), and the file called 1 TiB short.
func TestCPUOffsetPastEnd(t *testing.T) {
	cpu0 := bytes.Join([][]byte{page(1000, -1, sw(t, 5)), page(2000, -1, sw(t, 5)), page(3000, -1, sw(t, 5))}, nil)
	for _, past := range []uint64{1 << 20, 1 << 40} {
		data := switchTrace(t, cpu0, page(1500, -1, sw(t, 5)))
		table := bytes.LastIndex(data, []byte("flyrecord\x00")) + 10
		if got := binary.LittleEndian.Uint64(data[table+16:]); got != 3584 {
			t.Fatalf("CPU 1's offset %d, want 3584", got)
		}
		bad := uint64(len(data)) + past
		binary.LittleEndian.PutUint64(data[table+16:], bad)
		sws, _, meta, err := readTrace(t, data, false)
		if err != nil {
			t.Fatal(err)
		}
		var found, cut bool
		for _, w := range meta.Warnings.List() {
			found = found || w.Key == "tracedat-damaged-cpu-size" && strings.Contains(w.Message, fmt.Sprintf("at offset %d, past the file's end (%d bytes)", bad, len(data))) &&
				strings.Contains(w.Message, "read at offset 3584")
			cut = cut || strings.Contains(w.Key, "truncated")
		}
		if !slices.Equal(sws, []int64{1005, 1505, 2005, 3005}) || !found || cut {
			t.Errorf("offset +%d: switches %v, warnings %v; want 1005, 1505, 2005, 3005 and the offset named, no truncation", past, sws, meta.Warnings.List())
		}
	}
}

// TestCPUTableDamageV7 (new-user pass 114 F1, F2): trace-cmd's own v7
// files (pipe-multi.v7none.dat.gz: CPU 0 at 2052096, 253952 bytes, CPU 1
// at 2306048, 233472 bytes, its data section ending at 2539520; and
// pipe-multi.v7zstd.dat: 131072, 46837 bytes, and 180224, 44834, the
// section ending at 225062) with one CPU entry of the BUFFER option
// damaged read every event of the whole file, with a
// tracedat-damaged-cpu-size warning: CPU 1's size cut to 4096 (its data
// read to the section's end), CPU 1's offset past the file's end or 4096
// bytes into CPU 0's data (read where they follow CPU 0's), CPU 1's entry
// a copy of CPU 0's (the bytes after CPU 0's data are CPU 1's), CPU 1's
// offset 100 bytes off its page (read on the page where it follows CPU
// 0's), CPU 0's offset past the end or negative (read from the page that
// ends its data where CPU 1's begin). Before,
// the short size dropped CPU 1's pages after its first, without a word,
// and the offsets had CPU 0 read past its end, CPU 1's pages read as its
// own and dropped as out of line.
func TestCPUTableDamageV7(t *testing.T) {
	for _, name := range []string{"pipe-multi.v7none.dat.gz", "pipe-multi.v7zstd.dat"} {
		clean := load(t, name)
		want, _, meta, err := readTrace(t, clean, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base := len(meta.Warnings.List()) // (the zstd file's empty top instance)
		f, err := parseFile(bytes.NewReader(clean), int64(len(clean)))
		if err != nil {
			t.Fatal(err)
		}
		var cpus []cpuData
		for _, b := range f.buffers {
			if len(b.cpus) == 2 && b.cpus[1].size > 0 {
				cpus = b.cpus
			}
		}
		if cpus == nil {
			t.Fatalf("%s: no buffer of two CPUs with data", name)
		}
		// The BUFFER option's CPU 1 entry: u32 cpu, u64 offset, u64 size.
		var ent [20]byte
		binary.LittleEndian.PutUint32(ent[:], 1)
		binary.LittleEndian.PutUint64(ent[4:], uint64(cpus[1].offset))
		binary.LittleEndian.PutUint64(ent[12:], uint64(cpus[1].size))
		at := bytes.Index(clean, ent[:])
		if at < 0 || bytes.Count(clean, ent[:]) != 1 {
			t.Fatalf("%s: CPU 1's entry not found once", name)
		}
		// CPU 0's entry, which ends where CPU 1's begins.
		at0 := at - 20
		if binary.LittleEndian.Uint32(clean[at0:]) != 0 || int64(binary.LittleEndian.Uint64(clean[at0+4:])) != cpus[0].offset {
			t.Fatalf("%s: CPU 0's entry not before CPU 1's", name)
		}
		for _, c := range []struct {
			what      string
			cpu       int
			off, size int64
		}{
			{"size cut", 1, cpus[1].offset, 4096},
			{"offset past the end", 1, int64(len(clean)) + 1<<20, cpus[1].size},
			{"offset inside CPU 0's", 1, cpus[0].offset + 4096, cpus[1].size},
			{"a copy of CPU 0's", 1, cpus[0].offset, cpus[0].size},
			// (new-user pass 116 F4, F3: the whole file failed; CPU 0
			// was lost.)
			{"offset 100 bytes off", 1, cpus[1].offset + 100, cpus[1].size},
			{"CPU 0's offset past the end", 0, int64(len(clean)) + 1<<20, cpus[0].size},
			{"CPU 0's offset negative", 0, -4096, cpus[0].size},
		} {
			data := bytes.Clone(clean)
			e := at
			if c.cpu == 0 {
				e = at0
			}
			binary.LittleEndian.PutUint64(data[e+4:], uint64(c.off))
			binary.LittleEndian.PutUint64(data[e+12:], uint64(c.size))
			got, _, meta, err := readTrace(t, data, false)
			var found bool
			for _, w := range meta.Warnings.List() {
				found = found || w.Key == "tracedat-damaged-cpu-size"
			}
			if err != nil || !slices.Equal(got, want) || !found || len(meta.Warnings.List()) != base+1 {
				t.Errorf("%s, CPU %d entry, %s: %d switches of %d, error %v, warnings %v; want them all and one tracedat-damaged-cpu-size warning", name, c.cpu, c.what, len(got), len(want), err, meta.Warnings.List())
			}
		}
	}
}

// TestPageAheadRunsOn (new-user pass 116 F1): one CPU, pages stamped 1000,
// 2000, ..., 10000, each with events 5 and 900 ns after its stamp (the pages
// abut as on a busy CPU: 100 ns between one's last event and the next
// one's stamp); page 4's records after its
// first are overwritten, so its second event reads 100000000000000000 ns
// (a time extend) after its first and its third 3000 ns after that. Page 4
// runs past every later page's stamp, and a run of pages in order that
// leaves it out must not ask the pages around it for its misread time:
// held to its own largest step (the 1e17 ns jump), its span of 1e17 + 3000
// ns left the 1100 ns between pages 3 and 5 too short, so every run that
// skipped page 4 was short and the six intact pages after it made the best
// run without pages 1-3 (dropped, 6 events lost). Page 4 is held to the
// other pages' steps (895 ns) instead. Read: every event but page 4's second
// and third (its tail from event 2, dropped, count unknown), 19 switches.
func TestPageAheadRunsOn(t *testing.T) {
	var pages [][]byte
	var want []int64
	for i := uint64(1); i <= 10; i++ {
		ts := i * 1000
		if i == 4 {
			pages = append(pages, page(ts, -1, sw(t, 5), evExtend(100000000000000000), sw(t, 0), sw(t, 3000)))
			want = append(want, int64(ts+5))
			continue
		}
		pages = append(pages, page(ts, -1, sw(t, 5), sw(t, 895)))
		want = append(want, int64(ts+5), int64(ts+900))
	}
	sws, _, meta, err := damageTrace(t, false, pages...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sws, want) {
		t.Errorf("switches %v (%d); want %v (%d); warnings %v", sws, len(sws), want, len(want), meta.Warnings.List())
	}
	if ws := fmt.Sprint(meta.Warnings.List()); !strings.Contains(ws, "page 4: its events run to 100000000000007005 ns") || strings.Contains(ws, "page 1:") {
		t.Errorf("warnings %s: want page 4's tail dropped and nothing said of page 1", ws)
	}
}
