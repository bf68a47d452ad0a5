package tvf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

// Detect reports whether head starts with the format's magic.
func Detect(head []byte) bool { return bytes.HasPrefix(head, []byte(Magic)) }

func init() {
	trace.Register(trace.Format{
		Name:        "traceview",
		Description: "traceview's own capture format (traceview record / convert): zstd blocks of columnar events",
		Detect:      Detect,
		Open:        open,
	})
}

// open is the format's opener: a stream that cannot seek (standard input,
// a compressed file) is copied to a temporary file first, so that its
// trailer (the task groups, the losses, the span) is read before the
// first event as a file's is: the files of a compressed --rotate series
// had no span at open and were read file by file, not as one recording
// (new-user pass 64 F2). The copy is unlinked at once; Close closes it.
func open(r io.Reader, _ trace.ReadOptions) (trace.Source, error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		if _, err := rs.Seek(0, io.SeekCurrent); err == nil {
			return NewReader(r)
		}
	}
	f, err := os.CreateTemp("", "traceview-*.tv")
	if err != nil {
		return NewReader(r) // (read as a stream, as before)
	}
	os.Remove(f.Name())
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return nil, fmt.Errorf("copying the traceview-format stream to a temporary file: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	rd, err := NewReader(f)
	if err != nil {
		f.Close()
	}
	return rd, err
}

// Reader reads a trace in traceview's format; it implements trace.Source.
// Damaged frames are skipped and counted in Meta().Warnings (key
// "damaged-block" for events lost, "damaged-frame" for others, "truncated"
// for a file that ends early); every intact block is still read.
type Reader struct {
	br      *bufio.Reader
	off     int64 // input offset of br's next byte
	dec     *zstd.Decoder
	meta    trace.Meta
	hdr     Header
	version uint32
	tasks   map[trace.TID]Task
	interns map[string]string
	buf     []trace.Event
	i       int
	raw     []byte
	payload []byte
	ended   bool
	gotTail bool // the trailer was applied
	// joined is where another traceview file begins after this one's
	// footer (files joined end to end, found by readTail), 0 if none.
	joined int64
	cut    bool // the file ended inside a frame
	footer bool // the streaming pass read the footer
	// hole says events were lost in damaged frames since the last block
	// read (holeCount of them, 0 when a frame header was damaged and its
	// count is unknown): the next block starts with a trace.KindLost.
	hole bool
	// headerLost: the header frame was found damaged (damaged-header), so
	// a first frame of another type is no second warning.
	headerLost bool
	// started: Next has returned an event. cgAlias maps the ids of a
	// cgroup named twice to the one kept (cgroupAliases), when the table
	// was read before the first event.
	started bool
	cgAlias map[uint64]uint64
	// agRoot are the ids of the root cgroup and agOf the ids of the
	// processes' autogroups (autogroupCgroups), when the trailer read
	// before the first event lists the autogroups.
	agRoot map[uint64]bool
	agOf   map[trace.PID]uint64
	// groupsInStream: a groups frame named cgroups (applyGroups).
	groupsInStream bool
	// lossAhead are the trailer's loss windows of a capture, by start,
	// not yet delivered (lossesAhead); lossAt their CPU and end, where
	// the recorder's own KindLost event is (skipped); held the event
	// read when a window became due before it.
	lossAhead []trace.LostWindow
	lossAt    map[lossKey]bool
	heldEv    *trace.Event
	// lastOn is each CPU's last event time, and streamLost the loss
	// windows of the recorder's KindLost events as read (from that CPU's
	// event before to the loss), for Meta.Lost of a file without its
	// trailer (streamLosses).
	lastOn     map[trace.CPU]int64
	streamLost []trace.LostWindow
	// openAt is, per CPU, the time of a recorder's overflow note
	// (trace.OpenLoss) not yet settled by a later event of the CPU;
	// openHole the CPUs of those that damaged blocks followed (noteLoss).
	openAt   map[trace.CPU]int64
	openHole map[trace.CPU]bool
	// lossScanned: streamLost was read ahead (scanLosses).
	lossScanned bool
	holeCount   uint64
	// pending are the event blocks found damaged since the last intact
	// new block, and pendingSkips the bytes skipped after them (a frame
	// header lost): held back until the next intact block says whether
	// the first is read again (settlePending) or the file ends
	// (flushPending).
	pending      []damagedBlock
	pendingSkips []skippedBytes
	// lastSeq is the number of the last event block placed (0: none, or
	// blocks not numbered); damagedSince counts the numbered blocks found
	// damaged since, skippedSince says bytes were skipped since (blocks
	// whose headers were lost); held is a block read one early (the one
	// before it missing), ready the blocks to return in order
	// (sequence); missingBlocks counts the blocks the numbers say are not
	// in the file and bytesSkipped the bytes skipped as damaged, for
	// checkCount.
	lastSeq       uint16
	damagedSince  int
	skippedSince  bool
	held          *heldBlock
	ready         []seqBlock
	missingBlocks int
	bytesSkipped  int64
	endErr        error // readFrame's error at the end, with a block held then
	// outOfPlace counts the events of blocks skipped as out of place
	// (sequence), in LostInFile until checkCount finds them beyond the
	// trailer's count.
	outOfPlace uint64
	// blocks maps each event block read (its payload's checksum, length
	// and hash) to its offset, to find a block the file holds twice
	// (repeated); seed seeds the hash.
	blocks map[blockKey]int64
	seed   maphash.Seed
	// blockEnd is the latest event time of the blocks read so far (0:
	// none): where a damaged block's events began, at the latest.
	blockEnd int64
	// tailEvents is the trailer's event count (when applied), decoded the
	// events read from intact blocks: at the end, what the trailer counts
	// beyond them and the damaged blocks' counts was in bytes skipped as
	// damaged (checkCount).
	tailEvents, decoded uint64
	// tailBlocks is the trailer's count of event blocks written.
	tailBlocks uint64
	// sawCgroup: an event carried a cgroup id
	sawCgroup bool
	// stacksUnread counts the events returned with a stack id while the
	// trailer, which holds the stack table, was not read (a cut file):
	// their callchains are lost (said at the end).
	stacksUnread int
	// seenFirst, seenLast: the first and last nonzero event times read,
	// for Meta when neither header nor trailer had them.
	seenFirst, seenLast int64
	closer              io.Closer
}

// readBuffer is the size of a Reader's input buffer. A frame's payload
// larger than it is read straight into its own buffer (bufio reads past
// an empty buffer), so it only batches the small frames and headers: 64
// KiB read a 355,658-event file (2.0 MB) in the same 0.12-0.13 s as 1 MiB
// did. The latency of a series holds every file's reader at once, and at
// 1 MiB each 109 files took 121.5 MB of heap before any event was read
// (new-user pass 115 F7: 227 MB peak).
const readBuffer = 64 << 10

// NewReader reads the file magic and the header frame of r. If r is an
// io.ReadSeeker positioned at the start of a complete file, the task table
// and the trailer (losses, event count) are read from the end first, so that
// Meta and Tasks are complete before the first event. Errors wrap
// trace.ErrCorrupt for input that is not this format.
func NewReader(r io.Reader) (*Reader, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxPayload))
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	tr := &Reader{
		dec:     dec,
		tasks:   map[trace.TID]Task{},
		interns: map[string]string{},
		meta:    trace.Meta{Format: "traceview"},
	}
	if rs, ok := r.(io.ReadSeeker); ok {
		tr.readTail(rs)
	}
	tr.br = bufio.NewReaderSize(r, readBuffer)
	var head [12]byte
	if n, err := io.ReadFull(tr.br, head[:]); err != nil {
		tr.dec.Close()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("file header: %d bytes, want 12: %w", n, trace.ErrCorrupt)
		}
		return nil, fmt.Errorf("file header: %w", err)
	}
	tr.off = 12
	if !Detect(head[:]) {
		tr.dec.Close()
		return nil, fmt.Errorf("not a traceview file (bad magic %q): %w", head[:8], trace.ErrCorrupt)
	}
	tr.version = binary.LittleEndian.Uint32(head[8:])
	if err := checkVersion(tr.version); err != nil {
		tr.dec.Close()
		return nil, err
	}
	// The header frame comes first; a damaged one is a warning, not an end.
	if err := tr.readFrame(true); err != nil && err != io.EOF {
		tr.dec.Close()
		return nil, err
	}
	if c, ok := r.(io.Closer); ok {
		tr.closer = c
	}
	if ra, ok := r.(io.ReaderAt); ok && !tr.gotTail && tr.meta.FirstTime == 0 {
		// No trailer (a file cut short): its first events date it at open,
		// so that a --rotate series with a cut file is still known for
		// one recording (new-user pass 64 F2: read file by file).
		if t := tr.firstBlockTime(ra, tr.off); t > 0 {
			tr.meta.FirstTime = t
		}
	}
	tr.autogroupCgroups() // (the header says whether autogroup was on)
	if ra, ok := r.(io.ReaderAt); ok && !tr.gotTail {
		tr.scanLosses(ra)
	}
	tr.lossesAhead()
	if !tr.gotTail {
		// The groups frames may name cgroups as the stream goes
		// (applyGroups), which a consumer in another goroutine may be
		// looking up meanwhile (trace.CgroupPath).
		tr.meta.CgroupsMu = &sync.RWMutex{}
	}
	return tr, nil
}

