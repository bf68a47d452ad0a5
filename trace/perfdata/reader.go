package perfdata

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tpformat"
)

// ErrNoSchedEvents is returned by Next at the end of a perf.data that
// recorded no scheduler tracepoint (for example `perf record -e cpu-clock`):
// there is nothing for a scheduler report to read. It is
// trace.ErrNoSchedEvents.
var ErrNoSchedEvents = trace.ErrNoSchedEvents

// ErrNotPerfData is returned by NewReader when the input does not start with
// a perf.data magic.
var ErrNotPerfData = errors.New("not a perf.data file (no PERFILE2 magic)")

// DefaultMaxPending bounds the reordering window (events held while waiting
// for their round to end; about 200 bytes each). When a trace has no
// FINISHED_ROUND records or a pass is longer, the earliest half is released
// early and any event that later arrives below the released time is counted
// as an "out-of-order" warning (perf's "Timestamp below last timeslice
// flush").
const DefaultMaxPending = 1 << 19

// Record types (include/uapi/linux/perf_event.h enum perf_event_type, and
// tools/perf/util/event.h enum perf_user_event_type for 64 and up).
const (
	recMMAP            = 1
	recLost            = 2
	recComm            = 3
	recExit            = 4
	recFork            = 7
	recSample          = 9
	recCgroup          = 19 // PERF_RECORD_CGROUP: u64 id, NUL-terminated path (Linux 5.7+)
	recLostSamples     = 13
	maxKernelRecord    = 22 // PERF_RECORD_CALLCHAIN_DEFERRED
	recHeaderAttr      = 64
	recTracingData     = 66
	recFinishedRound   = 68
	recEventUpdate     = 78
	recHeaderFeature   = 80
	recCompressed      = 81
	recFinishedInit    = 82
	recCompressed2     = 83
	maxUserRecord      = 83
	miscCommExec       = 1 << 13 // PERF_RECORD_MISC_COMM_EXEC
	eventUpdateName    = 2       // PERF_EVENT_UPDATE__NAME
	maxTracingDataSize = 1 << 30 // sanity bound of a tracing-data record
)

// Stats counts what a Reader has read so far.
type Stats struct {
	// Records counts records by type (index: PERF_RECORD_* number, up to
	// maxUserRecord; others in Records[0]).
	Records [maxUserRecord + 1]uint64
	// Samples counts PERF_RECORD_SAMPLE records per event name, as
	// `perf report --stats` lists them ("sched:sched_switch": N).
	Samples map[string]uint64
	// Events counts delivered-to-be events by kind.
	Events [len(trace.Kinds)]uint64
	// Bytes is the number of data-section bytes read.
	Bytes int64
	// SideBandBehind counts COMM, FORK and EXIT records earlier than
	// their CPU's previous record, queued at their own times
	// (queueSideBand).
	SideBandBehind uint64
}

// Reader streams a perf.data file. Create it with NewReader; it implements
// trace.Source.
type Reader struct {
	// lostAtNext: a damaged record size skipped records (oversized); the
	// next sample with a time gets a KindLost of every CPU before it.
	lostAtNext bool
	// notCompressed: the header lists its features and compression is
	// not one: a compressed record is damage (compressed).
	notCompressed bool
	MaxPending    int // reordering window bound; DefaultMaxPending unless set before the first Next
	// Decoders is how many goroutines decode samples of a mapped file
	// ahead of the reader (parallel.go): 0 chooses from GOMAXPROCS
	// (none below 4 CPUs), -1 none. Set it before the first Next.
	Decoders int

	br  *bufio.Reader
	pre *prefetch
	// mm is the data section mapped into memory (file mode on Linux,
	// see mapSection), read at mpos up to mend, its pages released
	// behind the reader up to mdrop; nil when the data is read through
	// br.
	mm                      []byte
	mpos, mend, mdrop, mpop int
	adv                     *advisor // the madvise calls on mm, from the first stride on
	// ahead holds the events Next read ahead from a mapped file: evs[i:]
	// are still to be returned (by Next or NextBatch).
	ahead struct {
		buf, evs []trace.Event
		i        int
	}
	cleanup func() error
	order   binary.ByteOrder
	end     tpformat.Endian // order, for the hot paths
	pipe    bool
	meta    *trace.Meta

	attrs   []*attr
	byID    map[uint64]*attr
	idCache idCache
	idPos   int // sampleIDPos of the first attribute
	// minSample is the fewest bytes a sample of a fixed layout takes, up
	// to its RAW size (shortSample); 0 when an attribute has none.
	minSample      int
	descs          []eventDesc
	formats        map[int]*tpformat.Format
	decoders       map[int]*tpformat.SchedDecoder // by format ID
	tracingVersion string
	intern         tpformat.Interner
	haveForkTP     bool
	haveExitTP     bool
	taskRecords    bool // UseTaskRecords: forks, execs and exits from the records only
	sideDup        bool // the record being queued repeats a tracepoint (queueTaskRecord)
	// firstSampleEst: the first sample time found in the data's first
	// round when the header lacks it (scanFirstSample), 0 unknown.
	firstSampleEst int64
	keepRepeats    bool  // KeepRepeats: an event recorded twice is delivered twice
	firstTime      int64 // ns, the earliest sample time read (damagedRuntime); 0: none yet
	// lostAhead: the losses scanLost queued ahead, by CPU and the LOST
	// record's time; their records add no second event.
	lostAhead map[lostKey]bool
	// timeAhead: the samples scanLost found stamped later than both
	// their CPU's previous and next samples, by file offset: a damaged
	// time, dropped where met (see scanLost).
	timeAhead map[int64]timeOutlier
	// scanFile is the mapped file, which scanLost reads with pread.
	scanFile      *os.File
	haveExecTP    bool
	switchRecords bool // a PERF_RECORD_SWITCH_CPU_WIDE made a sched_switch
	scopeChecked  bool // checkScope ran

	off        int64 // file offset of the next record
	dataEnd    int64 // file mode: offset just past the data section
	unfinished bool  // file mode, data size 0 in the header: perf record was killed

	q          queue
	flushLimit int64 // events at or below this time may leave
	nextFlush  int64 // the max time seen at the last FINISHED_ROUND
	maxTime    int64
	lastOut    int64
	// mark is the earliest of every CPU's latest record time (cpuLast)
	// when markOK: each of the recording's CPUs has a record; markCPU is
	// the CPU holding it. markOff turns the mark off for good (advanceMark).
	mark    int64
	markCPU int
	markOK  bool
	markOff bool
	forced  int
	round   roundTrack // which CPUs the round being read holds (cutRound)
	// direct is next's destination while it handles a record, for a
	// sample that can leave at once (slotFor); delivered says one did.
	// noDirect turns that off (tests).
	direct    *trace.Event
	delivered bool
	noDirect  bool
	eof       bool
	err       error

	tidPID pidTable
	skip   [len(trace.Kinds)]bool // kinds the consumer asked to leave out (SkipKinds)
	// stackIDs interns sched_switch callchains (raw ips) into Meta.Stacks.
	stackIDs map[string]trace.StackID
	cpuLast  []int64 // last record time per CPU, for lost windows and damage
	// skipLast is the last time per CPU of the samples skipped as kinds
	// the consumer left out (SkipKinds), for cutRound's windows: the CPU
	// was observed up to them (new-user pass 49 F5).
	skipLast []int64
	// sideBandBack is the furthest a side-band record has come behind
	// its CPU's previous record, in ns (queueSideBand); the mark holds
	// events back by markLag().
	sideBandBack int64
	// times says whether records are checked against the header's
	// sample times (outsideSampleTimes); timesIn and timesOut count the
	// timed records inside and outside them.
	times             timesCheck
	timesIn, timesOut int
	cpuPrint          []eventPrint // the last record of each CPU (duplicate check)
	stats             Stats
	decomp            *decompressor
	// cutInCompressed: the input ends inside a compressed record whose
	// part there was decompressed (cutCompressed); called once the
	// records decoded from it are read, it ends the trace.
	cutInCompressed func()
	// pd decodes samples of the mapped data section ahead on other
	// goroutines (parallel.go); recPos is the mapping position of the
	// record being handled, -1 when it is not in the mapping.
	pd         *predecoder
	pdStarted  bool
	recPos     int
	predecoded uint64 // samples the goroutines decoded (for the tests)
	wasSkipped bool   // the last record was a sample of a kind skipped (skipped)
}

