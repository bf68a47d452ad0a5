package tracedat

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tpformat"
)

// Magic is the first 10 bytes of every trace.dat (and of perf's tracing
// data): 0x17 0x08 'D' "tracing".
const Magic = "\x17\x08Dtracing"

// Option ids (trace-cmd.dat.v7(5); v6 uses the same ids in its options).
const (
	optDone         = 0
	optBuffer       = 3
	optTraceClock   = 4
	optUname        = 5
	optCPUCount     = 8
	optVersion      = 9
	optStrings      = 15 // v7 section id of the strings section headers name
	optHeaderInfo   = 16
	optFtraceEvents = 17
	optEventFormats = 18
	optCmdlines     = 21
	optBufferText   = 22
)

// sectionFlagCompressed marks a compressed v7 section.
const sectionFlagCompressed = 1

// maxMeta bounds any metadata block the reader allocates (formats, cmdlines,
// decompressed sections): larger sizes mean a corrupt file.
const maxMeta = 256 << 20

// file is the parsed metadata of a trace.dat.
type file struct {
	// fixedSize is, by event id, the bytes the fixed fields of a format
	// that is not decoded (not sched) take (fieldsEnd).
	fixedSize map[int]int
	ra        io.ReaderAt
	size      int64
	order     binary.ByteOrder
	little    bool
	version   int
	longSize  int
	pageSize  int
	comp      string // "" (none), "zstd" or "zlib"
	zstd      *zstd.Decoder

	headerPage, headerEvent []byte
	formats                 []*tpformat.Format
	cmdlines                []byte
	nrCPUs                  int
	buffers                 []buffer
	uname, tool, clock      string
	latencyText             bool // the file holds latency-tracer text, not ring-buffer pages
	warnings                []string
	// sizeDamage says of each CPU whose data size in the CPU table is
	// damaged (checkCPUSizes) what was read instead.
	sizeDamage []string
	cut        string // what a file cut short lacks ("": whole)
	// trailingAt is where bytes that are not the file's begin after its
	// last section (another trace.dat joined after it), 0 if none.
	trailingAt int64
	tailCut    string // a v7 file cut in the sections after its last options section ("": whole)
	// dataSections are a v7 file's CPU data sections (id optBuffer), as
	// [start, end) byte ranges of their contents, in file order
	// (walkDataSections); none for v6.
	dataSections [][2]int64
}

// buffer is one trace instance's per-CPU data.
type buffer struct {
	name     string // "" for the top instance
	clock    string
	pageSize int
	cpus     []cpuData
}

// cpuData locates one CPU's pages in the file.
type cpuData struct {
	cpu          int
	offset, size int64
	// sectionEnd: offset+size is only the end of the data section, the
	// CPU's own end being unknown (recoverBuffers: a file cut inside it).
	sectionEnd bool
}

// corruptf returns an error wrapping trace.ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, trace.ErrCorrupt)...)
}

// readAt reads n bytes at off, refusing ranges outside the file.
func (f *file) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, corruptf("%d bytes at offset %d beyond the end of the file (%d bytes)", n, off, f.size)
	}
	b := make([]byte, n)
	if _, err := f.ra.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("offset %d: %w", off, err)
	}
	return b, nil
}

// cursor reads numbers and strings from a byte slice in file order; the
// first out-of-range read sets err and every later read returns zeros.
type cursor struct {
	b     []byte
	pos   int
	order binary.ByteOrder
	err   error
	base  int64 // file offset of b[0], for errors
}

func (c *cursor) take(n int) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > len(c.b)-c.pos {
		c.err = corruptf("%d bytes needed at offset %d, %d left", n, c.base+int64(c.pos), len(c.b)-c.pos)
		return nil
	}
	s := c.b[c.pos : c.pos+n]
	c.pos += n
	return s
}

