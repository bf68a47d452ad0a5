package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/internal/pagetouch"
)

// Source is a time-ordered stream of scheduler events: a trace file being
// read, a live capture, or a replay's prediction. Next returns events in
// non-decreasing Time order and io.EOF after the last one; any other error
// is fatal for the stream (events already returned stay valid).
type Source interface {
	Next() (Event, error)
	// Meta describes the trace. Fields a format does not carry are zero;
	// counters such as lost events grow while the stream is read.
	Meta() *Meta
	Close() error
}

// BatchSource is a Source that can also deliver many events per call:
// NextBatch fills dst from the start and returns how many events it wrote,
// at least one, or 0 and the terminal error Next would have returned
// (io.EOF at the end). Consumers that read whole traces use it when the
// source has it (see report's prefetcher); mixing it with Next is allowed.
type BatchSource interface {
	Source
	NextBatch(dst []Event) (int, error)
}

// EventBatch is a batch of events handed over by pointer (PointerSource,
// ReadPointers). Events are the batch's events in order; each points into
// Store or into the source's own memory, and stays valid until the batch is
// read into again.
type EventBatch struct {
	// Events has the batch's capacity as its cap; a read sets its length.
	Events []*Event
	// Store is room for cap(Events) events, where a source writes the
	// events it keeps nowhere else.
	Store []Event
	// Held belongs to the source that reads into the batch: what the
	// batch's events live in, given back when the batch is read into again.
	Held any
}

// NewEventBatch returns an empty batch of capacity n. Every page of its
// Store is written once (pagetouch): a batch waits for its first use while
// the garbage collector may scan it.
func NewEventBatch(n int) *EventBatch {
	b := &EventBatch{Events: make([]*Event, 0, n), Store: make([]Event, n)}
	pagetouch.Slice(b.Store)
	return b
}

// PointerSource is a BatchSource that can also hand its events over by
// pointer, without copying them into the consumer's memory: NextPointers
// sets b.Events (from the start, at most cap(b.Events)) to the next events,
// at least one, or returns the terminal error Next would have returned
// (io.EOF at the end) with no events. The events stay valid until b is
// passed to NextPointers again; b must only ever be read into from this
// source. Mixing it with Next and NextBatch is allowed.
type PointerSource interface {
	BatchSource
	NextPointers(b *EventBatch) error
}

// ErrCorrupt is wrapped by readers' errors for input that breaks its
// format's rules (as opposed to I/O errors and unsupported features).
var ErrCorrupt = errors.New("corrupt trace")

// ErrUnknownFormat is returned by Open when no registered reader recognizes
// the input.
var ErrUnknownFormat = errors.New("unknown trace format")