// NewReader reads the header of a perf.data stream and, in file mode, its
// attribute and feature sections. File mode needs to seek to the feature
// sections, which follow the data: when in is not an io.ReaderAt and
// io.Seeker (a pipe holding a file-mode perf.data), the input is first
// copied to a temporary file.
func NewReader(in io.Reader) (*Reader, error) { return newReader(in, nil) }

// newReader is NewReader with stop (nil: never) asked as the copy of a
// file-mode perf.data from a pipe goes on (trace.ReadOptions.Stop).
func newReader(in io.Reader, stop func() bool) (*Reader, error) {
	r := &Reader{
		meta:     &trace.Meta{Format: "perf.data", Clock: "perf local_clock"},
		byID:     map[uint64]*attr{},
		formats:  map[int]*tpformat.Format{},
		decoders: map[int]*tpformat.SchedDecoder{},
		stats:    Stats{Samples: map[string]uint64{}},
	}
	ra, seekable := in.(interface {
		io.ReaderAt
		io.Seeker
	})
	var head []byte
	if seekable {
		var buf [16]byte
		n, err := ra.ReadAt(buf[:], 0)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("header at offset 0: %w", err)
		}
		head = buf[:n]
	} else {
		br := bufio.NewReaderSize(in, 1<<20)
		head, _ = br.Peek(16)
		in = br
	}
	if err := checkMagic(head); err != nil {
		return nil, err
	}
	if string(head[:8]) == magicLE {
		r.order = binary.LittleEndian
	} else {
		r.order = binary.BigEndian
	}
	r.end = tpformat.EndianOf(r.order)
	hsize := r.order.Uint64(head[8:])
	if hsize == pipeHeaderSize {
		r.pipe = true
		if _, err := io.ReadFull(in, make([]byte, pipeHeaderSize)); err != nil {
			return nil, fmt.Errorf("header at offset 0: %w", shortErr(err))
		}
		r.pre = newPrefetch(in)
		r.br = bufio.NewReaderSize(r.pre, 1<<20)
		r.off = pipeHeaderSize
		r.meta.CgroupsMu = &sync.RWMutex{} // the attrs come in the stream: any may carry cgroup ids
		return r, nil
	}
	if !seekable {
		f, err := spill(in, stop)
		if err != nil {
			return nil, err
		}
		r.cleanup = func() error { f.Close(); return os.Remove(f.Name()) }
		ra = f
	}
	if err := r.readFileHeader(ra); err != nil {
		if r.cleanup != nil {
			r.cleanup()
		}
		return nil, err
	}
	for _, a := range r.attrs {
		if a.cgSkip >= 0 { // perf record --all-cgroups: the cgroup table comes in the data section
			r.meta.CgroupsMu = &sync.RWMutex{}
			break
		}
	}
	for _, d := range r.decoders {
		// (The header's CPU count, HEADER_NRCPUS, bounds a CPU field as
		// cpuOutOfRange bounds a sample's.)
		d.NrCPUs = max(r.meta.NrCPUsAvail, r.meta.NrCPUs)
	}
	return r, nil
}

// checkMagic tells a perf.data header (at least 16 bytes, either magic)
// from a truncated one (a prefix of a magic) and from other input.
func checkMagic(head []byte) error {
	n := min(len(head), 8)
	if string(head[:n]) != magicLE[:n] && string(head[:n]) != magicBE[:n] {
		return ErrNotPerfData
	}
	if len(head) < 16 {
		return fmt.Errorf("header at offset 0: %d of 16 bytes: truncated: %w", len(head), trace.ErrCorrupt)
	}
	return nil
}

// spill copies a non-seekable input to a temporary file. It asks stop
// (when not nil) after each read: once it returns true, it ends with an
// error that wraps trace.ErrStopped and says how much had come. (Ctrl-C
// during the copy waited for the whole input, then said the reading
// stopped "before its first event (0 events read)" of 40 MB received:
// new-user pass 114 F4.)
func spill(in io.Reader, stop func() bool) (*os.File, error) {
	f, err := os.CreateTemp("", "traceview-*.perf.data")
	if err != nil {
		return nil, fmt.Errorf("file-mode perf.data on a pipe needs a temporary copy: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	var n int64
	buf := make([]byte, 1<<20)
	for {
		m, err := in.Read(buf)
		if _, werr := f.Write(buf[:m]); werr != nil {
			return fail(fmt.Errorf("copying file-mode perf.data from a pipe: %w", werr))
		}
		n += int64(m)
		if err == io.EOF {
			return f, nil
		}
		if err != nil {
			return fail(fmt.Errorf("copying file-mode perf.data from a pipe: %w", err))
		}
		if stop != nil && stop() {
			return fail(stoppedError(fmt.Sprintf("the reading stopped while a file-mode perf.data was copied from a pipe, %.1f MiB received, before any event: such a file is read only once it has come whole (its index is at its end; perf record -o - writes a pipe-mode stream, read as it comes)", float64(n)/(1<<20))))
		}
	}
}

// stoppedError is a reading stopped by trace.ReadOptions.Stop: errors.Is
// it trace.ErrStopped, its message its own.
type stoppedError string

func (e stoppedError) Error() string { return string(e) }
func (e stoppedError) Unwrap() error { return trace.ErrStopped }

// shortErr turns an early end of input into a truncation (ErrCorrupt).
func shortErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("truncated: %w", trace.ErrCorrupt)
	}
	return err
}

