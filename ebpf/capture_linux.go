//go:build linux

package ebpf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	cilium "github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"

	"github.com/traceview/traceview/internal/kallsyms"
	"github.com/traceview/traceview/trace"
)

// hook is one tracepoint the capture attaches to.
type hook struct {
	group, name string
	// optional hooks are skipped on kernels that lack them instead of
	// making the capture fall back to classic tracepoints.
	optional bool
	// wakeup marks sched_wakeup, attached only with Options.Wakeups, and
	// runtime sched_stat_runtime, only with Options.Runtime.
	wakeup, runtime bool
}

// The hooks in attach order: sched_waking before sched_wakeup, so that a
// wakeup finds its waker from the start.
var hooks = []hook{
	{group: "sched", name: "sched_waking"},
	{group: "sched", name: "sched_wakeup", wakeup: true},
	{group: "sched", name: "sched_wakeup_new"},
	{group: "sched", name: "sched_switch"},
	{group: "sched", name: "sched_migrate_task"},
	{group: "sched", name: "sched_process_fork"},
	{group: "sched", name: "sched_process_exec"},
	{group: "sched", name: "sched_process_exit"},
	{group: "sched", name: "sched_stat_runtime", optional: true, runtime: true},
	{group: "task", name: "task_rename", optional: true},
}

// Capture is a loaded and attached set of capture programs.
type Capture struct {
	coll    *cilium.Collection
	links   []link.Link
	rings   *perfRings
	classic bool
	nCPU    int
	mu      sync.Mutex
	lost    []uint64 // per CPU, as reported by perf so far
	dec     *decoder
	opts    Options
	// warnings: what the capture could not do as it should (load time),
	// and CPUs that went offline or came online (checkHotplug), under mu.
	warnings []trace.Warning
	// attached is when the last program was attached: the capture's
	// events start there; stopped when Run stopped them (zero before).
	attached, stopped time.Time
	// attaching is when the first program was being attached: no event
	// of the capture is earlier (CLOCK_MONOTONIC ns).
	attaching int64
	// slab is the backlog's memory made by Options.Prefault, taken by Run.
	slab *slab
	// hp follows CPU hotplug (checkHotplug), on the drain's goroutine.
	hp hotplug
}

// Probe checks what a capture needs, without loading anything, and returns
// a one-line error that says how to fix the first missing piece: root
// privileges, kernel BTF, BPF perf event arrays, and tp_btf or (for classic
// tracepoints) a mounted tracefs. classic reports which program set Open
// would use.
func Probe(opts Options) (classic bool, err error) { return probe(opts, btf.NewCache()) }

func probe(opts Options, cache *btf.Cache) (classic bool, err error) {
	if os.Geteuid() != 0 {
		return false, fmt.Errorf("eBPF capture needs root (CAP_BPF and CAP_PERFMON): run it with sudo")
	}
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return false, fmt.Errorf("kernel BTF missing (/sys/kernel/btf/vmlinux): the capture needs a kernel built with CONFIG_DEBUG_INFO_BTF=y")
	}
	if err := features.HaveMapType(cilium.PerfEventArray); err != nil {
		return false, fmt.Errorf("kernel lacks BPF perf event arrays (Linux >= 4.4 needed): %w", err)
	}
	classic = opts.Classic || !haveTPBTF(cache)
	if classic {
		if _, err := os.Stat(tracefsRoot() + "/events/sched/sched_switch/id"); err != nil {
			return true, fmt.Errorf("tracefs is not mounted (needed for classic tracepoints on this kernel): mount it with 'mount -t tracefs nodev /sys/kernel/tracing'")
		}
	}
	return classic, nil
}

func tracefsRoot() string {
	if _, err := os.Stat("/sys/kernel/tracing/events"); err == nil {
		return "/sys/kernel/tracing"
	}
	return "/sys/kernel/debug/tracing"
}

// haveTPBTF reports whether the kernel has BTF-enabled tracepoints for every
// hook (a btf_trace_<hook> typedef in vmlinux BTF). features.HaveProgramType
// is not used: its Tracing probe fails with EPERM on some kernels that load
// tp_btf programs fine.
func haveTPBTF(cache *btf.Cache) bool {
	spec, err := cache.Kernel()
	if err != nil {
		return false
	}
	for _, h := range hooks {
		if !h.optional && !hasTPBTF(spec, h.name) {
			return false
		}
	}
	return true
}

