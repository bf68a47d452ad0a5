package tracedat

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// Ring-buffer event types (kernel/trace/ring_buffer.c, enum
// ring_buffer_type; include/linux/ring_buffer.h): type_len values above
// the largest data length in 4-byte words.
const (
	typePadding    = 29 // RINGBUF_TYPE_PADDING: padding or a discarded record
	typeTimeExtend = 30 // RINGBUF_TYPE_TIME_EXTEND: delta += array[0] << 27
	typeTimeStamp  = 31 // RINGBUF_TYPE_TIME_STAMP: absolute time stamp
	tsShift        = 27 // TS_SHIFT: bits of the time delta in the event header
	rbEventMinSize = 8  // RB_EVNT_MIN_SIZE: the smallest event, header and one word
)

// Page "commit" flags (kernel/trace/ring_buffer.c RB_MISSED_EVENTS,
// RB_MISSED_STORED): events were lost before this page; their count is
// stored as a long right after the page's data.
const (
	missedEvents = 1 << 31
	missedStored = 1 << 30
	commitMask   = missedStored - 1
)

// tsMSB are the top time-stamp bits an absolute time stamp event does not
// carry (kernel/trace/ring_buffer.c TS_MSB, rb_fix_abs_ts, Linux >= 5.16).
const tsMSB = uint64(0xf8) << 56

// pageLayout is what header_page says about a ring-buffer page.
type pageLayout struct {
	commitSize int // bytes of the commit field (a kernel long)
	dataOff    int // offset of the first event
}

// parseHeaderPage reads the offsets of "commit" and "data" from the
// header_page text ("field: local_t commit; offset:8; size:8; signed:1;"),
// defaulting to the 64-bit layout (commit 8 bytes at 8, data at 16).
func parseHeaderPage(text []byte) pageLayout {
	l := pageLayout{commitSize: 8, dataOff: 16}
	for _, line := range bytes.Split(text, []byte("\n")) {
		line = bytes.TrimSpace(line)
		isCommit := bytes.Contains(line, []byte(" commit;"))
		isData := bytes.Contains(line, []byte(" data;"))
		if !isCommit && !isData {
			continue
		}
		off, okOff := fieldNum(line, "offset:")
		size, okSize := fieldNum(line, "size:")
		switch {
		case isCommit && okSize && (size == 4 || size == 8):
			l.commitSize = size
		case isData && okOff && off > 0 && off <= 64:
			l.dataOff = off
		}
	}
	// The data cannot start inside the time stamp and commit fields.
	l.dataOff = max(l.dataOff, 8+l.commitSize)
	return l
}

func fieldNum(line []byte, key string) (int, bool) {
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(key):]
	if j := bytes.IndexByte(rest, ';'); j >= 0 {
		rest = rest[:j]
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(rest)))
	return n, err == nil
}

// cpuStream walks one CPU's ring-buffer pages, one record at a time. It
// reads a page ahead: a page whose events run past the next page's time
// stamp has a damaged time and is dropped (timeAhead).
type cpuStream struct {
	f       *file
	cpu     int
	layout  pageLayout
	psize   int
	lenient bool // a broken page is skipped with an unobserved window, not an error

	// Uncompressed data: the file range still to read; start where the
	// CPU's data begin.
	off, end int64
	start    int64
	// Compressed data: chunks still to read and the current one.
	compressed bool
	chunksLeft uint32
	chunkCount int64 // the chunk count's offset
	chunkOff   int64
	chunkEnd   int64
	chunk      []byte
	chunkPos   int
	resynced   bool // a damaged chunk was skipped to a chunk found by its look (the chunk count no longer holds)
	countShort bool // the chunk count ran out with a chunk after it, within the CPU's data: read to the data's end

	truncated  int64 // where the CPU's data should have ended (0: not cut)
	sectionEnd bool  // truncated is only the end of the CPU's data section

	// The pages read ahead (up to two: the next and the one after; the
	// data ends after them, aheadEnd, or with aheadErr) and the three
	// page buffers they and the current page rotate in.
	primed   bool
	ahead    [][]byte
	aheadArr [lookAhead][]byte
	spans    []pageSpan // the pages ahead's spans, as ahead
	spansArr [lookAhead]pageSpan
	aheadErr error
	aheadEnd bool
	bufs     [lookAhead + 1][]byte
	flip     int

	page    []byte      // the current page's event area (up to pageErr's record)
	pageErr error       // what broke the page where page ends (nil: intact)
	tail    *pageDamage // the page's events after page ends, dropped for a damaged time
	// warnCommit is a damaged commit the stream read past (the records
	// after it parse): the reader warns of it (Reader.item).
	warnCommit error
	evOff      []int    // scan's: where the records leading to each event of the page start
	evTime     []uint64 // (scan's buffer of the events' times)
	ref        uint64   // before any kept event, the earliest first page time stamp of all CPUs (timeAhead)
	others     uint64   // the earliest first page time stamp of the other CPUs (0: none; firstBehind)
	pos        int
	ts         uint64
	pageNo     int

	// The current item: a record (raw != nil), or at time t a loss (lost
	// > 0 or lostUnknown) and/or pages dropped as damaged (damage).
	t           int64
	raw         []byte
	lost        uint64
	lostUnknown bool
	damage      []pageDamage
	// kept is the time of the last item the reader kept (keptAny: one
	// was): a later item earlier than it is damage (Reader.item).
	kept    int64
	keptAny bool
	gap     bool   // events were dropped since kept (Reader.item)
	endLost uint64 // the recorder's losses before the CPU's last pages, dropped as damaged (Reader.ended)
	// backRun is how many pages after page backFrom moved back with it
	// (movedBack): they go whole as they come.
	backRun, backFrom int
}

// pageDamage is a page (or the rest of one) the stream did not read: its
// number (0: a compressed chunk of pages), why, and the events it held there (events; -1 when the damage
// leaves the number unknown, why then says what was dropped).
type pageDamage struct {
	page   int
	why    error
	events int
	parse  bool // records that do not parse (lenient), not a damaged time
}

// holePage stands, among the pages read ahead, for a compressed chunk
// skipped as damaged (lenient).
var holePage = []byte{}

// errFileCut ends the stream of a CPU whose data the file's end cuts
// short: not an error of the trace's, the reader counts it as a warning.
var errFileCut = fmt.Errorf("truncated file")

// newCPUStream prepares the stream of cd; compressed v7 data starts with a
// chunk count.
func newCPUStream(f *file, cd cpuData, psize int, layout pageLayout, lenient bool) (*cpuStream, error) {
	s := &cpuStream{f: f, cpu: cd.cpu, layout: layout, psize: psize, lenient: lenient, start: cd.offset, off: cd.offset, end: cd.offset + cd.size, sectionEnd: cd.sectionEnd}
	if cd.offset < 0 || cd.size < 0 || cd.size > 1<<50 {
		return nil, corruptf("CPU %d data: %d bytes at offset %d", cd.cpu, cd.size, cd.offset)
	}
	if s.end > f.size {
		// A truncated file: read what is there, then say what is
		// missing (rawPage: errFileCut).
		s.truncated, s.end = s.end, max(f.size, s.off)
	}
	if f.comp != "" && cd.size > 0 {
		h, err := f.readAt(cd.offset, 4)
		if err != nil {
			return nil, fmt.Errorf("CPU %d chunk count: %w", cd.cpu, err)
		}
		s.compressed = true
		s.chunksLeft = f.order.Uint32(h)
		s.chunkCount, s.chunkOff = cd.offset, cd.offset+4
		// trace-cmd 3.1 records the size of the compressed data without
		// the 4-byte chunk count in front of it (seen in the shared
		// messaging-tracecmd.trace.dat: its last chunk ends 4 bytes after
		// offset+size); allow for that, within the file.
		s.chunkEnd = min(cd.offset+cd.size+4, f.size)
	}
	return s, nil
}