// trailingBytes warns of the bytes from last, the end of the file's
// furthest section, to the end of the file (size): perf writes nothing
// there (perf_session__write_header puts the feature sections last), so
// they are data the trace does not hold: most often another perf.data
// appended (cat a.perf.data b.perf.data), whose events would otherwise be
// left out without a word (new-user pass 60 F1: 621609 of 877530 bytes,
// exit 0, info "lost: 0 events").
func (r *Reader) trailingBytes(ra io.ReaderAt, last, size uint64) {
	what := "not perf.data records"
	var magic [8]byte
	if n, _ := ra.ReadAt(magic[:], int64(last)); n == len(magic) && (string(magic[:]) == "PERFILE2" || string(magic[:]) == "2ELIFREP") {
		what = fmt.Sprintf("another perf.data (its PERFILE2 header is there: `tail -c +%d` of the file, uncompressed, is that one)", last+1)
	}
	r.meta.Warnings.Add("damaged-trailing-bytes", "perf.data: %d bytes follow the file's last section (it ends at offset %d of %d): %s; not read, its events are not in the trace",
		size-last, last, size, what)
}

// readFileHeader reads perf_file_header, the attrs and the feature sections.
func (r *Reader) readFileHeader(ra interface {
	io.ReaderAt
	io.Seeker
}) error {
	size, err := ra.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	var h [fileHeaderSize]byte
	if _, err := ra.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("file header at offset 0: %w", shortErr(err))
	}
	o := r.order
	attrSize := o.Uint64(h[16:])
	attrsOff, attrsSize := o.Uint64(h[24:]), o.Uint64(h[32:])
	dataOff, dataSize := o.Uint64(h[40:]), o.Uint64(h[48:])
	usize := uint64(size)
	last := uint64(fileHeaderSize) // the end of the furthest section read
	section := func(what string, off, n uint64) error {
		if off > usize || n > usize-off {
			return fmt.Errorf("%s section at offset %d (%d bytes) past the end of the file (%d bytes): truncated: %w", what, off, n, size, trace.ErrCorrupt)
		}
		last = max(last, off+n)
		return nil
	}
	if err := section("attr", attrsOff, attrsSize); err != nil {
		return err
	}
	// A file cut short inside its data section (a copy interrupted, head
	// -c) has the records before the cut: read them, as an unfinished
	// recording's, and say how much is missing. Its feature sections, after
	// the data, are gone with the end.
	truncated := dataOff <= usize && dataSize > usize-dataOff
	if err := section("data", dataOff, dataSize); err != nil && !truncated {
		return err
	}
	if attrSize < 64+16 || attrSize > 1<<16 {
		return fmt.Errorf("file header at offset 0: attr size %d: %w", attrSize, trace.ErrCorrupt)
	}
	ab := make([]byte, attrsSize)
	if _, err := ra.ReadAt(ab, int64(attrsOff)); err != nil {
		return fmt.Errorf("attr section at offset %d: %w", attrsOff, shortErr(err))
	}
	for i := uint64(0); i+attrSize <= uint64(len(ab)); i += attrSize {
		e := ab[i : i+attrSize]
		a, err := parseAttr(e[:attrSize-16], o)
		if err != nil {
			return fmt.Errorf("attr %d at offset %d: %w", len(r.attrs), attrsOff+i, err)
		}
		idOff, idSize := o.Uint64(e[attrSize-16:]), o.Uint64(e[attrSize-8:])
		if err := section(fmt.Sprintf("attr %d id", len(r.attrs)), idOff, idSize); err != nil {
			return err
		}
		ids := make([]byte, idSize/8*8)
		if _, err := ra.ReadAt(ids, int64(idOff)); err != nil {
			return fmt.Errorf("attr %d ids at offset %d: %w", len(r.attrs), idOff, shortErr(err))
		}
		for j := 0; j+8 <= len(ids); j += 8 {
			a.ids = append(a.ids, o.Uint64(ids[j:]))
		}
		r.addAttr(a)
	}
	if len(r.attrs) == 0 {
		return fmt.Errorf("attr section at offset %d: no attributes: %w", attrsOff, trace.ErrCorrupt)
	}
	// Feature sections: one {offset, size} per set bit, after the data.
	featOff := dataOff + dataSize
	nfeat := 0
	for i := 0; i < 4; i++ {
		nfeat += bits.OnesCount64(o.Uint64(h[72+8*i:]))
	}
	if truncated {
		missing := dataSize - (usize - dataOff)
		dataSize, nfeat = usize-dataOff, 0
		r.unfinished = true
		r.meta.Warnings.Add("truncated-file", "perf.data: the file ends %d bytes into its %d-byte data section at offset %d: %d bytes of records are missing, and the feature sections after them (host, kernel, CPU count, tracepoint formats); reading the records that are there",
			dataSize, dataSize+missing, dataOff, missing)
	} else if dataSize == 0 && usize > dataOff {
		// perf record writes the header with data size 0 when it starts
		// and the real size and the feature sections when it ends
		// (tools/perf/builtin-record.c record__finish_output): it was
		// killed. The feature bits are already set, but what follows the
		// data offset is records, not features.
		dataSize, nfeat = usize-dataOff, 0
		r.unfinished = true
		r.meta.Warnings.Add("unfinished", "perf.data: the header's data size is 0: the recording was not finished (perf record killed before it wrote its header); reading the %d bytes after the data offset as records; no feature sections (host, kernel, CPU count, tracepoint formats)", dataSize)
	}
	if truncated {
		featOff = usize
	}
	if err := section("feature table", featOff, uint64(nfeat)*16); err != nil {
		// Cut short after its data: the records are whole.
		r.meta.Warnings.Add("truncated-file", "perf.data: the file ends %d bytes after its data section, inside the feature table (%d bytes at offset %d): the feature sections are missing (host, kernel, CPU count, tracepoint formats); the data section before it is all in the file (damage inside it is warned of apart)",
			usize-featOff, nfeat*16, featOff)
		r.unfinished, nfeat = true, 0
	}
	ft := make([]byte, nfeat*16)
	if _, err := ra.ReadAt(ft, int64(featOff)); err != nil && nfeat > 0 {
		return fmt.Errorf("feature table at offset %d: %w", featOff, shortErr(err))
	}
	// A file whose header lists its features but not compression has
	// no compressed records (perf record -z sets HEADER_COMPRESSED,
	// tools/perf/builtin-record.c v6.12): a record of that type is
	// damage (compressed).
	r.notCompressed = nfeat > 0 && o.Uint64(h[72:])>>featCompressed&1 == 0
	k := 0
	for bit := 0; bit < 256 && !r.unfinished; bit++ {
		if o.Uint64(h[72+8*(bit/64):])>>(bit%64)&1 == 0 {
			continue
		}
		off, n := o.Uint64(ft[16*k:]), o.Uint64(ft[16*k+8:])
		k++
		if err := section("feature "+featureName(bit), off, n); err != nil {
			if off > maxFileSize || n > maxFileSize {
				// An offset or size no file has: the feature table is
				// damaged, not the file cut (new-user pass 32 F5 was told
				// "the file ends" of a whole file with a flipped bit).
				r.meta.Warnings.Add("bad-feature-table", "perf.data: the feature table is damaged: feature %s at offset %d, %d bytes, past the end of any file (this one is %d bytes): that feature and the ones after it are not read; the data section before it is all in the file (damage inside it is warned of apart)",
					featureName(bit), off, n, usize)
			} else {
				// Cut short inside the feature sections: the records are
				// whole; this feature and the ones after it are missing.
				r.meta.Warnings.Add("truncated-file", "perf.data: the file ends inside its feature sections (%d bytes, feature %s at offset %d is %d bytes): that feature and the ones after it are missing; the data section before it is all in the file (damage inside it is warned of apart)",
					usize, featureName(bit), off, n)
			}
			truncated = true
			break
		}
		if _, known := featureNames[bit]; !known || bit == 2 || bit == 13 || bit == 14 || bit == 22 {
			continue // not needed
		}
		b := make([]byte, n)
		if _, err := ra.ReadAt(b, int64(off)); err != nil {
			return fmt.Errorf("feature %s at offset %d: %w", featureName(bit), off, shortErr(err))
		}
		if err := r.applyFeature(bit, b); err != nil {
			return fmt.Errorf("feature %s at offset %d: %w", featureName(bit), off, err)
		}
	}
	if !r.unfinished && !truncated && usize > last {
		r.trailingBytes(ra, last, usize)
	}
	if r.unfinished || (truncated && len(r.formats) == 0) {
		r.localFormats()
	}
	if r.times != timesChecked {
		r.firstSampleEst = r.scanFirstSample(ra, int64(dataOff), int64(dataOff+dataSize))
	}
	r.off = int64(dataOff)
	r.dataEnd = int64(dataOff + dataSize)
	if f, ok := ra.(*os.File); ok && !r.unfinished {
		// A finished recording does not change while read: map it. (A
		// file still being written, or cut short while mapped, would
		// fault past its end.)
		if m, skew, ok := mapSection(f, int64(dataOff), int64(dataSize)); ok {
			r.mm, r.mpos, r.mend = m, skew, len(m)
			r.scanFile = f
			return nil
		}
	}
	r.pre = newPrefetch(io.NewSectionReader(ra, int64(dataOff), int64(dataSize)))
	r.br = bufio.NewReaderSize(r.pre, 1<<20)
	return nil
}

