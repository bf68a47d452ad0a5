package perfdata

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tpformat"
)

// File magic (tools/perf/util/header.c __perf_magic2): the u64 0x32454c4946524550
// in the recorder's byte order, i.e. "PERFILE2" when little-endian.
const (
	magicLE = "PERFILE2"
	magicBE = "2ELIFREP"
)

// fileHeaderSize is sizeof(struct perf_file_header): magic, size, attr_size,
// attrs, data, event_types sections and the 256-bit feature bitmap.
const (
	fileHeaderSize = 8 + 8 + 8 + 16 + 16 + 16 + 32
	pipeHeaderSize = 16
)

// Feature bits (tools/perf/util/header.h enum HEADER_*).
const (
	featTracingData = 1
	featHostname    = 3
	featOSRelease   = 4
	featVersion     = 5
	featArch        = 6
	featNrCPUs      = 7
	featCmdline     = 11
	featEventDesc   = 12
	featCache       = 20
	featSampleTime  = 21
	featClockID     = 23
	featCompressed  = 27
)

// sample_type bits (include/uapi/linux/perf_event.h enum perf_event_sample_format).
const (
	sampleIP         = 1 << 0
	sampleTID        = 1 << 1
	sampleTime       = 1 << 2
	sampleAddr       = 1 << 3
	sampleRead       = 1 << 4
	sampleCallchain  = 1 << 5
	sampleID         = 1 << 6
	sampleCPU        = 1 << 7
	samplePeriod     = 1 << 8
	sampleStreamID   = 1 << 9
	sampleRaw        = 1 << 10
	sampleIdentifier = 1 << 16
	// After RAW, in this order: BRANCH_STACK, REGS_USER, STACK_USER
	// (variable sizes), WEIGHT or WEIGHT_STRUCT, DATA_SRC, TRANSACTION
	// (u64 each), REGS_INTR (variable), PHYS_ADDR (u64), AUX (variable,
	// after CGROUP), CGROUP (u64: the cgroup id of the current task,
	// perf record --all-cgroups, Linux 5.7+).
	sampleBranchStack  = 1 << 11
	sampleRegsUser     = 1 << 12
	sampleStackUser    = 1 << 13
	sampleWeight       = 1 << 14
	sampleDataSrc      = 1 << 15
	sampleTransaction  = 1 << 17
	sampleRegsIntr     = 1 << 18
	samplePhysAddr     = 1 << 19
	sampleCgroup       = 1 << 21
	sampleWeightStruct = 1 << 24
)

// cgroupSkip returns how many bytes lie between the end of a sample's RAW
// field and its CGROUP id for sample type st (the u64 fields between
// them, include/uapi/linux/perf_event.h's PERF_RECORD_SAMPLE order), or -1
// when st has no CGROUP or a variable-size field comes before it
// (BRANCH_STACK, REGS_USER, STACK_USER, REGS_INTR: not decoded here).
func cgroupSkip(st uint64) int {
	if st&sampleCgroup == 0 || st&(sampleBranchStack|sampleRegsUser|sampleStackUser|sampleRegsIntr) != 0 {
		return -1
	}
	return 8 * bits.OnesCount64(st&(sampleWeight|sampleWeightStruct|sampleDataSrc|sampleTransaction|samplePhysAddr))
}

// read_format bits.
const (
	readTotalTimeEnabled = 1 << 0
	readTotalTimeRunning = 1 << 1
	readID               = 1 << 2
	readGroup            = 1 << 3
	readLost             = 1 << 4
)

// perf_event_attr.type of tracepoints (PERF_TYPE_TRACEPOINT).
const typeTracepoint = 2