// Meta describes a trace: where and how it was recorded and what went wrong
// while reading it.
type Meta struct {
	Format    string   // registered format name, e.g. "perf.data"
	Hostname  string   // uname -n of the recording machine
	OSRelease string   // uname -r
	Arch      string   // uname -m
	Tool      string   // recorder and version, e.g. "perf 6.1.187"
	Cmdline   []string // the recorder's command line
	// RecordedCPUs are the CPUs the recorder limited its capture to
	// (traceview record --cpu, written in the file's header), sorted; nil
	// when it watched every CPU or the file does not say (RecordedCPUs,
	// the function, then reads a perf command line).
	RecordedCPUs []CPU
	NrCPUs       int    // CPUs online when recorded (0: unknown)
	NrCPUsAvail  int    // CPUs available (0: unknown)
	Clock        string // clock of the event times, e.g. "perf local_clock"
	// Records counts the records read, of every type, as perf counts them
	// (session stats nr_events[0]: `perf report --stats` "TOTAL events",
	// the "out of" of perf sched latency's lost-events INFO line): set by
	// the perf.data reader, 0 for other formats.
	Records   int64
	FirstTime int64 // ns, first sample time from the header (0: unknown)
	LastTime  int64 // ns, last sample time from the header (0: unknown)
	// SpanFrom says where FirstTime and LastTime come from when the
	// header did not give them.
	SpanFrom SpanSource
	// CutAt is the number of bytes of the input read when it ended inside
	// a record (a stream cut short: `head -c N`); 0 when it was not.
	CutAt int64
	// LLCs lists the sets of CPUs that share a last-level cache on the
	// recording machine, as CPU lists ("0-1"); nil when the trace does not
	// say (perf.data's HEADER_CACHE does). See LLCSize.
	LLCs []string

	// Lost lists windows where the recorder lost events, per CPU. A window
	// with Count 0 is time the trace did not observe on that CPU, with an
	// unknown number of events lost (an overwritten ring buffer before the
	// CPU's first surviving event).
	Lost []LostWindow
	// LostUnplaced counts events the trace says were lost without saying on
	// which CPU or when (ftrace's entries-written minus entries-in-buffer:
	// events the ring buffer overwrote). They are not in Lost's counts.
	LostUnplaced uint64
	// LostInFile counts events the file held but the reader could not
	// read: those of a damaged block, or of the block a cut file ends in
	// (a .tv file's block headers say how many). They are not in Lost's
	// counts nor LostUnplaced (the recorder's losses). A file cut before
	// its end may have held more after the cut that nothing counts.
	LostInFile uint64
	// Warnings are counted problems met while reading; see Warnings.Add.
	Warnings Warnings

	// Cgroups maps the cgroup ids of the events (Event.Cgroup) to their
	// paths relative to the cgroup v2 mount ("/" the root,
	// "/system.slice/ssh.service"); nil when the source has none. A
	// cgroup removed before it was resolved is absent.
	Cgroups map[uint64]string
	// CgroupsMu, when set, guards Cgroups: a source that adds to the table
	// while it is read (perf.data's PERF_RECORD_CGROUP, which perf record
	// --all-cgroups writes into the data section, not the header) sets it
	// at open, so that a consumer in another goroutine can look paths up
	// during the stream with CgroupPath. nil: the table is complete at
	// open (traceview's files) or the source has none.
	CgroupsMu *sync.RWMutex
	// CgroupSettings are the CPU-controller settings of the task groups
	// the trace saw, in the order read (a group read again after a change
	// appears again with a later Time); nil when the source carries none
	// (perf.data, ftrace).
	CgroupSettings []CgroupSettings
	// CgroupStats are readings of the groups' cpu.stat bandwidth counters
	// (traceview record reads each group of CgroupSettings at the start
	// and at the end of a file), in the order read; the difference of two
	// readings of a path (CgroupStatDelta) is what the kernel counted in
	// between. nil when the source carries none.
	CgroupStats []CgroupStat
	// Autogroup says whether kernel.sched_autogroup_enabled was set when
	// recorded: 1 on, -1 off, 0 unknown (traceview record reads it; the
	// replay infers sessions from the process tree either way).
	Autogroup int8
	// TaskAutogroups maps the processes of the trace that ran in an
	// autogroup (in the root cpu group, with the sysctl on) to its path as
	// /proc/PID/autogroup names it ("/autogroup-24"; the settings of each
	// are in CgroupSettings under that path); nil when the source carries
	// none (perf.data, ftrace; traceview record files before 2026-12-06).
	// traceview record reads each process at the start or when it first
	// sees it (within 100 ms) and again for 1 s after that (setsid(1)
	// calls setsid(2) as it starts), so a process that called setsid(2)
	// later keeps its old session here.
	TaskAutogroups map[PID]string
	// TaskAffinity maps the processes of the trace whose CPU affinity the
	// recording read to the CPUs they could run on (their main thread's
	// Cpus_allowed_list, as traceview record read it with their
	// autogroup): every process it read since 2026-12-07, only those that
	// could not run on every CPU before; nil when the source carries none.
	TaskAffinity map[PID][]CPU
	// Stacks is the stack table that Event.Stack indexes: Stacks[i].ID ==
	// i+1. Complete once the source has returned io.EOF (a stream may
	// carry it at its end).
	Stacks []Stack
}

// SpanSource says where a Meta's FirstTime and LastTime come from.
type SpanSource uint8