// addAttr registers an attribute and its sample ids.
func (r *Reader) addAttr(a *attr) {
	a.index = len(r.attrs)
	a.layout.sched = a.layout == schedLayout && !r.end.Big
	r.attrs = append(r.attrs, a)
	r.idPos = sampleIDPos(r.attrs[0].sampleType)
	if l := a.layout; l.fixed && (r.minSample == 0 || l.raw+4 < r.minSample) {
		r.minSample = l.raw + 4
	}
	for _, id := range a.ids {
		r.byID[id] = a
	}
	r.idCache = idCache{}
	r.resolveAttrs()
}

// Meta returns the trace's description; counters grow while reading.
func (r *Reader) Meta() *trace.Meta { return r.meta }

// Stats returns counts of what was read so far.
func (r *Reader) Stats() *Stats { return &r.stats }

// Close releases the reader (and the temporary copy of a piped file-mode
// input). It does not close the input.
func (r *Reader) Close() error {
	r.stopPredecode() // before the mapping goes
	r.q.stopPrepare()
	r.decomp.close()
	r.decomp = nil
	r.pre.stop()
	r.pre = nil
	r.adv.stop()
	r.adv = nil
	if r.mm != nil {
		unmapSection(r.mm)
		r.mm = nil
	}
	if r.cleanup != nil {
		err := r.cleanup()
		r.cleanup = nil
		return err
	}
	return nil
}

// HasSched reports whether any attribute is a decodable sched tracepoint,
// or the stream held PERF_RECORD_SWITCH_CPU_WIDE records (switchRecord).
func (r *Reader) HasSched() bool {
	if r.switchRecords {
		return true
	}
	for _, a := range r.attrs {
		if a.dec != nil {
			return true
		}
	}
	return false
}

// EventNames returns the names of the recorded events in attribute order.
func (r *Reader) EventNames() []string {
	out := make([]string, len(r.attrs))
	for i, a := range r.attrs {
		out[i] = a.displayName()
	}
	return out
}

// Describe returns the container's mode ("file" or "pipe"), byte order and
// recorded events with their sample counts (trace.Describer).
func (r *Reader) Describe() trace.Description {
	d := trace.Description{Mode: "file", ByteOrder: "little-endian", Recorded: r.EventNames(), Samples: r.SampleCounts()}
	if r.pipe {
		d.Mode = "pipe"
	}
	if r.order == binary.ByteOrder(binary.BigEndian) {
		d.ByteOrder = "big-endian"
	}
	return d
}

// Pipe reports whether the input is in pipe mode.
func (r *Reader) Pipe() bool { return r.pipe }

// ByteOrder returns the byte order of the recording machine.
func (r *Reader) ByteOrder() binary.ByteOrder { return r.order }

// Next returns the next event in time order, io.EOF at the end, or the error
// that stopped reading once every event read before it was returned.
func (r *Reader) Next() (trace.Event, error) {
	if r.mm == nil {
		var e trace.Event
		err := r.next(&e)
		return e, err
	}
	// A mapped file is read a few events ahead (see nextBatch's fault
	// guard, set up once per batch rather than per event).
	if r.ahead.i >= len(r.ahead.evs) {
		if r.ahead.buf == nil {
			r.ahead.buf = make([]trace.Event, 64)
		}
		n, err := r.nextBatch(r.ahead.buf)
		if err != nil {
			return trace.Event{}, err
		}
		r.ahead.evs, r.ahead.i = r.ahead.buf[:n], 0
	}
	r.ahead.i++
	return r.ahead.evs[r.ahead.i-1], nil
}

// NextBatch is Next for many events at once (trace.BatchSource): it fills
// dst from the start and returns how many events it wrote, at least one,
// or 0 and the terminal error (io.EOF at the end). Events are written in
// place, saving the copies of one Next call per event.
func (r *Reader) NextBatch(dst []trace.Event) (int, error) {
	if r.ahead.i < len(r.ahead.evs) {
		// Events Next read ahead come first.
		n := copy(dst, r.ahead.evs[r.ahead.i:])
		r.ahead.i += n
		return n, nil
	}
	return r.nextBatch(dst)
}

// NextPointers is NextBatch by pointer (trace.PointerSource): events that
// wait in the reordering window are handed over in place, saving the copy of
// each into the batch (b.Store holds the others: those decoded straight
// into the batch, and those read ahead by Next). The window's blocks that b
// points into are kept in b.Held until b comes back.
func (r *Reader) NextPointers(b *trace.EventBatch) error {
	held, _ := b.Held.(*[]*block)
	if held == nil {
		held = new([]*block)
		b.Held = held
	}
	r.q.blocks = append(r.q.blocks, *held...)
	clear(*held)
	*held = (*held)[:0]
	b.Events = b.Events[:0]
	if r.ahead.i < len(r.ahead.evs) {
		// Events Next read ahead come first.
		n := copy(b.Store[:cap(b.Events)], r.ahead.evs[r.ahead.i:])
		r.ahead.i += n
		for i := range b.Store[:n] {
			b.Events = append(b.Events, &b.Store[i])
		}
		return nil
	}
	// The queue holds the blocks it is done with for b from here on, also
	// through Next and NextBatch calls after this one (the events of the
	// batches handed over may still be in the blocks those calls empty).
	r.q.hold = held
	return r.nextPointers(b)
}