// attr is one event attribute (an "evsel" in perf's terms): how its samples
// are laid out and what they mean.
type attr struct {
	index       int
	typ         uint32
	config      uint64 // tracepoint id for typeTracepoint
	sampleType  uint64
	readFormat  uint64
	sampleIDAll bool
	name        string // e.g. "sched:sched_switch" (EVENT_DESC or the tracepoint format)
	ids         []uint64
	dec         *tpformat.SchedDecoder
	resolved    bool
	// dup: another attr of the same tracepoint came first (resolveAttrs):
	// this one's samples are copies, counted and skipped.
	dup       bool
	samples   uint64
	idHdrSize int // bytes of the sample_id trailer on non-sample records
	layout    sampleLayout
	// cgSkip is cgroupSkip(sampleType): where the CGROUP id lies after
	// RAW's end, -1 when the samples carry none that can be read.
	cgSkip int
}

// cgroupOf returns the cgroup id of a sample rec whose RAW field ends at
// byte rawEnd, 0 when it has none or the record is too short.
func (a *attr) cgroupOf(o interface{ Uint64([]byte) uint64 }, rec []byte, rawEnd int) uint64 {
	if a.cgSkip < 0 {
		return 0
	}
	if p := rawEnd + a.cgSkip; p >= 0 && p+8 <= len(rec) {
		return o.Uint64(rec[p:])
	}
	return 0
}

// sampleLayout gives the byte offsets in a PERF_RECORD_SAMPLE (its 8-byte
// header included) of the fields Reader.sample reads, -1 when absent, for a
// sample_type whose fields before RAW all have fixed sizes (no READ, no
// CALLCHAIN; the order is include/uapi/linux/perf_event.h's
// PERF_RECORD_SAMPLE): then fixed is set and a sample is decoded without
// walking the sample_type bits.
type sampleLayout struct {
	fixed               bool
	tid, time, cpu, raw int
	// sched: the layout of perf sched record's samples (IDENTIFIER, IP,
	// TID, TIME, CPU, PERIOD, RAW: schedLayout) in a little-endian file
	// (x86, arm64): sample reads them at constant offsets (set by
	// Reader.addAttr, which knows the byte order).
	sched bool
}

// schedLayout is the layout of the samples of `perf sched record`
// (sample_type IP|TID|TIME|CPU|PERIOD|RAW|IDENTIFIER, every perf.data of
// ../shared/traces and the bench file of docs/latency.md); sample reads
// its fields at these offsets as constants.
var schedLayout = sampleLayout{fixed: true, tid: 24, time: 32, cpu: 40, raw: 56}

// layoutOf returns the layout of sample type st.
func layoutOf(st uint64) sampleLayout {
	l := sampleLayout{tid: -1, time: -1, cpu: -1, raw: -1}
	if st&(sampleRead|sampleCallchain) != 0 || st&sampleRaw == 0 {
		return l
	}
	p := 8
	at := func(bit uint64) int {
		if st&bit == 0 {
			return -1
		}
		p += 8
		return p - 8
	}
	at(sampleIdentifier)
	at(sampleIP)
	l.tid = at(sampleTID)
	l.time = at(sampleTime)
	at(sampleAddr)
	at(sampleID)
	at(sampleStreamID)
	l.cpu = at(sampleCPU)
	at(samplePeriod)
	l.raw, l.fixed = p, true
	return l
}