// applyGroups takes the task groups and autogroups of a groups frame
// (Writer.AddGroups) into Meta.Cgroups and Meta.TaskAutogroups, with the
// root group "/" (cgroup v2's root, kernfs node 1), unless the trailer
// was read: its tables are the whole ones. A cgroup the frame names
// under a path another id has is an alias (cgroupAliases); an autogroup's
// process has its root-group events given the autogroup's id from here
// on (agOf), as autogroupCgroups does with the trailer's.
func (r *Reader) applyGroups(raw []byte) error {
	if r.gotTail {
		return nil
	}
	var g groupsFrame
	if err := json.Unmarshal(raw, &g); err != nil {
		return err
	}
	m := &r.meta
	defer r.lockCgroups()()
	if m.Cgroups == nil {
		m.Cgroups = map[uint64]string{trace.RootCgroupID: "/"}
	}
	for id, p := range g.Cgroups {
		if id != 0 && p != "" {
			m.Cgroups[id] = p
		}
	}
	for id, k := range cgroupAliases(m.Cgroups) {
		if r.cgAlias == nil {
			r.cgAlias = map[uint64]uint64{}
		}
		r.cgAlias[id] = k
	}
	r.groupsInStream = true
	for pid, path := range g.TaskAutogroups {
		if pid <= 0 || !trace.IsAutogroupPath(path) {
			continue
		}
		if m.TaskAutogroups == nil {
			m.TaskAutogroups = map[trace.PID]string{}
		}
		m.TaskAutogroups[pid] = path
		if m.Autogroup < 0 {
			continue
		}
		if id, ok := trace.AutogroupCgroupID(path); ok {
			if r.agRoot == nil {
				r.agRoot = map[uint64]bool{}
				for rid, p := range m.Cgroups {
					if p == "/" {
						r.agRoot[rid] = true
					}
				}
			}
			if r.agOf == nil {
				r.agOf = map[trace.PID]uint64{}
			}
			r.agOf[pid] = id
			m.Cgroups[id] = path
		}
	}
	return nil
}

// firstBlockTime returns the earliest event time of the first intact
// events frame at or after offset off of ra, looking at 8 frames at most
// (0 when none is found): the start of a file whose trailer is missing.
// It reads apart from the stream (ReadAt), which it leaves as it is.
func (r *Reader) firstBlockTime(ra io.ReaderAt, off int64) int64 {
	var hb [frameHeaderSize]byte
	for range 8 {
		if _, err := ra.ReadAt(hb[:], off); err != nil {
			return 0
		}
		h, ok := parseFrameHeader(hb[:])
		if !ok || h.length > maxPayload {
			return 0
		}
		if h.typ != frameEvents {
			off += frameHeaderSize + int64(h.length)
			continue
		}
		p := make([]byte, h.length)
		if _, err := ra.ReadAt(p, off+frameHeaderSize); err != nil || crc32.Checksum(p, castagnoli) != h.payloadCRC {
			return 0
		}
		raw, err := r.decode(h, p)
		if err != nil {
			return 0
		}
		evs, err := decodeBlock(raw, nil, r.intern, r.version)
		if err != nil {
			return 0
		}
		var first int64
		for i := range evs {
			if t := evs[i].Time; t > 0 && (first == 0 || t < first) {
				first = t
			}
		}
		return first
	}
	return 0
}

// maxVersionAhead is how far above Version a file's format version may be
// for the file to be taken for one written by a newer traceview: versions
// go up by one per format change (three since the format began), so even a
// build of this package years old meets at most a few newer ones. A version
// beyond that (2917007363 from a flipped or overwritten header word), or 0,
// is damage: upgrading would not help.
const maxVersionAhead = 16

// checkVersion tells a format version this package reads from a newer
// one (upgrade traceview) and from a corrupt header.
func checkVersion(v uint32) error {
	switch {
	case v >= 1 && v <= Version:
		return nil
	case v > Version && v <= Version+maxVersionAhead:
		return fmt.Errorf("format version %d, this traceview reads 1..%d (upgrade traceview)", v, Version)
	}
	return fmt.Errorf("corrupt header (format version %d: no traceview writes it; this one reads 1..%d): %w", v, Version, trace.ErrCorrupt)
}

// readTail reads the frames from the footer's tail offset to the footer,
// then seeks rs back to where it was. Any problem just leaves the tail for
// the streaming pass to find.
func (r *Reader) readTail(rs io.ReadSeeker) {
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return
	}
	defer rs.Seek(start, io.SeekStart)
	end, err := rs.Seek(0, io.SeekEnd)
	if err != nil || end-start < 12+footerSize {
		return
	}
	var foot [footerSize]byte
	if _, err := rs.Seek(end-footerSize, io.SeekStart); err != nil {
		return
	}
	if _, err := io.ReadFull(rs, foot[:]); err != nil || string(foot[:8]) != footerMagic {
		r.scanTail(rs, start, end) // (the streaming pass says where the file is cut)
		return
	}
	tail := int64(binary.LittleEndian.Uint64(foot[8:]))
	if at, ok := joinedAt(rs, start, end, tail); ok {
		// Files joined (cat a.tv b.tv): this one's trace is the first's,
		// whose footer ends where the next begins; what follows is not
		// read (new-user pass 60 F2: the last file's command line and
		// sample times described the first's events).
		files := 2
		for {
			if _, err := rs.Seek(at-footerSize+8, io.SeekStart); err != nil {
				return
			}
			var t [8]byte
			if _, err := io.ReadFull(rs, t[:]); err != nil {
				return
			}
			prev, ok := joinedAt(rs, start, at, int64(binary.LittleEndian.Uint64(t[:])))
			if !ok {
				break
			}
			at, files = prev, files+1
		}
		r.joined = at - start
		r.meta.Warnings.Add("damaged-trailing-bytes", "traceview format: another traceview file begins at offset %d, after this one's footer (%d files joined, as by cat a.tv b.tv?): the %d bytes from there are not read, their events are not in the trace; read each file apart",
			at-start, files, end-at)
		r.readTail(io.NewSectionReader(readerAtOf(rs), start, at-start))
		return
	}
	if tail >= 12 && start+tail < end-footerSize && end-footerSize-(start+tail) <= maxPayload {
		if _, err := rs.Seek(start+tail, io.SeekStart); err != nil {
			return
		}
		buf := make([]byte, end-footerSize-(start+tail))
		if _, err := io.ReadFull(rs, buf); err == nil && r.applyTail(buf) {
			return
		}
		if len(buf) >= frameHeaderSize {
			if _, ok := parseFrameHeader(buf); ok {
				// The footer leads to a frame, whose payload is damaged:
				// the streaming pass names that frame (new-user pass 33
				// called it a damaged footer).
				return
			}
		}
	}
	// The footer's offset does not lead to the tail: a damaged footer
	// (new-user pass 32 F1: a flipped byte of it dropped every autogroup,
	// and nothing said so).
	found := r.scanTail(rs, start, end)
	how := "the trailer was found by scanning the file's end"
	if !found {
		how = "no trailer was found at the file's end either: its task groups, settings and cpu.stat readings are missing"
	}
	r.meta.Warnings.Add("damaged-footer", "traceview format: the footer points at byte %d, where no task table and trailer begin: a damaged footer; %s", tail, how)
}

// joinedAt reports where the last of several traceview files joined
// end to end begins (an offset of rs), when the file from start to end is
// such: the footer's tail offset, tail, counts from the last file's start,
// so that start + tail is not where the tail's frames begin. The frames are
// found by findTail; the last file begins tail bytes before them, at a
// file magic that follows an earlier file's footer.
func joinedAt(rs io.ReadSeeker, start, end, tail int64) (int64, bool) {
	if tail < 12 {
		return 0, false
	}
	_, _, first, _, ok := findTail(rs, start, end)
	at := first - tail
	if !ok || first == start+tail || at < start+12+footerSize {
		return 0, false
	}
	var b [footerSize + len(Magic)]byte
	if _, err := readerAtOf(rs).ReadAt(b[:], at-footerSize); err != nil {
		return 0, false
	}
	return at, string(b[:8]) == footerMagic && Detect(b[footerSize:])
}

// readerAtOf gives rs's io.ReaderAt: its own, or reads by seeking (rs is
// then left at the place of the last read).
func readerAtOf(rs io.ReadSeeker) interface {
	io.ReaderAt
	io.ReadSeeker
} {
	if ra, ok := rs.(interface {
		io.ReaderAt
		io.ReadSeeker
	}); ok {
		return ra
	}
	return seekReaderAt{rs}
}

// seekReaderAt is an io.ReaderAt over an io.ReadSeeker.
type seekReaderAt struct{ io.ReadSeeker }

func (s seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := s.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s, p)
}

// tailScan is how much of a file's end scanTail searches for its trailer
// when the footer is damaged or cut: 16 MiB, more than the task table and
// trailer of any recording we have made (the largest, a 2 M-event capture
// of 64 CPUs, ends in 1.9 MiB of them).
const tailScan = 16 << 20