// nextPointers is NextPointers without the events read ahead (the fault
// guard of nextBatch).
func (r *Reader) nextPointers(b *trace.EventBatch) (err error) {
	if r.mm != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer r.mappedFault(&err)
	}
	store, n := b.Store[:cap(b.Events)], 0
	for range store {
		e, err := r.nextPtr(&store[n])
		if err != nil {
			if len(b.Events) > 0 {
				return nil
			}
			return err
		}
		if e == &store[n] {
			n++
		}
		b.Events = append(b.Events, e)
	}
	return nil
}

// nextBatch is NextBatch without the events read ahead; on a mapped file it
// turns a fault on the mapping into the terminal error (mappedFault).
func (r *Reader) nextBatch(dst []trace.Event) (n int, err error) {
	if r.mm != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer r.mappedFault(&err)
	}
	for i := range dst {
		if err := r.next(&dst[i]); err != nil {
			if i > 0 {
				return i, nil
			}
			return 0, err
		}
	}
	return len(dst), nil
}

// mappedFault, deferred by nextBatch when the file is mapped,
// turns the fault of reading a mapped page that no longer exists (the file
// was truncated while read: SIGBUS, a panic under debug.SetPanicOnFault)
// into the reader's terminal error, instead of a crash. Other panics go on.
func (r *Reader) mappedFault(err *error) {
	e := recover()
	if e == nil {
		return
	}
	if _, fault := e.(interface{ Addr() uintptr }); !fault {
		panic(e)
	}
	r.eof, r.err = true, fmt.Errorf("perf.data: the file changed while it was read (a mapped page past its new end, near offset %d): %w", r.off, trace.ErrCorrupt)
	*err = r.err
}

// next writes the next event into *dst, or returns the terminal error.
func (r *Reader) next(dst *trace.Event) error {
	e, err := r.nextPtr(dst)
	if err == nil && e != dst {
		*dst = *e
	}
	return err
}

// nextPtr returns where the next event is, or the terminal error: *dst
// when the event was decoded or copied there, else its slot in the
// reordering window, valid until the window's next slot (or, with r.q.hold
// set, until the blocks held are given back).
func (r *Reader) nextPtr(dst *trace.Event) (*trace.Event, error) {
	if r.MaxPending <= 0 {
		r.MaxPending = DefaultMaxPending
	}
	if !r.pdStarted {
		r.pdStarted = true
		r.scanLost()
		r.startPredecode()
		if r.mm != nil && r.mend-r.mpos >= prepareMin {
			n := prepareBlocks
			if r.skip[trace.KindRuntime] {
				// sched_stat_runtime is about half of what perf sched
				// record writes: the window holds half the blocks
				// (timehist, map), and made ahead they would count in
				// the peak RSS unused.
				n /= 2
			}
			r.q.prepare(n)
		}
	}
	for {
		if r.q.len() > 0 && (r.eof || r.forced > 0 || r.releasable(r.q.minTime())) {
			if r.forced > 0 {
				r.forced--
			}
			e, t := r.q.popPtr(dst)
			if t > r.lastOut {
				r.lastOut = t
			}
			return e, nil
		}
		if r.eof {
			r.checkScope()
			if r.err != nil {
				return nil, r.err
			}
			if !r.HasSched() {
				if r.pipe && len(r.attrs) == 0 && r.stats.Records[recSample] == 0 {
					// The stream's first records are its attrs (what
					// was recorded): one cut before them says nothing,
					// not that it recorded no sched tracepoint.
					return nil, fmt.Errorf("perf.data: the pipe-mode stream ends after %d bytes, before the description of its first event (PERF_RECORD_HEADER_ATTR, the first record of a pipe-mode stream): cut short, no event can be read: %w", r.off, trace.ErrCorrupt)
				}
				for _, a := range r.attrs {
					if a.typ == typeTracepoint && len(r.formats) == 0 {
						if r.pipe && r.stats.Records[recSample] == 0 {
							// A pipe-mode stream carries its tracing data
							// right after its attrs, before any sample: one
							// that ends without it and without a sample was
							// cut there (one with samples lacks it).
							return nil, fmt.Errorf("perf.data: the pipe-mode stream ends after %d bytes, before its tracing data (the tracepoints' format descriptions, which come before the samples): cut short, no event can be read: %w", r.off, trace.ErrCorrupt)
						}
						return nil, fmt.Errorf("perf.data: tracepoints recorded but no tracing data (their format descriptions) in the file: %w", trace.ErrCorrupt)
					}
				}
				names := strings.Join(r.EventNames(), ", ")
				if names == "" {
					names = "none"
				}
				return nil, fmt.Errorf("perf.data: %w; events in the file: %s", ErrNoSchedEvents, names)
			}
			r.q.free()
			return nil, io.EOF
		}
		if !r.noDirect {
			r.direct = dst
		}
		err := r.step()
		// A sample of a kind the consumer skips changes neither the
		// window nor what may leave it: read on (three records in four
		// for map).
		for err == nil && r.wasSkipped && !r.eof {
			r.wasSkipped = false
			err = r.step()
		}
		r.wasSkipped = false
		r.direct = nil
		if r.delivered {
			r.delivered = false
			if dst.Time > r.lastOut {
				r.lastOut = dst.Time
			}
			if err != nil {
				r.eof, r.err = true, fmt.Errorf("perf.data: %w", err)
			}
			return dst, nil
		}
		if err != nil {
			r.eof, r.err = true, fmt.Errorf("perf.data: %w", err)
		}
		if r.q.len() > r.MaxPending && r.forced == 0 {
			r.forced = r.q.len() - r.MaxPending/2
			r.meta.Warnings.Add("reorder-window-full", "perf.data: more than %d events pending between round marks; released early (bounded memory)", r.MaxPending)
		}
	}
}

// releasable reports whether an event at time t may leave the window: at
// or before the last round's flush limit or the CPU mark.
func (r *Reader) releasable(t int64) bool {
	return t <= r.flushLimit || r.markOK && t <= r.mark-r.markLag()
}

// SideBandLag is how far behind the CPU mark an event must lie to leave
// the window by it, in ns: 1 ms, ten times the furthest a COMM, FORK or
// EXIT record was measured behind its CPU's previous record (93 µs,
// queueSideBand), so that such a record still finds the later events
// waiting. The round rule (FINISHED_ROUND) is not delayed.
const SideBandLag = int64(1e6)

// markLag is SideBandLag, or the furthest a side-band record of this
// input has come behind its CPU when that is more.
func (r *Reader) markLag() int64 {
	return max(SideBandLag, r.sideBandBack)
}