// parseAttr reads a perf_event_attr of any size (at least PERF_ATTR_SIZE_VER0
// = 64 bytes: type, size, config, sample_period, sample_type, read_format,
// the flag bits).
func parseAttr(b []byte, order binary.ByteOrder) (*attr, error) {
	if len(b) < 64 {
		return nil, fmt.Errorf("attr of %d bytes, need at least 64: %w", len(b), trace.ErrCorrupt)
	}
	a := &attr{
		typ:        order.Uint32(b[0:]),
		config:     order.Uint64(b[8:]),
		sampleType: order.Uint64(b[24:]),
		readFormat: order.Uint64(b[32:]),
	}
	flags := order.Uint64(b[40:])
	// sample_id_all is bit 18 of the bit-field word. C allocates bit-fields
	// from the least significant bit on little-endian targets and from the
	// most significant one on big-endian targets.
	if order == binary.ByteOrder(binary.BigEndian) {
		a.sampleIDAll = flags>>(63-18)&1 != 0
	} else {
		a.sampleIDAll = flags>>18&1 != 0
	}
	a.idHdrSize = 8 * bits.OnesCount64(a.sampleType&(sampleTID|sampleTime|sampleID|sampleStreamID|sampleCPU|sampleIdentifier))
	a.layout = layoutOf(a.sampleType)
	a.cgSkip = cgroupSkip(a.sampleType)
	return a, nil
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// cursor reads the feature sections' little structures with bounds checks:
// the first failure sticks in err and later reads return zeros.
type cursor struct {
	b     []byte
	order binary.ByteOrder
	err   error
	what  string
}

func (c *cursor) fail() {
	if c.err == nil {
		c.err = fmt.Errorf("%s: truncated: %w", c.what, trace.ErrCorrupt)
	}
	c.b = nil
}

func (c *cursor) bytes(n int) []byte {
	if n < 0 || n > len(c.b) {
		c.fail()
		return nil
	}
	v := c.b[:n]
	c.b = c.b[n:]
	return v
}

func (c *cursor) u32() uint32 {
	b := c.bytes(4)
	if b == nil {
		return 0
	}
	return c.order.Uint32(b)
}

func (c *cursor) u64() uint64 {
	b := c.bytes(8)
	if b == nil {
		return 0
	}
	return c.order.Uint64(b)
}

// str reads a perf header string: u32 len, then len bytes NUL-padded.
func (c *cursor) str() string {
	n := c.u32()
	if uint64(n) > uint64(len(c.b)) {
		c.fail()
		return ""
	}
	return cstring(c.bytes(int(n)))
}

// cstr reads a NUL-terminated string.
func (c *cursor) cstr() string {
	i := bytes.IndexByte(c.b, 0)
	if i < 0 {
		c.fail()
		return ""
	}
	s := string(c.b[:i])
	c.b = c.b[i+1:]
	return s
}

// eventDesc is one entry of HEADER_EVENT_DESC.
type eventDesc struct {
	name string
	ids  []uint64
}

// applyFeature stores one feature section's facts in r.
func (r *Reader) applyFeature(bit int, b []byte) error {
	c := &cursor{b: b, order: r.order, what: fmt.Sprintf("feature %s", featureName(bit))}
	m := r.meta
	switch bit {
	case featTracingData:
		return r.parseTracingData(b)
	case featHostname:
		m.Hostname = c.str()
	case featOSRelease:
		m.OSRelease = c.str()
	case featVersion:
		m.Tool = "perf " + c.str()
	case featArch:
		m.Arch = c.str()
	case featNrCPUs:
		m.NrCPUsAvail = int(c.u32())
		m.NrCPUs = int(c.u32())
	case featCmdline:
		n := c.u32()
		if uint64(n) > uint64(len(b)) {
			c.fail()
		}
		m.Cmdline = m.Cmdline[:0]
		for i := uint32(0); i < n && c.err == nil; i++ {
			m.Cmdline = append(m.Cmdline, c.str())
		}
	case featEventDesc:
		n, size := c.u32(), c.u32()
		if uint64(n) > uint64(len(b)) || size < 64 {
			c.fail()
		}
		for i := uint32(0); i < n && c.err == nil; i++ {
			c.bytes(int(size))
			nids := c.u32()
			name := c.str()
			if uint64(nids)*8 > uint64(len(c.b)) {
				c.fail()
				break
			}
			d := eventDesc{name: name}
			for j := uint32(0); j < nids; j++ {
				d.ids = append(d.ids, c.u64())
			}
			r.descs = append(r.descs, d)
		}
		if c.err == nil {
			r.nameAttrs()
		}
	case featSampleTime:
		m.FirstTime = int64(c.u64())
		m.LastTime = int64(c.u64())
		r.times = timesUnchecked
		if c.err == nil && m.FirstTime > 0 && m.LastTime >= m.FirstTime {
			r.times = timesChecked
		}
	case featClockID:
		// u64 clockid resolution... the clock itself is in attr.clockid;
		// perf's default is its local_clock.
	case featCache:
		m.LLCs = parseCaches(c)
	case featCompressed:
		// u32 version, type, level, ratio, mmap_len: the records say it all.
	}
	return c.err
}

// nameAttrs gives attrs the names of HEADER_EVENT_DESC, matched by sample id
// (or by position when ids are missing).
func (r *Reader) nameAttrs() {
	for i, d := range r.descs {
		var a *attr
		if len(d.ids) > 0 {
			a = r.byID[d.ids[0]]
		}
		if a == nil && i < len(r.attrs) {
			a = r.attrs[i]
		}
		if a != nil && d.name != "" {
			a.name = d.name
		}
	}
}

var featureNames = map[int]string{
	featTracingData: "tracing_data", 2: "build_id", featHostname: "hostname",
	featOSRelease: "osrelease", featVersion: "version", featArch: "arch",
	featNrCPUs: "nrcpus", 8: "cpudesc", 9: "cpuid", 10: "total_mem",
	featCmdline: "cmdline", featEventDesc: "event_desc", 13: "cpu_topology",
	14: "numa_topology", 15: "branch_stack", 16: "pmu_mappings", 17: "group_desc",
	18: "auxtrace", 19: "stat", featCache: "cache", featSampleTime: "sample_time",
	22: "mem_topology", featClockID: "clockid", 24: "dir_format", 25: "bpf_prog_info",
	26: "bpf_btf", featCompressed: "compressed", 28: "cpu_pmu_caps", 29: "clock_data",
	30: "hybrid_topology", 31: "pmu_caps",
}

func featureName(bit int) string {
	if n, ok := featureNames[bit]; ok {
		return n
	}
	return fmt.Sprintf("#%d", bit)
}

// tracingMagic opens HEADER_TRACING_DATA (tools/perf/util/trace-event-info.c).
const tracingMagic = "\x17\x08\x44tracing"

// parseTracingData reads the event format descriptions from a
// HEADER_TRACING_DATA blob: magic, version string, endianness and long size,
// page size, header_page and header_event, the ftrace formats, then per
// system the event formats. kallsyms, printk formats and saved cmdlines
// that follow are not needed.
func (r *Reader) parseTracingData(b []byte) error {
	c := &cursor{b: b, order: r.order, what: "tracing data"}
	if !bytes.HasPrefix(b, []byte(tracingMagic)) {
		return fmt.Errorf("tracing data: bad magic %q: %w", b[:min(len(b), 10)], trace.ErrCorrupt)
	}
	c.bytes(len(tracingMagic))
	r.tracingVersion = c.cstr()
	be := c.bytes(1)
	c.bytes(1) // sizeof(long)
	if be != nil && be[0] != 0 {
		c.order = binary.BigEndian
	} else {
		c.order = binary.LittleEndian
	}
	c.u32() // page size
	for _, want := range []string{"header_page", "header_event"} {
		if got := c.cstr(); got != want && c.err == nil {
			return fmt.Errorf("tracing data: section %q where %q expected: %w", got, want, trace.ErrCorrupt)
		}
		c.bytes(int(min(c.u64(), uint64(len(c.b))+1)))
	}
	readFormats := func(system string) {
		n := c.u32()
		for i := uint32(0); i < n && c.err == nil; i++ {
			size := c.u64()
			text := c.bytes(int(min(size, uint64(len(c.b))+1)))
			if c.err != nil {
				return
			}
			f, err := tpformat.Parse(text)
			if err != nil {
				r.meta.Warnings.Add("bad-tracepoint-format", "perf.data: %v", err)
				continue
			}
			f.System = system
			r.formats[f.ID] = f
		}
	}
	// New formats (a second tracing-data record) rebind every attr.
	r.decoders = map[int]*tpformat.SchedDecoder{}
	for _, a := range r.attrs {
		a.resolved, a.dec, a.dup = false, nil, false
	}
	readFormats("ftrace")
	nsys := c.u32()
	for i := uint32(0); i < nsys && c.err == nil; i++ {
		readFormats(c.cstr())
	}
	r.resolveAttrs()
	return c.err
}

// resolveAttrs binds tracepoint attrs not yet bound to their formats and
// sched decoders (one decoder per format, shared by attrs).
func (r *Reader) resolveAttrs() {
	for _, a := range r.attrs {
		if a.resolved || a.typ != typeTracepoint {
			continue
		}
		f, ok := r.formats[int(a.config)]
		if !ok {
			continue
		}
		a.resolved = true
		if a.name == "" {
			a.name = f.FullName()
		}
		if first := r.decoders[f.ID]; first != nil {
			// The tracepoint has an attr of its own already (perf sched
			// record -e sched:sched_switch names one it records
			// anyway): the kernel writes each event once per attr, so
			// the file holds every one twice. perf sched reads the
			// first attr's only (its handlers are set on the first
			// evsel of the name: evlist__find_tracepoint_by_name,
			// tools/perf/util/evlist.c, perf 6.12), and so do we: this
			// one's samples are counted and skipped (new-user pass 45:
			// a hog's run time read 1700 ms of a 1005 ms trace, and
			// every switch twice).
			a.dup, a.dec = true, nil
			r.meta.Warnings.Add("duplicate-attr-"+a.name, "perf.data: %s is recorded by more than one attr (perf record -e named it again): the kernel wrote each of its events once per attr; the copies of the later attrs are skipped, as perf sched reads the first attr's only", a.name)
			continue
		}
		a.dec = r.decoders[f.ID]
		if a.dec != nil || f.System != "sched" {
			continue
		}
		d, err := tpformat.NewSchedDecoder(f, r.order, &r.intern)
		if err != nil {
			if _, known := trace.KindByName(f.Name); known {
				r.meta.Warnings.Add("sched-format", "perf.data: %v", err)
			}
			continue
		}
		r.decoders[f.ID] = d
		a.dec = d
		switch d.Kind {
		case trace.KindFork:
			r.haveForkTP = true
		case trace.KindExit:
			r.haveExitTP = true
		case trace.KindExec:
			r.haveExecTP = true
		}
		if d.Kind == trace.KindSwitch && !d.State.Derived {
			r.meta.Warnings.Add("prev-state-format", "perf.data: sched_switch print fmt not understood; prev_state read in the Linux >= 4.14 encoding")
		}
	}
}

// attrName returns a printable name of an attr.
func (a *attr) displayName() string {
	if a.dup {
		// Apart from the first attr's, in the sample counts (info).
		return fmt.Sprintf("%s (attr %d: a copy, skipped)", a.name, a.index)
	}
	if a.name != "" {
		return a.name
	}
	return fmt.Sprintf("attr%d(type %d, config %#x)", a.index, a.typ, a.config)
}

// parseCaches reads HEADER_CACHE (tools/perf/util/header.c write_cache,
// process_cache): u32 version 1, u32 count, then per cache u32 level,
// line size, sets and ways, and the strings type ("Data", "Instruction",
// "Unified"), size ("32768K") and map (the CPUs sharing it, "0-1", from
// sysfs shared_cpu_list). It returns the maps of the highest level's data
// or unified caches, in file order without repeats: the CPU sets that share
// a last-level cache. Another version gives nil (unknown).
func parseCaches(c *cursor) []string {
	if c.u32() != 1 {
		return nil
	}
	n := c.u32()
	if uint64(n)*28 > uint64(len(c.b)) {
		c.fail()
		return nil
	}
	var maps []string
	top := uint32(0)
	for i := uint32(0); i < n && c.err == nil; i++ {
		level := c.u32()
		c.u32() // line_size
		c.u32() // sets
		c.u32() // ways
		typ, _, m := c.str(), c.str(), c.str()
		if typ == "Instruction" || c.err != nil {
			continue
		}
		if level > top {
			top, maps = level, nil
		}
		if level == top && !slices.Contains(maps, m) {
			maps = append(maps, m)
		}
	}
	if c.err != nil {
		return nil
	}
	return maps
}