const (
	// SpanFromHeader: the file's header says them (perf.data's
	// HEADER_SAMPLE_TIME, a .tv converted from one), or they are unknown.
	SpanFromHeader SpanSource = iota
	// SpanFromTrailer: a .tv trailer's, the first and last nonzero event
	// times its writer wrote (traceview record's files).
	SpanFromTrailer
	// SpanFromEvents: the first and last nonzero times of the events the
	// reader delivered, e.g. up to where a .tv without trailer was cut
	// short, or a perfetto trace's events.
	SpanFromEvents
)

// LostWindow says that Count events were lost on CPU between Start and End
// (ns). Start is the last event time seen on that CPU before the loss (or
// End when none), End the time the loss was reported.
type LostWindow struct {
	CPU        CPU
	Count      uint64
	Start, End int64
}

// String says what the window means for people: "12 events lost on CPU 1
// between 1.000000 s and 1.500000 s", or for a Count 0 window "CPU 1
// unobserved between ... (events lost there, number unknown)".
func (l LostWindow) String() string {
	cpu := fmt.Sprintf("CPU %d", l.CPU)
	if l.CPU < 0 {
		cpu = "every CPU"
	}
	// (Times cut to the microsecond as every other warning's, FormatSeconds:
	// rounded, one window read two ways, new-user pass 99 F3.)
	from, to := FormatSeconds(l.Start, 6), FormatSeconds(l.End, 6)
	if l.Count == 0 {
		return fmt.Sprintf("%s unobserved between %s s and %s s (events lost there, number unknown)", cpu, from, to)
	}
	return fmt.Sprintf("%d events lost on %s between %s s and %s s", l.Count, cpu, from, to)
}

// Warnings counts non-fatal problems by message key, keeping the first
// detailed message of each. The zero value is ready to use. It is safe for
// concurrent use.
type Warnings struct {
	mu    sync.Mutex
	items []Warning
	index map[string]int
}

// Warning is a counted problem: Key is a stable identifier such as
// "unknown-record-type", Message the first occurrence's one-line text.
// CountInMessage says that Message already states Count (as in "164
// scheduling delays had no recorded switch-in"), so String does not repeat
// it.
type Warning struct {
	Key            string `json:"key"`
	Count          int    `json:"count"`
	Message        string `json:"message"`
	CountInMessage bool   `json:"count_in_message,omitempty"`
	// Unit is what Count counts when it is not occurrences of the
	// problem, as "events in all" for the events lost in damaged blocks
	// (AddCount); "" for occurrences.
	Unit string `json:"unit,omitempty"`
	// Others are the messages of later occurrences that differ from
	// Message, for a warning whose every occurrence names what it lost
	// (AddEach: each damaged block's offset, each unobserved window), up
	// to MaxOthers of them.
	Others []string `json:"others,omitempty"`
	// OthersLeft counts the occurrences with messages of their own beyond
	// MaxOthers, not kept.
	OthersLeft int `json:"others_left,omitempty"`
	// Each says the warning was counted by AddEach: a merge (AddScoped)
	// keeps the other part's messages too.
	Each bool `json:"-"`
}

// MaxOthers is how many later occurrences' messages a warning keeps
// (Warning.Others): a file damaged in a hundred places names the first
// MaxOthers+1 of them, a line of about 1 KB at the readers' 100-odd
// characters a message, and counts the rest.
const MaxOthers = 7

// String renders the warning for people: its message, followed by "(N
// times)" when it was counted more than once and the message does not
// state the count itself.
func (w Warning) String() string {
	if len(w.Others) > 0 {
		// Each occurrence said: "(3 times)" after the first one's offset
		// hid the other two (new-user pass 88 F2).
		s := w.Message + "; " + strings.Join(w.Others, "; ")
		if w.OthersLeft > 0 {
			s += fmt.Sprintf("; and %d more (%d times in all)", w.OthersLeft, w.Count)
		}
		return s
	}
	if w.Unit != "" && !w.CountInMessage {
		return fmt.Sprintf("%s (%d %s)", w.Message, w.Count, w.Unit)
	}
	if w.Count > 1 && !w.CountInMessage {
		return fmt.Sprintf("%s (%d times)", w.Message, w.Count)
	}
	return w.Message
}