// cut is the errFileCut of a CPU whose data the file's end cuts at from
// (the first byte not read: a partial page or chunk is left out whole).
func (s *cpuStream) cut(from int64, what string) error {
	if s.f.size <= s.start && !s.sectionEnd {
		// Nothing of it in the file (new-user pass 112 F4: such a CPU's
		// line read "inside the CPU's data", beside a cut CPU it hid).
		return fmt.Errorf("CPU %d: the file ends at offset %d, before the CPU's data (offset %d to %d): all %d bytes missing: %w",
			s.cpu, s.f.size, s.start, s.truncated, s.truncated-s.start, errFileCut)
	}
	if s.sectionEnd {
		return fmt.Errorf("CPU %d: the file ends at offset %d, inside the CPU's data (in a section that should end at %d): at most %d bytes missing; the CPU's whole %s before the cut were read: %w",
			s.cpu, s.f.size, s.truncated, s.truncated-from, what, errFileCut)
	}
	return fmt.Errorf("CPU %d: the file ends at offset %d, inside the CPU's data (which should end at %d): %d bytes missing; the CPU's whole %s before the cut were read: %w",
		s.cpu, s.f.size, s.truncated, s.truncated-from, what, errFileCut)
}

// rawPage returns the next page's bytes, copied into the buffer of three
// used longest ago (valid for the two calls after), or nil at the end of
// the CPU's data or at the error that ends it there.
func (s *cpuStream) rawPage() ([]byte, error) {
	var src []byte
	if s.compressed {
		for s.chunkPos >= len(s.chunk) {
			ok, hole, err := s.nextChunk()
			switch {
			case hole != nil:
				return holePage, hole
			case err != nil:
				return nil, err
			case !ok:
				return nil, nil
			}
		}
		n := min(s.psize, len(s.chunk)-s.chunkPos)
		src = s.chunk[s.chunkPos : s.chunkPos+n]
		s.chunkPos += n
	} else if s.off >= s.end || (s.truncated > 0 && s.end-s.off < int64(s.psize)) {
		if s.truncated > 0 {
			// A page the cut leaves part of is left out whole.
			return nil, s.cut(s.off, "pages")
		}
		return nil, nil
	}
	b := &s.bufs[s.flip]
	s.flip = (s.flip + 1) % len(s.bufs)
	if src != nil {
		*b = append((*b)[:0], src...)
		return *b, nil
	}
	n := min(int64(s.psize), s.end-s.off)
	if int64(cap(*b)) < n {
		*b = make([]byte, s.psize)
	}
	pg := (*b)[:n]
	if _, err := s.f.ra.ReadAt(pg, s.off); err != nil {
		return nil, fmt.Errorf("CPU %d page at offset %d: %w", s.cpu, s.off, err)
	}
	s.off += n
	return pg, nil
}

// nextChunk decompresses the CPU's next chunk into s.chunk: false at the
// end of its chunks; hole the error of a chunk skipped as damaged
// (lenient), err one that ends the CPU's data.
func (s *cpuStream) nextChunk() (ok bool, hole, err error) {
	if s.chunksLeft == 0 && !s.resynced && !s.countShort && s.chunkOff+12 <= s.chunkEnd && s.plausibleChunk(s.chunkOff) {
		// The count is spent and a chunk begins after the ones it
		// counted, within the CPU's data (its size in the file's
		// options): the count is damaged, and the chunks after it were
		// dropped without a word (new-user pass 112 F1: a count of 3 of
		// 7 left out the CPU's last 1.5 s, 0 of 7 all of it, "lost: 0").
		s.countShort = true
		s.warnCommit = fmt.Errorf("CPU %d: its chunk count says %d chunks, and another begins at offset %d after them, within the CPU's data (to offset %d): a damaged count, the CPU's chunks read to its data's end", s.cpu, s.f.order.Uint32(s.mustRead(s.chunkCount, 4)), s.chunkOff, s.chunkEnd)
	}
	if s.chunksLeft == 0 && !s.countShort || (s.resynced || s.countShort) && s.chunkOff+8 > s.chunkEnd {
		return false, nil, nil // (after a resync the count no longer holds: the data's end does)
	}
	if s.chunksLeft > 0 {
		s.chunksLeft--
	}
	at := s.chunkOff
	h, err := s.f.readAt(at, 8)
	if s.truncated > 0 && (err != nil || at+8 > s.chunkEnd || int64(s.f.order.Uint32(h)) > s.chunkEnd-at-8) {
		return false, nil, s.cut(at, "chunks")
	}
	if err != nil || at+8 > s.chunkEnd {
		return false, nil, corruptf("CPU %d: chunk header at offset %d beyond the CPU's data", s.cpu, at)
	}
	csize, usize := s.f.order.Uint32(h), s.f.order.Uint32(h[4:])
	if int64(csize) > s.chunkEnd-at-8 || usize > maxMeta {
		bad := corruptf("CPU %d: chunk at offset %d: %d compressed / %d bytes does not fit", s.cpu, at, csize, usize)
		if q := s.resync(at + 8); s.lenient && q > 0 {
			s.skipTo(q)
			return true, fmt.Errorf("%w; read on at the next chunk, at offset %d", bad, q), nil
		}
		return false, nil, bad
	}
	c, err := s.f.readAt(at+8, int64(csize))
	if err != nil {
		return false, nil, err
	}
	out, err := s.f.decompress(c, int(usize), s.chunk)
	var sizeErr *sizeMismatch
	next := at + 8 + int64(csize)
	switch {
	case errors.As(err, &sizeErr) && len(out)%s.psize == 0:
		// Whole pages, only the header's size differs: read (new-user
		// pass 93 F6: such a chunk and the four after it dropped).
		s.warnCommit = fmt.Errorf("CPU %d chunk at offset %d: %w: a damaged chunk header, the chunk read", s.cpu, at, err)
	case err != nil && s.lenient:
		// Only this chunk is lost: the next is where its header says,
		// or, when no chunk begins there (its compressed size damaged),
		// at the next place one does (new-user passes 93 F6 and 94 F3:
		// the rest of the CPU's data, 404 of 519 ms, was skipped).
		if !s.plausibleChunk(next) {
			if q := s.resync(at + 8); q > 0 {
				next = q
			}
		}
		s.skipTo(next)
		return true, fmt.Errorf("CPU %d chunk at offset %d: %w", s.cpu, at, err), nil
	case err != nil:
		return false, nil, fmt.Errorf("CPU %d chunk at offset %d: %w", s.cpu, at, err)
	}
	s.chunk, s.chunkOff, s.chunkPos = out, next, 0
	return true, nil, nil
}

// skipTo goes on at the chunk at offset q, after one skipped as damaged.
func (s *cpuStream) skipTo(q int64) {
	if q != s.chunkOff+8+int64(s.f.order.Uint32(s.mustRead(s.chunkOff, 4))) {
		s.resynced = true
	}
	s.chunkOff, s.chunk, s.chunkPos = q, s.chunk[:0], 0
}