// truncated ends the stream at a record cut short by the end of the input
// (`perf record -o - | head -c N`, a copy taken while perf was writing):
// every record before it has been read, so the trace ends there with a
// counted warning rather than an error that would discard them. When the
// cut falls inside a round, the warning says which CPUs that round lacks
// (cutRound).
func (r *Reader) truncated(what string, read int64) {
	r.stopAt("truncated", fmt.Sprintf("the input ends inside a record (%s): the trace is truncated there", what), read)
}

// stopAt ends the records at byte read of the input with a warning of key
// that starts with head and says what the end of the records leaves out
// (cutRound), or that every event before it was read.
func (r *Reader) stopAt(key, head string, read int64) {
	r.eof = true
	r.meta.CutAt = read
	if msg := r.cutRound(key != "truncated"); msg != "" {
		r.meta.Warnings.Add(key, "perf.data: %s; %s", head, msg)
		return
	}
	r.meta.Warnings.Add(key, "perf.data: %s; every event before it was read", head)
}

// badSize ends the records at a header whose size (under 8 bytes) no
// record has: the rest of the data section cannot be framed (a record's
// size is the only way to the next), as in a file whose end was zeroed or
// overwritten. It reads as a file cut there (truncated: the CPUs cut are
// unobserved after their last event), with the bytes left unread said;
// before, the whole run failed ("size 0: corrupt trace") and no event was
// reported, perf 6.12 likewise ("failed to process type: 0").
func (r *Reader) badSize(size int) {
	left := ""
	if r.dataEnd > r.off {
		left = fmt.Sprintf(", %d bytes of the data section after it unread", r.dataEnd-r.off)
	}
	r.stopAt("damaged-record-size", fmt.Sprintf("damaged record header at offset %d: it says %d bytes, and every record has at least 8, so the records after it cannot be found%s: the trace ends there", r.off, size, left), r.off)
}

// cutEnd handles the end of the records of a file mode perf.data cut short
// at a record boundary (its data section shorter than the header says, or
// perf record killed): the last round may lack CPUs (cutRound).
//
// A pipe-mode stream has no header to say its length, but perf record ends
// it with a FINISHED_ROUND: after its last flush it writes one whenever
// the flush wrote anything (record__mmap_read_all, then finished_round_event
// in tools/perf/builtin-record.c v6.12), so timed events after the last
// FINISHED_ROUND mean the stream was cut at a record boundary (perf
// killed, a pipe closed between writes). Such a cut read with no warning:
// its CPU 1 held 582 events against CPU 0's 26,821 and hackbench's max
// delay read 434 ms (279 ms in the whole stream).
func (r *Reader) cutEnd() {
	switch {
	case r.unfinished:
		if msg := r.cutRound(false); msg != "" {
			r.meta.Warnings.Add("truncated-round", "perf.data: %s", msg)
		}
	case r.pipe && r.stats.Records[recSample] == 0 && r.round.rounds == 0 && len(r.attrs) > 0:
		// No sample and no round: the stream ends after its headers
		// (attrs, features, tracing data); perf record writes samples
		// from its first flush on (its own switches are some).
		r.meta.CutAt = r.off
		r.meta.Warnings.Add("truncated-round", "perf.data: the pipe-mode stream ends at offset %d, after its headers (event descriptions, tracing data) and before any sample: cut short", r.off)
	case r.pipe:
		if msg := r.cutRound(false); msg != "" {
			r.meta.CutAt = r.off
			r.meta.Warnings.Add("truncated-round", "perf.data: the pipe-mode stream ends at a record boundary (offset %d) without the FINISHED_ROUND perf record ends every stream with: cut short; %s", r.off, msg)
		}
	}
}

// isFileMagic reports whether h, 8 bytes where a record header was due,
// is a perf.data magic instead: as a record header it would be type
// 0x46524550 ("PERF"), which no record has, of 12869 bytes.
func isFileMagic(h []byte) bool {
	return len(h) >= 8 && (string(h[:8]) == magicLE || string(h[:8]) == magicBE)
}

// joinedStream ends a pipe-mode stream where another perf.data begins
// (two `perf record -o -` outputs joined by cat, or a file appended to
// one): the stream is read up to there and ends as it would at the end of
// the input (cutEnd), and the bytes from there on are counted and named
// in a damaged-trailing-bytes warning, as trailingBytes does for a file
// (new-user pass 69 F2: read on as records, the second header made three
// "unknown record type 1179796816" warnings, a damaged record and an
// unobserved window on CPU 0 invented at the end of the first).
func (r *Reader) joinedStream() {
	at := r.off
	rest, _ := io.Copy(io.Discard, r.br)
	r.eof = true
	r.cutEnd()
	r.meta.Warnings.Add("damaged-trailing-bytes", "perf.data: another perf.data begins at offset %d, where the pipe-mode stream's next record was due (its PERFILE2 header is there: `tail -c +%d` of the input, uncompressed, is that one); its %d bytes are not read, its events are not in the trace",
		at, at+1, rest)
}