func hasTPBTF(spec *btf.Spec, name string) bool {
	var td *btf.Typedef
	return spec.TypeByName("btf_trace_"+name, &td) == nil
}

// hookAvailable reports whether an optional hook exists on this kernel.
func hookAvailable(h hook, classic bool, cache *btf.Cache) bool {
	if classic {
		_, err := os.Stat(tracefsRoot() + "/events/" + h.group + "/" + h.name + "/id")
		return err == nil
	}
	spec, err := cache.Kernel()
	return err == nil && hasTPBTF(spec, h.name)
}

// threadSize returns the kernel's THREAD_SIZE (task stack size): 16 KiB on
// x86-64 and arm64 with 4 KiB pages, doubled by KASAN
// (arch/x86/include/asm/page_64_types.h), at least one page.
func threadSize() uint64 {
	size := uint64(16384)
	if cfg, err := os.ReadFile("/proc/config.gz"); err == nil && strings.Contains(string(gunzip(cfg)), "\nCONFIG_KASAN=y") {
		size *= 2
	}
	if p := uint64(os.Getpagesize()); p > size {
		size = p
	}
	return size
}

// PossibleCPUs returns the number of CPUs the kernel may ever bring online
// (/sys/devices/system/cpu/possible): valid CPU numbers are 0 to n-1.
func PossibleCPUs() (int, error) { return cilium.PossibleCPU() }

// Open loads the programs into the kernel and attaches them; recording
// starts at once, into the per-CPU perf buffers, and Run drains them. It uses the
// tp_btf programs where the kernel has every hook's BTF type, and falls back
// to classic tracepoints when they are missing or fail to load. Errors are one
// line and say what is missing (see Probe); a verifier rejection is wrapped
// as is.
func Open(opts Options) (*Capture, error) {
	kernelBTF := btf.NewCache()
	classic, err := probe(opts, kernelBTF)
	if err != nil {
		return nil, err
	}
	if err := rlimit.RemoveMemlock(); err != nil {
		return nil, fmt.Errorf("raise the locked-memory limit: %w", err)
	}
	c, err := load(opts, classic, kernelBTF)
	if err != nil && !classic {
		// tp_btf programs that do not load (an unusual kernel): classic
		// tracepoints may still work.
		if _, perr := probe(Options{Classic: true}, kernelBTF); perr == nil {
			if cc, cerr := load(opts, true, kernelBTF); cerr == nil {
				return cc, nil
			}
		}
	}
	return c, err
}

// load loads and attaches one program set.
func load(opts Options, classic bool, kernelBTF *btf.Cache) (*Capture, error) {
	nCPU, err := cilium.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("count CPUs: %w", err)
	}
	// Load only the maps and the chosen program set.
	var use []hook
	for _, h := range hooks {
		if h.optional && !hookAvailable(h, classic, kernelBTF) || h.wakeup && !opts.Wakeups || h.runtime && !opts.Runtime {
			continue
		}
		use = append(use, h)
	}
	// bpf_task_pt_regs (Linux >= 5.15) is offered to every tracing program
	// type alike (tp_btf included); the tp_btf programs fall back to a
	// bpf_probe_read_kernel copy of the saved registers where it is
	// missing, or where the programs that call it do not load.
	// Only x86-64's test reads them (arm64's reads preempt_count).
	ptRegs := !opts.noTaskPtRegs && features.HaveProgramHelper(cilium.Kprobe, asm.FnTaskPtRegs) == nil
	usesPtRegs := !classic && runtime.GOARCH == "amd64"
	coll, err := loadColl(opts, classic, use, ptRegs, kernelBTF)
	var warnings []trace.Warning
	if err != nil && ptRegs && usesPtRegs {
		if fb, fbErr := loadColl(opts, classic, use, false, kernelBTF); fbErr == nil {
			warnings = append(warnings, trace.Warning{Key: "no-task-pt-regs", Count: 1,
				Message: fmt.Sprintf("capture: the programs calling bpf_task_pt_regs did not load (%v); the interrupt-context test of each wakeup copies the saved registers with bpf_probe_read_kernel instead", err)})
			coll, err = fb, nil
		}
	} else if err == nil && !ptRegs && usesPtRegs {
		warnings = append(warnings, trace.Warning{Key: "no-task-pt-regs", Count: 1,
			Message: "capture: the kernel lacks bpf_task_pt_regs (Linux < 5.15): the interrupt-context test of each wakeup copies the saved registers with bpf_probe_read_kernel instead (slower)"})
	}
	if err != nil {
		return nil, err
	}
	// The kernel's BTF (parsed types) is no longer needed: free it now rather
	// than let the garbage collector find it while the workload runs.
	runtime.GC()
	c := &Capture{coll: coll, classic: classic, nCPU: nCPU, dec: newDecoder(classic, opts.Stacks), opts: opts, warnings: warnings}
	if opts.Prefault {
		c.slab = newSlab(DefaultMemoryBacklog, batchBytes)
	}
	c.attaching = monotonicNow()
	for _, h := range use {
		var l link.Link
		if classic {
			l, err = link.Tracepoint(h.group, h.name, coll.Programs[progName(h, true)], nil)
		} else {
			l, err = link.AttachTracing(link.TracingOptions{Program: coll.Programs[progName(h, false)]})
		}
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("attach to %s: %w", h.name, err)
		}
		c.links = append(c.links, l)
	}
	c.attached = time.Now()
	// The drain polls on a timer and never waits for a wakeup; a watermark
	// of half a buffer keeps perf from waking it (an irq_work and a
	// wakeup) for every record, its default.
	perCPU := perCPUBuffer(opts.BufferSize, nCPU, os.Getpagesize())
	if c.rings, err = openPerfRings(coll.Maps["events"], nCPU, perCPU, perCPU/2); err != nil {
		c.Close()
		return nil, fmt.Errorf("open perf buffers: %w", err)
	}
	return c, nil
}