func (c *cursor) u16() uint16 {
	if b := c.take(2); b != nil {
		return c.order.Uint16(b)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.take(4); b != nil {
		return c.order.Uint32(b)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if b := c.take(8); b != nil {
		return c.order.Uint64(b)
	}
	return 0
}

func (c *cursor) cstr() string {
	if c.err != nil {
		return ""
	}
	i := bytes.IndexByte(c.b[c.pos:], 0)
	if i < 0 {
		c.err = corruptf("unterminated string at offset %d", c.base+int64(c.pos))
		return ""
	}
	s := string(c.b[c.pos : c.pos+i])
	c.pos += i + 1
	return s
}

// sized reads a size (u32 or u64) and that many bytes.
func (c *cursor) sized(wide bool) []byte {
	var n uint64
	if wide {
		n = c.u64()
	} else {
		n = uint64(c.u32())
	}
	if n > uint64(len(c.b)) {
		if c.err == nil {
			c.err = corruptf("block of %d bytes at offset %d exceeds its section", n, c.base+int64(c.pos))
		}
		return nil
	}
	return c.take(int(n))
}

// parseFile reads the metadata of a trace.dat from ra (size bytes).
func parseFile(ra io.ReaderAt, size int64) (*file, error) {
	f := &file{ra: ra, size: size}
	headLen := int64(min(size, 4096))
	head, err := f.readAt(0, headLen)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte(Magic)) {
		return nil, corruptf("not a trace.dat (no \\x17\\x08Dtracing magic)")
	}
	c := &cursor{b: head, pos: len(Magic), order: binary.LittleEndian}
	vs := c.cstr()
	end := c.take(1)
	ls := c.take(1)
	if c.err != nil {
		return nil, fmt.Errorf("initial header: %w", c.err)
	}
	f.version, err = strconv.Atoi(vs)
	if err != nil {
		return nil, corruptf("version %q is not a number", vs)
	}
	if end[0] != 0 {
		f.order = binary.BigEndian
	} else {
		f.order, f.little = binary.LittleEndian, true
	}
	c.order = f.order
	f.longSize = int(ls[0])
	f.pageSize = int(c.u32())
	if c.err != nil {
		return nil, fmt.Errorf("initial header: %w", c.err)
	}
	if f.pageSize < 64 || f.pageSize > 1<<20 {
		return nil, corruptf("page size %d", f.pageSize)
	}
	switch f.version {
	case 6:
		err = f.parseV6(int64(c.pos))
	case 7:
		err = f.parseV7(c)
	default:
		return nil, fmt.Errorf("trace.dat version %d: only versions 6 and 7 are supported", f.version)
	}
	if err != nil {
		return nil, err
	}
	for i := range f.buffers {
		f.checkCPUSizes(&f.buffers[i])
	}
	if f.version == 6 && f.cut == "" {
		// A v6 file ends with its CPUs' data (trace-cmd's
		// output_v6_cpu_data writes them last).
		var end int64
		for _, b := range f.buffers {
			for _, cd := range b.cpus {
				end = max(end, cd.offset+cd.size)
			}
		}
		if end > 0 && end < f.size {
			f.trailingAt = end
		}
	}
	return f, nil
}

// trailingWhat says what the bytes from f.trailingAt are: another
// trace.dat when its magic is there.
func (f *file) trailingWhat() string {
	if b, err := f.readAt(f.trailingAt, int64(min(len(Magic), int(f.size-f.trailingAt)))); err == nil && string(b) == Magic {
		return fmt.Sprintf("another trace.dat (its magic is there: `tail -c +%d` of the file is that one)", f.trailingAt+1)
	}
	return "not trace.dat sections"
}

// streamReader reads the v6 metadata sequentially through ReadAt.
type streamReader struct {
	f   *file
	off int64
	err error
}

func (s *streamReader) bytes(n int64) []byte {
	if s.err != nil {
		return nil
	}
	if n > maxMeta {
		s.err = corruptf("block of %d bytes at offset %d", n, s.off)
		return nil
	}
	b, err := s.f.readAt(s.off, n)
	if err != nil {
		s.err = err
		return nil
	}
	s.off += n
	return b
}

func (s *streamReader) skip(n int64) {
	if s.err == nil && (n < 0 || n > s.f.size-s.off) {
		s.err = corruptf("block of %d bytes at offset %d beyond the end of the file", n, s.off)
	}
	s.off += n
}

func (s *streamReader) u32() uint32 {
	if b := s.bytes(4); b != nil {
		return s.f.order.Uint32(b)
	}
	return 0
}

func (s *streamReader) u64() uint64 {
	if b := s.bytes(8); b != nil {
		return s.f.order.Uint64(b)
	}
	return 0
}

func (s *streamReader) cstr() string {
	var out []byte
	for s.err == nil {
		b := s.bytes(1)
		if b == nil || b[0] == 0 {
			break
		}
		out = append(out, b[0])
		if len(out) > 4096 {
			s.err = corruptf("string at offset %d longer than 4096 bytes", s.off)
		}
	}
	return string(out)
}

// sized reads a u32/u64 size then that many bytes.
func (s *streamReader) sized(wide bool) []byte {
	var n uint64
	if wide {
		n = s.u64()
	} else {
		n = uint64(s.u32())
	}
	if n > uint64(maxMeta) {
		if s.err == nil {
			s.err = corruptf("block of %d bytes at offset %d", n, s.off)
		}
		return nil
	}
	return s.bytes(int64(n))
}

// parseV6 reads the fixed-order v6 metadata starting at off.
func (f *file) parseV6(off int64) error {
	s := &streamReader{f: f, off: off}
	if name := s.cstr(); name != "header_page" && s.err == nil {
		return corruptf("header info: %q where \"header_page\" expected", name)
	}
	f.headerPage = s.sized(true)
	if name := s.cstr(); name != "header_event" && s.err == nil {
		return corruptf("header info: %q where \"header_event\" expected", name)
	}
	f.headerEvent = s.sized(true)
	if s.err != nil {
		return fmt.Errorf("header info: %w", s.err)
	}
	// Ftrace event formats, then the event formats per system.
	n := s.u32()
	for i := uint32(0); i < n && s.err == nil; i++ {
		f.addFormat("ftrace", s.sized(true))
	}
	nsys := s.u32()
	for i := uint32(0); i < nsys && s.err == nil; i++ {
		sys := s.cstr()
		n := s.u32()
		for j := uint32(0); j < n && s.err == nil; j++ {
			f.addFormat(sys, s.sized(true))
		}
	}
	if s.err != nil {
		return fmt.Errorf("event formats: %w", s.err)
	}
	s.skip(int64(s.u32())) // kallsyms
	s.skip(int64(s.u32())) // printk formats
	f.cmdlines = s.sized(true)
	f.nrCPUs = int(s.u32())
	if s.err != nil {
		return fmt.Errorf("v6 header: %w", s.err)
	}
	top := buffer{pageSize: f.pageSize}
	for {
		kind := string(s.bytes(10))
		if s.err != nil {
			return fmt.Errorf("v6 data header: %w", s.err)
		}
		switch kind {
		case "options  \x00":
			for s.err == nil {
				id := uint16(0)
				if b := s.bytes(2); b != nil {
					id = f.order.Uint16(b)
				}
				if id == optDone {
					break
				}
				data := s.sized(false)
				if s.err == nil {
					f.option(id, data, true)
				}
			}
			continue
		case "latency  \x00":
			f.latencyText = true
			return nil
		case "flyrecord\x00":
			for i := 0; i < f.nrCPUs && s.err == nil; i++ {
				off, size := s.u64(), s.u64()
				top.cpus = append(top.cpus, cpuData{cpu: i, offset: int64(off), size: int64(size)})
			}
			if s.err != nil {
				return fmt.Errorf("flyrecord CPU table: %w", s.err)
			}
			f.buffers = append([]buffer{top}, f.buffers...)
			// v6 instance buffers: their option pointed at a CPU table.
			for i := 1; i < len(f.buffers); i++ {
				if err := f.v6BufferTable(&f.buffers[i]); err != nil {
					f.warnings = append(f.warnings, fmt.Sprintf("instance %q: %v", f.buffers[i].name, err))
					f.buffers[i].cpus = nil
				}
			}
			return nil
		default:
			return corruptf("v6 data header %q at offset %d, want options, latency or flyrecord", kind, s.off-10)
		}
	}
}

// v6BufferTable reads an instance's per-CPU table, found at the offset its
// BUFFER option gave (kept in cpus[0].offset by option).
func (f *file) v6BufferTable(b *buffer) error {
	if len(b.cpus) != 1 || b.cpus[0].cpu != -1 {
		return nil
	}
	s := &streamReader{f: f, off: b.cpus[0].offset}
	b.cpus = nil
	if peek, err := f.readAt(s.off, 10); err == nil && string(peek) == "flyrecord\x00" {
		s.off += 10
	}
	for i := 0; i < f.nrCPUs && s.err == nil; i++ {
		off, size := s.u64(), s.u64()
		b.cpus = append(b.cpus, cpuData{cpu: i, offset: int64(off), size: int64(size)})
	}
	return s.err
}

// addFormat parses one tracepoint format text of system sys. Only the
// sched system is decoded, so the others (a file holds every system's
// formats, ~1500 on Linux 6.x) keep just their name and ID, for warnings.
func (f *file) addFormat(sys string, text []byte) {
	if text == nil {
		return
	}
	if sys != "sched" {
		if name, id, ok := nameAndID(text); ok {
			f.formats = append(f.formats, &tpformat.Format{System: sys, Name: name, ID: id})
			if f.fixedSize == nil {
				f.fixedSize = map[int]int{}
			}
			f.fixedSize[id] = fieldsEnd(text)
		}
		return
	}
	fm, err := tpformat.Parse(text)
	if err != nil {
		f.warnings = append(f.warnings, fmt.Sprintf("tracepoint format of system %s: %v", sys, err))
		return
	}
	fm.System = sys
	f.formats = append(f.formats, fm)
}

// fieldsEnd is where the last of a format text's fields ends ("offset:N;
// size:M;" lines: the largest N+M), the bytes a record of it takes at
// least; 0 when the text gives none.
func fieldsEnd(text []byte) int {
	end := 0
	for len(text) > 0 {
		i := bytes.Index(text, []byte("offset:"))
		if i < 0 {
			break
		}
		text = text[i:]
		line := text
		if j := bytes.IndexByte(text, '\n'); j >= 0 {
			line, text = text[:j], text[j:]
		} else {
			text = nil
		}
		off, ok1 := fieldNum(line, "offset:")
		size, ok2 := fieldNum(line, "size:")
		if ok1 && ok2 && off >= 0 && size >= 0 && off+size < 1<<16 {
			end = max(end, off+size)
		}
	}
	return end
}

// nameAndID reads the "name: X" and "ID: N" lines that open a format text.
func nameAndID(text []byte) (string, int, bool) {
	var name string
	id := -1
	for len(text) > 0 && (name == "" || id < 0) {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimSpace(line)
		switch {
		case bytes.HasPrefix(line, []byte("name:")):
			name = string(bytes.TrimSpace(line[5:]))
		case bytes.HasPrefix(line, []byte("ID:")):
			n, err := strconv.Atoi(string(bytes.TrimSpace(line[3:])))
			if err != nil {
				return "", 0, false
			}
			id = n
		case bytes.HasPrefix(line, []byte("format:")):
			text = nil
		}
	}
	return name, id, name != "" && id >= 0
}

// option records one option's facts; v6 says whether the v6 layout is in
// use (BUFFER options differ).
func (f *file) option(id uint16, data []byte, v6 bool) {
	c := &cursor{b: data, order: f.order}
	switch id {
	case optCPUCount:
		if n := c.u32(); c.err == nil {
			f.nrCPUs = int(n)
		}
	case optUname:
		f.uname = strings.TrimRight(string(data), "\x00")
	case optVersion:
		f.tool = "trace-cmd " + strings.TrimSpace(strings.TrimRight(string(data), "\x00"))
	case optTraceClock:
		f.clock = selectedClock(strings.TrimRight(string(data), "\x00"))
	case optBuffer:
		off := c.u64()
		b := buffer{name: c.cstr(), pageSize: f.pageSize}
		if v6 {
			// Offset of the instance's CPU table, read after the top one.
			b.cpus = []cpuData{{cpu: -1, offset: int64(off)}}
		} else {
			b.clock = c.cstr()
			ps := c.u32()
			if ps >= 64 && ps <= 1<<20 {
				b.pageSize = int(ps)
			}
			n := c.u32()
			for i := uint32(0); i < n && c.err == nil; i++ {
				cpu := c.u32()
				o, sz := c.u64(), c.u64()
				b.cpus = append(b.cpus, cpuData{cpu: int(cpu), offset: int64(o), size: int64(sz)})
			}
		}
		if c.err != nil {
			f.warnings = append(f.warnings, fmt.Sprintf("BUFFER option: %v", c.err))
			return
		}
		f.buffers = append(f.buffers, b)
	case optBufferText:
		f.latencyText = true
	}
}

// selectedClock picks the bracketed clock of a trace_clock listing
// ("[local] global counter ..."), or returns s.
func selectedClock(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return strings.TrimSpace(s)
}

// parseV7 reads the compression header and the options chain, then the
// sections the options point at.
func (f *file) parseV7(c *cursor) error {
	name := c.cstr()
	c.cstr() // compression version
	first := c.u64()
	if c.err != nil {
		return fmt.Errorf("v7 compression header: %w", c.err)
	}
	headerEnd := int64(c.pos) // the first section

	switch name {
	case "none", "":
	case "zstd":
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxMeta))
		if err != nil {
			return err
		}
		f.zstd = d
		f.comp = name
	case "zlib":
		f.comp = name
	default:
		return fmt.Errorf("v7 compression %q is not supported (zstd, zlib and none are)", name)
	}
	sections := map[uint16]int64{}
	seen := map[int64]bool{}
	for off := int64(first); off != 0; {
		if seen[off] {
			return corruptf("options sections loop at offset %d", off)
		}
		seen[off] = true
		if f.cutBefore(off) {
			// trace-cmd writes an instance's BUFFER option (where its
			// CPU data is) in an options section after that data: a
			// file cut short lacks the last ones.
			read := len(f.buffers)
			found := f.recoverBuffers(headerEnd)
			if len(f.buffers) == 0 {
				return corruptf("%s, which locates the CPU data (trace-cmd writes it after the data): truncated file, no event can be located", f.cutAt(off))
			}
			f.cut = fmt.Sprintf("%s: the instances it describes (where their CPU data is) are missing; the %d instances before it are read", f.cutAt(off), read)
			if found != "" {
				f.cut = fmt.Sprintf("%s, which names the instances before it and locates their CPU data; %s", f.cutAt(off), found)
			}
			break
		}
		id, data, err := f.section(off)
		if err != nil {
			return fmt.Errorf("options section at offset %d: %w", off, err)
		}
		if id != optDone {
			return corruptf("section at offset %d has id %d, want an options section (0)", off, id)
		}
		oc := &cursor{b: data, order: f.order}
		off = 0
		for oc.err == nil && oc.pos < len(oc.b) {
			oid := oc.u16()
			odata := oc.sized(false)
			if oc.err != nil {
				break
			}
			switch oid {
			case optDone:
				if len(odata) == 8 {
					off = int64(f.order.Uint64(odata))
				}
			case optHeaderInfo, optFtraceEvents, optEventFormats, optCmdlines:
				if len(odata) == 8 {
					sections[oid] = int64(f.order.Uint64(odata))
				}
			default:
				f.option(oid, odata, false)
			}
			if oid == optDone {
				break
			}
		}
		if oc.err != nil {
			return fmt.Errorf("options section: %w", oc.err)
		}
	}
	if f.cut == "" {
		f.tailCut = f.checkTail(headerEnd)
	}
	f.dataSections = f.walkDataSections(headerEnd)
	read := func(id uint16) (*cursor, error) {
		off, ok := sections[id]
		if !ok {
			return nil, nil
		}
		sid, data, err := f.section(off)
		if err != nil {
			return nil, err
		}
		if sid != id {
			return nil, corruptf("section at offset %d has id %d, want %d", off, sid, id)
		}
		return &cursor{b: data, order: f.order}, nil
	}
	c2, err := read(optHeaderInfo)
	if err != nil {
		return fmt.Errorf("header info: %w", err)
	}
	if c2 == nil {
		return corruptf("no header info section")
	}
	if c2.cstr() != "header_page" && c2.err == nil {
		return corruptf("header info: no header_page")
	}
	f.headerPage = c2.sized(true)
	if c2.cstr() != "header_event" && c2.err == nil {
		return corruptf("header info: no header_event")
	}
	f.headerEvent = c2.sized(true)
	if c2.err != nil {
		return fmt.Errorf("header info: %w", c2.err)
	}
	if c3, err := read(optFtraceEvents); err != nil {
		return fmt.Errorf("ftrace event formats: %w", err)
	} else if c3 != nil {
		n := c3.u32()
		for i := uint32(0); i < n && c3.err == nil; i++ {
			f.addFormat("ftrace", c3.sized(true))
		}
		if c3.err != nil {
			return fmt.Errorf("ftrace event formats: %w", c3.err)
		}
	}
	c4, err := read(optEventFormats)
	if err != nil {
		return fmt.Errorf("event formats: %w", err)
	}
	if c4 != nil {
		nsys := c4.u32()
		for i := uint32(0); i < nsys && c4.err == nil; i++ {
			sys := c4.cstr()
			n := c4.u32()
			for j := uint32(0); j < n && c4.err == nil; j++ {
				f.addFormat(sys, c4.sized(true))
			}
		}
		if c4.err != nil {
			return fmt.Errorf("event formats: %w", c4.err)
		}
	}
	if c5, err := read(optCmdlines); err != nil {
		f.warnings = append(f.warnings, fmt.Sprintf("saved command lines: %v", err))
	} else if c5 != nil {
		f.cmdlines = c5.sized(true)
	}
	return nil
}