// step reads and handles one record; io.EOF at the end sets r.eof.
func (r *Reader) step() error {
	r.recPos = -1
	if r.decomp != nil {
		rec, ok, err := r.decomp.next(r)
		if !ok && err == nil && r.cutInCompressed != nil {
			r.cutInCompressed()
			return nil
		}
		if err != nil {
			// A decompressed record whose header no record has (damage
			// the zstd frame's checks let through): the records after it
			// cannot be framed, and those before were read, as a damaged
			// compressed record (it failed the run, 311,410 events read
			// and none reported: new-user pass 13 F2).
			r.decomp.close()
			r.decomp = nil
			r.stopAt("damaged-compressed", fmt.Sprintf("a record decompressed from the compressed record before offset %d is damaged (%v), and the records after it are in the same compressed stream: the trace is read up to it", r.off, err), r.off)
			return nil
		}
		if ok {
			return r.handle(rec, r.off)
		}
	}
	if r.mm != nil && r.mend-r.mpos >= 8 {
		// A mapped file: the whole record is in memory, no peek needed
		// (the checks below handle a bad size or a cut record).
		size := int(r.end.Uint16(r.mm[r.mpos+6:]))
		if typ := r.order.Uint32(r.mm[r.mpos:]); size < r.minSample && typ == recSample {
			if n := r.shortSample(r.mm[r.mpos:r.mend], size); n > 0 {
				size = n
			}
		} else if typ != recSample && typ <= recCgroup {
			if n := r.sideBandSize(typ, r.mm[r.mpos:r.mend], size); n > 0 {
				size = n
			}
		}
		if size >= 8 && r.mend-r.mpos >= size {
			rec, off := r.mm[r.mpos:r.mpos+size], r.off
			r.recPos = r.mpos
			r.off += int64(size)
			r.stats.Bytes += int64(size)
			r.mpos += size
			if r.mpos >= r.mpop {
				r.advise(size)
			}
			return r.handle(rec, off)
		}
	}
	h, err := r.peek(8)
	if err != nil {
		if err == io.EOF && len(h) == 0 {
			r.eof = true
			r.cutEnd()
			if r.decomp != nil && r.decomp.pending() > 0 {
				return fmt.Errorf("compressed records end inside a record: truncated: %w", trace.ErrCorrupt)
			}
			return nil
		}
		if err == io.EOF {
			r.truncated(fmt.Sprintf("record header at offset %d: %d of 8 bytes", r.off, len(h)), r.off+int64(len(h)))
			return nil
		}
		return fmt.Errorf("record header at offset %d: %w", r.off, err)
	}
	if r.pipe && r.decomp == nil && isFileMagic(h) {
		r.joinedStream()
		return nil
	}
	size := int(r.end.Uint16(h[6:]))
	if t := r.order.Uint32(h); size < r.minSample && t == recSample {
		// (A stream: the record and the header after it, as far as the
		// buffer holds them.)
		b, _ := r.peek(1 << 17)
		if n := r.shortSample(b, size); n > 0 {
			size = n
		}
	} else if t != recSample && t <= recCgroup && r.decomp == nil {
		// (As in a mapped file: a task or cgroup record's size checked
		// against its fields, a path's room and the header after
		// either end; no more, so that a live stream is not held for
		// bytes it has not sent.)
		b, _ := r.peek(min(max(size, 16+4096+64)+8, 1<<17))
		if n := r.sideBandSize(t, b, size); n > 0 {
			size = n
		}
	}
	if size < 8 {
		r.badSize(size)
		return nil
	}
	// (The type before the record's peek: a peek that refills the buffer
	// moves the bytes h points into; new-user pass 79 F3 named the same
	// cut record type 81 at one cut and 3078622259 at another.)
	typ := r.order.Uint32(h)
	rec, err := r.peek(size)
	if err != nil {
		if err == io.EOF {
			what := fmt.Sprintf("record of type %d at offset %d: %d of %d bytes", typ, r.off, len(rec), size)
			if r.cutCompressed(typ, rec, what) {
				return nil
			}
			r.truncated(what, r.off+int64(len(rec)))
			return nil
		}
		return fmt.Errorf("record of type %d at offset %d: %w", typ, r.off, err)
	}
	off := r.off
	r.off += int64(size)
	r.stats.Bytes += int64(size)
	if r.mm != nil {
		r.mpos += size
		return r.handle(rec, off)
	}
	// Discarding a peeked record only moves the buffer's read index: rec
	// stays valid until the next read from r.br.
	if _, err := r.br.Discard(size); err != nil {
		return err
	}
	return r.handle(rec, off)
}

// advise asks the advisor, once per dropEvery bytes of a mapped data
// section, to release the pages behind the record just read (of size bytes)
// and to map the stride after the one the reader enters; the first stride
// is mapped here, before the reader reads it.
func (r *Reader) advise(size int) {
	first := r.adv == nil
	if first {
		r.adv = newAdvisor(r.mm)
	}
	q := advice{drop: r.mdrop, dropTo: (r.mpos - size) &^ (os.Getpagesize() - 1)}
	r.mdrop = max(r.mdrop, q.dropTo)
	r.mpop = r.mpos + dropEvery
	if r.pd == nil {
		// (The decoding goroutines run ahead and map the pages as they
		// read them.)
		if first {
			populateMapped(r.mm, r.mpos, r.mpop)
		}
		q.pop, q.popTo = r.mpop, r.mpop+dropEvery
	}
	r.adv.reqs <- q
}

// A mapped data section of prepareMin bytes or more has prepareBlocks
// blocks of the reordering window made ahead (queue.prepare).
const (
	prepareMin    = 32 << 20
	prepareBlocks = 128
)

// dropEvery is how many bytes of a mapped data section the reader passes
// before it releases them (dropMapped): one madvise call per 2 MiB. (With
// 4 MiB, the faster reader of 2026-12-03 left up to three strides of the
// file resident, populated ahead and not yet dropped: a median peak RSS of
// 60 MB against 52 MB on the bench file of docs/latency.md.)
var dropEvery = 2 << 20 // a variable for the tests

// peek returns the next n bytes of the data section without consuming
// them (fewer and io.EOF at its end), valid until the next read.
func (r *Reader) peek(n int) ([]byte, error) {
	if r.mm == nil {
		return r.br.Peek(n)
	}
	if r.mend-r.mpos < n {
		return r.mm[r.mpos:r.mend], io.EOF
	}
	return r.mm[r.mpos : r.mpos+n], nil
}

// handle decodes one record (rec includes its 8-byte header).
func (r *Reader) handle(rec []byte, off int64) error {
	o := r.end
	typ := o.Uint32(rec)
	if r.pd != nil && !parallelSafe(typ) {
		// The record may change what the decoding goroutines read.
		r.stopPredecode()
	}
	if typ <= maxUserRecord {
		r.stats.Records[typ]++
	} else {
		r.stats.Records[0]++
	}
	r.meta.Records++
	switch typ {
	case recSample:
		return r.sample(rec, off)
	case recComm, recFork, recExit, recLost, recLostSamples:
		return r.kernelRecord(typ, rec, off)
	case recSwitch, recSwitchCPUWide:
		return r.switchRecord(typ, rec, off)
	case recCgroup:
		r.cgroupRecord(rec, off)
		return nil
	case recFinishedRound:
		r.round.finished(r.maxTime)
		r.flushLimit = r.nextFlush
		r.nextFlush = r.maxTime
		return nil
	case recHeaderAttr:
		return r.headerAttr(rec, off)
	case recTracingData:
		return r.tracingDataRecord(rec, off)
	case recHeaderFeature:
		if len(rec) < 16 {
			return fmt.Errorf("feature record at offset %d: %w", off, trace.ErrCorrupt)
		}
		bit := o.Uint64(rec[8:])
		if bit < 256 {
			if err := r.applyFeature(int(bit), rec[16:]); err != nil {
				return fmt.Errorf("feature record at offset %d: %w", off, err)
			}
		}
		return nil
	case recEventUpdate:
		if len(rec) >= 24 && o.Uint64(rec[8:]) == eventUpdateName {
			if a := r.byID[o.Uint64(rec[16:])]; a != nil {
				a.name = cstring(rec[24:])
			}
		}
		return nil
	case recCompressed, recCompressed2:
		return r.compressed(typ, rec, off)
	}
	if !knownRecord(typ) {
		switch {
		case r.looksLikeSample(rec):
			// A sample whose type was damaged: its fields end where
			// its size says (new-user pass 97 F6: a sched_switch gone
			// with "unknown record type", lost 0, info exit 0).
			r.meta.LostInFile++
			r.meta.Warnings.AddEach("damaged-record-type", "perf.data: record of type %d at offset %d, no type perf writes, holds a sample's fields: a damaged header, the sample skipped", typ, off)
		case typ > 0xff:
			// Far beyond every type perf writes (kernel types up to
			// PERF_RECORD_MAX, 22 in Linux 6.18; perf's own up to
			// PERF_RECORD_HEADER_MAX, 83 in tools/perf v6.12): damage,
			// not a record of a newer perf.
			r.meta.Warnings.AddEach("damaged-record-type", "perf.data: record of type %d at offset %d, no type perf writes: a damaged header, its %d bytes skipped", typ, off, len(rec))
		default:
			r.meta.Warnings.AddEach("unknown-record-type", "perf.data: unknown record type %d at offset %d skipped", typ, off)
		}
	}
	return nil
}