// mustRead reads n bytes at off, zeros where the file has none.
func (s *cpuStream) mustRead(off, n int64) []byte {
	b, err := s.f.readAt(off, n)
	if err != nil {
		return make([]byte, n)
	}
	return b
}

// plausibleChunk reports whether a compressed chunk's header (u32
// compressed size, u32 size) can begin at offset q: its data within the
// CPU's, a size of whole pages, and the data starting as the codec's
// streams do (zstd's frame magic 0xFD2FB528, RFC 8878 section 3.1.1;
// zlib's CMF byte 0x78 for deflate with a 32 KiB window, RFC 1950 section
// 2.2). The CPU data's end is plausible too (no chunk after).
func (s *cpuStream) plausibleChunk(q int64) bool {
	if q == s.chunkEnd {
		return true
	}
	if q+12 > s.chunkEnd {
		return false
	}
	h := s.mustRead(q, 12)
	csize, usize := int64(s.f.order.Uint32(h)), s.f.order.Uint32(h[4:])
	if csize < 4 || csize > s.chunkEnd-q-8 || usize == 0 || usize > maxMeta || int(usize)%s.psize != 0 {
		return false
	}
	switch s.f.comp {
	case "zstd":
		return h[8] == 0x28 && h[9] == 0xb5 && h[10] == 0x2f && h[11] == 0xfd
	case "zlib":
		return h[8] == 0x78
	}
	return false
}

// resync returns the offset of the first place from offset from on where a
// chunk can begin (plausibleChunk), reading up to 4 MiB; 0 when none does.
func (s *cpuStream) resync(from int64) int64 {
	end := min(s.chunkEnd, from+4<<20)
	if end-from < 12 {
		return 0
	}
	b := s.mustRead(from, end-from)
	for i := 0; i+12 <= len(b); i++ {
		if (b[i+8] == 0x28 || b[i+8] == 0x78) && s.plausibleChunk(from+int64(i)) {
			return from + int64(i)
		}
	}
	return 0
}

// header reads a page's time stamp and commit word; size is the bytes of
// events the commit says (missed-event flags masked off).
func (s *cpuStream) header(pg []byte) (ts, commit uint64, size int) {
	l := s.layout
	ts = s.f.order.Uint64(pg)
	if l.commitSize == 4 {
		commit = uint64(s.f.order.Uint32(pg[8:]))
	} else {
		commit = s.f.order.Uint64(pg[8:])
	}
	return ts, commit, int(commit & commitMask)
}

// fill reads pages ahead until lookAhead are, or the data ends.
func (s *cpuStream) fill() {
	if !s.primed {
		s.primed = true
		s.ahead, s.spans = s.aheadArr[:0], s.spansArr[:0]
	}
	for len(s.ahead) < lookAhead && s.aheadErr == nil && !s.aheadEnd {
		pg, err := s.rawPage()
		switch {
		case len(pg) == 0 && pg != nil:
			// (A chunk skipped as damaged, lenient: its place in the
			// queue, so that its loss is said where it lay.)
			s.ahead = append(s.ahead, pg)
			s.spans = append(s.spans, pageSpan{hole: err})
		case err != nil:
			s.aheadErr = err
		case pg == nil:
			s.aheadEnd = true
		default:
			s.ahead = append(s.ahead, pg)
			s.spans = append(s.spans, s.pageSpan(pg))
		}
	}
}

// stamp returns the time stamp of the i-th page ahead (0: the next); false
// when there is none or it holds no events (its commit 0 or broken).
func (s *cpuStream) stamp(i int) (uint64, bool) {
	if i >= len(s.spans) {
		return 0, false
	}
	return s.spans[i].from, s.spans[i].events > 0
}

// firstStamp reads the CPU's first pages ahead and returns the first one's
// time stamp; false when it has no events or the data none.
func (s *cpuStream) firstStamp() (uint64, bool) {
	s.fill()
	return s.stamp(0)
}