// recoverBuffers finds, in a v7 file cut short, the compressed CPU data
// that no BUFFER option read locates: trace-cmd writes an instance's CPU
// data in one section (id optBuffer) before the options section whose
// BUFFER option says where each CPU's data is, so a cut file keeps data it
// does not locate. Walking the sections from the first one (at from, one
// after another), each flyrecord section is split into its CPUs' data by
// their own framing (trace-cmd's out_write_cpu_data and
// tracecmd_compress_copy_from): CPU 0 to nrCPUs-1 in order, each at the
// next page boundary, a 4-byte chunk count, then chunks of a 4-byte
// compressed size, a 4-byte size and the compressed bytes. The instance's
// name is in the (missing) option. It returns what it found, for the
// warning ("" when nothing).
func (f *file) recoverBuffers(from int64) string {
	if f.comp == "" || f.nrCPUs <= 0 || f.nrCPUs > 1<<16 {
		return "" // uncompressed data do not say where a CPU's data end
	}
	known := map[int64]bool{}
	for _, b := range f.buffers {
		for _, cd := range b.cpus {
			known[cd.offset] = true
		}
	}
	var notes []string
	for off := from; off >= 0 && off+16 <= f.size; {
		h, err := f.readAt(off, 16)
		if err != nil {
			break
		}
		id, flags, size := f.order.Uint16(h), f.order.Uint16(h[2:]), f.order.Uint64(h[8:])
		if size > 1<<50 {
			break // not a section header
		}
		end := off + 16 + int64(size)
		if id == optBuffer && flags&sectionFlagCompressed != 0 && size > 0 {
			if b, note := f.sectionCPUs(off, end, known); len(b.cpus) > 0 {
				f.buffers = append(f.buffers, b)
				notes = append(notes, note)
			}
		}
		if end > f.size {
			break // the section the file ends in
		}
		off = end
	}
	return strings.Join(notes, "; ")
}