// scanTail finds the tail (the task table frame and the trailer frame)
// of a file whose footer is damaged or cut (new-user pass 31 F1: a file
// short of its last byte lost every autogroup's id, which the reader
// gives events only when the trailer is read at open, and the throttle
// figures changed): the last trailer frame in the last tailScan bytes
// whose header and payload checksums hold, and the task frame that ends
// where it begins, if any. Nothing found leaves the tail to the
// streaming pass.
func (r *Reader) scanTail(rs io.ReadSeeker, start, end int64) bool {
	buf, from, first, stop, ok := findTail(rs, start, end)
	return ok && r.applyTail(buf[first-from:stop-from])
}

// findTail finds, as scanTail, the tail frames in the last tailScan bytes
// of rs before end (not before start): buf holds the bytes read from
// offset from, the tail's frames lie from offset first to stop.
func findTail(rs io.ReadSeeker, start, end int64) (buf []byte, from, first, stop int64, ok bool) {
	from = max(start, end-tailScan)
	if _, err := rs.Seek(from, io.SeekStart); err != nil {
		return nil, 0, 0, 0, false
	}
	buf = make([]byte, end-from)
	if _, err := io.ReadFull(rs, buf); err != nil {
		return nil, 0, 0, 0, false
	}
	frameAt := func(i int, typ byte) (int, bool) {
		if i < 0 || len(buf)-i < frameHeaderSize {
			return 0, false
		}
		h, ok := parseFrameHeader(buf[i:])
		if !ok || h.typ != typ || uint64(len(buf)-i-frameHeaderSize) < uint64(h.length) {
			return 0, false
		}
		p := buf[i+frameHeaderSize : i+frameHeaderSize+int(h.length)]
		return i + frameHeaderSize + int(h.length), crc32.Checksum(p, castagnoli) == h.payloadCRC
	}
	for i := len(buf) - frameHeaderSize; i >= 0; i-- {
		if string(buf[i:i+4]) != frameSync {
			continue
		}
		stop, ok := frameAt(i, frameTrailer)
		if !ok {
			continue
		}
		first := i
		for j := bytes.LastIndex(buf[:i], []byte(frameSync)); j >= 0; j = bytes.LastIndex(buf[:j], []byte(frameSync)) {
			if e, ok := frameAt(j, frameTasks); ok && e == i {
				first = j
				break
			}
			if i-j > maxPayload+frameHeaderSize {
				break
			}
		}
		return buf, from, from + int64(first), from + int64(stop), true
	}
	return nil, 0, 0, 0, false
}

// applyTail applies the task table and trailer frames of buf, a file's
// tail, stopping at the first that does not read; it reports whether a
// trailer was applied.
func (r *Reader) applyTail(buf []byte) (trailer bool) {
	for len(buf) >= frameHeaderSize {
		h, ok := parseFrameHeader(buf)
		if !ok || uint64(len(buf)-frameHeaderSize) < uint64(h.length) {
			return trailer
		}
		p := buf[frameHeaderSize : frameHeaderSize+int(h.length)]
		buf = buf[frameHeaderSize+int(h.length):]
		raw, err := []byte(nil), error(nil)
		if crc32.Checksum(p, castagnoli) != h.payloadCRC {
			err = errors.New("checksum mismatch")
		} else {
			raw, err = r.decode(h, p)
		}
		if err != nil && h.typ == frameTasks {
			// The task table's header is intact, so its length is
			// known: the trailer after it is read all the same (new-user
			// pass 42 F3: one damaged byte in the table lost every
			// /autogroup-N group, whose paths and processes the intact
			// trailer holds). The stream warns of the table when it
			// reaches it.
			continue
		}
		if err != nil {
			return trailer
		}
		switch h.typ {
		case frameTasks:
			if r.applyTasks(raw) != nil {
				continue // (as damaged: the trailer follows)
			}
		case frameTrailer:
			if r.applyTrailer(raw) != nil {
				return trailer
			}
			trailer = true
		}
	}
	return trailer
}

func (r *Reader) decode(h frameHdr, p []byte) ([]byte, error) {
	switch h.enc {
	case encRaw:
		return p, nil
	case encZstd:
		out, err := r.dec.DecodeAll(p, r.raw[:0])
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		r.raw = out
		if len(out) != int(h.raw) {
			return nil, fmt.Errorf("decompressed to %d bytes, header says %d", len(out), h.raw)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown encoding %d", h.enc)
}

func (r *Reader) applyTasks(raw []byte) error {
	var list []Task
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	for _, t := range list {
		t.Comm = r.intern([]byte(t.Comm))
		r.tasks[t.TID] = t
	}
	return nil
}

func (r *Reader) applyTrailer(raw []byte) error {
	if r.gotTail {
		return nil
	}
	var t trailer
	if err := json.Unmarshal(raw, &t); err != nil {
		return err
	}
	r.gotTail = true
	r.tailEvents, r.tailBlocks = t.Events, t.Blocks
	// first_time_ns of files written before the header carried the
	// source's sample times may be 0 (a synthesized record at time 0 came
	// first): Next then fills it in from the events.
	if t.Events > 0 && t.FirstTime > 0 {
		r.meta.FirstTime = t.FirstTime
	}
	if t.Events > 0 && t.LastTime > 0 {
		r.meta.LastTime = t.LastTime
	}
	if t.Events > 0 && (t.FirstTime > 0 || t.LastTime > 0) && r.hdr.FirstTime == 0 && r.hdr.LastTime == 0 {
		// The writer copies the header's times into the trailer;
		// without them the trailer's are its events'.
		r.meta.SpanFrom = trace.SpanFromTrailer
	}
	r.meta.Lost = append(r.meta.Lost, t.Lost...)
	if len(t.Lost) == 0 {
		// Only per-CPU totals: one window per CPU spanning the trace.
		for cpu, n := range t.LostPerCPU {
			if n > 0 {
				r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: trace.CPU(cpu), Count: n, Start: t.FirstTime, End: t.LastTime})
			}
		}
	}
	r.meta.LostUnplaced += t.LostUnplaced
	r.meta.LostInFile += t.LostInFile
	for _, w := range t.Warnings {
		r.meta.Warnings.AddScoped("", w) // with its Unit and CountInMessage
	}
	if r.groupsInStream {
		// A stream's trailer after its groups frames: the events read
		// so far carry the ids those gave (autogroups among them), so
		// the trailer's table is added to theirs, not put in its place.
		r.mergeCgroups(t.Cgroups)
	} else {
		r.setCgroups(t.Cgroups)
	}
	r.meta.Stacks = t.Stacks
	if !r.started {
		r.cgAlias = cgroupAliases(r.meta.Cgroups)
	}
	r.applyCgroupSettings(&t)
	for pid, list := range t.TaskAffinity {
		// (A damaged or hostile list is left out: cpulist.Parse bounds
		// it.)
		if cpus, err := cpulist.Parse(list); pid > 0 && err == nil && len(cpus) > 0 {
			if r.meta.TaskAffinity == nil {
				r.meta.TaskAffinity = map[trace.PID][]trace.CPU{}
			}
			for _, c := range cpus {
				r.meta.TaskAffinity[pid] = append(r.meta.TaskAffinity[pid], trace.CPU(c))
			}
		}
	}
	for pid, path := range t.TaskAutogroups {
		if pid > 0 && trace.IsAutogroupPath(path) {
			if r.meta.TaskAutogroups == nil {
				r.meta.TaskAutogroups = map[trace.PID]string{}
			}
			r.meta.TaskAutogroups[pid] = path
		}
	}
	return nil
}

// lockCgroups takes Meta.CgroupsMu when the table may be read meanwhile
// (applyGroups) and returns its unlock (a no-op without it).
func (r *Reader) lockCgroups() (unlock func()) {
	if mu := r.meta.CgroupsMu; mu != nil {
		mu.Lock()
		return mu.Unlock
	}
	return func() {}
}

// setCgroups makes m the cgroup table, under Meta.CgroupsMu when the
// table may be read meanwhile (applyGroups).
func (r *Reader) setCgroups(m map[uint64]string) {
	defer r.lockCgroups()()
	r.meta.Cgroups = m
}

// mergeCgroups adds m to the cgroup table (setCgroups).
func (r *Reader) mergeCgroups(m map[uint64]string) {
	defer r.lockCgroups()()
	if r.meta.Cgroups == nil {
		r.meta.Cgroups = map[uint64]string{}
	}
	for id, p := range m {
		r.meta.Cgroups[id] = p
	}
}