// loadColl loads the maps and the programs of hooks use, with
// have_task_pt_regs set to ptRegs.
func loadColl(opts Options, classic bool, use []hook, ptRegs bool, kernelBTF *btf.Cache) (*cilium.Collection, error) {
	spec, err := loadSched()
	if err != nil {
		return nil, err
	}
	if err := setVars(spec, opts, ptRegs); err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, h := range use {
		keep[progName(h, classic)] = true
	}
	for name := range spec.Programs {
		if !keep[name] {
			delete(spec.Programs, name)
		}
	}
	if !classic {
		delete(spec.Maps, "wakers")
	}
	for _, m := range aggMaps {
		delete(spec.Maps, m)
	}
	if !opts.Stacks {
		// The programs reference the map; without --stacks it is never
		// written, so it is made as small as the kernel allows.
		spec.Maps["stacks"].MaxEntries = 1
	}
	return newCollection(spec, kernelBTF, "capture")
}

// newCollection loads spec, the what programs ("capture", "top"): a
// verifier rejection is one line (TRACEVIEW_BPF_DEBUG=1 prints the whole
// log on stderr).
func newCollection(spec *cilium.CollectionSpec, kernelBTF *btf.Cache, what string) (*cilium.Collection, error) {
	coll, err := cilium.NewCollectionWithOptions(spec, cilium.CollectionOptions{Cache: kernelBTF})
	if err != nil {
		var ve *cilium.VerifierError
		if errors.As(err, &ve) {
			if os.Getenv("TRACEVIEW_BPF_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "%+v\n", ve)
			}
			return nil, fmt.Errorf("the kernel's BPF verifier rejected the %s programs: %v", what, ve)
		}
		return nil, fmt.Errorf("load %s programs: %w", what, err)
	}
	return coll, nil
}

// progName is the BPF program (sched.c) for a hook.
func progName(h hook, classic bool) string {
	if classic {
		return "tp_" + h.name
	}
	return "tp_btf_" + h.name
}

func setVars(spec *cilium.CollectionSpec, opts Options, ptRegs bool) error {
	set := func(name string, v any) error {
		vs, ok := spec.Variables[name]
		if !ok {
			return fmt.Errorf("capture object lacks variable %s (regenerate with go generate ./ebpf/...)", name)
		}
		if err := vs.Set(v); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
		return nil
	}
	if err := set("thread_size", threadSize()); err != nil {
		return err
	}
	if ptRegs {
		if err := set("have_task_pt_regs", uint32(1)); err != nil {
			return err
		}
	}
	if opts.Stacks {
		if err := set("want_stacks", uint32(1)); err != nil {
			return err
		}
	}
	if opts.Wakeups {
		if err := set("want_wakeups", uint32(1)); err != nil {
			return err
		}
	}
	if opts.CPUs != nil {
		var mask [16]uint64
		for _, c := range opts.CPUs {
			if c < 0 || c >= 16*64 {
				return fmt.Errorf("CPU %d out of range 0..%d", c, 16*64-1)
			}
			mask[c/64] |= 1 << (c % 64)
		}
		if err := set("cpu_mask", mask); err != nil {
			return err
		}
		if err := set("filter_cpus", uint32(1)); err != nil {
			return err
		}
	}
	return nil
}