// sectionCPUs splits the flyrecord section at off (ending at end, which
// may be past the end of the file) into its CPUs' data (see
// recoverBuffers); none when a BUFFER option already located them.
func (f *file) sectionCPUs(off, end int64, known map[int64]bool) (buffer, string) {
	b := buffer{name: fmt.Sprintf("(data section at offset %d)", off), pageSize: f.pageSize}
	page := int64(f.pageSize)
	pos := off + 16
	avail := min(end, f.size)
	for cpu := 0; cpu < f.nrCPUs; cpu++ {
		at := (pos + page - 1) / page * page
		if known[at] {
			return buffer{}, ""
		}
		if at+4 > avail {
			break
		}
		h, err := f.readAt(at, 4)
		if err != nil {
			break
		}
		p, cut := at+4, false
		for i := f.order.Uint32(h); i > 0; i-- {
			ch, err := f.readAt(p, 8)
			if err != nil || p+8 > avail {
				cut = true
				break
			}
			p += 8 + int64(f.order.Uint32(ch))
			if p > avail {
				cut = true
				break
			}
		}
		if cut {
			// Its end is the section's only when it is the last CPU.
			b.cpus = append(b.cpus, cpuData{cpu: cpu, offset: at, size: end - at, sectionEnd: cpu < f.nrCPUs-1})
			break
		}
		b.cpus = append(b.cpus, cpuData{cpu: cpu, offset: at, size: p - at - 4}) // trace-cmd's size leaves out the count
		pos = p
	}
	cpus := func(from, to int) string {
		if from == to {
			return fmt.Sprintf("CPU %d", from)
		}
		return fmt.Sprintf("CPUs %d-%d", from, to)
	}
	note := fmt.Sprintf("read the CPU data of the flyrecord section at offset %d (instance name unknown): %s, numbered in the order trace-cmd writes them", off, cpus(0, len(b.cpus)-1))
	if n := len(b.cpus); n < f.nrCPUs {
		note += fmt.Sprintf("; %s of %d: no data before the cut", cpus(n, f.nrCPUs-1), f.nrCPUs)
	}
	return b, note
}