// autogroupCgroups gives each process that the trailer places in an
// autogroup (Meta.TaskAutogroups: traceview record read
// /proc/PID/autogroup) the cgroup id trace.AutogroupCgroupID makes of its
// path, adds those ids to Meta.Cgroups, and sets agRoot and agOf so that
// Next gives the process's events in the root cgroup that id: with
// kernel.sched_autogroup_enabled, a task of the root cpu group runs in its
// session's autogroup, a task group child of the root
// (kernel/sched/autogroup.c task_wants_autogroup, v6.18), and every report
// then counts it there as it counts a cgroup's tasks. Nothing when the
// recording says autogroup was off, or the trailer was not read at
// NewReader (a pipe: the trailer comes at the end).
func (r *Reader) autogroupCgroups() {
	m := &r.meta
	if !r.gotTail || m.Autogroup < 0 || len(m.TaskAutogroups) == 0 || len(m.Cgroups) == 0 {
		return
	}
	for id, p := range m.Cgroups {
		if p == "/" {
			if r.agRoot == nil {
				r.agRoot = map[uint64]bool{}
			}
			r.agRoot[id] = true
		}
	}
	if r.agRoot == nil {
		return
	}
	r.agOf = make(map[trace.PID]uint64, len(m.TaskAutogroups))
	for pid, path := range m.TaskAutogroups {
		if id, ok := trace.AutogroupCgroupID(path); ok {
			r.agOf[pid] = id
			m.Cgroups[id] = path
		}
	}
}

// cgroupAliases finds the ids of cgroups that name one path twice and
// returns, for each id but one, the id its events are to carry (nil when
// every path has one id), deleting the others from cgroups. traceview
// record names a task's group by its cgroup v2 id, or, where the cpu
// controller is on a cgroup v1 hierarchy, by an id of the v1 group's own
// (ebpf.V1CgroupIDBit set): a group made in both hierarchies under one
// path (as cgrun makes them) then had two ids, one group's runs in two
// rows and its note printed twice (a --ring dump, new-user pass 16 F5).
// The v1 id is kept (the cpu controller's settings and cpu.stat are the v1
// group's), else the smallest.
func cgroupAliases(cgroups map[uint64]string) map[uint64]uint64 {
	// better: a v1 id before a v2 one, then the smaller.
	better := func(a, b uint64) bool {
		if av, bv := a&trace.V1CgroupIDBit != 0, b&trace.V1CgroupIDBit != 0; av != bv {
			return av
		}
		return a < b
	}
	keep := map[string]uint64{}
	dup := false
	for id, p := range cgroups {
		k, ok := keep[p]
		if !ok || better(id, k) {
			keep[p] = id
		}
		dup = dup || ok
	}
	if !dup {
		return nil
	}
	alias := map[uint64]uint64{}
	for id, p := range cgroups {
		if k := keep[p]; k != id {
			alias[id] = k
			delete(cgroups, id)
		}
	}
	return alias
}

// applyCgroupSettings keeps the trailer's task-group settings and cpu.stat
// readings that make sense (trace.CgroupSettings.Check,
// trace.CgroupStat.Check); each one that does not is left out with a
// counted warning.
func (r *Reader) applyCgroupSettings(t *trailer) {
	for _, s := range t.CgroupSettings {
		if err := s.Check(); err != nil {
			r.meta.Warnings.Add("bad-cgroup-settings", "traceview format: %v: left out", err)
			continue
		}
		r.meta.CgroupSettings = append(r.meta.CgroupSettings, s)
	}
	for _, st := range t.CgroupStats {
		if err := st.Check(); err != nil {
			r.meta.Warnings.Add("bad-cgroup-stat", "traceview format: %v: left out", err)
			continue
		}
		r.meta.CgroupStats = append(r.meta.CgroupStats, st)
	}
}

func (r *Reader) intern(b []byte) string {
	if s, ok := r.interns[string(b)]; ok {
		return s
	}
	s := string(b)
	r.interns[s] = s
	return s
}

func (r *Reader) discard(n int) {
	m, _ := r.br.Discard(n)
	r.off += int64(m)
}

// resync skips damaged bytes up to the next frame header whose checksum
// holds (or the footer, or the end). It returns the number of bytes
// skipped and how many frame syncs it passed after the first byte (frames
// whose header is damaged too: 0 when the damaged frame was alone).
func (r *Reader) resync() (skipped int64, others int) {
	for {
		win, err := r.br.Peek(64 << 10)
		if len(win) <= frameHeaderSize && (err != nil) {
			// Nothing that could hold a frame: drop the rest (a footer
			// of a damaged file included).
			n := len(win)
			if len(win) == footerSize && string(win[:8]) == footerMagic {
				return skipped, others
			}
			r.discard(n)
			return skipped + int64(n), others
		}
		from := 0
		if skipped == 0 {
			from = 1 // past the damaged frame's own sync
		}
		for {
			j := bytes.Index(win[from:], []byte(frameSync))
			if j < 0 {
				break
			}
			j += from
			if len(win)-j < frameHeaderSize {
				break
			}
			if _, ok := parseFrameHeader(win[j:]); ok {
				r.discard(j)
				return skipped + int64(j), others
			}
			from = j + 1
			if j < len(win)-frameHeaderSize {
				others++ // (a sync in the window's last bytes is seen again in the next)
			}
		}
		keep := len(win) - frameHeaderSize
		if keep < 1 {
			keep = 1
		}
		r.discard(keep)
		skipped += int64(keep)
	}
}

// readFrame reads frames until it has events in r.buf (or, with first, has
// handled the header frame). It returns io.EOF at the end of the input.
func (r *Reader) readFrame(first bool) error {
	if r.cut {
		return io.EOF // the frame the file ends in was the last
	}
	for {
		hb, err := r.br.Peek(frameHeaderSize)
		if len(hb) == frameHeaderSize && string(hb[:8]) == footerMagic && Detect(hb[footerSize:]) {
			// A footer, then another file's magic: files joined. The
			// trace is this file's (the next is warned of by readTail, or
			// here when read as a stream).
			r.discard(footerSize)
			r.footer = true
			if r.joined == 0 {
				r.meta.Warnings.Add("damaged-trailing-bytes", "traceview format: another traceview file begins at offset %d, after this one's footer (files joined, as by cat a.tv b.tv?): it is not read, its events are not in the trace; read each file apart", r.off)
			}
			if !r.gotTail {
				r.meta.Warnings.Add("truncated", "traceview format: footer without a trailer at offset %d", r.off-footerSize)
			}
			return io.EOF
		}
		if len(hb) == footerSize && string(hb[:8]) == footerMagic {
			r.discard(footerSize)
			r.footer = true
			if !r.gotTail {
				r.meta.Warnings.Add("truncated", "traceview format: footer without a trailer at offset %d", r.off)
			}
			return io.EOF
		}
		if len(hb) < frameHeaderSize {
			if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
				return fmt.Errorf("offset %d: %w", r.off, err)
			}
			if len(hb) > 0 {
				r.meta.Warnings.Add("truncated", "traceview format: file ends inside a frame header at offset %d (%d bytes)", r.off, len(hb))
				r.discard(len(hb))
			} else if !r.gotTail {
				r.meta.Warnings.Add("truncated", "traceview format: file ends at offset %d without a trailer (capture interrupted?)", r.off)
			} else if !r.footer {
				// Every writer ends a file with the footer (docs/format.md):
				// a file that ends right after its trailer is a copy cut
				// short by exactly the footer's 16 bytes (new-user pass 33
				// F2: read as a whole file, info exit 0).
				r.meta.Warnings.Add("damaged-footer", "traceview format: the file ends at offset %d after its trailer, without the 16-byte footer every writer ends a file with: cut short by exactly the footer (every frame was read, no event is lost)", r.off)
			}
			return io.EOF
		}
		at := r.off
		h, ok := parseFrameHeader(hb)
		if !ok {
			// The file's first frame is its header frame: when its sync
			// and type byte still say so and the bytes skipped hold no
			// other frame's sync, only the header was lost, no events.
			headerOnly := first && string(hb[:4]) == frameSync && hb[4] == frameHeader
			n, others := r.resync()
			if headerOnly && others == 0 {
				r.headerLost = true
				r.bytesSkipped += n // (the first blocks' too, when their numbers say so)
				r.meta.Warnings.Add("damaged-header", "traceview format: the header frame at offset %d is damaged (its frame header): skipped %d bytes, in which no other frame starts; host, kernel and CPUs unknown", at, n)
				continue
			}
			if len(r.pending) > 0 {
				r.pendingSkips = append(r.pendingSkips, skippedBytes{at: at, n: n})
				continue
			}
			r.skipped(at, n)
			continue
		}
		r.discard(frameHeaderSize)
		if cap(r.payload) < int(h.length) {
			r.payload = make([]byte, h.length)
		}
		p := r.payload[:h.length]
		n, err := io.ReadFull(r.br, p)
		r.off += int64(n)
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				r.cut = true
				r.flushPending()
				if h.typ == frameEvents {
					r.releaseHeld()
					r.skippedBlocksBefore(at, h)
					if evs := r.readPrefix(at, h, p[:n]); len(evs) > 0 {
						r.push(seqBlock{evs: evs})
					}
					if r.popReady() {
						return nil
					}
					return io.EOF
				}
				r.meta.Warnings.Add("truncated", "traceview format: file ends inside the frame at offset %d (%d of %d bytes: %d bytes missing; %d events lost)%s", at, n, h.length, int(h.length)-n, h.count, r.cutRest())
				return io.EOF
			}
			return fmt.Errorf("offset %d: %w", r.off, err)
		}
		if crc32.Checksum(p, castagnoli) != h.payloadCRC {
			r.damaged(at, h, "checksum mismatch")
			continue
		}
		raw, err := r.decode(h, p)
		if err != nil {
			r.damaged(at, h, err.Error())
			continue
		}
		if first && h.typ != frameHeader {
			// Go on without header metadata; this frame is kept.
			if !r.headerLost {
				r.meta.Warnings.Add("damaged-header", "traceview format: no header frame at offset 12; host, kernel and CPUs unknown")
			}
			first = false
		}
		switch h.typ {
		case frameHeader:
			var fh fileHeader
			if err := json.Unmarshal(raw, &fh); err != nil {
				r.damaged(at, h, err.Error())
				continue
			}
			r.hdr = fh.Header
			r.applyHeader()
			if first {
				return nil
			}
		case frameTasks:
			if err := r.applyTasks(raw); err != nil {
				r.damaged(at, h, err.Error())
			}
		case frameTrailer:
			if err := r.applyTrailer(raw); err != nil {
				r.damaged(at, h, err.Error())
			}
		case frameGroups:
			if err := r.applyGroups(raw); err != nil {
				r.damaged(at, h, err.Error())
			}
		case frameEvents:
			if r.repeatedBlock(at, h, p) {
				continue
			}
			evs, err := decodeBlock(raw, r.buf[:0], r.intern, r.version)
			if err == nil && uint64(len(evs)) != uint64(h.count) {
				err = fmt.Errorf("block holds %d events, its header says %d", len(evs), h.count)
			}
			if err != nil {
				r.damaged(at, h, err.Error())
				continue
			}
			r.decoded += uint64(len(evs))
			if r.settlePending(at, h) {
				r.lastSeq = h.seq // (the damaged block's own number)
				r.push(seqBlock{evs: evs})
			} else {
				for _, b := range r.sequence(at, h, evs) {
					r.push(b)
				}
			}
			if r.popReady() {
				return nil
			}
		default:
			r.meta.Warnings.Add("unknown-frame", "traceview format: unknown frame type %q at offset %d skipped (written by a newer traceview?)", h.typ, at)
		}
	}
}

