package tracedat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tpformat"
)

// FormatName is the registered format name.
const FormatName = "trace.dat"

func init() {
	trace.Register(trace.Format{
		Name:        FormatName,
		Description: "trace-cmd trace.dat v6/v7 (uncompressed, zstd or zlib), from trace-cmd record/extract",
		Detect: func(head []byte) bool {
			if !bytes.HasPrefix(head, []byte(Magic)) {
				return false
			}
			v := head[len(Magic):]
			return len(v) >= 2 && (v[0] == '6' || v[0] == '7') && v[1] == 0
		},
		Open: func(r io.Reader, o trace.ReadOptions) (trace.Source, error) {
			return Open(r, Options{Lenient: o.Lenient})
		},
	})
}

// Options select what to read.
type Options struct {
	// Instance names the ftrace instance (trace-cmd buffer) to read; ""
	// is the top instance, or the first buffer with data when the top one
	// is missing or empty.
	Instance string
	// Lenient skips the rest of a CPU's data at a broken page, with a
	// counted warning, instead of failing (trace.ReadOptions).
	Lenient bool
}

// Reader is a trace.Source over a trace.dat.
type Reader struct {
	f       *file
	meta    trace.Meta
	lenient bool
	decs    []*tpformat.SchedDecoder // by event id
	names   []string                 // "system:name" by event id, for warnings
	sizes   []int                    // the bytes each event id's fixed fields take
	intern  tpformat.Interner
	streams []*cpuStream
	heap    []*cpuStream
	pending []trace.Event // saved cmdlines first, then comm events before their event
	namer   trace.CommTracker
	started bool
	err     error
	closer  io.Closer

	// cut are the CPUs whose data the file's end cut (errFileCut),
	// skipped those whose data damage ended (lenient, or pages dropped at
	// the end), and first and last the trace's first and last event times
	// (ns; first < 0 before any): at the end each is unobserved from its
	// last event to the trace's last (cutWindows).
	cut, skipped []*cpuStream
	// gapBefore says the event item just kept follows events of its CPU
	// dropped as earlier than the CPU's previous one: a KindLost on its
	// CPU at its time goes before it.
	gapBefore   bool
	first, last int64
	cutDone     bool
}

// firstOr returns the trace's first event time, t before any.
func (r *Reader) firstOr(t int64) int64 {
	if r.first < 0 {
		return t
	}
	return r.first
}