// checkTail walks a v7 file's sections from the first one (at from, one
// after another, as trace-cmd writes them: a 16-byte header, u16 id, u16
// flags, u32 string id, u64 size, then size bytes) and says where the file
// is cut in them ("": not cut, or the sections are not contiguous and
// nothing can be said). trace-cmd writes the strings section (id 15, the
// section names that each header's string id is an offset into, counted
// over every strings section in the file) after the last options section,
// at the file's end, and no option locates it: a file cut by up to its
// size ends inside it or its header, which the walk finds; a file cut
// exactly before it ends after a whole section, and only the string ids
// say that strings are missing (a header names an offset at or past the
// number of string bytes the file holds).
func (f *file) checkTail(from int64) string {
	var strs, maxID uint64
	haveID := false
	off := from
	for off < f.size {
		if off+16 > f.size {
			return fmt.Sprintf("the file ends at %d bytes, inside the 16-byte header of the section at offset %d (after its last options section, where trace-cmd writes its strings section, the section names; no event is in it)", f.size, off)
		}
		h, err := f.readAt(off, 16)
		if err != nil {
			return ""
		}
		id, flags, sid, size := f.order.Uint16(h), f.order.Uint16(h[2:]), uint64(f.order.Uint32(h[4:])), f.order.Uint64(h[8:])
		if string(h[:len(Magic)]) == Magic {
			// Another trace.dat joined after this one (cat a.dat b.dat):
			// said apart (trailingAt), the sections before it are whole.
			f.trailingAt = off
			break
		}
		if size > 1<<50 {
			return "" // not a section header
		}
		if end := off + 16 + int64(size); end > f.size {
			what := fmt.Sprintf("the section of id %d", id)
			if id == optStrings {
				what = "its strings section (the section names; no event is in it)"
			}
			return fmt.Sprintf("the file ends at %d bytes, inside %s at offset %d (16 + %d bytes, to offset %d): %d bytes missing", f.size, what, off, size, end, end-f.size)
		}
		if id == optStrings {
			n := size
			if flags&sectionFlagCompressed != 0 {
				b, err := f.readAt(off+16, 8)
				if err != nil || size < 8 {
					return ""
				}
				n = uint64(f.order.Uint32(b[4:]))
			}
			strs += n
		}
		maxID, haveID = max(maxID, sid), true
		off += 16 + int64(size)
	}
	if haveID && maxID >= strs {
		return fmt.Sprintf("the file ends at %d bytes, after a whole section, but its section headers name strings up to offset %d and it holds %d bytes of strings: the strings section trace-cmd writes last (the section names; no event is in it) is missing", f.size, maxID, strs)
	}
	return ""
}

// cutBefore tells whether the file ends before the end of the v7 section
// at off (its 16-byte header and its data).
func (f *file) cutBefore(off int64) bool {
	if off < 0 || off+16 > f.size {
		return true
	}
	h, err := f.readAt(off, 16)
	return err != nil || int64(f.order.Uint64(h[8:])) > f.size-off-16
}

// cutAt says where the file ends relative to the section at off that
// cutBefore found cut: before it ("the file ends at 200000 bytes, before
// its options section at offset 225062"), inside its 16-byte header, or
// inside its data, which needs more bytes than the file has after it.
func (f *file) cutAt(off int64) string {
	switch {
	case off >= f.size:
		return fmt.Sprintf("the file ends at %d bytes, before its options section at offset %d", f.size, off)
	case off+16 > f.size:
		return fmt.Sprintf("the file ends at %d bytes, inside the 16-byte header of its options section at offset %d", f.size, off)
	}
	h, err := f.readAt(off, 16)
	if err != nil {
		return fmt.Sprintf("the file ends at %d bytes, inside its options section at offset %d", f.size, off)
	}
	n := int64(f.order.Uint64(h[8:]))
	return fmt.Sprintf("the file ends at %d bytes, inside its options section at offset %d (16 + %d bytes, to offset %d)", f.size, off, n, off+16+n)
}