// nextPage loads the next page that is not dropped as damaged; false at
// the end of the CPU's data (err: what ended it).
func (s *cpuStream) nextPage() (bool, error) {
	for {
		s.fill()
		if len(s.ahead) == 0 {
			return false, s.aheadErr
		}
		pg, hole, evs := s.ahead[0], s.spans[0].hole, s.spans[0].events
		copy(s.ahead, s.ahead[1:])
		copy(s.spans, s.spans[1:])
		s.ahead, s.spans = s.ahead[:len(s.ahead)-1], s.spans[:len(s.spans)-1]
		s.fill()
		if hole != nil {
			s.damage = append(s.damage, pageDamage{why: hole, events: -1, parse: true})
			continue
		}
		s.pageNo++
		if s.backRun > 0 {
			s.backRun--
			s.damage = append(s.damage, pageDamage{page: s.pageNo, events: evs,
				why: fmt.Errorf("CPU %d page %d: moved back with page %d (the pages between abut, and the gap after them gives back the time it lies behind the CPU's last event read): a damaged time stamp", s.cpu, s.pageNo, s.backFrom)})
			continue
		}
		l := s.layout
		if len(pg) < l.dataOff {
			return false, corruptf("CPU %d page %d: %d bytes, shorter than its header", s.cpu, s.pageNo, len(pg))
		}
		ts, commit, size := s.header(pg)
		if commit&commitMask == 0 && allZero(pg[l.dataOff:]) && s.dataAhead() {
			// A page with no events among pages with events: the kernel
			// hands out only pages it wrote events to (ring_buffer_read_page
			// fails on an empty buffer), so the page was zeroed, its
			// stamp kept or not (new-user pass 101 F1: a page, and 8 pages,
			// of zeros read as nothing, lost 0, exit 0, the hole shown as
			// idle). How many events it held is unknown. (Empty pages after
			// a CPU's last events are the file's padding.)
			s.damage = append(s.damage, pageDamage{page: s.pageNo, events: -1,
				why: fmt.Errorf("CPU %d page %d: no events, between pages with events (the kernel hands out only pages it wrote to): a zeroed page, its events lost", s.cpu, s.pageNo)})
			continue
		}
		if commit&missedStored != 0 && commit&missedEvents != 0 {
			if b, ok := s.countAt(pg, ts, size); ok {
				s.warnCommit = fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, and its records end at %d, followed by the missed-events count its flags say is stored and the kernel's zeroes: a damaged commit, the page read to %d", s.cpu, s.pageNo, size, b, b)
				size, commit = b, commit&^commitMask|uint64(b)
			}
		}
		if size > len(pg)-l.dataOff {
			// A commit larger than the page: its records, up to where
			// the kernel's zeroes begin, read when they parse so (new-
			// user pass 93 F3: 83 records that parse dropped).
			if n := s.dataEnd(pg, l.dataOff); n > 0 && s.scan(pg[l.dataOff:l.dataOff+n], ts).err == nil {
				s.warnCommit = fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, more than the page's %d, and its records end at %d: a damaged commit, the page read to %d", s.cpu, s.pageNo, size, len(pg)-l.dataOff, n, n)
				size, commit = n, uint64(n) // (its flags are as damaged as its size)
			}
		}
		if size > len(pg)-l.dataOff {
			err := corruptf("CPU %d page %d: commit says %d bytes of events, the page holds %d", s.cpu, s.pageNo, size, len(pg)-l.dataOff)
			if !s.lenient {
				return false, err
			}
			// (What lies past the real commit is stale data of the
			// page's earlier use: none of it is read.)
			s.damage = append(s.damage, pageDamage{page: s.pageNo, why: err, events: -1, parse: true})
			continue
		}
		// (The recorder's losses before the page stand even when the
		// page is dropped as damaged: new-user pass 95 N1, 21911 lost
		// before a dropped first page went uncounted.)
		end := s.recordsAfterCommit(pg, size, commit)
		if end > size && commit&missedStored != 0 {
			// A commit its records contradict: the count after it is
			// not trusted (new-user pass 96 N1: event bytes read as
			// 146650073479092020 events lost), its bytes are the
			// page's.
			commit &^= missedStored
			end = s.recordsAfterCommit(pg, size, commit)
		}
		s.missed(pg, commit, size)
		data, lowered := s.events(pg, ts, size, end)
		sc := s.scan(data, ts)
		if sc.err != nil && sc.good > 0 && allZero(data[sc.good:]) {
			// Zeroes where the commit says records are: the kernel's
			// zeroes after the real commit (ring_buffer_read_page), a
			// commit made larger.
			s.warnCommit = fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, and its records end at %d, zeroes after: a damaged commit, the page read to %d", s.cpu, s.pageNo, size, sc.good, sc.good)
			sc.err = nil
		}
		s.ts = ts
		s.page, s.pageErr = data[:sc.good], sc.err
		if s.firstBehind(sc, ts) {
			s.damage = append(s.damage, pageDamage{page: s.pageNo, events: sc.events,
				why: fmt.Errorf("CPU %d page %d: the CPU's first page ends at %d ns, before every other CPU's first page (%d ns), and %d ns before its own next page: a damaged time stamp", s.cpu, s.pageNo, sc.end, s.others, s.gapAfter(sc.end))})
			continue
		}
		if n, back := s.movedBack(ts, sc); back {
			s.damage = append(s.damage, pageDamage{page: s.pageNo, events: sc.events,
				why: fmt.Errorf("CPU %d page %d: its time stamp, %d ns, is %d ns before the CPU's last event read, more than any step between its own events: a damaged time stamp", s.cpu, s.pageNo, ts, uint64(s.kept)-ts)})
			s.backRun, s.backFrom = n, s.pageNo
			continue
		}
		if at, next, cut, bad := s.timeAhead(ts, sc); bad {
			why := fmt.Errorf("CPU %d page %d: its events run to %d ns, past the time stamp of page %d, %d ns, and out of line with the pages after it: a damaged time", s.cpu, s.pageNo, sc.end, next, at)
			if sc.end <= at {
				why = fmt.Errorf("CPU %d page %d: page %d begins at %d ns, before the pages between them end, and of the runs of pages in order the one that leaves this page out fits their times: a damaged time", s.cpu, s.pageNo, next, at)
			}
			if cut == 0 && sc.err == nil {
				// (A damaged page time stamp: the records parse, their
				// number is known.)
				s.damage = append(s.damage, pageDamage{page: s.pageNo, events: sc.events, why: why})
				continue
			}
			// The events before are in line: read, the rest dropped
			// (Reader.item reports it after them). How many events the
			// rest held is unknown: after a damaged record header the
			// records are misread (new-user pass 92 F4: "5 lost" of 51).
			if cut >= len(s.evOff) {
				cut = len(s.evOff) - 1
			}
			s.page, s.pageErr = data[:s.evOff[cut]], nil
			s.tail = &pageDamage{page: s.pageNo, events: -1,
				why: fmt.Errorf("%v: the page's records from its event %d on dropped (how many events they held is unknown: after a damaged delta or record header they are misread)", why, cut+1)}
		}
		if lowered != nil && s.tail == nil {
			s.tail = &pageDamage{page: s.pageNo, events: -1, why: lowered}
		}
		s.pos = 0
		return true, nil
	}
}

// countAt reports, for page pg (time stamp ts) whose commit word has both
// missed-events flags and says size bytes of events, where its records end
// when the commit is damaged past them: the bytes that are not zero end
// before size (or size is past the page), and they end with a nonzero
// count of commitSize bytes right after records that parse. The kernel
// stores the count at the commit and zeroes the page after it
// (kernel/trace/ring_buffer.c, ring_buffer_read_page, Linux 6.x: "if
// (missed_events)" ... memcpy(&bpage->data[commit], ...); "Zero it out
// here"), so the last such position is the real commit (new-user pass 96
// N2: commit 4080 on a page whose records end at 4028, the count after
// them read as a record of event id 0 and the recorder's 222114 lost
// events gone).
func (s *cpuStream) countAt(pg []byte, ts uint64, size int) (int, bool) {
	l := s.layout
	room := len(pg) - l.dataOff
	nz := s.dataEnd(pg, l.dataOff)
	if nz == 0 || nz >= size || size <= room && s.scan(pg[l.dataOff:l.dataOff+size], ts).err == nil {
		// (Records that parse to the commit's end, zeroes in them: a
		// discarded record's payload, not the kernel's zeroes.)
		return 0, false
	}
	for b := nz - 4; b >= 0 && b >= nz-l.commitSize; b -= 4 {
		if b+l.commitSize > room || s.count(pg[l.dataOff+b:]) == 0 {
			continue
		}
		if s.scan(pg[l.dataOff:l.dataOff+b], ts).err == nil {
			return b, true
		}
	}
	return 0, false
}

// count reads a stored missed-events count at the start of b (commitSize
// bytes, as the kernel's unsigned long).
func (s *cpuStream) count(b []byte) uint64 {
	if s.layout.commitSize == 4 {
		return uint64(s.f.order.Uint32(b))
	}
	return s.f.order.Uint64(b)
}

// events returns the event area of page pg (time stamp ts, its commit word
// saying size bytes, its data ending at n: recordsAfterCommit): the
// commit's, or, when records follow it (a commit made smaller) and parse,
// up to where they end (said by warnCommit); lowered says what was dropped
// when they do not parse.
func (s *cpuStream) events(pg []byte, ts uint64, size, n int) (data []byte, lowered error) {
	l := s.layout
	data = pg[l.dataOff : l.dataOff+size]
	if n <= size {
		return data, nil
	}
	if sc := s.scan(pg[l.dataOff:l.dataOff+n], ts); sc.err != nil {
		if sc.good > size {
			// Records that parse past the commit, then bytes that do
			// not (a count the damaged commit's flags no longer say is
			// there): the records read (new-user pass 96 N5: a first
			// page with commit 0 read as nothing, its CPU's window of
			// no width).
			return pg[l.dataOff : l.dataOff+sc.good], fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, and records run on to %d, then %d bytes that do not parse as records (the kernel zeroes a page past its commit): a damaged commit, the records read, the rest dropped (how many events it held is unknown)", s.cpu, s.pageNo, size, sc.good, n-sc.good)
		}
		return data, fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, and %d bytes of data follow it (the kernel zeroes a page past its commit), which do not parse as records: a damaged page, its data after the commit dropped (how many events it held is unknown)", s.cpu, s.pageNo, size, n-size)
	}
	s.warnCommit = fmt.Errorf("CPU %d page %d: the commit says %d bytes of events, and records run on to %d (the kernel zeroes a page past its commit): a damaged commit, the page read to %d", s.cpu, s.pageNo, size, n, n)
	return pg[l.dataOff : l.dataOff+n], nil
}