// Mode names the program set in use: "tp_btf" or "tracepoint".
// Attached returns when the capture's programs were attached (its events
// start there, before Run drains them): a capture of a set duration ends
// that long after it.
func (c *Capture) Attached() time.Time { return c.attached }

// Attaching returns when the first of the capture's programs was being
// attached (CLOCK_MONOTONIC ns, the events' clock): no event is earlier.
func (c *Capture) Attaching() int64 { return c.attaching }

// Stopped returns when Run stopped the programs (the zero time before):
// the capture's events end there.
func (c *Capture) Stopped() time.Time { return c.stopped }

func (c *Capture) Mode() string {
	if c.classic {
		return "tracepoint"
	}
	return "tp_btf"
}

// The drain sleeps between passes on a Go timer, not in a blocking
// epoll_wait: a goroutine blocked in a system call keeps Go's sysmon thread
// retaking its P and polling every 20 µs (runtime/proc.go, sysmon), a
// context switch each time on CPUs the workload is using. How long it
// sleeps follows the rate the last pass found (pollWait): long enough that
// the recorder wakes seldom, short enough that the busiest buffer fills to
// a quarter at most before the next pass. Each pass wakes Go's threads on
// the CPUs the workload uses; at a fixed 25 ms the recorder switched in and
// out 300-500 times a second during perf bench sched pipe. A drain whose
// consumer decodes as the records come (--rotate, --ring) sleeps
// decodingPollInterval at most, as before: under stress-ng --switch 4
// (30 s, --rotate 20s, two runs each) 100 ms passes lost 45-50 % of the
// records, 25 ms ones 40-42 % and the drain before this one 30-49 % (the
// storm makes more than a recorder sharing the 2 CPUs can keep), and the
// recorder's peak RSS was 2 MiB higher with 100 ms.
const (
	maxPollInterval      = 100 * time.Millisecond
	decodingPollInterval = 25 * time.Millisecond
	minPollInterval      = time.Millisecond
)

// pollWait returns how long the drain sleeps after a pass that found
// busiest bytes in the fullest of the per-CPU buffers of perCPU bytes,
// written in the time since (since the pass before began): the time that
// buffer takes at that rate to fill a quarter, within [minPollInterval,
// most].
func pollWait(busiest, perCPU int, since, most time.Duration) time.Duration {
	if busiest <= 0 || since <= 0 {
		return most
	}
	d := time.Duration(float64(since) * float64(perCPU/4) / float64(busiest))
	return min(max(d, minPollInterval), most)
}

// Run drains the perf buffers, calling emit with each event in time order,
// until ctx is done; then it detaches the programs, drains every record
// still in the buffers, emits what the backlog (Options.Backlog) still
// holds, and returns nil. Losses appear as trace.KindLost events (per CPU,
// at the next record read from that CPU). An error from emit stops Run and
// is returned.
func (c *Capture) Run(ctx context.Context, emit func(trace.Event) error) error {
	limit := c.opts.Backlog
	if limit == 0 {
		limit = DefaultMemoryBacklog
		if c.opts.SpillDir != "" {
			limit = DefaultBacklog
		}
	}
	q, err := newBacklog(c.opts.SpillDir, DefaultMemoryBacklog)
	if err != nil {
		return err
	}
	defer q.close()
	as := assembler{dec: c.dec}
	var work batch
	if limit < 0 {
		err = c.runRaw(ctx, false, newSlab(0, batchBytes), func(b *batch) (bool, error) { return false, as.batch(b, emit) })
	} else {
		// The hot path is a copy: the drain itself hands each batch to
		// the backlog, and the batches the backlog keeps in memory come
		// from one slab allocated now, before the workload runs, so that
		// the capture neither wakes a second goroutine (another of Go's
		// threads) per batch nor allocates enough to start the garbage
		// collector (whose workers run on every CPU).
		fresh := c.slab
		if c.slab = nil; fresh == nil {
			fresh = newSlab(min(q.memMax, DefaultMemoryBacklog), batchBytes)
		}
		err = c.runRaw(ctx, true, fresh, func(b *batch) (bool, error) {
			kept, err := q.push(b)
			if err != nil {
				return kept, err
			}
			for q.size() > limit {
				if err := q.pop(&work); err != nil {
					return kept, err
				}
				if err := as.batch(&work, emit); err != nil {
					return kept, err
				}
			}
			return kept, nil
		})
	}
	if err != nil {
		return err
	}
	for !q.empty() {
		if err := q.pop(&work); err != nil {
			return err
		}
		if err := as.batch(&work, emit); err != nil {
			return err
		}
	}
	return as.finish(emit)
}