// section reads the v7 section at off: its id and (decompressed) data.
func (f *file) section(off int64) (uint16, []byte, error) {
	h, err := f.readAt(off, 16)
	if err != nil {
		return 0, nil, err
	}
	id := f.order.Uint16(h)
	flags := f.order.Uint16(h[2:])
	size := f.order.Uint64(h[8:])
	if size > maxMeta {
		return 0, nil, corruptf("section at offset %d: size %d", off, size)
	}
	data, err := f.readAt(off+16, int64(size))
	if err != nil {
		return 0, nil, err
	}
	if flags&sectionFlagCompressed == 0 {
		return id, data, nil
	}
	if len(data) < 8 {
		return 0, nil, corruptf("compressed section at offset %d: %d bytes", off, len(data))
	}
	csize, usize := f.order.Uint32(data), f.order.Uint32(data[4:])
	if uint64(csize) > uint64(len(data)-8) || usize > maxMeta {
		return 0, nil, corruptf("compressed section at offset %d: %d compressed / %d bytes", off, csize, usize)
	}
	out, err := f.decompress(data[8:8+csize], int(usize), nil)
	if err != nil {
		return 0, nil, fmt.Errorf("section at offset %d: %w", off, err)
	}
	return id, out, nil
}

// decompress expands one compressed block of usize bytes into dst's memory.
func (f *file) decompress(src []byte, usize int, dst []byte) ([]byte, error) {
	if cap(dst) < usize {
		dst = make([]byte, 0, usize)
	}
	dst = dst[:0]
	switch f.comp {
	case "zstd":
		out, err := f.zstd.DecodeAll(src, dst)
		if err != nil {
			return nil, corruptf("zstd: %v", err)
		}
		if len(out) != usize {
			return out, &sizeMismatch{len(out), usize}
		}
		return out, nil
	case "zlib":
		zr, err := zlib.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, corruptf("zlib: %v", err)
		}
		dst = dst[:usize]
		if _, err := io.ReadFull(zr, dst); err != nil {
			return nil, corruptf("zlib block shorter than %d bytes: %v", usize, err)
		}
		return dst, nil
	}
	return nil, fmt.Errorf("compressed section in a file without compression")
}

// sizeMismatch is decompress's error for a block that decompressed whole
// to another size than its header says (the output comes with it).
type sizeMismatch struct{ got, want int }

func (e *sizeMismatch) Error() string {
	return fmt.Sprintf("zstd block gave %d bytes, header says %d", e.got, e.want)
}

func (e *sizeMismatch) Unwrap() error { return trace.ErrCorrupt }

// cmdlineMap parses saved_cmdlines ("pid comm" per line).
func cmdlineMap(b []byte) map[int32]string {
	m := map[int32]string{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		sp := bytes.IndexByte(line, ' ')
		if sp <= 0 {
			continue
		}
		pid, err := strconv.ParseInt(string(line[:sp]), 10, 32)
		if err != nil {
			continue
		}
		m[int32(pid)] = string(line[sp+1:])
	}
	return m
}

// walkDataSections walks a v7 file's sections from the first one (at
// from, one after another, as trace-cmd writes them: a 16-byte header of
// u16 id, u16 flags, u32 string id, u64 size, then size bytes; the
// shipped v7 files' data sections are id 3, flags 0 uncompressed and 1
// with zstd) and returns the ranges of the CPU data sections (id
// optBuffer). Only a walk that ends exactly at the file's end (or at
// another trace.dat joined after it) is trusted: one that meets bytes
// that cannot be a header (a size past 2^50, flags other than 0 and 1) or
// a section the file cuts returns none (the file is cut or damaged there,
// or not laid out in sections: the tests' hand-made files).
func (f *file) walkDataSections(from int64) [][2]int64 {
	var out [][2]int64
	off := from
	for off >= 0 && off+16 <= f.size {
		h, err := f.readAt(off, 16)
		if err != nil {
			return nil
		}
		if string(h[:len(Magic)]) == Magic {
			return out
		}
		id, flags, size := f.order.Uint16(h), f.order.Uint16(h[2:]), f.order.Uint64(h[8:])
		end := off + 16 + int64(size)
		if size > 1<<50 || flags > sectionFlagCompressed || end > f.size {
			return nil
		}
		if id == optBuffer && size > 0 {
			out = append(out, [2]int64{off + 16, end})
		}
		off = end
	}
	if off != f.size {
		return nil
	}
	return out
}

// dataLimit returns where the CPU data of a buffer whose CPU data begin
// at offset at must end: the end of the v7 data section holding at, or,
// for v6 or when no section holds it, the file's size; bySection says
// which.
func (f *file) dataLimit(at int64) (limit int64, bySection bool) {
	for _, r := range f.dataSections {
		if at >= r[0] && at < r[1] {
			return r[1], true
		}
	}
	return f.size, false
}

// chunksFit reports whether compressed CPU data can begin at offset at
// and end at end or less than a page before it: a chunk count (1 to
// 2^20), then that many chunks of a 4-byte compressed size, a 4-byte size
// (a whole number of pages) and the compressed bytes, the last ending
// there (trace-cmd's framing: recoverBuffers). Uncompressed data cannot
// be told from their place; they always fit.
func (f *file) chunksFit(at, end int64) bool {
	if f.comp == "" {
		return true
	}
	h, err := f.readAt(at, 4)
	if err != nil {
		return false
	}
	n := f.order.Uint32(h)
	if n == 0 || n > 1<<20 {
		return false
	}
	p := at + 4
	for ; n > 0; n-- {
		ch, err := f.readAt(p, 8)
		if err != nil || p+8 > end {
			return false
		}
		csize, usize := int64(f.order.Uint32(ch)), int64(f.order.Uint32(ch[4:]))
		if usize == 0 || usize%int64(f.pageSize) != 0 {
			return false
		}
		p += 8 + csize
		if p > end {
			return false
		}
	}
	return end-p < int64(f.pageSize)
}