// readPrefix reads what it can of the events block at offset at, whose
// stored bytes the file ends in (p: the n of h.length there): the part of
// its zstd stream there decompresses, whole zstd blocks at a time, to a
// prefix of the raw block, from which decodePrefix takes the events whose
// every value is in it. One "truncated" warning says what was read and
// what is lost.
func (r *Reader) readPrefix(at int64, h frameHdr, p []byte) []trace.Event {
	raw := p
	if h.enc == encZstd {
		raw = nil
		if zr, err := zstd.NewReader(bytes.NewReader(p), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxPayload)); err == nil {
			raw, _ = io.ReadAll(io.LimitReader(zr, int64(h.raw))) // ends at the cut: io.ErrUnexpectedEOF
			zr.Close()
		}
	} else if h.enc != encRaw {
		raw = nil
	}
	evs, _ := decodePrefix(raw, r.buf[:0], r.intern, r.version)
	r.meta.LostInFile += uint64(int(h.count) - len(evs))
	msg := fmt.Sprintf("traceview format: file ends inside the frame at offset %d (%d of %d bytes: %d bytes missing; %d events lost)",
		at, len(p), h.length, int(h.length)-len(p), int(h.count)-len(evs))
	if len(raw) > 0 {
		msg += fmt.Sprintf(": the block's first %d of %d raw bytes decompress, holding %d of its %d events whole (an event needs its value in every column, and the columns are stored one after another)",
			len(raw), h.raw, len(evs), h.count)
	}
	r.meta.Warnings.Add("truncated", "%s%s", msg, r.cutRest())
	return evs
}

// SkippedBlocksKey is the warning of event blocks whose events were lost in
// bytes skipped as damaged, in a file without the trailer that would count
// them: info's lost line lists them as an unknown number.
const SkippedBlocksKey = "damaged-skipped-blocks"

// skippedBlocksBefore says, at a frame cut short by the end of the file
// (header h at offset at, intact), how many event blocks lay in the bytes
// skipped as damaged since the last block read: its block number says so,
// where the next intact block's would have placed them (sequence) and the
// trailer counted their events (new-user pass 89 F2: two blocks skipped
// before a cut went uncounted, "an unknown number after the cut").
func (r *Reader) skippedBlocksBefore(at int64, h frameHdr) {
	if h.seq == 0 || r.lastSeq == 0 || !r.skippedSince {
		return
	}
	d := seqDist(r.lastSeq, h.seq)
	if n := d - 1 - r.damagedSince; n > 0 && d <= 1<<15-1 {
		r.meta.Warnings.AddEach(SkippedBlocksKey, "traceview format: %d event block(s) lay in the bytes skipped as damaged before the frame cut at offset %d (block numbers jump from %d to %d): their events are lost, how many unknown without the trailer (a block holds up to %d); their time is unobserved on every CPU",
			n, at, r.lastSeq, h.seq, BlockEvents)
	}
}

// cutRest is what a warning about a file cut inside a frame adds when the
// file's trailer was not read: the capture may have gone on past the cut
// (a .tv file cut at 2.0 of 4.4 MB lost 916,394 of 1,661,866 events, of
// which the warning named only the 8192 of the cut block), and only the
// trailer would have said how far.
func (r *Reader) cutRest() string {
	if r.gotTail {
		return ""
	}
	return "; the file ends there, without its task table and trailer: the capture may have gone on past this point, and how many events are missing after it is unknown"
}

// checkCount compares, at the end of the events, the trailer's event
// count with the events read and those counted in damaged blocks: the
// rest were in bytes skipped as damaged whose frame headers were lost too
// (new-user pass 18 F2: 4 KiB zeroed over the header frame and the first
// block's start skipped 62722 bytes, 8192 events, with "no events among
// them" and "lost: 0 events"). They are counted in Meta.LostInFile and
// said in a damaged-skipped warning.
func (r *Reader) checkCount() {
	if !r.gotTail || r.cut {
		return
	}
	if known := r.decoded + r.meta.LostInFile; r.outOfPlace > 0 && r.tailEvents > 0 && known > r.tailEvents {
		// Blocks out of place that the writer's count has no room for:
		// copies, or another file's joined in, not this capture's events.
		extra := min(known-r.tailEvents, r.outOfPlace)
		r.meta.LostInFile -= extra
		r.meta.Warnings.Add("damaged-count-over", "traceview format: the trailer counts %d events: %d of those in blocks skipped as out of place are beyond it (copies, or another file's blocks joined in), not lost",
			r.tailEvents, extra)
	}
	if r.decoded > r.tailEvents && r.tailEvents > 0 {
		// More than the writer wrote: blocks joined in from elsewhere,
		// or repeated with a change (an identical one is skipped,
		// repeatedBlock).
		r.meta.Warnings.Add("damaged-count-over", "traceview format: the trailer counts %d events, and %d were read: %d more than the writer wrote (blocks repeated or joined in from another file?): the report counts them",
			r.tailEvents, r.decoded, r.decoded-r.tailEvents)
		return
	}
	if known := r.decoded + r.meta.LostInFile; r.tailEvents > known {
		missing := r.tailEvents - known
		r.meta.LostInFile += missing
		where := "were in bytes skipped as damaged, with their blocks' headers"
		switch {
		case r.bytesSkipped == 0 && r.missingBlocks > 0:
			where = fmt.Sprintf("were in the %d event block(s) missing from the file (their numbers said where)", r.missingBlocks)
		case r.bytesSkipped == 0:
			// No bytes were skipped (new-user pass 42 F1: the text said
			// they were of a block removed whole); this file's blocks
			// carry no numbers (written before 2026-12-06), so where
			// is not known.
			where = "are not in the file: whole event blocks missing (removed, or never written); the blocks of this file carry no numbers, so where is unknown, and delays across the gap are counted as if it were observed"
		case r.missingBlocks > 0:
			where = fmt.Sprintf("were in bytes skipped as damaged and in %d event block(s) missing from the file", r.missingBlocks)
		}
		r.meta.Warnings.Add("damaged-skipped", "traceview format: the trailer counts %d events; %d were read and %d counted in damaged blocks: the other %d %s",
			r.tailEvents, r.decoded, known-r.decoded, missing, where)
	}
}

// blockKey identifies an event block's stored payload: its CRC-32C,
// length and 64-bit hash.
type blockKey struct {
	crc, n uint32
	hash   uint64
}

// repeatedBlock reports whether the event block at offset at (header h,
// payload p) repeats one read before byte for byte, and then warns and
// skips it: a writer never writes two blocks alike (each holds the next
// events, at later times), so the second is a copy (new-user pass 36 F4:
// an 8 KiB block copied in after itself was read twice, 2750 delays and
// 838 ms counted again, with no warning and info exit 0).
func (r *Reader) repeatedBlock(at int64, h frameHdr, p []byte) bool {
	if r.blocks == nil {
		r.blocks, r.seed = map[blockKey]int64{}, maphash.MakeSeed()
	}
	k := blockKey{crc: h.payloadCRC, n: h.length, hash: maphash.Bytes(r.seed, p)}
	first, seen := r.blocks[k]
	if !seen {
		r.blocks[k] = at
		return false
	}
	r.meta.Warnings.AddEach("damaged-block-repeated", "traceview format: the event block at offset %d repeats the one at offset %d byte for byte (%d events): a copy, skipped", at, first, h.count)
	return true
}