// runRaw runs the drain until ctx is done and the buffers are empty,
// calling consume with each batch in the order read; consume says whether
// it kept the batch, else the batch is reused; new batches come from
// fresh. inline calls consume in the drain's own goroutine, for a consume
// that mostly stores the batch (while consume decodes, the perf buffers
// fill; what they cannot hold the kernel counts as lost); else a goroutine
// of its own takes the batches, up to maxBatches behind the drain, so that
// the drain goes on copying while consume decodes. An error
// from consume or the drain stops it. It returns only after the drain has
// stopped reading the perf buffers, so that Close may unmap them (an early
// return on a consume error let a CI run fault in perfRing.read).
func (c *Capture) runRaw(ctx context.Context, inline bool, fresh *slab, consume func(*batch) (kept bool, err error)) error {
	if inline {
		var spare *batch
		return c.drain(ctx, maxPollInterval, func(b *batch) (bool, error) {
			kept, err := consume(b)
			if err == nil && !kept {
				b.reset()
				spare = b
			}
			return err == nil, err
		}, func() *batch {
			if b := spare; b != nil {
				spare = nil
				return b
			}
			return fresh.get()
		}, nil)
	}
	batches := make(chan *batch, maxBatches)
	free := make(chan *batch, maxFree)
	drainErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		defer close(batches)
		drainErr <- c.drain(ctx, decodingPollInterval, func(b *batch) (bool, error) {
			select {
			case <-stop: // the consumer has stopped: it takes no more batches
				return false, nil
			default:
			}
			select {
			case batches <- b:
				return true, nil
			case <-stop:
				return false, nil
			}
		}, func() *batch {
			select {
			case b := <-free:
				return b
			default:
				return fresh.get()
			}
		}, stop)
	}()
	for b := range batches {
		kept, err := consume(b)
		if err != nil {
			close(stop)
			for range batches {
				// the drain's last batches: dropped, it is stopping
			}
			<-drainErr
			return err
		}
		if kept {
			continue
		}
		b.reset()
		select {
		case free <- b:
		default:
		}
	}
	close(stop)
	return <-drainErr
}