// firstCPUOffset checks the offset of b.cpus[i], the table's first CPU
// with data, that lies past the data's end (limit; where says which) or
// before the file's start: its data end where the next CPU's begin, so they
// are read from the page boundary that puts them there when they fit
// (end, fits: checkCPUOffsets'), and the damage is said. (New-user pass
// 116 F3: CPU 0's offset past the file's end was taken for CPU 1's size
// running on to it, and all of CPU 0 was lost.)
func (f *file) firstCPUOffset(b *buffer, i int, limit int64, where string, end func(cpuData) int64, fits func(cpuData, int64, int64) bool) {
	page := int64(f.pageSize)
	cd := &b.cpus[i]
	k := slices.IndexFunc(b.cpus[i+1:], func(n cpuData) bool { return n.offset > 0 && n.size > 0 && n.offset < limit })
	if k < 0 {
		return
	}
	next := b.cpus[i+1+k]
	at := (next.offset - (end(*cd) - cd.offset)) / page * page
	if at <= 0 || !fits(*cd, at, next.offset) {
		return
	}
	what := where
	if cd.offset < 0 {
		what = "before the file's start"
	}
	f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table places its data (%d bytes) at offset %d, %s: a damaged offset; read from offset %d they end where CPU %d's data begin (offset %d), and are read there", cd.cpu, cd.size, cd.offset, what, at, next.cpu, next.offset))
	cd.offset = at
}

// checkCPUOffsets checks b's CPU table against the layout trace-cmd
// writes: the CPUs' data in the table's order, each from the page boundary
// after the one before (checkCPUSizes), within the file (v6) or within
// the v7 data section that holds them (dataLimit). Damage found is said
// in f.sizeDamage:
//   - an offset past the data's end while the CPU before it ends inside
//     it (a cut file ends the CPU before too): the CPU's data are read
//     where they follow that CPU's, if they fit there;
//   - an offset inside the data of the CPU before it (or the same), when the CPU's
//     data read where they follow that CPU's end where the next CPU's
//     data begin (or the data's end, for the last), and read at the
//     offset do not: the offset is the damaged entry, not the size
//     before it, and the data are read there;
//   - an entry that is the one before's, offset and size: the bytes
//     between that CPU's data and the next's (or the data's end) are the
//     CPU's;
//   - v7: a last CPU whose data end short of its section's end (a page
//     or more uncompressed, more than the chunk count's 4 bytes
//     compressed): its data are read to the section's end.
//
// Before, a damaged offset was taken as the CPU before it being too long
// or the file cut: that CPU was read up to the offset (a size of 1 TB
// "repaired"), the next CPU's pages read as its own and dropped as out of
// line (1391 and 517 events of a v7 file), and the file called truncated
// by 1 TB; and a short last size dropped the rest of its CPU without a
// word (634 of 1288 switches of a v7 file; new-user passes 113 F6 and 114
// F1, F2).
func (f *file) checkCPUOffsets(b *buffer) {
	page := int64(f.pageSize)
	first := slices.IndexFunc(b.cpus, func(cd cpuData) bool { return cd.offset > 0 && cd.size > 0 && cd.offset < f.size })
	if first < 0 {
		return
	}
	limit, bySection := f.dataLimit(b.cpus[first].offset)
	where := fmt.Sprintf("past the file's end (%d bytes)", f.size)
	if bySection {
		where = fmt.Sprintf("past the end of its data section (offset %d)", limit)
	}
	end := func(cd cpuData) int64 { // where the CPU's data end, its chunk count allowed for (newCPUStream)
		if f.comp != "" {
			return cd.offset + cd.size + 4
		}
		return cd.offset + cd.size
	}
	// fits reports whether the data of cd read at offset at end where the
	// data after them begin (following), or within a page before.
	fits := func(cd cpuData, at, following int64) bool {
		cd.offset = at
		e := end(cd)
		return e <= following && following-e < page && f.chunksFit(at, following)
	}
	prev := -1
	for i := range b.cpus {
		cd := &b.cpus[i]
		if prev < 0 && cd.size > 0 && (cd.offset < 0 || cd.offset >= limit) {
			f.firstCPUOffset(b, i, limit, where, end, fits)
		}
		if cd.offset <= 0 || cd.size <= 0 {
			continue
		}
		if prev >= 0 {
			p := b.cpus[prev]
			pend := end(p)
			want := (pend + page - 1) / page * page
			if pend <= limit && cd.offset != want && cd.offset != pend {
				following := limit
				for _, n := range b.cpus[i+1:] {
					if n.offset > 0 && n.size > 0 {
						following = n.offset
						break
					}
				}
				switch {
				case cd.offset >= limit:
					there := end(cpuData{offset: want, size: cd.size}) <= limit && f.chunksFit(want, min(following, limit))
					at := "cannot be located"
					if there {
						at = fmt.Sprintf("are read at offset %d, where they follow CPU %d's", want, p.cpu)
					}
					f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table places its data (%d bytes) at offset %d, %s, where CPU %d's data end at offset %d, inside it: a damaged offset; the CPU's data %s", cd.cpu, cd.size, cd.offset, where, p.cpu, pend, at))
					if there {
						cd.offset = want
					} else {
						cd.size = 0
					}
				case cd.offset >= p.offset && cd.offset < pend && fits(*cd, want, following) && !fits(*cd, cd.offset, following):
					f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table places its data (%d bytes) at offset %d, inside CPU %d's (offset %d, %d bytes), and read where they follow CPU %d's they end where the data after them begin (offset %d): a damaged offset; the CPU's data are read at offset %d", cd.cpu, cd.size, cd.offset, p.cpu, p.offset, p.size, p.cpu, following, want))
					cd.offset = want
				case cd.offset%page != 0 && fits(*cd, want, following) && !fits(*cd, cd.offset, following):
					// trace-cmd begins each CPU's data on a page boundary
					// (new-user pass 116 F4: 100 bytes off failed the whole
					// file, and --lenient lost the CPU).
					f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table places its data (%d bytes) at offset %d, not on a page boundary (%d bytes), and read where they follow CPU %d's they end where the data after them begin (offset %d): a damaged offset; the CPU's data are read at offset %d", cd.cpu, cd.size, cd.offset, page, p.cpu, following, want))
					cd.offset = want
				case cd.offset == p.offset && cd.size == p.size && want < following && (f.comp == "" && following-want >= page || f.comp != "" && following-want > 4) && f.chunksFit(want, following):
					// The whole entry is the one before's, copied; the
					// bytes between that CPU's data and the next's are
					// no one's: this CPU's.
					size := following - want
					if f.comp == "" {
						size = size / page * page
					} else {
						size -= 4
					}
					f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table gives its data as CPU %d's (%d bytes at offset %d): a damaged entry; the %d bytes between CPU %d's data and the data after them (offset %d to %d) are read as CPU %d's", cd.cpu, p.cpu, cd.size, cd.offset, size, p.cpu, want, following, cd.cpu))
					cd.offset, cd.size = want, size
				}
			}
		}
		prev = i
	}
	if !bySection {
		return
	}
	last := -1
	for i, cd := range b.cpus {
		if cd.offset > 0 && cd.size > 0 && (last < 0 || cd.offset > b.cpus[last].offset) {
			last = i
		}
	}
	cd := &b.cpus[last]
	e := end(*cd)
	short := f.comp == "" && limit-e >= page || f.comp != "" && limit-e > 4
	shared := slices.ContainsFunc(b.cpus, func(o cpuData) bool { return o.cpu != cd.cpu && o.size > 0 && o.offset == cd.offset })
	if e > limit || !short || shared {
		return // (a CPU sharing its offset: checkCPUSizes reads those data once)
	}
	size := limit - cd.offset
	if f.comp == "" {
		size = size / page * page
	} else {
		size -= 4
	}
	f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table gives its data %d bytes at offset %d, ending at %d, and its data section goes on to offset %d: a damaged size, the CPU's %d bytes to there read", cd.cpu, cd.size, cd.offset, e, limit, size))
	cd.size = size
}