// looksLikeSample reports whether record rec, whatever its type says, is a
// sample of one of the file's attributes: its id names the attribute, and
// its fields, up to RAW and after, end where its size does.
func (r *Reader) looksLikeSample(rec []byte) bool {
	return r.fieldsEnd(rec, &r.idCache) == len(rec)
}

// headerAttr handles a pipe-mode PERF_RECORD_HEADER_ATTR: the attribute,
// then its sample ids up to the end of the record.
func (r *Reader) headerAttr(rec []byte, off int64) error {
	if len(rec) < 8+64 {
		return fmt.Errorf("attr record at offset %d: %d bytes: %w", off, len(rec), trace.ErrCorrupt)
	}
	asize := int(r.order.Uint32(rec[12:]))
	if asize == 0 {
		asize = 64 // PERF_ATTR_SIZE_VER0
	}
	if asize < 64 || 8+asize > len(rec) {
		return fmt.Errorf("attr record at offset %d: attr size %d: %w", off, asize, trace.ErrCorrupt)
	}
	a, err := parseAttr(rec[8:8+asize], r.order)
	if err != nil {
		return fmt.Errorf("attr record at offset %d: %w", off, err)
	}
	for p := 8 + asize; p+8 <= len(rec); p += 8 {
		a.ids = append(a.ids, r.order.Uint64(rec[p:]))
	}
	r.addAttr(a)
	return nil
}

// tracingDataRecord handles PERF_RECORD_HEADER_TRACING_DATA: a u32 size,
// then that many bytes of tracing data after the record, padded to 8 bytes
// (tools/perf/util/session.c perf_session__process_user_event).
func (r *Reader) tracingDataRecord(rec []byte, off int64) error {
	if len(rec) < 12 {
		return fmt.Errorf("tracing data record at offset %d: %w", off, trace.ErrCorrupt)
	}
	n := int64(r.order.Uint32(rec[8:]))
	if n > maxTracingDataSize {
		return fmt.Errorf("tracing data record at offset %d: %d bytes: %w", off, n, trace.ErrCorrupt)
	}
	padded := (n + 7) &^ 7
	if r.decomp != nil {
		return fmt.Errorf("tracing data record at offset %d inside compressed data: %w", off, trace.ErrCorrupt)
	}
	var data []byte
	var err error
	if r.mm != nil {
		n := int(min(padded, int64(r.mend-r.mpos)))
		data = bytes.Clone(r.mm[r.mpos : r.mpos+n])
		r.mpos += n
	} else {
		data, err = io.ReadAll(io.LimitReader(r.br, padded))
	}
	r.off += int64(len(data))
	if err != nil || int64(len(data)) < padded {
		return fmt.Errorf("tracing data at offset %d: %d of %d bytes: truncated: %w", off+int64(len(rec)), len(data), padded, trace.ErrCorrupt)
	}
	if err := r.parseTracingData(data[:n]); err != nil {
		return fmt.Errorf("tracing data at offset %d: %w", off+int64(len(rec)), err)
	}
	return nil
}

// SampleCounts returns the number of samples read per event name, as
// `perf report --stats` lists them ("sched:sched_switch": N).
func (r *Reader) SampleCounts() map[string]uint64 {
	out := map[string]uint64{}
	for _, a := range r.attrs {
		out[a.displayName()] += a.samples
	}
	return out
}

// cgroupRecord reads a PERF_RECORD_CGROUP (perf record --all-cgroups): the
// id of a cgroup (its kernfs node id, as PERF_SAMPLE_CGROUP gives it) and
// its path relative to the cgroup2 mount, into Meta.Cgroups. A record too
// short for its id, or whose path has no NUL, is a counted warning.
func (r *Reader) cgroupRecord(rec []byte, off int64) {
	if len(rec) < 17 {
		r.meta.Warnings.Add("bad-cgroup-record", "perf.data: cgroup record at offset %d too short for an id and a path; skipped", off)
		return
	}
	id := r.order.Uint64(rec[8:])
	path, _, ok := bytes.Cut(rec[16:], []byte{0})
	if !ok {
		r.meta.Warnings.Add("bad-cgroup-record", "perf.data: cgroup record at offset %d: path without its NUL; skipped", off)
		return
	}
	p := string(path)
	if p == "" {
		p = "/"
	}
	if p[0] != '/' {
		// perf writes the path from the cgroup root (perf_event_cgroup_output,
		// kernel/events/core.c v6.18: cgroup_path, which begins with '/';
		// an empty name is the root): the record is damaged (new-user pass
		// 102 F1: a path overwritten with 0xff bytes taken as written,
		// info exit 0). Its tasks keep the path as read, for what it is.
		r.meta.Warnings.AddEach("bad-cgroup-record", "perf.data: cgroup record at offset %d: path %q does not begin with '/', as every path perf writes does: a damaged record, the group named as read", off, p)
	} else if !utf8.ValidString(p) {
		// A cgroup's name may hold any byte but '/' and a newline
		// (cgroup_mkdir, kernel/cgroup/cgroup.c v6.18), so not damage for
		// sure, but no tool names one so, and a damaged byte reads so
		// (new-user pass 103 F1: taken without a word): said, and the
		// path written with \xHH for those bytes everywhere.
		r.meta.Warnings.AddEach("cgroup-path-not-utf8", "perf.data: cgroup record at offset %d: path %q holds bytes that are not UTF-8: a damaged record, or a group so named; the group is named as read, those bytes written \\xHH", off, p)
	}
	if mu := r.meta.CgroupsMu; mu != nil {
		mu.Lock()
		defer mu.Unlock()
	}
	if r.meta.Cgroups == nil {
		r.meta.Cgroups = map[uint64]string{}
	}
	r.meta.Cgroups[id] = p
}

// maxFileSize bounds the offsets and sizes a perf.data header may state
// before they are taken for damage rather than a cut file: 1 TiB, beyond
// any recording (perf sched record writes of the order of 100 MB a
// minute on a busy 64-CPU machine; our largest, bench/replaymem's, is
// 192 MB).
const maxFileSize = 1 << 40

// shortSample returns the size of the sample record at the start of b (the
// input from the record on) when its header says size bytes, fewer than
// its fields take up to RAW: where its fields end by its RAW size, when a
// record header perf writes begins there (as Reader.undersized for a size
// a little short). 0 when that cannot be told. A sample's size made 0 or 8
// stopped the read with 403 KB unread, though other wrong sizes of the same
// sample were read past by its fields (new-user pass 93 F7).
func (r *Reader) shortSample(b []byte, size int) int {
	end := r.fieldsEnd(b, &r.idCache)
	if end <= size || end > 1<<16-1 || !r.headerAt(b, end) {
		return 0
	}
	r.meta.Warnings.AddEach("damaged-record-size", "perf.data: the sample at offset %d says %d bytes, and its fields end after %d: a damaged size; the records after it read on from offset %d",
		r.off, size, end, r.off+int64(end))
	return end
}