// missed adds the events the recorder lost before page pg, which its
// commit word's flags say, with their count when it is stored after the
// commit's size bytes of events (else the count is unknown).
func (s *cpuStream) missed(pg []byte, commit uint64, size int) {
	if commit&missedEvents == 0 {
		return
	}
	l := s.layout
	if commit&missedStored != 0 && l.dataOff+size+l.commitSize > len(pg) {
		// The kernel sets RB_MISSED_STORED only when the count fits
		// after the records (ring_buffer_read_page: "If there is room
		// at the end of the page"): on a page they fill, the flags are
		// damaged (new-user pass 98 F7: read as a loss, exit 0).
		s.warnCommit = fmt.Errorf("CPU %d page %d: the missed-events flags say a count is stored after the page's %d bytes of events, and there is no room for one (the kernel stores one only where it fits): damaged flags, the loss taken as of unknown size", s.cpu, s.pageNo, size)
	}
	if commit&missedStored != 0 && l.dataOff+size+l.commitSize <= len(pg) {
		if n := s.count(pg[l.dataOff+size:]); n > 0 {
			s.lost += n
			return
		}
		// The kernel stores a count only for a loss (ring_buffer_read_page:
		// "if (missed_events)"): a stored 0 is damage (new-user pass 97
		// F2: flags set, count 0, no loss said, exit 0).
		s.warnCommit = fmt.Errorf("CPU %d page %d: the missed-events flags say a count is stored, and it is 0 (the kernel stores one only for a loss): a damaged count, the loss taken as of unknown size", s.cpu, s.pageNo)
	}
	s.lostUnknown = true
}

// firstBehind reports whether the CPU's first pages (this one, time
// stamp ts, scanned as sc, and those ahead that end before others) have
// time stamps moved earlier: they end before the first page of every other
// CPU (others) with a gap to the CPU's next page longer than their own
// span, most of it before others. Tracing starts on every CPU at once, and
// a CPU's pages follow each other as they fill, so intact first pages lie
// among the other CPUs' first events; pages moved earlier by d leave a gap
// of about d before the trace's start (new-user pass 92 F5: a first page 1
// s early, a 1 s gap in a 0.5 s trace, and delays of 1 s measured across
// it; pass 95 N2: two and three first pages). When the next page begins no
// later than others (the other CPUs' first pages late: their buffers
// overwrote their oldest events) nothing is told.
func (s *cpuStream) firstBehind(sc pageScan, ts uint64) bool {
	if s.keptAny || s.others == 0 || sc.events == 0 || sc.end >= s.others {
		return false
	}
	end := sc.end
	for _, sp := range s.spans {
		switch {
		case sp.events == 0:
		case sp.to < s.others && sp.from >= end:
			end = sp.to // (another first page moved with it)
		default:
			gap := sp.from - min(sp.from, end)
			return sp.from > s.others && gap > end-ts && s.others-end > gap/2
		}
	}
	return false
}

// movedBack reports whether a page (time stamp ts, scanned as sc) is
// stamped before the CPU's last kept event by more than the largest step
// between its own events: a page's stamp is its first event's time and a
// CPU's events are written in order, so the stamp moved back, and with it
// every event of the page, those it leaves after the kept event too (new-
// user pass 99: of pages moved 5 ms back, the last one's events past the
// kept event were read at the wrong time). Such a page goes whole, and so
// do the n pages ahead that moved with it: pages moved back together abut
// each other as they did, and the first gap as long as the time the page
// lies behind the kept event (at most what they moved by) ends them: the
// intact page after them is that far after the last (pass 100 F1: of four
// pages 100 ms back, the last read 100 ms early). A gap between them is
// their own, however long steps their events have (pass 101's d_i2: two
// pages 30 ms back on an idle CPU, 3.3 ms apart, within its 18 ms steps
// of the 20.8 ms behind, and the second was read 30 ms early). When no such gap comes
// within the pages ahead, or they fall out of order first, the page goes
// alone.
func (s *cpuStream) movedBack(ts uint64, sc pageScan) (n int, back bool) {
	if !s.keptAny || sc.events == 0 || s.kept < 0 {
		return 0, false
	}
	kept := uint64(s.kept)
	if ts >= kept {
		return 0, false // (every intact page: no walk of its steps)
	}
	step := maxStep(sc.times)
	if kept-ts <= step {
		return 0, false
	}
	behind, end := kept-ts, sc.end
	for i, sp := range s.spans {
		if sp.events == 0 {
			continue
		}
		if sp.from < end {
			return 0, true
		}
		if sp.from-end >= behind {
			return i, true
		}
		end = sp.to
	}
	return 0, true
}

// gapAfter is how long before the next page's time stamp a page ending
// at end ends (0 when there is no next page with events).
func (s *cpuStream) gapAfter(end uint64) uint64 {
	if nts, ok := s.stamp(0); ok && nts > end {
		return nts - end
	}
	return 0
}

