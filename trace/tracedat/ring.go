package tracedat

import (
	"bytes"
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

// cpuStream walks one CPU's ring-buffer pages, one record at a time.
type cpuStream struct {
	f      *file
	cpu    int
	layout pageLayout
	psize  int

	// Uncompressed data: the file range still to read.
	off, end int64
	// Compressed data: chunks still to read and the current one.
	compressed bool
	chunksLeft uint32
	chunkOff   int64
	chunkEnd   int64
	chunk      []byte
	chunkPos   int

	truncated  int64 // where the CPU's data should have ended (0: not cut)
	sectionEnd bool  // truncated is only the end of the CPU's data section

	pageBuf []byte
	page    []byte // the current page's event area
	pos     int
	ts      uint64
	pageNo  int

	// The current item: a record (raw != nil) or a loss (lost > 0 or
	// lostUnknown) at time t.
	t           int64
	raw         []byte
	lost        uint64
	lostUnknown bool
	lostStart   int64
	lastTime    int64
	seen        bool
	// kept is the time of the last item the reader kept (keptAny: one
	// was): a later item earlier than it is damage (Reader.item).
	kept    int64
	keptAny bool
}

// errFileCut ends the stream of a CPU whose data the file's end cuts
// short: not an error of the trace's, the reader counts it as a warning.
var errFileCut = fmt.Errorf("truncated file")

// newCPUStream prepares the stream of cd; compressed v7 data starts with a
// chunk count.
func newCPUStream(f *file, cd cpuData, psize int, layout pageLayout) (*cpuStream, error) {
	s := &cpuStream{f: f, cpu: cd.cpu, layout: layout, psize: psize, off: cd.offset, end: cd.offset + cd.size, sectionEnd: cd.sectionEnd}
	if cd.offset < 0 || cd.size < 0 || cd.size > 1<<50 {
		return nil, corruptf("CPU %d data: %d bytes at offset %d", cd.cpu, cd.size, cd.offset)
	}
	if s.end > f.size {
		// A truncated file: read what is there, then say what is
		// missing (nextPage: errFileCut).
		s.truncated, s.end = s.end, max(f.size, s.off)
	}
	if f.comp != "" && cd.size > 0 {
		h, err := f.readAt(cd.offset, 4)
		if err != nil {
			return nil, fmt.Errorf("CPU %d chunk count: %w", cd.cpu, err)
		}
		s.compressed = true
		s.chunksLeft = f.order.Uint32(h)
		s.chunkOff = cd.offset + 4
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
	if s.sectionEnd {
		return fmt.Errorf("CPU %d: the file ends at offset %d, inside the CPU's data (in a section that should end at %d): at most %d bytes missing; the CPU's whole %s before the cut were read: %w",
			s.cpu, s.f.size, s.truncated, s.truncated-from, what, errFileCut)
	}
	return fmt.Errorf("CPU %d: the file ends at offset %d, inside the CPU's data (which should end at %d): %d bytes missing; the CPU's whole %s before the cut were read: %w",
		s.cpu, s.f.size, s.truncated, s.truncated-from, what, errFileCut)
}

// nextPage loads the next page; false at the end of the CPU's data.
func (s *cpuStream) nextPage() (bool, error) {
	var pg []byte
	if s.compressed {
		for s.chunkPos >= len(s.chunk) {
			if s.chunksLeft == 0 {
				return false, nil
			}
			s.chunksLeft--
			h, err := s.f.readAt(s.chunkOff, 8)
			if s.truncated > 0 && (err != nil || s.chunkOff+8 > s.chunkEnd || int64(s.f.order.Uint32(h)) > s.chunkEnd-s.chunkOff-8) {
				return false, s.cut(s.chunkOff, "chunks")
			}
			if err != nil || s.chunkOff+8 > s.chunkEnd {
				return false, corruptf("CPU %d: chunk header at offset %d beyond the CPU's data", s.cpu, s.chunkOff)
			}
			csize, usize := s.f.order.Uint32(h), s.f.order.Uint32(h[4:])
			if int64(csize) > s.chunkEnd-s.chunkOff-8 || usize > maxMeta {
				return false, corruptf("CPU %d: chunk at offset %d: %d compressed / %d bytes does not fit", s.cpu, s.chunkOff, csize, usize)
			}
			src, err := s.f.readAt(s.chunkOff+8, int64(csize))
			if err != nil {
				return false, err
			}
			s.chunk, err = s.f.decompress(src, int(usize), s.chunk)
			if err != nil {
				return false, fmt.Errorf("CPU %d chunk at offset %d: %w", s.cpu, s.chunkOff, err)
			}
			s.chunkOff += 8 + int64(csize)
			s.chunkPos = 0
		}
		n := min(s.psize, len(s.chunk)-s.chunkPos)
		pg = s.chunk[s.chunkPos : s.chunkPos+n]
		s.chunkPos += n
	} else {
		if s.off >= s.end || (s.truncated > 0 && s.end-s.off < int64(s.psize)) {
			if s.truncated > 0 {
				// A page the cut leaves part of is left out whole.
				return false, s.cut(s.off, "pages")
			}
			return false, nil
		}
		n := min(int64(s.psize), s.end-s.off)
		if cap(s.pageBuf) < int(n) {
			s.pageBuf = make([]byte, s.psize)
		}
		pg = s.pageBuf[:n]
		if _, err := s.f.ra.ReadAt(pg, s.off); err != nil {
			return false, fmt.Errorf("CPU %d page at offset %d: %w", s.cpu, s.off, err)
		}
		s.off += n
	}
	s.pageNo++
	l := s.layout
	if len(pg) < l.dataOff {
		return false, corruptf("CPU %d page %d: %d bytes, shorter than its header", s.cpu, s.pageNo, len(pg))
	}
	s.ts = s.f.order.Uint64(pg)
	var commit uint64
	if l.commitSize == 4 {
		commit = uint64(s.f.order.Uint32(pg[8:]))
	} else {
		commit = s.f.order.Uint64(pg[8:])
	}
	size := int(commit & commitMask)
	if size > len(pg)-l.dataOff {
		return false, corruptf("CPU %d page %d: commit says %d bytes of events, the page holds %d", s.cpu, s.pageNo, size, len(pg)-l.dataOff)
	}
	s.page = pg[l.dataOff : l.dataOff+size]
	s.pos = 0
	if commit&missedEvents != 0 {
		s.lost, s.lostUnknown = 0, true
		if commit&missedStored != 0 && l.dataOff+size+l.commitSize <= len(pg) {
			if l.commitSize == 4 {
				s.lost = uint64(s.f.order.Uint32(pg[l.dataOff+size:]))
			} else {
				s.lost = s.f.order.Uint64(pg[l.dataOff+size:])
			}
			s.lostUnknown = false
		}
		s.lostStart = s.lastTime
		if !s.seen {
			s.lostStart = int64(s.ts)
		}
	}
	return true, nil
}

// next advances to the next item; false at the end of the data.
func (s *cpuStream) next() (bool, error) {
	if s.lost > 0 || s.lostUnknown {
		s.lost, s.lostUnknown = 0, false
	}
	s.raw = nil
	for {
		if s.pos+4 > len(s.page) {
			ok, err := s.nextPage()
			if !ok || err != nil {
				return false, err
			}
			if s.lost > 0 || s.lostUnknown {
				s.t = int64(s.ts)
				return true, nil
			}
			continue
		}
		p := s.page
		h := s.f.order.Uint32(p[s.pos:])
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
				s.pos = len(p) // null event: the rest of the page is empty
				continue
			}
			if s.pos+8 > len(p) {
				return false, corruptf("CPU %d page %d: padding at %d cut short", s.cpu, s.pageNo, s.pos)
			}
			s.ts += delta
			s.pos += 4 + int(s.f.order.Uint32(p[s.pos+4:]))
			continue
		case typeTimeExtend, typeTimeStamp:
			if s.pos+8 > len(p) {
				return false, corruptf("CPU %d page %d: time stamp at %d cut short", s.cpu, s.pageNo, s.pos)
			}
			v := uint64(s.f.order.Uint32(p[s.pos+4:]))<<tsShift | delta
			if typeLen == typeTimeExtend {
				s.ts += v
			} else {
				s.ts = s.ts&tsMSB | v
			}
			s.pos += 8
			continue
		case 0:
			if s.pos+8 > len(p) {
				return false, corruptf("CPU %d page %d: record length at %d cut short", s.cpu, s.pageNo, s.pos)
			}
			n := int(s.f.order.Uint32(p[s.pos+4:]))
			if n < 4 || n-4 > len(p)-s.pos-8 {
				return false, corruptf("CPU %d page %d: record at %d of %d bytes overruns the page", s.cpu, s.pageNo, s.pos, n)
			}
			s.raw = p[s.pos+8 : s.pos+8+n-4]
			s.pos += 8 + (n-4+3)&^3
		default:
			n := int(typeLen) * 4
			if n > len(p)-s.pos-4 {
				return false, corruptf("CPU %d page %d: record at %d of %d bytes overruns the page", s.cpu, s.pageNo, s.pos, n)
			}
			s.raw = p[s.pos+4 : s.pos+4+n]
			s.pos += 4 + n
		}
		s.ts += delta
		s.t = int64(s.ts)
		s.lastTime, s.seen = s.t, true
		return true, nil
	}
}