// Add counts one occurrence of key; the message (fmt.Sprintf(format, args))
// is kept only for the first occurrence.
func (w *Warnings) Add(key, format string, args ...any) { w.AddN(key, 1, format, args...) }

// AddN counts n occurrences of key.
func (w *Warnings) AddN(key string, n int, format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.index == nil {
		w.index = map[string]int{}
	}
	if i, ok := w.index[key]; ok {
		w.items[i].Count += n
		return
	}
	w.index[key] = len(w.items)
	w.items = append(w.items, Warning{Key: key, Count: n, Message: fmt.Sprintf(format, args...)})
}

// AddEach counts one occurrence of key as Add does, and keeps its message
// too when it differs from the first's and from those kept
// (Warning.Others, at most MaxOthers).
func (w *Warnings) AddEach(key, format string, args ...any) {
	w.mu.Lock()
	i, ok := w.index[key]
	w.mu.Unlock()
	if !ok {
		w.Add(key, format, args...)
		w.mu.Lock()
		w.items[w.index[key]].Each = true
		w.mu.Unlock()
		return
	}
	msg := fmt.Sprintf(format, args...)
	w.mu.Lock()
	defer w.mu.Unlock()
	it := &w.items[i]
	it.Count++
	if msg == it.Message {
		return
	}
	it.addOther(otherMessage(it.Message, msg))
}

// addOther keeps m in w.Others unless it is the first message or kept
// already; past MaxOthers it is counted in OthersLeft.
func (w *Warning) addOther(m string) {
	switch {
	case m == w.Message || slices.Contains(w.Others, m):
	case len(w.Others) < MaxOthers:
		w.Others = append(w.Others, m)
	default:
		w.OthersLeft++
	}
}

// otherMessage is msg as kept in Others of a warning whose first message
// is first: without the reader's name that both begin with ("perfetto: ",
// "traceview format: "), said once.
func otherMessage(first, msg string) string {
	if p, _, ok := strings.Cut(first, ": "); ok && msg != first {
		return strings.TrimPrefix(msg, p+": ")
	}
	return msg
}

// AddCount adds n to key's count of something other than occurrences,
// named by unit (as "events in all"): String then says "(N unit)", not
// "(N times)".
func (w *Warnings) AddCount(key string, n int, unit, format string, args ...any) {
	w.AddN(key, n, format, args...)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items[w.index[key]].Unit = unit
}

// AddScoped counts wn (its Key, Count, Unit, CountInMessage and, the
// first time, Message) apart from the warnings of the same key added
// under another scope or without one: Concat keeps each part's warnings
// its own (two dumps' trigger warnings are two lines, each naming its
// file), while List still reports wn.Key, so that the warning is sorted
// by its kind as any other.
func (w *Warnings) AddScoped(scope string, wn Warning) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.index == nil {
		w.index = map[string]int{}
	}
	id := wn.Key
	if scope != "" {
		id = scope + "\x00" + wn.Key
	}
	if i, ok := w.index[id]; ok {
		it := &w.items[i]
		it.Count += wn.Count
		if wn.Each || it.Each {
			for _, m := range append([]string{wn.Message}, wn.Others...) {
				it.addOther(otherMessage(it.Message, m))
			}
			it.OthersLeft += wn.OthersLeft
		}
		return
	}
	w.index[id] = len(w.items)
	wn.Others = slices.Clone(wn.Others)
	w.items = append(w.items, wn)
}

// List returns the warnings in first-seen order.
func (w *Warnings) List() []Warning {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Warning(nil), w.items...)
}

// ReadOptions tune how readers treat input that breaks its format's rules,
// and how they use the machine.
type ReadOptions struct {
	// Lenient turns a malformed record that a reader can step over (for
	// example an unparsable line of a text trace) into a counted warning in
	// Meta.Warnings instead of an error.
	Lenient bool
	// Decoders is how many goroutines decode ahead of the reader, for
	// readers that can (perf.data mapped from a file): 0 chooses from
	// GOMAXPROCS, -1 none. The events are the same either way.
	Decoders int
	// Stop, when not nil, is asked while a reader copies its input
	// before it can read it (a file-mode perf.data from a pipe, whose
	// index is at its end): once it returns true, the open fails with an
	// error wrapping ErrStopped that says how much had come.
	Stop func() bool
}