// checkCPUSizes checks b's CPU table (v6, or v7's BUFFER option) against
// how trace-cmd lays the CPUs' data out: one after another, each from a
// page boundary (output_v6_cpu_data, and v7's out_write_cpu_data; the
// shipped v6 and uncompressed v7 files' data abut: CPU 0 at 2052096,
// 253952 bytes, CPU 1 at 2306048; the zstd one's CPU 0 ends at 177909 and
// CPU 1 begins at the next page, 180224). Damage found is said in
// f.sizeDamage, and what can be read is read once:
//   - a CPU whose offset is another's (an entry pointing at the data of a
//     CPU before it in the table): the data are read once, as the first
//     CPU's; the other's cannot be located (before, the events were read
//     twice, once on each CPU: new-user pass 113 F5);
//   - a size that runs past the next CPU's offset: the CPU's data are read
//     up to there (uncompressed: its whole pages; compressed: its chunks
//     up to there, the chunk count's 4 bytes allowed for as
//     newCPUStream does);
//   - uncompressed, a size that ends a page or more before the next CPU's
//     offset: the pages up to that offset are read (a bad page among them
//     is the page reader's damage). Before, a size of 40960 for 258048
//     bytes dropped CPU 0's last 2.46 s without a word, and stats read
//     that time as busy (new-user pass 112 F1). A compressed CPU's data
//     end where its chunks do: a short size there is the chunk reader's
//     to find.
//
// The last CPU's end cannot be told (trailing bytes may be another file:
// trailingAt).
func (f *file) checkCPUSizes(b *buffer) {
	page := int64(f.pageSize)
	if page <= 0 {
		return
	}
	f.checkCPUOffsets(b)
	order := make([]int, 0, len(b.cpus))
	first := map[int64]int{} // offset: the table's first CPU there
	for i, cd := range b.cpus {
		if cd.offset <= 0 || cd.size < 0 {
			continue
		}
		// An empty CPU may share its offset with the next one's data.
		if k, ok := first[cd.offset]; ok && cd.size > 0 {
			f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table places its data at offset %d, where CPU %d's are: a damaged entry, those %d bytes read once, as CPU %d's; CPU %d's data cannot be located", cd.cpu, cd.offset, b.cpus[k].cpu, b.cpus[k].size, b.cpus[k].cpu, cd.cpu))
			b.cpus[i].size = 0
			continue
		}
		if cd.size > 0 {
			first[cd.offset] = i
		}
		order = append(order, i)
	}
	// An empty CPU sorts before data at its offset.
	slices.SortFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(b.cpus[x].offset, b.cpus[y].offset), cmp.Compare(b.cpus[x].size, b.cpus[y].size))
	})
	for k := 0; k+1 < len(order); k++ {
		cd, next := &b.cpus[order[k]], b.cpus[order[k+1]]
		end := cd.offset + cd.size
		var size int64
		switch {
		case f.comp != "" && end <= next.offset:
			continue
		case f.comp != "":
			size = next.offset - cd.offset - 4 // newCPUStream reads 4 bytes past the size
		case end <= next.offset && next.offset-end < page:
			continue // abuts, or within a page's padding
		default:
			size = (next.offset - cd.offset) / page * page
		}
		if size == cd.size || size < 0 {
			continue
		}
		f.sizeDamage = append(f.sizeDamage, fmt.Sprintf("CPU %d: the CPU table gives its data %d bytes at offset %d, and CPU %d's data begin at offset %d: a damaged size, the CPU's %d bytes before them read", cd.cpu, cd.size, cd.offset, next.cpu, next.offset, size))
		cd.size = size
	}
}