// holeBefore returns evs, the events of the first block read after a
// damaged one, behind a trace.KindLost on every CPU (CPU -1) at the first
// one's time with the events lost (Count; 0 when unknown): the damaged
// block's span is time the trace did not see, on every CPU (a block holds
// the events of all of them), not one long run or wait (a 200-byte
// overwrite read as 1.19 s delays and runs, 100 % busy).
func (r *Reader) holeBefore(evs []trace.Event) []trace.Event {
	from := r.blockEnd
	if from == 0 {
		from = r.meta.FirstTime // (the first block: the header's start)
	}
	return append([]trace.Event{r.marker(from, evs[0].Time)}, evs...)
}

// marker returns the lost marker (CPU -1, Count the events lost in the
// hole, 0 when unknown) at time at, ending the hole, and warns of the
// span from the last intact event (from, 0 unknown) to it: when, as well
// as where (new-user pass 23 F8: only the offset and the count were said,
// of 1.3 s gone).
func (r *Reader) marker(from, at int64) trace.Event {
	if from > 0 && at > from {
		r.meta.Warnings.AddEach("damaged-block-span", "traceview format: the events lost (damaged, missing or skipped blocks) lay between %s s and %s s (the intact events around them): that time is unobserved on every CPU",
			trace.FormatSeconds(from, 6), trace.FormatSeconds(at, 6))
	}
	lost := trace.NewEvent(at, -1, trace.KindLost)
	lost.Count = r.holeCount
	r.hole, r.holeCount = false, 0
	return lost
}

func (r *Reader) damaged(at int64, h frameHdr, why string) {
	if h.typ == frameEvents {
		r.pending = append(r.pending, damagedBlock{at: at, h: h, why: why})
		return
	}
	if h.typ == frameHeader {
		r.headerLost = true
		r.meta.Warnings.Add("damaged-header", "traceview format: the header frame at offset %d is damaged (%s): skipped; host, kernel and CPUs unknown", at, why)
		return
	}
	r.meta.Warnings.AddEach("damaged-frame", "traceview format: %q frame at offset %d damaged (%s): skipped", h.typ, at, why)
}

// damagedBlock is an event block whose payload failed its checksum or
// decoding: its offset, its frame header (intact: the header has its own
// checksum) and why.
type damagedBlock struct {
	at  int64
	h   frameHdr
	why string
}

// skippedBytes are n bytes skipped at offset at to the next frame header.
type skippedBytes struct{ at, n int64 }

// settlePending decides, at the intact new event block at offset at
// (header h), what the damaged blocks before it lost. A writer writes
// each block once, in order, so when h is the frame header of the last
// damaged block (payload checksum, lengths and count alike), the file
// holds its bytes again intact: a region copied in place over the
// block's end (new-user pass 41 F1: 64 KiB copied mid-block counted 8192
// events lost and an unobserved span, though the block was read a few
// KiB on), and those bytes skipped after it were the copy's. Its events
// are then read, not lost; the earlier damaged blocks and skips are.
func (r *Reader) settlePending(at int64, h frameHdr) (reread bool) {
	if len(r.pending) == 0 {
		return false
	}
	last := r.pending[len(r.pending)-1]
	if last.h != h {
		r.flushPending()
		return false
	}
	r.pending = r.pending[:len(r.pending)-1]
	skips := r.pendingSkips
	r.pendingSkips = nil
	r.flushPending()
	var n int64
	for _, s := range skips {
		n += s.n
	}
	r.meta.Warnings.AddEach("damaged-block-reread", "traceview format: the event block at offset %d was damaged (%s), and is read intact at offset %d (the file holds part of itself twice: %d bytes skipped between them): its %d events are read, none lost",
		last.at, last.why, at, n, h.count)
	r.damagedSince, r.skippedSince = 0, false
	return true
}

// flushPending counts the damaged blocks held back as lost, with the
// bytes skipped after them.
func (r *Reader) flushPending() {
	for _, d := range r.pending {
		h := d.h
		r.meta.Warnings.AddEach("damaged-block", "traceview format: event block at offset %d damaged (%s): its events are skipped", d.at, d.why)
		r.meta.Warnings.AddCount("damaged-block-events", int(h.count), "events in all", "traceview format: events lost in damaged blocks")
		r.meta.LostInFile += uint64(h.count)
		r.hole, r.holeCount = true, r.holeCount+uint64(h.count)
		if h.seq != 0 {
			r.damagedSince++
		}
	}
	for _, s := range r.pendingSkips {
		r.skipped(s.at, s.n)
	}
	r.pending, r.pendingSkips = nil, nil
}

// skipped warns of n bytes skipped at offset at, from a damaged frame
// header to the next intact one: events in them are lost, how many is
// unknown until the trailer's count (checkCount).
func (r *Reader) skipped(at, n int64) {
	r.meta.Warnings.AddEach("damaged-frame", "traceview format: damaged frame header at offset %d: skipped %d bytes (events in them are lost)", at, n)
	r.hole, r.skippedSince = true, true
	r.bytesSkipped += n
}

func (r *Reader) applyHeader() {
	h := r.hdr
	m := &r.meta
	m.Hostname, m.OSRelease, m.Arch, m.Tool = h.Hostname, h.OSRelease, h.Arch, h.Tool
	m.Cmdline, m.NrCPUs, m.NrCPUsAvail, m.Clock = h.Cmdline, h.NrCPUs, h.NrCPUsAvail, h.Clock
	m.RecordedCPUs = nil
	for _, c := range h.RecordedCPUs {
		if c >= 0 && c <= cpulist.MaxCPU && !slices.Contains(m.RecordedCPUs, trace.CPU(c)) {
			m.RecordedCPUs = append(m.RecordedCPUs, trace.CPU(c))
		}
	}
	slices.Sort(m.RecordedCPUs)
	switch {
	case h.Autogroup > 0:
		m.Autogroup = 1
	case h.Autogroup < 0:
		m.Autogroup = -1
	}
	if m.FirstTime == 0 {
		m.FirstTime = h.FirstTime
	}
	if m.LastTime == 0 {
		m.LastTime = h.LastTime
	}
	if h.FirstTime > 0 || h.LastTime > 0 {
		m.SpanFrom = trace.SpanFromHeader
	}
}

// lossKey names a recorder's KindLost event: its CPU and time, the end
// of its window.
type lossKey struct {
	cpu trace.CPU
	end int64
}

// lossesAhead prepares, for a capture whose trailer was read at open, its
// loss windows to be delivered at their starts (Next): traceview record
// writes each KindLost when the loss is noticed, at the window's end, and
// a delay on another CPU that ended inside the window was measured before
// it (new-user pass 79 F1: a 110.403 ms max delay inside CPU 1's loss of
// 17814 events, counted). As perf.data's scanLost does, each window comes
// as a KindLost at its start with its length known ahead
// (trace.Event.Runtime), and the recorder's own event is skipped. Only for
// a traceview record capture (Header.Tool): a converted file's losses are
// its source's, and a file written otherwise reads back as written.
func (r *Reader) lossesAhead() {
	if r.hdr.Source != "" || !strings.HasPrefix(r.hdr.Tool, "traceview record") {
		return
	}
	windows := r.meta.Lost
	if !r.gotTail {
		windows = r.streamLost // (scanLosses)
	}
	for _, w := range windows {
		if w.CPU >= 0 && w.End > w.Start && w.Start > 0 {
			r.lossAhead = append(r.lossAhead, w)
		}
	}
	sort.SliceStable(r.lossAhead, func(i, j int) bool { return r.lossAhead[i].Start < r.lossAhead[j].Start })
	if len(r.lossAhead) > 0 {
		r.lossAt = make(map[lossKey]bool, len(r.lossAhead))
		for _, w := range r.lossAhead {
			r.lossAt[lossKey{w.CPU, w.End}] = true
		}
	}
}

// Next returns the next event, io.EOF after the last one.
func (r *Reader) Next() (trace.Event, error) {
	for {
		var e trace.Event
		if r.heldEv != nil {
			e, r.heldEv = *r.heldEv, nil
		} else {
			var err error
			if e, err = r.next(); err != nil {
				if err == io.EOF {
					r.streamLosses()
				}
				return e, err
			}
			if e.Kind == trace.KindLost && r.lossAt[lossKey{e.CPU, e.Time}] {
				delete(r.lossAt, lossKey{e.CPU, e.Time})
				continue // delivered at its start
			}
			r.noteLoss(&e)
			if trace.IsOpenLoss(&e) {
				continue // a recorder's overflow note: its window comes from the trailer or noteLoss
			}
		}
		if len(r.lossAhead) > 0 && e.Time > 0 && r.lossAhead[0].Start <= e.Time {
			w := r.lossAhead[0]
			r.lossAhead = r.lossAhead[1:]
			r.heldEv = &e
			lost := trace.NewEvent(w.Start, w.CPU, trace.KindLost)
			lost.Count, lost.Runtime = w.Count, w.End-w.Start
			return lost, nil
		}
		return e, nil
	}
}