// Format describes a registered trace reader.
type Format struct {
	Name        string // short name, e.g. "perf.data"
	Description string // one line for `traceview formats`
	// Detect reports whether head (the first bytes of the input, up to 64
	// KiB, fewer for a short input) looks like this format.
	Detect func(head []byte) bool
	// Open starts reading with opts. r is positioned at the start of the
	// input; it is an *os.File (seekable) when the input is a regular file.
	Open func(r io.Reader, opts ReadOptions) (Source, error)
}

var (
	formatsMu sync.Mutex
	formats   []Format
)

// Register adds a reader; readers call it from init. Formats are tried in
// registration order, binary formats should register before text ones.
func Register(f Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	formats = append(formats, f)
}

// Formats returns the registered formats sorted by name.
func Formats() []Format {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	out := append([]Format(nil), formats...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HeadSize is how many leading bytes Open shows to Format.Detect.
const HeadSize = 64 << 10

// Detect returns the format of head, or ErrUnknownFormat.
func Detect(head []byte) (Format, error) {
	formatsMu.Lock()
	fs := append([]Format(nil), formats...)
	formatsMu.Unlock()
	for _, f := range fs {
		if f.Detect(head) {
			return f, nil
		}
	}
	return Format{}, ErrUnknownFormat
}

// Open opens a trace file of any registered format, detected by content,
// with the zero ReadOptions (ReadOptions.Open with others).
// path "-" reads standard input (stream formats only, e.g. perf.data in pipe
// mode). A gzip- or zstd-compressed trace is recognized by its magic bytes
// and decompressed while it is read (see OpenReader). Errors name the path.
func Open(path string) (Source, error) { return ReadOptions{}.Open(path) }

// Open is trace.Open with these options.
func (o ReadOptions) Open(path string) (Source, error) {
	var f *os.File
	if path == "-" {
		f = os.Stdin
	} else {
		var err error
		f, err = os.Open(path)
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory", path)
		}
	}
	src, err := o.OpenReader(f, path)
	if err != nil {
		if f != os.Stdin {
			f.Close()
		}
		return nil, err
	}
	return src, nil
}

// OpenReader detects the format of r and opens it. name is used in errors.
// When r is a regular *os.File it is rewound and handed to the reader
// directly; otherwise the reader gets a buffered reader that replays the
// sniffed head.
//
// Input that starts with the gzip magic (1f 8b, RFC 1952) or the zstd
// frame magic (28 b5 2f fd, RFC 8878) is decompressed as a stream
// (compress/gzip, github.com/klauspost/compress/zstd) and the format of
// the decompressed bytes detected. The reader then sees a stream, not a
// file: perf.data in file mode, which needs random access, is copied to a
// temporary file (traceview-*.perf.data in os.TempDir(), removed on Close;
// disk space the size of the decompressed trace), trace.dat is read into
// memory;
// stream formats (pipe-mode perf.data, traceview's own, text) decompress
// as they are read. Closing the Source closes the decompressor.
func OpenReader(r io.Reader, name string) (Source, error) {
	return ReadOptions{}.OpenReader(r, name)
}

// OpenReader is trace.OpenReader with these options.
func (o ReadOptions) OpenReader(r io.Reader, name string) (Source, error) {
	return o.openReader(r, name, 0)
}

// Magic numbers of the compressed containers OpenReader unwraps.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

func (o ReadOptions) openReader(r io.Reader, name string, depth int) (Source, error) {
	var head []byte
	var input io.Reader
	if f, ok := r.(*os.File); ok && isRegular(f) {
		buf := make([]byte, HeadSize)
		n, err := io.ReadFull(f, buf)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		head = buf[:n]
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		input = f
	} else {
		br := bufio.NewReaderSize(r, HeadSize)
		h, err := br.Peek(HeadSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		head = h
		input = br
	}
	if len(head) == 0 {
		return nil, fmt.Errorf("%s: empty input (0 bytes: a recording killed before it wrote anything, as by SIGKILL, leaves such a file)", name)
	}
	if bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, zstdMagic) {
		if depth > 0 {
			return nil, fmt.Errorf("%s: compressed twice: decompress it once first", name)
		}
		return o.openCompressed(input, name, bytes.HasPrefix(head, gzipMagic))
	}
	fm, err := Detect(head)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (see `traceview formats`)", name, err)
	}
	src, err := fm.Open(input, o)
	if err != nil {
		if strings.HasPrefix(err.Error(), fm.Name+": ") {
			return nil, fmt.Errorf("%s: %w", name, err) // the reader named its format already
		}
		return nil, fmt.Errorf("%s: %s: %w", name, fm.Name, err)
	}
	if m := src.Meta(); m != nil && m.Format == "" {
		m.Format = fm.Name
	}
	return src, nil
}