// Open reads a trace.dat from r: an io.ReaderAt with a known size (an
// *os.File or *bytes.Reader) is read in place, anything else is read into
// memory first (the format needs random access). Errors wrap
// trace.ErrCorrupt for broken files.
func Open(r io.Reader, opt Options) (*Reader, error) {
	var ra io.ReaderAt
	var size int64
	switch v := r.(type) {
	case *os.File:
		st, err := v.Stat()
		if err == nil && st.Mode().IsRegular() {
			ra, size = v, st.Size()
		}
	case *bytes.Reader:
		ra, size = v, v.Size()
	}
	if ra == nil {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		ra, size = bytes.NewReader(b), int64(len(b))
	}
	f, err := parseFile(ra, size)
	if err != nil {
		return nil, err
	}
	rd := &Reader{f: f, lenient: opt.Lenient, first: -1}
	rd.meta = trace.Meta{Format: FormatName, Tool: f.tool, NrCPUs: f.nrCPUs, Clock: f.clock}
	if f.tool == "" {
		rd.meta.Tool = fmt.Sprintf("trace-cmd (file version %d)", f.version)
	}
	rd.setUname(f.uname)
	for _, w := range f.warnings {
		rd.meta.Warnings.Add("tracedat-metadata", "trace.dat: %s", w)
	}
	for _, w := range f.sizeDamage {
		rd.meta.Warnings.AddEach("tracedat-damaged-cpu-size", "trace.dat: %s", w)
	}
	if f.cut != "" {
		rd.meta.Warnings.Add("truncated-options", "trace.dat: %s", f.cut)
	}
	if f.tailCut != "" {
		rd.meta.Warnings.Add("truncated-file", "trace.dat: %s", f.tailCut)
	}
	if f.trailingAt > 0 {
		// New-user pass 60 F1 found this of perf.data; trace.dat joined
		// to another read as the first, without a word, too.
		rd.meta.Warnings.Add("damaged-trailing-bytes", "trace.dat: %d bytes follow the file's last section (it ends at offset %d of %d): %s; not read, its events are not in the trace",
			f.size-f.trailingAt, f.trailingAt, f.size, f.trailingWhat())
	}
	if f.latencyText {
		return nil, fmt.Errorf("trace.dat holds latency-tracer text, not ring-buffer events: read it with trace-cmd report and give traceview the text")
	}
	if err := rd.setupDecoders(); err != nil {
		return nil, err
	}
	b, err := rd.pickBuffer(opt.Instance)
	if err != nil {
		return nil, err
	}
	if b.clock != "" {
		rd.meta.Clock = b.clock
	}
	if rd.meta.Clock != "" && rd.meta.Clock != "local" && rd.meta.Clock != "global" && rd.meta.Clock != "mono" && rd.meta.Clock != "boot" {
		rd.meta.Warnings.Add("tracedat-clock", "trace.dat: trace clock %q may not count nanoseconds; times are used as they are", rd.meta.Clock)
	}
	layout := parseHeaderPage(f.headerPage)
	for _, cd := range b.cpus {
		s, err := newCPUStream(f, cd, b.pageSize, layout, opt.Lenient)
		if err != nil {
			return nil, err
		}
		rd.streams = append(rd.streams, s)
	}
	if f, ok := r.(*os.File); ok && f != os.Stdin {
		rd.closer = f
	}
	return rd, nil
}

// setUname splits trace-cmd's uname option, "sysname nodename release
// machine" (trace-cmd 3.1; older ones put the kernel version, which has
// spaces, before machine).
func (r *Reader) setUname(u string) {
	fs := strings.Fields(u)
	if len(fs) >= 3 {
		r.meta.Hostname, r.meta.OSRelease = fs[1], fs[2]
	}
	if len(fs) >= 4 {
		r.meta.Arch = fs[len(fs)-1]
	}
}

// setupDecoders builds a sched decoder per recorded sched tracepoint.
func (r *Reader) setupDecoders() error {
	maxID := -1
	for _, fm := range r.f.formats {
		if fm.ID > maxID && fm.ID < 1<<16 {
			maxID = fm.ID
		}
	}
	r.decs = make([]*tpformat.SchedDecoder, maxID+1)
	r.names = make([]string, maxID+1)
	r.sizes = make([]int, maxID+1)
	found := false
	for _, fm := range r.f.formats {
		if fm.ID < 0 || fm.ID > maxID {
			continue
		}
		r.names[fm.ID] = fm.FullName()
		r.sizes[fm.ID] = r.f.fixedSize[fm.ID]
		for i := range fm.Fields {
			r.sizes[fm.ID] = max(r.sizes[fm.ID], fm.Fields[i].End())
		}
		if fm.System != "sched" {
			continue
		}
		d, err := tpformat.NewSchedDecoder(fm, r.f.order, &r.intern)
		if err != nil {
			if _, known := trace.KindByName(fm.Name); known {
				r.meta.Warnings.Add("sched-format", "trace.dat: %v", err)
			}
			continue
		}
		if d.Kind == trace.KindSwitch && !d.State.Derived {
			r.meta.Warnings.Add("prev-state-format", "trace.dat: sched_switch print fmt not understood; prev_state read in the Linux >= 4.14 encoding")
		}
		d.NrCPUs = r.meta.NrCPUs
		r.decs[fm.ID] = d
		found = true
	}
	if !found {
		return fmt.Errorf("no sched tracepoint formats in the file (record with -e sched:sched_switch -e sched:sched_waking ...)")
	}
	return nil
}