// drain copies records from the perf buffers into batches (new ones from
// get), sleeping up to maxWait between passes (pollWait), and hands them
// to put until ctx is done, then detaches the
// programs and copies what is left. put reports false when the consumer
// takes no more (the drain then stops) or an error, which the drain
// returns. It works in passes: each pass reads every CPU's buffer up to
// where it was when the pass began (the reader's snapshot), ends its batch
// with a watermark (the time the pass began) and sleeps.
func (c *Capture) drain(ctx context.Context, maxWait time.Duration, put func(*batch) (bool, error), get func() *batch, stop <-chan struct{}) error {
	cur := get()
	// marks[i] is a watermark of ring i: every record of it stamped
	// before marks[i] has been read (its newest record read, or the start
	// of the last pass that emptied it); a batch's watermark is the least
	// of them, so that the assembler can release events within a pass
	// too, which under a storm of events reads whole perf buffers
	// (bench/capture/soak.sh: 300,000 events, 100 MB, were held before).
	marks := make([]int64, len(c.rings.rings))
	watermark := func() int64 {
		w := int64(math.MaxInt64)
		for _, m := range marks {
			w = min(w, m)
		}
		if w == math.MaxInt64 {
			return 0
		}
		return w
	}
	var putErr error
	send := func() bool {
		if len(cur.recs) == 0 && len(cur.losses) == 0 && cur.watermark == 0 {
			return true
		}
		ok, err := put(cur)
		if !ok {
			putErr = err
			return false
		}
		cur = get()
		return true
	}
	perCPU := c.rings.size
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	stopping := false
	errStopped := errors.New("stopped")
	ri := 0 // the ring being read
	// full[i]: ring i had no room for a record at the pass's snapshot;
	// newest[i]: the time of its newest record read (overflowNote).
	full := make([]bool, len(c.rings.rings))
	newest := make([]int64, len(c.rings.rings))
	readHere := false // a record was read in the current read call
	sample := func(raw []byte) error {
		// perf pads a payload to 4 bytes short of a multiple of 8: the
		// record is its first size bytes.
		if n, ts := c.dec.next(raw); n > 0 {
			marks[ri] = max(marks[ri], ts)
			newest[ri] = max(newest[ri], ts)
			readHere = true
			cur.recs = append(cur.recs, raw[:n]...)
			if len(cur.recs)+TaskRecordSize > batchBytes {
				cur.watermark = watermark()
				if !send() {
					return errStopped
				}
			}
		}
		return nil
	}
	done := make([]bool, len(c.rings.rings))
	prevBegan := monotonicNow()
	for {
		began := monotonicNow()
		busiest := 0
		for i, r := range c.rings.rings {
			queued := r.snapshot()
			busiest = max(busiest, queued)
			done[i] = false
			full[i] = c.rings.size-queued < maxRecordBytes
		}
		// A batch at a time from the ring whose mark is the least, so
		// that the marks, and with them the watermark, advance together
		// in time. Turns of a batch each did not: a CPU writing half as
		// many records a second covers twice the time in a batch, and
		// under stress-ng --switch 4 its events waited in the assembler
		// for the other CPU's (bench/capture/soak.sh: 28 MB of decoded
		// events in the reorder buffer, the recorder's heap 64 MB).
		for {
			i := laggingRing(marks, done)
			if i < 0 {
				break
			}
			ri = i
			r := c.rings.rings[i]
			readHere = false
			fin, err := r.read(batchBytes, sample, func(n uint64) {
				if readHere {
					// A loss that began while the drain was held mid-pass
					// (the consumer behind): the buffer was not full at the
					// snapshot, so no note yet. Its start is the record just
					// read, this call's, so the note keeps time order.
					c.overflowNote(cur, r.cpu, newest[ri])
				}
				c.addLost(cur, r.cpu, n)
			})
			if err == errStopped {
				return putErr
			}
			if err != nil {
				return fmt.Errorf("read perf buffer: %w", err)
			}
			if fin {
				done[i] = true
				if full[i] && newest[i] > 0 {
					c.overflowNote(cur, r.cpu, newest[i])
				}
				marks[i] = max(marks[i], began)
			}
		}
		// (After the pass: a ring replaced was read to its end.)
		added, err := c.checkHotplug(cur, began)
		if err != nil {
			return fmt.Errorf("read perf buffer: %w", err)
		}
		for ; added > 0; added-- {
			marks, done = append(marks, began), append(done, true)
			full, newest = append(full, false), append(newest, 0)
		}
		cur.watermark = watermark()
		if !send() {
			return putErr
		}
		if stopping {
			return nil
		}
		if ctx.Err() != nil {
			// Stop every program at once (the enabled flag; on kernels
			// without mmapable global data, Linux < 5.5, detaching alone
			// does it, one program after the other), detach, then one
			// more pass for what the programs wrote before.
			c.stopped = time.Now()
			if v := c.coll.Variables["enabled"]; v != nil {
				v.Set(uint32(0))
			}
			for _, l := range c.links {
				l.Close()
			}
			c.links = nil
			stopping = true
			continue
		}
		timer.Reset(pollWait(busiest, perCPU, time.Duration(began-prevBegan), maxWait))
		prevBegan = began
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		case <-stop:
			timer.Stop()
			return nil
		}
	}
}

// laggingRing returns the ring not done whose mark is the least (the
// lowest-numbered of equal ones), -1 when every ring is done.
func laggingRing(marks []int64, done []bool) int {
	i := -1
	for j := range marks {
		if !done[j] && (i < 0 || marks[j] < marks[i]) {
			i = j
		}
	}
	return i
}

// addLost counts n records lost on cpu and notes the loss in b.
func (c *Capture) addLost(b *batch, cpu int, n uint64) {
	c.mu.Lock()
	for len(c.lost) <= cpu {
		c.lost = append(c.lost, 0)
	}
	c.lost[cpu] += n
	c.mu.Unlock()
	b.losses = append(b.losses, lossReport{CPU: trace.CPU(cpu), At: len(b.recs), N: n, Noticed: monotonicNow()})
}