// scanLosses reads a seekable capture without its trailer (the recorder
// killed, a copy cut short) once ahead, for the loss windows its stream
// holds (noteLoss), which lossesAhead then delivers at their starts as it
// does a whole file's from the trailer: each KindLost comes at its
// window's end, and a delay on another CPU that ended inside the window
// was measured before it (new-user pass 84 F1: a SIGKILLed capture's
// 160.671 ms delay across CPU 0's loss of 37,299 events, and a cut copy
// 16,555 delays its whole file leaves out). Only for a traceview record
// capture: others carry no losses of their own in the stream.
func (r *Reader) scanLosses(ra io.ReaderAt) {
	if r.hdr.Source != "" || !strings.HasPrefix(r.hdr.Tool, "traceview record") {
		return
	}
	// As a stream (no io.ReaderAt, no io.Seeker: no trailer sought, no
	// scan of its own).
	inner, err := NewReader(struct{ io.Reader }{io.NewSectionReader(ra, 0, math.MaxInt64>>1)})
	if err != nil {
		return
	}
	defer inner.Close()
	for {
		if _, err := inner.Next(); err != nil {
			break
		}
	}
	r.streamLost, r.lossScanned = inner.meta.Lost, true
}

// noteLoss keeps, while the trailer is not read, each CPU's last event
// time and the loss window of each KindLost of a CPU the file holds (the
// recorder's: from the CPU's event before it to it, with its count).
func (r *Reader) noteLoss(e *trace.Event) {
	if r.gotTail {
		return
	}
	if e.CPU < 0 {
		if e.Kind == trace.KindLost && !r.lossScanned {
			// Damaged or missing blocks (a marker of every CPU): a loss
			// record of a CPU with an open note may have been in them, so
			// the CPU's next event settles the note as a loss, not as
			// nothing lost (new-user pass 90 F2: a damaged block held the
			// record of a 17891-event loss, and a copy cut before the
			// trailer measured 151 ms delays across it).
			for c := range r.openAt {
				if r.openHole == nil {
					r.openHole = map[trace.CPU]bool{}
				}
				r.openHole[c] = true
			}
		}
		return
	}
	if r.lastOn == nil {
		r.lastOn = map[trace.CPU]int64{}
	}
	switch {
	case r.lossScanned:
	case trace.IsOpenLoss(e):
		if _, ok := r.openAt[e.CPU]; !ok {
			if r.openAt == nil {
				r.openAt = map[trace.CPU]int64{}
			}
			r.openAt[e.CPU] = e.Time
		}
	case e.Kind == trace.KindLost:
		delete(r.openAt, e.CPU) // (its window, from the CPU's last event, covers the note's)
		delete(r.openHole, e.CPU)
		start, ok := r.lastOn[e.CPU]
		if !ok {
			start = r.meta.FirstTime
		}
		r.streamLost = append(r.streamLost, trace.LostWindow{CPU: e.CPU, Count: e.Count, Start: min(start, e.Time), End: e.Time})
	default:
		if t, ok := r.openAt[e.CPU]; ok && r.openHole[e.CPU] && e.Time > t {
			r.streamLost = append(r.streamLost, trace.LostWindow{CPU: e.CPU, Start: t, End: e.Time})
		}
		delete(r.openAt, e.CPU) // (else the CPU's next record came first: nothing lost)
		delete(r.openHole, e.CPU)
	}
	r.lastOn[e.CPU] = max(r.lastOn[e.CPU], e.Time)
}

// streamLosses gives a file that ended without its trailer (cut short:
// the recorder killed, a copy interrupted) the loss windows its stream
// held, which the trailer lists for a whole file (new-user pass 83 F1:
// "0 reported lost by the recorder" for a capture whose kept part held
// the losses).
//
// An overflow note (trace.OpenLoss) that no event of its CPU settled
// leaves the CPU unobserved from the note to the file's last event: the
// recorder wrote it when it found the CPU's buffer full, and the loss
// record with its count came after the cut (new-user pass 86 F1: a copy
// cut 320 ms into CPU 1's loss of 25024 events measured 2179 delays the
// whole file leaves out).
func (r *Reader) streamLosses() {
	if r.gotTail {
		return
	}
	var end int64
	for _, t := range r.lastOn {
		end = max(end, t)
	}
	r.streamLost = append(r.streamLost, trace.OpenLossWindows(r.openAt, end)...)
	r.openAt, r.openHole = nil, nil
	if len(r.streamLost) == 0 {
		return
	}
	r.meta.Lost = append(r.meta.Lost, r.streamLost...)
	r.streamLost = nil
}

// next is Next without the losses delivered ahead.
func (r *Reader) next() (trace.Event, error) {
	for r.i >= len(r.buf) {
		if r.ended {
			return trace.Event{}, io.EOF
		}
		r.buf, r.i = r.buf[:0], 0
		if r.popReady() {
			continue
		}
		err := r.endErr
		if err == nil {
			err = r.readFrame(false)
		}
		if err != nil {
			r.flushPending() // (a damaged last block counts before missingAtEnd: not "missing")
			if r.releaseHeld() || r.endErr == nil && (r.missingAtEnd() || r.holeAtEnd()) {
				// The file ended with a block held, or short of its last
				// blocks: return it or the lost marker, then end
				// (readFrame is not called again at the end).
				r.endErr = err
				r.popReady()
				continue
			}
			r.ended = true
			r.flushPending()
			r.checkCount()
			if (r.meta.FirstTime == 0 && r.seenFirst > 0) || (r.meta.LastTime == 0 && r.seenLast > 0) {
				r.meta.SpanFrom = trace.SpanFromEvents
			}
			if r.meta.FirstTime == 0 {
				r.meta.FirstTime = r.seenFirst
			}
			if r.meta.LastTime == 0 {
				r.meta.LastTime = r.seenLast
			}
			if !r.gotTail && r.sawCgroup && r.groupsInStream {
				// Named by the groups frames (applyGroups); the
				// settings are the trailer's alone.
				r.meta.Warnings.Add("truncated-cgroups", "traceview format: the task groups' settings (cpu.shares, quotas) and cpu.stat readings were in the file's trailer, which it lacks: the groups are named as the recorder wrote them down while it went, their quotas unknown (state one with --recorded-cgroup 'PATH:max=QUOTA/PERIOD')")
			} else if !r.gotTail && r.sawCgroup && r.meta.Cgroups == nil {
				// The paths were in the trailer, which the file lacks;
				// the root's id is known: cgroup v2's root is kernfs node
				// 1 (a cut capture listed "cgroup id 0x1").
				r.setCgroups(map[uint64]string{trace.RootCgroupID: "/"})
				// Said, not left to an unexplained "cgroup id N" in
				// every table (new-user pass 16 F6).
				r.meta.Warnings.Add("truncated-cgroups", "traceview format: the cgroup paths, settings (cpu.shares, quotas) and cpu.stat readings were in the file's trailer, which it lacks: task groups are named by id (\"cgroup id N\"), their quotas unknown (state one with --recorded-cgroup 'cgroup id N:max=QUOTA/PERIOD')")
			}
			if !r.gotTail && r.stacksUnread > 0 {
				// The stack table is in the trailer too (new-user pass
				// 46 F2: a cut of 200 bytes lost 6447 callchains with no
				// word, and pprof's off-CPU measures with them).
				r.meta.Warnings.Add("truncated-stacks", "traceview format: the stack table (record --stacks) was in the file's trailer, which it lacks: the callchains of %d sched_switch events are lost (timehist prints none, export pprof has no off-CPU measures)", r.stacksUnread)
			}
			return trace.Event{}, err
		}
	}
	r.i++
	r.started = true
	e := &r.buf[r.i-1]
	if e.Kind == trace.KindFork && r.agOf != nil && e.ChildPID > 0 && e.ChildPID != e.PID {
		// A new process starts in its parent's autogroup (copy_signal,
		// kernel/fork.c, calls sched_autogroup_fork, kernel/sched/
		// autogroup.c v6.18): one the
		// recorder did not read (it lived less than its 100 ms) is
		// placed there, not in the root (new-user pass 28 F2).
		if k, ok := r.agOf[e.PID]; ok {
			if _, read := r.meta.TaskAutogroups[e.ChildPID]; !read {
				r.agOf[e.ChildPID] = k
			}
		}
	}
	if e.Stack != 0 && !r.gotTail {
		r.stacksUnread++
	}
	if e.Cgroup != 0 {
		r.sawCgroup = true
		if k, ok := r.cgAlias[e.Cgroup]; ok {
			e.Cgroup = k
		}
		if r.agRoot[e.Cgroup] {
			if k, ok := r.agOf[e.PID]; ok && e.PID > 0 {
				e.Cgroup = k
			}
		}
	}
	if e.Time > 0 {
		if r.seenFirst == 0 {
			r.seenFirst = e.Time
		}
		r.seenLast = max(r.seenLast, e.Time)
	}
	return *e, nil
}

// Meta describes the trace; the trailer's losses appear once read (at
// NewReader for a seekable complete file, else at the end of the stream).
// FirstTime and LastTime come from the header (the source's sample times),
// else the trailer, else (older files, files without a trailer) the first
// and last nonzero event times once the stream has ended; SpanFrom says
// which.
func (r *Reader) Meta() *trace.Meta { return &r.meta }