// pickBuffer selects the instance to read and warns about the others.
func (r *Reader) pickBuffer(name string) (buffer, error) {
	bs := r.f.buffers
	if len(bs) == 0 {
		return buffer{}, fmt.Errorf("no flyrecord buffer in the file")
	}
	pick := -1
	for i, b := range bs {
		if b.name == name {
			pick = i
			break
		}
	}
	if pick >= 0 && name == "" && !hasData(bs[pick]) {
		// An empty top instance (trace-cmd extract -B writes one): take
		// the first buffer with data instead.
		for i, b := range bs {
			if hasData(b) {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		if name != "" {
			var names []string
			for _, b := range bs {
				names = append(names, fmt.Sprintf("%q", b.name))
			}
			return buffer{}, fmt.Errorf("no instance %q (the file has %s)", name, strings.Join(names, ", "))
		}
		pick = 0
	}
	var others []string
	for i, b := range bs {
		if i == pick {
			continue
		}
		// The top instance has no name: said as such, and an instance
		// without data as empty (an empty top instance read `not read:
		// ""`).
		o := fmt.Sprintf("%q", b.name)
		if b.name == "" {
			o = "the top instance"
		}
		if !hasData(b) {
			o += " (empty)"
		}
		others = append(others, o)
	}
	if len(others) > 0 {
		r.meta.Warnings.Add("tracedat-instances", "trace.dat: read instance %q; not read: %s", bs[pick].name, strings.Join(others, ", "))
	}
	return bs[pick], nil
}

func hasData(b buffer) bool {
	for _, c := range b.cpus {
		if c.size > 0 {
			return true
		}
	}
	return false
}

// Meta returns the file's facts; warnings and lost windows grow while
// reading.
func (r *Reader) Meta() *trace.Meta { return &r.meta }

// Close closes the input when Open was given a file (as trace.Open passes
// it); other readers are left to their owner.
func (r *Reader) Close() error {
	if r.closer != nil {
		c := r.closer
		r.closer = nil
		return c.Close()
	}
	return nil
}

// streamError is what the error that ended a CPU's stream makes of the
// read: a file cut short inside the CPU's data, or damaged data with
// lenient, a counted warning (nil); other damage an error.
func (r *Reader) streamError(s *cpuStream, err error) error {
	switch {
	case errors.Is(err, errFileCut):
		r.meta.Warnings.AddEach("truncated-file", "trace.dat: %v", err) // (each CPU's own: new-user pass 112 F4)
		r.cut = append(r.cut, s)
	case r.lenient:
		r.meta.Warnings.Add("tracedat-corrupt-data", "trace.dat: %v (rest of the CPU's data skipped: lenient)", err)
		r.skipped = append(r.skipped, s)
	case errors.Is(err, trace.ErrCorrupt):
		return fmt.Errorf("trace.dat: %w (--lenient skips the rest of a broken page, or a broken compressed chunk, counted as a warning, and reads on)", err)
	default:
		return fmt.Errorf("trace.dat: %w", err)
	}
	return nil
}

// start primes every CPU stream and the saved-cmdline comm events.
func (r *Reader) start() error {
	r.started = true
	// The earliest first page of all CPUs: what a CPU's first page is
	// checked against for a damaged time (cpuStream.timeAhead).
	ref, any := uint64(0), false
	for _, s := range r.streams {
		if ts, ok := s.firstStamp(); ok && (!any || ts < ref) {
			ref, any = ts, true
		}
	}
	for _, s := range r.streams {
		for _, o := range r.streams {
			if ts, ok := o.stamp(0); ok && o != s && (s.others == 0 || ts < s.others) {
				s.others = ts
			}
		}
	}
	for _, s := range r.streams {
		s.ref = ref
		ok, err := s.next()
		if err != nil {
			if err := r.streamError(s, err); err != nil {
				return err
			}
			continue
		}
		if ok {
			r.heap = append(r.heap, s)
		} else {
			r.ended(s)
		}
	}
	sort.Slice(r.heap, func(i, j int) bool { return r.less(r.heap[i], r.heap[j]) })
	// Saved command lines name tasks that appear only as the current task
	// of an event: deliver them first, at the first event's time, like the
	// COMM records perf synthesizes at record start.
	if len(r.f.cmdlines) > 0 && len(r.heap) > 0 {
		t0 := r.heap[0].t
		m := cmdlineMap(r.f.cmdlines)
		pids := make([]int32, 0, len(m))
		for pid := range m {
			pids = append(pids, pid)
		}
		sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
		for _, pid := range pids {
			ev := trace.NewEvent(t0, -1, trace.KindComm)
			ev.TID = trace.TID(pid)
			ev.Comm = r.intern.Intern([]byte(m[pid]))
			var none [2]trace.Event
			r.namer.Changes(&ev, &none)
			r.pending = append(r.pending, ev)
		}
	}
	return nil
}

func (r *Reader) less(a, b *cpuStream) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.cpu < b.cpu
}

// down restores the heap property from index i.
func (r *Reader) down(i int) {
	h := r.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if l+1 < len(h) && r.less(h[l+1], h[l]) {
			m = l + 1
		}
		if !r.less(h[m], h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Next returns the next sched event in time order (CPUs merged; equal
// times by CPU number), io.EOF after the last, or the error that ended the
// data (events before it were all delivered).
func (r *Reader) Next() (trace.Event, error) {
	if r.err != nil {
		return trace.Event{}, r.err
	}
	if !r.started {
		if err := r.start(); err != nil {
			r.err = err
			return trace.Event{}, err
		}
	}
	if len(r.pending) > 0 {
		ev := r.pending[0]
		r.pending = r.pending[1:]
		return ev, nil
	}
	for len(r.heap) > 0 {
		s := r.heap[0]
		ev, ok := r.item(s)
		more, err := s.next()
		if err != nil {
			r.err = r.streamError(s, err)
			more = false
		}
		if !more {
			r.ended(s)
			r.heap[0] = r.heap[len(r.heap)-1]
			r.heap = r.heap[:len(r.heap)-1]
		}
		r.down(0)
		if ok && ev.Kind == trace.KindRuntime && trace.RuntimeDamaged(&ev, r.firstOr(ev.Time)) {
			r.meta.Warnings.Add("damaged-runtime", "trace.dat: CPU %d: sched_stat_runtime at %s s for pid %d %s: a damaged value, dropped",
				ev.CPU, trace.FormatSeconds(ev.Time, 9), ev.TID, trace.RuntimeDamage(&ev, r.firstOr(ev.Time)))
			r.meta.LostInFile++
			ok = false
			s.gap, r.gapBefore = s.gap || r.gapBefore, false // (for the CPU's next event)
		}
		if ok {
			if r.first < 0 {
				r.first = ev.Time
			}
			r.last = max(r.last, ev.Time)
			var named [2]trace.Event
			n := r.namer.Changes(&ev, &named)
			if r.gapBefore {
				// The events dropped before it leave its CPU unobserved
				// from the last kept one (new-user pass 92 F1: a run and
				// delays measured across 67 dropped events).
				r.gapBefore = false
				r.pending = append(append(r.pending[:0], named[:n]...), ev)
				return trace.NewEvent(ev.Time, ev.CPU, trace.KindLost), nil
			}
			if n > 0 {
				r.pending = append(r.pending[:0], named[1:n]...)
				r.pending = append(r.pending, ev)
				return named[0], nil
			}
			return ev, nil
		}
		if r.err != nil {
			return trace.Event{}, r.err
		}
	}
	if r.err != nil {
		return trace.Event{}, r.err
	}
	if !r.cutDone {
		r.cutDone = true
		if r.pending = r.cutWindows(r.pending[:0]); len(r.pending) > 0 {
			ev := r.pending[0]
			r.pending = r.pending[1:]
			return ev, nil
		}
	}
	return trace.Event{}, io.EOF
}

// cutWindows appends to evs a Count 0 KindLost event at the trace's last
// event time for each CPU whose data the file's end cut, or damage ended,
// and whose last event came before it, with its trace.LostWindow from that
// event (from the trace's first event for a CPU cut before any) and a
// warning naming them: trace-cmd writes each CPU's buffer whole, one after
// the other, so a cut inside one leaves it without its later events while
// the CPUs written before it go on to the end. Reports then count that time
// as unknown, not as the run of the task the CPU last switched in (a cut of
// 230 bytes gave that task 90 ms it was never seen running).
func (r *Reader) cutWindows(evs []trace.Event) []trace.Event {
	evs = r.endWindows(evs, r.cut, "tracedat-cut-cpus", "the cut leaves")
	return r.endWindows(evs, r.skipped, "tracedat-skipped-cpus", "damaged data leaves")
}

// endWindows is cutWindows for one list of streams, warning with key that
// what ("the cut leaves") leaves their CPUs without their later events.
func (r *Reader) endWindows(evs []trace.Event, streams []*cpuStream, key, what string) []trace.Event {
	var cpus []int
	for i, s := range streams {
		if slices.Contains(streams[:i], s) {
			continue // (a stream damage ended, and whose last pages were dropped: new-user pass 94 F3, "CPU 0,0")
		}
		start := r.first
		if s.keptAny {
			start = s.kept
		}
		if r.first < 0 || start >= r.last {
			continue
		}
		cpu := trace.CPU(s.cpu)
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Count: s.endLost, Start: start, End: r.last})
		ev := trace.NewEvent(r.last, cpu, trace.KindLost)
		ev.Count, s.endLost = s.endLost, 0
		evs = append(evs, ev)
		cpus = append(cpus, s.cpu)
	}
	if len(cpus) > 0 {
		sort.Ints(cpus)
		r.meta.Warnings.Add(key, "trace.dat: %s CPU %s without its events after its last one, up to the trace's last at %s s: that time is unobserved (not idle), and delays waiting there are not measured",
			what, cpulist.Format(cpus), trace.FormatSeconds(r.last, 6))
	}
	return evs
}

// ended reports the pages a stream dropped after its last event (the
// CPU's last pages damaged): the CPU is unobserved from there to the
// trace's end (cutWindows).
func (r *Reader) ended(s *cpuStream) {
	if s.lost > 0 || s.lostUnknown {
		// (The recorder's losses before the CPU's last pages, which
		// were dropped as damaged: said with the window to the end.)
		r.meta.Warnings.AddCount("tracedat-lost", int(min(s.lost, 1<<31)), "events lost in all", "trace.dat: CPU %d lost %d events before page %d", s.cpu, s.lost, s.pageNo)
		s.endLost, s.lost, s.lostUnknown = s.lost, 0, false
		if len(s.damage) == 0 {
			r.skipped = append(r.skipped, s)
		}
	}
	if s.gap && len(s.damage) == 0 {
		s.gap = false
		r.skipped = append(r.skipped, s)
	}
	if len(s.damage) == 0 {
		return
	}
	r.pageDamage(s, -1)
	s.damage = s.damage[:0]
	r.skipped = append(r.skipped, s)
}

// pageDamage warns of the pages s dropped as damaged before its item at
// time t (t < 0: at the end of the CPU's data) and counts their events
// lost in the file. It reports whether the number lost is unknown (a page
// broken off: lenient).
func (r *Reader) pageDamage(s *cpuStream, t int64) (unknown bool) {
	span := ""
	switch {
	case t >= 0 && s.keptAny:
		span = fmt.Sprintf("; CPU %d is unobserved from %s s to %s s", s.cpu, trace.FormatSeconds(s.kept, 6), trace.FormatSeconds(t, 6))
	case t >= 0 && r.first >= 0 && r.first < t:
		// The CPU's first pages (lossItem's window from the trace's
		// first event; new-user pass 116 F1 read no window at all).
		span = fmt.Sprintf("; CPU %d is unobserved from the trace's first event, %s s, to %s s", s.cpu, trace.FormatSeconds(r.first, 6), trace.FormatSeconds(t, 6))
	}
	for _, d := range s.damage {
		switch {
		case d.parse && d.page == 0:
			unknown = true
			r.meta.Warnings.AddEach("tracedat-corrupt-page", "trace.dat: %v (the chunk's pages skipped: lenient)", d.why)
		case d.parse:
			unknown = true
			// (Its window is in Meta.Lost, which the reports list.)
			r.meta.Warnings.AddEach("tracedat-corrupt-page", "trace.dat: %v (the page's records from there skipped: lenient)", d.why)
		case d.events < 0:
			unknown = true
			r.meta.Warnings.AddEach("tracedat-damaged-page", "trace.dat: %v", d.why)
		default:
			r.meta.LostInFile += uint64(d.events)
			r.meta.Warnings.AddEach("tracedat-damaged-page", "trace.dat: %v: page dropped, its %d events lost%s", d.why, d.events, span)
		}
	}
	return unknown
}

// item turns the stream's current item into an event; false for records
// that are not sched events (counted) or broken (error or warning).
//
// A CPU's ring buffer holds its events in time order (each page's
// timestamp plus the records' deltas, kernel/trace/ring_buffer.c), so an
// item earlier than the CPU's previous one is damage (a flipped bit in a
// page header or in compressed data): it is dropped and counted.
func (r *Reader) item(s *cpuStream) (trace.Event, bool) {
	cpu := trace.CPU(s.cpu)
	if s.warnCommit != nil {
		r.meta.Warnings.AddEach("tracedat-damaged-page", "trace.dat: %v", s.warnCommit)
		s.warnCommit = nil
	}
	if s.raw == nil {
		return r.lossItem(s), true
	}
	if s.keptAny && s.t < s.kept {
		r.meta.Warnings.Add("tracedat-time-backwards", "trace.dat: CPU %d page %d: event at %d ns is earlier than the CPU's previous event (%d ns): damaged data, dropped", s.cpu, s.pageNo, s.t, s.kept)
		r.meta.LostInFile++ // (new-user pass 91 F8: "lost: 0 events" beside 85 dropped)
		s.gap = true
		return trace.Event{}, false
	}
	s.kept, s.keptAny = s.t, true
	if len(s.raw) < 2 {
		r.meta.Warnings.Add("tracedat-short-record", "trace.dat: CPU %d page %d: record of %d bytes skipped", s.cpu, s.pageNo, len(s.raw))
		r.meta.LostInFile++
		return trace.Event{}, false
	}
	id := int(r.f.order.Uint16(s.raw))
	if id >= len(r.decs) || r.decs[id] == nil {
		if id >= len(r.names) || r.names[id] == "" {
			// No format of the file has the id: a damaged record, or
			// records misread after a damaged header (new-user pass
			// 92 F3: 12 of them taken as "not sched events").
			r.meta.Warnings.Add("tracedat-unknown-id", "trace.dat: CPU %d page %d: record with event id %d, which no format of the file has: damaged, skipped", s.cpu, s.pageNo, id)
			r.meta.LostInFile++ // (new-user pass 93 F2: named, not counted)
			return trace.Event{}, false
		}
		if len(s.raw) < r.sizes[id] {
			// Too short for the format its id names: a damaged id
			// (new-user pass 93 F1: a sched_switch whose id was changed
			// to another event's went without a word).
			r.meta.Warnings.Add("tracedat-unknown-id", "trace.dat: CPU %d page %d: record of %d bytes with the id of %s (%d), whose fields take %d: a damaged id, skipped", s.cpu, s.pageNo, len(s.raw), r.names[id], id, r.sizes[id])
			r.meta.LostInFile++
			return trace.Event{}, false
		}
		r.meta.Warnings.Add("tracedat-other-event", "trace.dat: records that are not sched events skipped (first: %s, id %d)", r.names[id], id)
		return trace.Event{}, false
	}
	ev := trace.NewEvent(s.t, cpu, trace.KindInvalid)
	if err := r.decs[id].Decode(s.raw, &ev); err != nil {
		// A short payload or a field out of the kernel's range
		// (tpformat.ErrFieldRange) spoils one record, not the stream:
		// count it.
		r.meta.Warnings.Add("tracedat-bad-record", "trace.dat: CPU %d page %d: %v (skipped)", s.cpu, s.pageNo, err)
		r.meta.LostInFile++
		return trace.Event{}, false
	}
	if ev.CurTID == 0 {
		ev.CurPID = 0
	}
	r.gapBefore, s.gap = s.gap, false
	return ev, true
}

// lossItem is the KindLost event of a stream item that is not a record:
// events the recorder lost before a page (its missed-events flag, with the
// count when stored) and/or pages dropped as damaged, at the time of the
// page that follows them (never before the CPU's last kept event). The
// window of a damaged page with a known number of events is not a
// trace.LostWindow of Meta.Lost (its events are in Meta.LostInFile); the
// event still makes the time unobserved.
func (r *Reader) lossItem(s *cpuStream) trace.Event {
	cpu := trace.CPU(s.cpu)
	t := s.t
	if s.keptAny {
		t = max(t, s.kept)
	}
	unknown := r.pageDamage(s, t)
	s.gap = false // (this event makes the CPU unobserved up to it)
	// Before the CPU's first event, what it lost (pages dropped as
	// damaged, or the oldest events an overwriting ring buffer lost: new-
	// user pass 94 F4, a window of no width) lay from the trace's start.
	start := t
	switch {
	case s.keptAny:
		start = s.kept
	case r.first >= 0 && r.first < t:
		start = r.first
	}
	s.kept, s.keptAny = t, true
	if s.lost > 0 && s.lost > uint64(t-start)+1e6 {
		// More than one event per ns of the window (and 1e6 more: a
		// window of no width), which no ring buffer writes (its write
		// path takes tens of ns an event, kernel/trace/ring_buffer.c
		// rb_reserve_next_event): a damaged count (new-user pass 97 F3:
		// 1.2e14 events in 19 us, and latency's total another number).
		r.meta.Warnings.AddEach("tracedat-damaged-page", "trace.dat: CPU %d page %d: the page says %d events were lost before it, in %s s: more than one a nanosecond, a damaged count, taken as of unknown size",
			s.cpu, s.pageNo, s.lost, trace.FormatSeconds(t-start, 6))
		s.lost, s.lostUnknown = 0, true
	}
	ev := trace.NewEvent(t, cpu, trace.KindLost)
	ev.Count = s.lost
	switch {
	case s.lost > 0 || s.lostUnknown:
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Count: s.lost, Start: start, End: t})
		if s.lostUnknown {
			r.meta.Warnings.Add("tracedat-lost-unknown", "trace.dat: CPU %d lost events before page %d (count not stored)", s.cpu, s.pageNo)
		} else {
			r.meta.Warnings.AddCount("tracedat-lost", int(min(s.lost, 1<<31)), "events lost in all", "trace.dat: CPU %d lost %d events before page %d", s.cpu, s.lost, s.pageNo)
		}
	case unknown:
		r.meta.Lost = append(r.meta.Lost, trace.LostWindow{CPU: cpu, Start: start, End: t})
	}
	return ev
}