// overflowNote notes in b that cpu's buffer was full when the pass began
// (overflowReport): records after its newest one read, stamped newest
// (ns), are being lost, though perf reports their count only later, with
// the CPU's next record.
func (c *Capture) overflowNote(b *batch, cpu int, newest int64) {
	b.losses = append(b.losses, lossReport{CPU: trace.CPU(cpu), At: len(b.recs), N: overflowReport, Noticed: newest})
}

func monotonicNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}

// Warnings returns the fallbacks the capture took when it loaded (a
// program set that does less, or the same more slowly).
func (c *Capture) Warnings() []trace.Warning {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]trace.Warning(nil), c.warnings...)
}

// RecursionMisses returns how many times the kernel skipped the capture's
// programs so far because another BPF program was running on their CPU
// (struct bpf_prog_info recursion_misses, Linux >= 5.12; 0 before): each
// is a scheduler event missing from the capture that no loss record
// counts, as a sched_switch inside another program's run (kernel/trace/
// bpf_trace.c __bpf_trace_run, bpf_prog_inc_misses_counter).
func (c *Capture) RecursionMisses() uint64 {
	if c.coll == nil {
		return 0
	}
	var n uint64
	for _, p := range c.coll.Programs {
		if st, err := p.Stats(); err == nil {
			n += st.RecursionMisses
		}
	}
	return n
}

// Lost returns the records lost per CPU (index: CPU) so far.
func (c *Capture) Lost() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]uint64(nil), c.lost...)
}

// Close detaches the programs and frees the kernel objects.
// Stacks returns the stack table of the switch records decoded so far
// (trace.Meta.Stacks: the i-th entry has ID i+1), read from the BPF stack
// map: each stack's kernel frames, leaf first, named through
// /proc/kallsyms (module "[kernel.kallsyms]"; unnamed when it cannot be
// read or hides addresses), then its user frames (addresses only). Call it
// after Run and before Close; nil without Options.Stacks. A stack the map
// evicted or never stored (-EEXIST, -ENOMEM) has no frames of that kind.
func (c *Capture) Stacks() []trace.Stack {
	m := c.coll.Maps["stacks"]
	if !c.opts.Stacks || m == nil || len(c.dec.stackPairs) == 0 {
		return nil
	}
	ksyms, _ := kallsyms.Load("/proc/kallsyms")
	read := func(id int32) []uint64 {
		if id < 0 {
			return nil
		}
		var ips [127]uint64
		if err := m.Lookup(uint32(id), &ips); err != nil {
			return nil
		}
		n := 0
		for n < len(ips) && ips[n] != 0 {
			n++
		}
		return ips[:n]
	}
	out := make([]trace.Stack, len(c.dec.stackPairs))
	for i, p := range c.dec.stackPairs {
		var frames []trace.Frame
		for _, ip := range read(p[0]) {
			f := trace.Frame{Addr: ip, Kernel: true, Module: "[kernel.kallsyms]"}
			f.Func, _ = ksyms.Lookup(ip)
			if len(frames) == 0 && isBPFFrame(f.Func) {
				continue // the program and the tracepoint glue, not the task's stack
			}
			frames = append(frames, f)
		}
		for _, ip := range read(p[1]) {
			frames = append(frames, trace.Frame{Addr: ip})
		}
		out[i] = trace.Stack{ID: trace.StackID(i + 1), Frames: frames}
	}
	return out
}

// isBPFFrame reports whether a kernel function is part of the path from the
// sched_switch tracepoint into our BPF program (the program itself,
// bpf_trace_run<N> for BTF tracepoints, the __bpf_trace_/__traceiter_ glue,
// perf_trace_run_bpf_submit and bpf_get_stackid's own frames for classic
// ones), which bpf_get_stackid records above __schedule.
func isBPFFrame(name string) bool {
	for _, p := range []string{"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_", "perf_trace_", "trace_call_bpf", "bpf_get_stackid", "__bpf_get_stackid"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func (c *Capture) Close() error {
	for _, l := range c.links {
		l.Close()
	}
	c.links = nil
	if c.rings != nil {
		c.rings.Close()
	}
	if c.coll != nil {
		c.coll.Close()
	}
	return nil
}