// Header returns the file's header.
func (r *Reader) Header() Header { return r.hdr }

// Version returns the file's format version.
func (r *Reader) Version() int { return int(r.version) }

// Tasks returns the task table read so far, sorted by TID.
func (r *Reader) Tasks() []Task {
	out := make([]Task, 0, len(r.tasks))
	for _, t := range r.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].TID < out[j].TID })
	return out
}

// Close releases the decoder and closes the input if it is an io.Closer.
func (r *Reader) Close() error {
	r.dec.Close()
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}

// seqBlock is an event block's events ready to return, hole when a lost
// marker goes before them (blocks missing before it).
type seqBlock struct {
	evs  []trace.Event
	hole bool
}

// heldBlock is an event block read before its turn: its events (a copy),
// offset and frame header.
type heldBlock struct {
	evs []trace.Event
	at  int64
	h   frameHdr
}

// sequence places the intact event block at offset at (header h, events
// evs) by its number and returns the blocks to return now, in order. The
// writer numbers its event blocks one after another (blockSeq), so:
//   - the next number: the block is returned;
//   - a jump: the blocks between are missing (less those found damaged,
//     whose headers gave their numbers, and unless bytes were skipped,
//     which held them): a lost marker goes before it, and a warning says
//     how many (new-user pass 42 F1: a removed block's 0.25 s read as a
//     616 ms delay, and "bytes skipped as damaged" where none were). With
//     one missing the block is held until the next: when that is the
//     missing one, the two were swapped and are returned in order (pass
//     42 F2: two swapped blocks read as whole, with made-up delays, busy
//     plus unknown above the observed time);
//   - an earlier number: the block is out of its place, behind events
//     already returned: skipped, its events counted lost, and said.
//
// Blocks without numbers (files written before 2026-12-06) are returned
// as read.
func (r *Reader) sequence(at int64, h frameHdr, evs []trace.Event) []seqBlock {
	if h.seq == 0 {
		return []seqBlock{{evs: evs}}
	}
	var out []seqBlock
	if hb := r.held; hb != nil {
		r.held = nil
		if h.seq == seqAfter(r.lastSeq) {
			r.meta.Warnings.AddEach("damaged-block-order", "traceview format: the event blocks at offsets %d and %d are in each other's place (blocks %d and %d): read in their order",
				hb.at, at, hb.h.seq, h.seq)
			r.lastSeq = hb.h.seq
			r.damagedSince, r.skippedSince = 0, false
			return []seqBlock{{evs: evs}, {evs: hb.evs}}
		}
		r.missing(hb.at, r.lastSeq, hb.h.seq, 1)
		out = append(out, seqBlock{evs: hb.evs, hole: true})
		r.lastSeq = hb.h.seq
	}
	// Before the first block read, the last placed is block "0": the
	// writer starts every file at 1 (each file of a --rotate series too),
	// so a first block numbered above 1 says the file's first blocks are
	// missing (new-user pass 43 F1).
	d := seqDist(r.lastSeq, h.seq)
	if r.lastSeq != 0 && (d == 0 || d > 1<<15-1) {
		n := len(evs)
		r.decoded -= uint64(n)
		r.meta.LostInFile += uint64(n)
		r.outOfPlace += uint64(n)
		r.meta.Warnings.AddEach("damaged-block-order", "traceview format: the event block at offset %d (block %d) belongs before the last one read (block %d): out of its place in the file, behind events already read; its %d events are skipped (counted lost)",
			at, h.seq, r.lastSeq, n)
		return out
	}
	if missing := d - 1 - r.damagedSince; missing > 0 && r.skippedSince && !r.gotTail && d <= 1<<15-1 {
		// Blocks in the bytes skipped: a trailer's count would say how
		// many events they held (checkCount); without one, their
		// number (new-user pass 91 F9: a cut file counted neither).
		r.meta.Warnings.AddEach(SkippedBlocksKey, "traceview format: %d event block(s) lay in the bytes skipped as damaged before the block at offset %d (block numbers jump from %d to %d): their events are lost, how many unknown without the file's trailer (a block holds up to %d)",
			missing, at, r.lastSeq, h.seq, BlockEvents)
	}
	hole := false
	if missing := d - 1 - r.damagedSince; missing > 0 && !r.skippedSince {
		if missing == 1 && len(out) == 0 {
			r.held = &heldBlock{evs: slices.Clone(evs), at: at, h: h}
			r.damagedSince, r.skippedSince = 0, false
			return nil
		}
		r.missing(at, r.lastSeq, h.seq, missing)
		hole = true
	}
	r.lastSeq = h.seq
	r.damagedSince, r.skippedSince = 0, false
	return append(out, seqBlock{evs: evs, hole: hole})
}

// missing warns of n event blocks missing between blocks from and to, the
// latter at offset at (from 0: at the file's start).
func (r *Reader) missing(at int64, from, to uint16, n int) {
	if from == 0 && r.bytesSkipped > 0 {
		// Skipped with a damaged header frame: in the file, damaged.
		r.meta.Warnings.AddEach("damaged-block-missing", "traceview format: %d event block(s) lost at the file's start, in the bytes skipped as damaged there (the first read is block %d, and every file starts at 1); their time is unobserved on every CPU",
			n, to)
		return
	}
	r.missingBlocks += n
	if from == 0 {
		r.meta.Warnings.AddEach("damaged-block-missing", "traceview format: %d event block(s) missing at the file's start, before the one at offset %d (the first read is block %d, and every file starts at 1): not in the file; their time is unobserved on every CPU",
			n, at, to)
		return
	}
	r.meta.Warnings.AddEach("damaged-block-missing", "traceview format: %d event block(s) missing before the one at offset %d (block numbers jump from %d to %d): not in the file (removed, or never written); their time is unobserved on every CPU",
		n, at, from, to)
}

// missingAtEnd checks, at the end of the file, the number of the last
// block placed against the trailer's count of blocks written: the blocks
// after it, less those found damaged or in bytes skipped since, are
// missing from the file's end (new-user pass 43 F1: they were said to be
// unplaceable, and their time was no part of the trace). A lost marker
// at the trailer's last event time (or the last read) marks the time from
// the last block read unobserved on every CPU; it reports whether it
// queued one.
func (r *Reader) missingAtEnd() bool {
	if !r.gotTail || r.cut || r.tailBlocks == 0 || r.lastSeq == 0 || r.skippedSince {
		return false
	}
	d := seqDist(r.lastSeq, blockSeq(r.tailBlocks-1))
	n := d - r.damagedSince
	if d > 1<<15-1 || n <= 0 {
		return false
	}
	r.missingBlocks += n
	r.meta.Warnings.AddEach("damaged-block-missing", "traceview format: %d event block(s) missing at the file's end, after block %d (the trailer counts %d blocks written): not in the file; their time is unobserved on every CPU",
		n, r.lastSeq, r.tailBlocks)
	r.damagedSince = 0
	lost := r.marker(r.blockEnd, max(r.meta.LastTime, r.blockEnd))
	r.ready = append(r.ready, seqBlock{evs: []trace.Event{lost}})
	return true
}

// holeAtEnd queues the lost marker of damaged blocks (or bytes) that
// no intact block followed: every CPU is unobserved from the last intact
// event to the trace's end (the trailer's last time), as before a block
// after them (new-user pass 64 F1: a damaged last block of a --rotate
// file left 674 ms unsaid, and a series read across it measured 702 ms
// delays where the intact one has 35 ms). It reports whether it queued
// one.
func (r *Reader) holeAtEnd() bool {
	if !r.hole || r.blockEnd == 0 {
		return false // (no event read: nothing was observed to end)
	}
	lost := r.marker(r.blockEnd, max(r.meta.LastTime, r.blockEnd))
	r.ready = append(r.ready, seqBlock{evs: []trace.Event{lost}})
	return true
}

// releaseHeld returns the held block, if any, behind a lost marker (the
// block before it never came), and reports whether there was one.
func (r *Reader) releaseHeld() bool {
	hb := r.held
	if hb == nil {
		return false
	}
	r.held = nil
	r.missing(hb.at, r.lastSeq, hb.h.seq, 1)
	r.lastSeq = hb.h.seq
	r.push(seqBlock{evs: hb.evs, hole: true})
	return true
}

// push queues b's events to return, behind a lost marker when b.hole or
// a damaged frame came before.
func (r *Reader) push(b seqBlock) {
	evs := b.evs
	if len(evs) == 0 {
		return
	}
	if b.hole {
		r.hole = true
	}
	if r.hole {
		evs = r.holeBefore(evs)
	}
	for k := range evs {
		r.blockEnd = max(r.blockEnd, evs[k].Time)
	}
	r.ready = append(r.ready, seqBlock{evs: evs})
}

// popReady makes the first queued block the one Next returns events of,
// and reports whether there was one.
func (r *Reader) popReady() bool {
	if len(r.ready) == 0 {
		return false
	}
	r.buf, r.i = r.ready[0].evs, 0
	r.ready[0] = seqBlock{}
	r.ready = r.ready[1:]
	return true
}