// recordsAfterCommit returns, for a page pg whose commit word (commit)
// says size bytes of events, where its data end when bytes other than zero
// follow the commit (and the missed-events count stored after it):
// ring_buffer_read_page zeroes a page past its commit before it goes to
// user space (kernel/trace/ring_buffer.c, "This page may be off to user
// land. Zero it out here."; trace-cmd reads pages through it), so those
// bytes are records a damaged commit left out (new-user pass 92 F2: a
// commit made 0 dropped a page's 91 events without a word). The end is
// rounded up to the 4-byte alignment of records; size when the rest is
// zero.
func (s *cpuStream) recordsAfterCommit(pg []byte, size int, commit uint64) int {
	l := s.layout
	from := l.dataOff + size
	if commit&missedStored != 0 && commit&missedEvents != 0 {
		// (The count the kernel stores after the commit; the stored
		// flag without the missed one is a state it never writes: new-
		// user pass 96 N3, a count gone without a word.)
		from += l.commitSize
	}
	if n := s.dataEnd(pg, from); n > size {
		return n
	}
	return size
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// dataEnd is where the bytes of page pg that are not zero end, from
// offset from on, as an offset into the page's events, rounded up to the
// 4-byte alignment of records (at most the page's room); 0 when all from
// from on are zero.
func (s *cpuStream) dataEnd(pg []byte, from int) int {
	l := s.layout
	for i := len(pg) - 1; i >= from; i-- {
		if pg[i] != 0 {
			return min((i+1-l.dataOff+3)&^3, len(pg)-l.dataOff)
		}
	}
	return 0
}

// lookAhead is how many pages a stream reads ahead: timeAhead tells a run
// of neighbouring pages with damaged times from the intact pages after it
// when fewer pages are damaged than intact among the page and those ahead,
// up to 8 neighbouring pages (new-user pass 93 F4 and 94 F1: two, three and
// four neighbouring pages 1 s ahead were kept, and every later event of
// their CPU dropped as earlier). The cost is 16 pages of memory per CPU and
// a walk of each page's records as it is read ahead.
const lookAhead = 16

// timeAhead reports whether a page (time stamp ts, scanned as sc) has a
// damaged time, and from which of its events on (cut) it is dropped, with
// the stamp (at) and number of the first page ahead it runs past. A
// page's time stamp is the time of the first event written on it
// (kernel/trace/ring_buffer.c, Linux 6.x: the first event on a page has no
// delta from the page's time_stamp, rb_add_time_stamp,
// rb_update_write_stamp), and a CPU's events are written in time order, so
// the pages of a CPU are in order: each page's events are at or after the
// previous page's last and at or before the next page's time stamp (every
// page of the shared trace.dat recordings is). A page that runs past a
// later page's stamp has a damaged time (a stamp, a delta, or records
// misread after a damaged header), or pages after it have. Of the page
// (as two parts, split at its largest jump between two of its events) and
// the pages read ahead, the best run in order says which (inBestRun).
// The page's events are dropped from where its part out of that run
// begins: the whole page when its stamp moved (its largest jump is to its
// first event) or when the page after it is out with it, else the first
// event past the page ahead's stamp when the part before the jump is out,
// the jump when only the part after it is. A page in order with every page
// ahead is judged too when pages ahead break their order (aheadBreak), and
// dropped whole when out. A CPU's last page cannot be checked; the next
// pages' too-early events are dropped in turn by Reader.item.
func (s *cpuStream) timeAhead(ts uint64, sc pageScan) (at uint64, page int, cut int, bad bool) {
	if sc.events == 0 {
		return 0, 0, 0, false
	}
	// The first page ahead that begins before this one ends: none, and the
	// page is before all of them (in every run in order they make).
	k := -1
	for i, sp := range s.spans {
		if sp.events > 0 && sp.from < sc.end {
			k = i
			break
		}
	}
	if k < 0 {
		// In order with every page ahead: out of line only when pages
		// ahead break their order and the runs in order leave this page
		// out (pages moved late together, the last of them overlapping
		// the intact pages after: new-user pass 98 F1, a CPU's first
		// three pages 20 ms late kept, and the 180 intact events after
		// them dropped).
		b := s.aheadBreak()
		if b < 0 {
			return 0, 0, 0, false
		}
		if headIn, _, _ := s.inBestRun(pageWhole(ts, sc), span{}); headIn {
			return 0, 0, 0, false
		}
		return s.spans[b].from, s.pageNo + 1 + b, 0, true
	}
	at = s.spans[k].from
	// The page as two parts, split at its largest jump between two of
	// its events (a damaged delta, or records misread after a damaged
	// header, moves the events after it): the part before it is kept or
	// dropped with the page's stamp, the part after it on its own.
	head, tail := pageWhole(ts, sc), span{}
	if sc.jumpAt > 0 {
		head = span{ts, sc.times[sc.jumpAt-1], sc.times[0], maxStep(sc.times[:sc.jumpAt])}
		tail = span{sc.times[sc.jumpAt], sc.end, sc.times[sc.jumpAt], maxStep(sc.times[sc.jumpAt:])}
	}
	headIn, tailIn, nextIn := s.inBestRun(head, tail)
	if (!headIn || sc.jumpAt > 0 && !tailIn) && !nextIn && s.nextFrom() >= sc.end {
		// The page's end out of the run with the page ahead, which
		// follows it in order: pages moved together, this one's stamp
		// with them, and the whole page goes. A damaged delta moves only
		// its own page's events after it, the page ahead stays in line
		// with the part before (new-user pass 97 F8: a CPU's first four
		// pages 50 ms late, the 43 events before the first page's largest
		// gap, 4.2 ms, kept 50 ms late).
		return at, s.pageNo + 1 + k, 0, true
	}
	switch {
	case !headIn && sc.jumpAt == 0 && sc.jump > 0:
		// The page's largest jump is to its first event, from the CPU's
		// last kept one: its stamp moved, the whole page goes (new-user
		// pass 98 F2: the first event of a page 12 ms late kept).
		return at, s.pageNo + 1 + k, 0, true
	case !headIn:
		// From the first event past the page ahead's stamp (0 for a
		// damaged page stamp: the whole page).
		return at, s.pageNo + 1 + k, min(sc.firstAfter(at), max(sc.jumpAt, 1)), true
	case sc.jumpAt > 0 && !tailIn && !s.aheadEarly(sc, k):
		return at, s.pageNo + 1 + k, sc.jumpAt, true
	}
	return at, s.pageNo + 1 + k, 0, false
}

// aheadEarly reports whether the page ahead k, which begins before the
// current page (scanned as sc) ends, is what moved (back) rather than the
// current page's part after its largest jump: a damaged delta at the jump
// moves that part later by less than the jump itself, so when the part
// overlaps page k by more than the jump, and by more than any step between
// page k's own events, with steps of its own no longer than those of the
// page's part before it or of the pages ahead, page k's time lies behind
// the page, and the page is kept whole for movedBack to judge page k and
// the pages moved with it (new-user pass 101 F4: an intact page's last 8
// events dropped, their number unknown, when the three pages after it were
// moved 70-80 ms back on an idle CPU whose pages hold steps up to 64 ms).
func (s *cpuStream) aheadEarly(sc pageScan, k int) bool {
	jump := sc.times[sc.jumpAt] - sc.times[sc.jumpAt-1]
	over := sc.end - min(sc.end, s.spans[k].from)
	bound := maxStep(sc.times[:sc.jumpAt])
	for _, sp := range s.spans {
		if sp.events > 0 {
			bound = max(bound, sp.step)
		}
	}
	if over <= jump || over <= s.spans[k].step || maxStep(sc.times[sc.jumpAt:]) > bound {
		return false
	}
	// Pages moved back together abut as they did, and the intact page
	// after them lies the time they moved by after the last: a gap that
	// gives the overlap back must follow page k's run within the pages
	// ahead. Without one the page itself may be the one moved (late, with
	// the pages before it: new-user pass 101's d_i8, two pages 60 ms late,
	// whose intact pages after were all dropped as moved back).
	end := s.spans[k].to
	for _, sp := range s.spans[k+1:] {
		if sp.events == 0 {
			continue
		}
		if sp.from < end {
			return false
		}
		if sp.from-end >= over {
			return true
		}
		end = sp.to
	}
	return false
}

// pageSpan is a page's time stamp and last event time, and how many events
// parse on it (0: none, or its commit broken).
type pageSpan struct {
	span
	events int
	hole   error // a chunk skipped as damaged (lenient) lay here: its error
}

// pageSpan returns page pg's span (header included).
func (s *cpuStream) pageSpan(pg []byte) pageSpan {
	if len(pg) < s.layout.dataOff {
		return pageSpan{}
	}
	ts, _, size := s.header(pg)
	if size == 0 || size > len(pg)-s.layout.dataOff {
		return pageSpan{}
	}
	first, end, n, step := s.pageEnd(pg)
	return pageSpan{span: span{ts, end, first, step}, events: n}
}

// span is a page's first time (its stamp), last event time, first event
// time (the stamp's on an intact page: the kernel stamps a page with its
// first event's time) and largest step in time between two of its events.
type span struct{ from, to, first, step uint64 }

// pageWhole is the span of a whole page (stamp ts, scanned as sc, with
// events).
func pageWhole(ts uint64, sc pageScan) span {
	return span{ts, sc.end, sc.times[0], maxStep(sc.times)}
}

// maxStep is the largest step between two neighbouring times of ts (in
// order; a step back counts 0).
func maxStep(ts []uint64) uint64 {
	var m uint64
	for i := 1; i < len(ts); i++ {
		if ts[i] > ts[i-1] {
			m = max(m, ts[i]-ts[i-1])
		}
	}
	return m
}

// inBestRun reports whether the current page's two parts (head, and
// tail when the page has a jump inside it) and the first page ahead with
// events (nextIn; true when there is none) are in the best run of pages in
// order among them and the pages ahead that hold events, all at or after
// the CPU's last kept event (before any, the earliest first page of all
// CPUs: base): the one with the fewest steps too short for the pages it
// leaves out (see better below), then the longest. Intact pages are in
// order with each other, and a page moved earlier falls before the CPU's
// last kept event. Of runs as good, the one whose pages abut best counts:
// a page's time moved by d opens a gap of d (or an overlap) where intact
// pages follow each other as they fill, and a run that leaves a page out
// leaves that page's time between its pages (pass 92 F1 and 93 F4/F5: a
// page moved into its neighbour's time made two runs as long).
func (s *cpuStream) inBestRun(head, tail span) (headIn, tailIn, nextIn bool) {
	var spans [lookAhead + 2]span
	spans[0] = head
	n := 1
	if tail != (span{}) {
		spans[1] = tail
		n = 2
	}
	next := n
	// most is the largest step between two events of a page ahead, and
	// most2 the largest of the pages ahead but the one with most (mostAt).
	var most, most2 uint64
	mostAt := -1
	for _, sp := range s.spans {
		if sp.events > 0 {
			spans[n] = sp.span
			if sp.step > most {
				most, most2, mostAt = sp.step, most, n
			} else {
				most2 = max(most2, sp.step)
			}
			n++
		}
	}
	// Before the CPU's first kept event there is no anchor: other CPUs'
	// first pages can be far later (an overwriting buffer lost their
	// oldest: new-user pass 94 F2, a first page 1 s ahead kept and 8799
	// good events dropped as before the other CPU's start), so no page is
	// held against them, each run starts with no gap, and of runs as good
	// the one holding the current page counts.
	base, anchored := s.base(), s.keptAny
	if !anchored {
		base = 0
	}
	// skip[m] is how long pages 0..m-1 last (their last event less their
	// stamp): a run that leaves pages out leaves their time between its
	// pages. least[m] is the same from their first events, the least time
	// they need (a page whose first delta is damaged lies past its stamp:
	// new-user pass 91's page whose events were 100 ms late), of the parts
	// whose steps between events are none longer than a page ahead's
	// (most): the current page's part after a damaged header or time
	// extend, misread, can span any time (pass 92's 108 ms at 6765603 s).
	// A page ahead is held to the steps of the other pages ahead: one
	// whose records were overwritten from its second event on runs, misread,
	// to any time (new-user pass 116 F1: a step of 182783170 s), and held
	// to its own step it asked that much time of every run that leaves it
	// out, so that the runs that skip it were all short and the CPU's three
	// intact pages before it were dropped.
	bound := func(m int) uint64 {
		if m == mostAt {
			return most2
		}
		return most
	}
	var skip, least [lookAhead + 3]uint64
	for m := 0; m < n; m++ {
		skip[m+1], least[m+1] = skip[m], least[m]
		if spans[m].to >= spans[m].from {
			skip[m+1] += spans[m].to - spans[m].from
		}
		if spans[m].to >= spans[m].first && spans[m].step <= bound(m) {
			least[m+1] += spans[m].to - spans[m].first
		}
	}
	// runs[j]: the best run in order ending at page j (length 0 when the
	// page is before base or out of order itself), of those as good the
	// one whose pages abut best (gap: how far each page's stamp is
	// from where the run before it ends, plus the time of the pages it
	// leaves out, from base for its first: intact pages abut as they fill,
	// a damaged time opens a gap or an overlap), and whether it holds the
	// current page (0).
	type run struct {
		n                  int
		short              int // its steps that leave too little time for the pages it leaves out
		gap                uint64
		withHead, withTail bool
		withNext           bool   // the first page ahead
		from, firstGap     uint64 // its first page's stamp and gap from base
	}
	// A run is better the fewer of its steps leave too little time for
	// the pages it leaves out between them (short: the next page begins
	// before the page before it ends plus their whole spans, by more than
	// any step between two events inside a page ahead, most), then the
	// longer. A CPU's pages follow each other as they fill, so each left-
	// out intact page's span fits between its neighbours; a page moved
	// late by d, or one that runs on d into the next, leaves d too little
	// to the pages after it. So the longest run can be the one with the
	// moved pages, when they are more than the intact pages their time
	// overlaps, but it is short where it leaves them (new-user pass 98
	// F2: two pages 12 ms late within a page of 12 ms were kept, and that
	// page's 77 events dropped; F1: a CPU's first three pages 20 ms late).
	short := func(from, want uint64) int {
		if from+most < want {
			return 1
		}
		return 0
	}
	better := func(a, b run) bool {
		return a.short < b.short || a.short == b.short && (a.n > b.n || a.n == b.n && a.gap < b.gap)
	}
	var runs [lookAhead + 2]run
	for j := 0; j < n; j++ {
		if spans[j].from < base || spans[j].to < spans[j].from {
			continue
		}
		runs[j] = run{n: 1, withHead: j == 0, withTail: j == 1 && n > 1 && tail != (span{}), withNext: j == next, from: spans[j].from}
		if anchored {
			runs[j].gap = absDiff(spans[j].from, base+skip[j])
			runs[j].firstGap, runs[j].short = runs[j].gap, short(spans[j].from, base+least[j])
		}
		for k := 0; k < j; k++ {
			if runs[k].n > 0 && spans[k].to <= spans[j].from {
				r := runs[k]
				g := absDiff(spans[j].from, spans[k].to+skip[j]-skip[k+1])
				r.n, r.gap, r.short = r.n+1, r.gap+g, r.short+short(spans[j].from, spans[k].to+least[j]-least[k+1])
				r.withTail = r.withTail || j == 1 && tail != (span{})
				r.withNext = r.withNext || j == next
				if better(r, runs[j]) {
					runs[j] = r
				}
			}
		}
	}
	at := -1
	for j := 0; j < n; j++ {
		if runs[j].n > 0 && (at < 0 || better(runs[j], runs[at]) || !better(runs[at], runs[j]) && (anchored || !runs[at].withHead)) {
			at = j
		}
	}
	if at < 0 {
		return true, true, true // (nothing is at or after base: Reader.item drops what is earlier)
	}
	// A best run that begins after the whole of another run, which
	// comes later in the file and abuts the CPU's last kept event better,
	// jumped ahead: pages moved ahead by d leave a gap of d after the last
	// kept event. Near a CPU's end fewer intact pages follow than a damaged
	// run holds (new-user pass 96 N4: three pages before the last 1 s
	// ahead kept, the last dropped, and 1 s of busy time made up).
	if anchored {
		for j := 0; j < n; j++ {
			if runs[j].n > 0 && spans[j].to <= runs[at].from && runs[j].firstGap < runs[at].firstGap {
				at = j
			}
		}
	}
	return runs[at].withHead, runs[at].withTail || tail == (span{}), runs[at].withNext || next == n
}

// aheadBreak is the index of the first page ahead that begins before an
// earlier page ahead ends (-1: the pages ahead are in order).
func (s *cpuStream) aheadBreak() int {
	var end uint64
	for i, sp := range s.spans {
		if sp.events == 0 {
			continue
		}
		if sp.from < end {
			return i
		}
		end = max(end, sp.to)
	}
	return -1
}

// dataAhead reports whether a page ahead holds events.
func (s *cpuStream) dataAhead() bool {
	for _, sp := range s.spans {
		if sp.events > 0 {
			return true
		}
	}
	return false
}

// nextFrom is the time stamp of the first page ahead that holds events (0
// when none does).
func (s *cpuStream) nextFrom() uint64 {
	for _, sp := range s.spans {
		if sp.events > 0 {
			return sp.from
		}
	}
	return 0
}

// absDiff is |a - b|.
func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

// pageEnd is the times of the first and the last event of page pg (header
// included) that parse, the number of events up to the last, and the
// largest step in time between two of them.
func (s *cpuStream) pageEnd(pg []byte) (first, end uint64, n int, gap uint64) {
	ts, _, size := s.header(pg)
	data := pg[s.layout.dataOff : s.layout.dataOff+size]
	for pos := 0; pos+4 <= len(data); {
		next, et, raw, err := s.step(data, pos, ts)
		if err != nil {
			break
		}
		if raw != nil {
			if n == 0 {
				first = et
			}
			if n > 0 && et > end {
				gap = max(gap, et-end)
			}
			n++
			end = et
		}
		pos, ts = next, et
	}
	return first, end, n, gap
}

// base is the time the first event of the next page is checked against:
// the CPU's last kept event, or before any, ref.
func (s *cpuStream) base() uint64 {
	if s.keptAny {
		return uint64(max(s.kept, 0))
	}
	return s.ref
}

// pageScan is what scan found of a page's events: good is where the first
// broken record starts (len(data) when none; err then says what broke),
// events the records before there and end the time of the last. jump is
// the largest step in time to an event (for the first, from base when its
// time is after it) and jumpAt that event's index; the stream's evOff
// holds where the records leading to each event start.
type pageScan struct {
	good, events int
	end          uint64
	err          error
	jump         uint64
	jumpAt       int
	times        []uint64 // each event's time
}

// firstAfter is the index of the first event later than t (events when
// none is).
func (sc *pageScan) firstAfter(t uint64) int {
	for i, et := range sc.times {
		if et > t {
			return i
		}
	}
	return sc.events
}

// scan walks a page's events (data, from time stamp ts), see pageScan.
func (s *cpuStream) scan(data []byte, ts uint64) pageScan {
	sc := pageScan{end: ts, times: s.evTime[:0]}
	s.evOff = s.evOff[:0]
	prev := min(s.base(), ts)
	from := 0 // where the records after the last event start
	defer func() { s.evTime = sc.times }()
	for pos := 0; pos+4 <= len(data); {
		next, t, raw, err := s.step(data, pos, ts)
		if err != nil {
			sc.good, sc.err = pos, err
			return sc
		}
		if raw != nil {
			if t >= prev && t-prev > sc.jump {
				sc.jump, sc.jumpAt = t-prev, sc.events
			}
			sc.events++
			sc.times = append(sc.times, t)
			s.evOff = append(s.evOff, from)
			sc.end, prev, from = t, t, next
		}
		pos, ts = next, t
	}
	sc.good = len(data)
	return sc
}

// step reads the ring-buffer record at p[pos:] whose time base is ts: the
// offset after it, the time after it and, for an event, its payload (nil
// for padding and time records). A record that runs past the page is an
// error (trace.ErrCorrupt).
func (s *cpuStream) step(p []byte, pos int, ts uint64) (next int, t uint64, raw []byte, err error) {
	h := s.f.order.Uint32(p[pos:])
	var typeLen uint32
	var delta uint64
	if s.f.little { // little endian: type_len in the low bits
		typeLen, delta = h&31, uint64(h>>5)
	} else {
		typeLen, delta = h>>27, uint64(h&(1<<27-1))
	}
	switch typeLen {
	case typePadding:
		if delta == 0 {
			// A null event: the rest of the page is empty. The
			// kernel writes one only where fewer bytes than the
			// smallest event (RB_EVNT_MIN_SIZE, 8) are left on the
			// page (rb_reset_tail, rb_event_set_padding; a discarded
			// record has a nonzero delta, rb_event_discard), so one
			// further from the commit's end is a damaged header (new-
			// user pass 91 F7: an event's header turned into one took
			// the page's 85 events with no word).
			if len(p)-pos >= rbEventMinSize {
				return 0, 0, nil, corruptf("CPU %d page %d: an end-of-page marker (null padding) at %d, %d bytes before the end of the page's events: a damaged record header", s.cpu, s.pageNo, pos, len(p)-pos)
			}
			return len(p), ts, nil, nil
		}
		if pos+8 > len(p) {
			return 0, 0, nil, corruptf("CPU %d page %d: padding at %d cut short", s.cpu, s.pageNo, pos)
		}
		// A discarded record's length (rb_event_length: array[0])
		// stays within the page's commit; one past it is damage.
		n := int64(s.f.order.Uint32(p[pos+4:]))
		if n > int64(len(p)-pos-4) {
			return 0, 0, nil, corruptf("CPU %d page %d: padding at %d of %d bytes overruns the page", s.cpu, s.pageNo, pos, n)
		}
		return pos + 4 + int(n), ts + delta, nil, nil
	case typeTimeExtend, typeTimeStamp:
		if pos+8 > len(p) {
			return 0, 0, nil, corruptf("CPU %d page %d: time stamp at %d cut short", s.cpu, s.pageNo, pos)
		}
		v := uint64(s.f.order.Uint32(p[pos+4:]))<<tsShift | delta
		if typeLen == typeTimeExtend {
			return pos + 8, ts + v, nil, nil
		}
		return pos + 8, ts&tsMSB | v, nil, nil
	case 0:
		if pos+8 > len(p) {
			return 0, 0, nil, corruptf("CPU %d page %d: record length at %d cut short", s.cpu, s.pageNo, pos)
		}
		n := int(s.f.order.Uint32(p[pos+4:]))
		if n < 4 || n-4 > len(p)-pos-8 {
			return 0, 0, nil, corruptf("CPU %d page %d: record at %d of %d bytes overruns the page", s.cpu, s.pageNo, pos, n)
		}
		return pos + 8 + (n-4+3)&^3, ts + delta, p[pos+8 : pos+8+n-4], nil
	default:
		n := int(typeLen) * 4
		if n > len(p)-pos-4 {
			return 0, 0, nil, corruptf("CPU %d page %d: record at %d of %d bytes overruns the page", s.cpu, s.pageNo, pos, n)
		}
		return pos + 4 + n, ts + delta, p[pos+4 : pos+4+n], nil
	}
}

// next advances to the next item; false at the end of the data.
func (s *cpuStream) next() (bool, error) {
	s.lost, s.lostUnknown, s.damage = 0, false, s.damage[:0]
	s.raw = nil
	for {
		if s.pos+4 > len(s.page) {
			if s.tail != nil {
				s.damage = append(s.damage, *s.tail)
				s.tail = nil
			}
			if err := s.pageErr; err != nil {
				s.pageErr = nil
				if !s.lenient {
					return false, err
				}
				s.damage = append(s.damage, pageDamage{page: s.pageNo, why: err, events: -1, parse: true})
			}
			ok, err := s.nextPage()
			if !ok || err != nil {
				// (Pages dropped at the end stay in damage: the
				// reader reports them, Reader.ended.)
				return false, err
			}
			if s.lost > 0 || s.lostUnknown || len(s.damage) > 0 {
				s.t = int64(s.ts)
				return true, nil
			}
			continue
		}
		next, ts, raw, err := s.step(s.page, s.pos, s.ts)
		if err != nil {
			return false, err // (scan found none before len(page))
		}
		s.pos, s.ts = next, ts
		if raw == nil {
			continue
		}
		s.raw = raw
		s.t = int64(s.ts)
		return true, nil
	}
}