// openCompressed opens the trace inside a gzip (gz) or zstd stream r.
func (o ReadOptions) openCompressed(r io.Reader, name string, gz bool) (Source, error) {
	var dec io.Reader
	var closeDec func()
	what := "zstd"
	if gz {
		what = "gzip"
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		dec, closeDec = zr, func() { zr.Close() }
	} else {
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		dec, closeDec = zr, zr.Close
	}
	cut := &cutReader{r: dec, what: what}
	src, err := o.openReader(cut, name+" ("+what+")", 1)
	if err != nil {
		closeDec()
		if cut.hit && cut.n == 0 {
			// Not an empty recording: the stream's first block is cut
			// (zstd and gzip decompress whole blocks), so nothing of the
			// trace could be read (new-user pass 64 F7: "empty input (0
			// bytes: a recording killed ...)" of a 60000-byte file).
			return nil, fmt.Errorf("%s (%s): the compressed stream is cut short inside its first block: nothing of the trace inside could be decompressed (the file is cut short): %w", name, what, ErrCorrupt)
		}
		if cut.hit {
			return nil, fmt.Errorf("%w (the %s stream ends early, after %d decompressed bytes: the file is cut short)", err, what, cut.n)
		}
		return nil, err
	}
	c := &decompressedSource{Source: src, closeDec: closeDec, cut: cut}
	if b, ok := src.(BatchSource); ok {
		return &decompressedBatchSource{decompressedSource: c, b: b}, nil
	}
	return c, nil
}

// cutReader reads a decompressor and turns the end of a compressed stream
// cut short (io.ErrUnexpectedEOF: a gzip member or zstd frame that stops
// before its end, as head -c leaves it) into io.EOF, so that the format's
// reader reads what was decompressed as a file cut there, which each reader
// handles (it reads the events before the cut and says so). n counts the
// bytes decompressed.
type cutReader struct {
	r    io.Reader
	what string // "gzip" or "zstd"
	n    int64
	hit  bool // the stream was cut
}

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		c.hit = true
		err = io.EOF
	}
	return n, err
}

// decompressedSource is a Source read through a decompressor, which Close
// also closes. It passes SkipKinds on, and adds to Meta's warnings that the
// compressed stream was cut short once the reader has met the cut.
type decompressedSource struct {
	Source
	closeDec func()
	cut      *cutReader
	noted    bool
}

// Meta is the reader's, with a "truncated-compressed" warning once the
// compressed stream has been found cut short.
func (d *decompressedSource) Meta() *Meta {
	m := d.Source.Meta()
	if m != nil && d.cut.hit && !d.noted {
		d.noted = true
		m.Warnings.Add("truncated-compressed", "%s: the compressed stream ends early, after %d decompressed bytes: the file is cut short; read up to the cut", d.cut.what, d.cut.n)
	}
	return m
}

func (d *decompressedSource) SkipKinds(kinds ...Kind) { SkipKinds(d.Source, kinds...) }

// UseTaskRecords passes a consumer's request on (see TaskRecorder).
func (d *decompressedSource) UseTaskRecords() { UseTaskRecords(d.Source) }

// KeepRepeats passes a consumer's request on (see RepeatKeeper).
func (d *decompressedSource) KeepRepeats() { KeepRepeats(d.Source) }

// Describe passes the decompressed reader's Description on (see Describer).
func (d *decompressedSource) Describe() Description {
	desc, _ := Describe(d.Source)
	return desc
}

func (d *decompressedSource) Close() error {
	err := d.Source.Close()
	d.closeDec()
	return err
}

// decompressedBatchSource keeps the batch path of a source that has it.
type decompressedBatchSource struct {
	*decompressedSource
	b BatchSource
}

func (d *decompressedBatchSource) NextBatch(dst []Event) (int, error) { return d.b.NextBatch(dst) }

// NextPointers keeps the pointer path of a source that has it (see
// ReadPointers).
func (d *decompressedBatchSource) NextPointers(b *EventBatch) error { return ReadPointers(d.b, b) }

func isRegular(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular()
}

// SliceSource serves events from a slice; Meta may be nil. It is how replays
// and tests hand events to reports.
type SliceSource struct {
	Events []Event
	M      *Meta
	i      int
}

// NewSliceSource returns a Source over evs (which must be time-ordered).
func NewSliceSource(evs []Event, m *Meta) *SliceSource {
	if m == nil {
		m = &Meta{}
	}
	return &SliceSource{Events: evs, M: m}
}

// Next returns the next event or io.EOF.
func (s *SliceSource) Next() (Event, error) {
	if s.i >= len(s.Events) {
		return Event{}, io.EOF
	}
	s.i++
	return s.Events[s.i-1], nil
}

// Meta returns the metadata given at construction.
func (s *SliceSource) Meta() *Meta { return s.M }

// Close does nothing.
func (s *SliceSource) Close() error { return nil }

// ReadAll drains src into a slice (closing nothing). Meant for tests and
// small traces; analyses should stream.
func ReadAll(src Source) ([]Event, error) {
	var out []Event
	for {
		ev, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// OneCapture reports whether the traces described by metas are files of
// one recording, as record --rotate writes them (FILE.001.tv, ...): the
// same host, recorder and command line, a traceview capture, and time
// ranges that do not overlap. A task in several of them is one task.
func OneCapture(metas ...*Meta) bool {
	if !OneRecording(metas...) {
		return false
	}
	type span struct{ from, to int64 }
	spans := make([]span, len(metas))
	for i, m := range metas {
		spans[i] = span{m.FirstTime, m.LastTime}
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	for i := 1; i < len(spans); i++ {
		if spans[i].from < spans[i-1].to {
			return false
		}
	}
	return true
}

// CgroupPath returns the path of cgroup id in m.Cgroups and whether the
// table has it, holding CgroupsMu (when set) for the lookup: safe while a
// source still adds to the table in another goroutine.
// Predicted reports whether the trace is a prediction, not a recording: a
// replay's (traceview replay -w, Tool "traceview replay --policy P") or a
// synthetic workload's (traceview synth). Its CgroupStats are then the
// simulator's counts, not the kernel's.
func (m *Meta) Predicted() bool {
	return strings.HasPrefix(m.Tool, "traceview replay") || strings.HasPrefix(m.Tool, "traceview synth")
}

func (m *Meta) CgroupPath(id uint64) (string, bool) {
	if m.CgroupsMu != nil {
		m.CgroupsMu.RLock()
		defer m.CgroupsMu.RUnlock()
	}
	p, ok := m.Cgroups[id]
	return p, ok
}

// Cut reports whether the input was cut short (CutAt, or a reader's
// warning of a key holding "truncated": a file ending inside a record,
// frame or line, or without its trailer), so that events may have
// followed the last one read that no count includes.
func (m *Meta) Cut() bool {
	if m.CutAt > 0 {
		return true
	}
	for _, w := range m.Warnings.List() {
		if strings.Contains(w.Key, "truncated") {
			return true
		}
	}
	return false
}
