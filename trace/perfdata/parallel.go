package perfdata

import (
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/traceview/traceview/trace"
	"github.com/traceview/traceview/trace/tpformat"
)

// Parallel decoding of a mapped data section.
//
// Decoding a sample's tracepoint payload (the sample fields at their fixed
// offsets, the payload fields, the task names interned) depends on nothing
// but the record's bytes and the attributes of the file header, while
// everything else the reader does to an event (the pids learned from earlier
// records, the reordering window, the per-CPU time and duplicate checks,
// counters, warnings) depends on the records before it. So the data section
// is cut into chunks of whole records; worker goroutines decode the samples
// of a chunk each, ahead of the reader; and the reader, which still walks
// every record in file order, copies a sample's decoded event instead of
// decoding it, then does the rest as before. The events, their order and the
// warnings are those of the serial reader by construction; only a sample the
// workers could not decode (no fixed layout, no time, a short payload, a
// kind the consumer skips) is decoded by the reader itself.
//
// Memory: 2W+2 chunks (W workers) of predecodeChunk bytes of records each
// are decoded or waiting, about 2.3 bytes of events per byte of records.

// predecodeChunk is the size of a chunk's records (cut at a record
// boundary past it); predecodeMin the smallest data section worth the
// goroutines; both variables for the tests.
var (
	predecodeChunk = 256 << 10
	predecodeMin   = 4 << 20
)

// autoDecoders is how many goroutines decode chunks when Reader.Decoders
// is 0: GOMAXPROCS less the reader's and its consumer's, at most 8 (the
// serial rest of the reader bounds the gain, docs/latency.md). On 2 CPUs
// none: there the reader and the report already keep both busy, and the
// workers' extra copy of every event and their handovers cost more CPU
// than they free (latency on the bench file: 1.0-1.5 s of CPU instead of
// 0.9 s, the same wall time).
func autoDecoders() int {
	return min(max(runtime.GOMAXPROCS(0)-2, 0), 8)
}

// preSample is one sample decoded by a worker.
type preSample struct {
	pos      int // position of the record in the mapping
	a        *attr
	pid, tid int32
	ev       trace.Event
}

// recChunk is a run of whole records, mm[start:end], and its decoded samples
// in record order, ready once done is closed.
type recChunk struct {
	start, end int
	samples    []preSample
	done       chan struct{}
}

// predecoder runs the framing goroutine and the workers, and hands the
// reader the decoded samples in file order.
type predecoder struct {
	order chan *recChunk // chunks in file order, closed at the last one
	jobs  chan *recChunk
	free  chan *recChunk
	stop  chan struct{}
	wg    sync.WaitGroup

	cur      *recChunk
	i        int
	finished bool
}

// startPredecode starts the parallel decoding of r's mapped data section
// from r.mpos, when it is worth it.
func (r *Reader) startPredecode() {
	n := r.Decoders
	if n == 0 {
		n = autoDecoders()
	}
	if n <= 0 || r.mm == nil || r.pipe || r.decomp != nil || r.mend-r.mpos < predecodeMin {
		return
	}
	ahead := 2*n + 2
	p := &predecoder{
		order: make(chan *recChunk, ahead),
		jobs:  make(chan *recChunk, ahead),
		free:  make(chan *recChunk, ahead),
		stop:  make(chan struct{}),
	}
	for i := 0; i < ahead; i++ {
		p.free <- &recChunk{}
	}
	skip := r.skip
	for i := 0; i < n; i++ {
		w := r.newPreWorker(skip)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for c := range p.jobs {
				w.decode(c)
				close(c.done)
			}
		}()
	}
	p.wg.Add(1)
	from := r.mpos
	go func() {
		defer p.wg.Done()
		r.frame(p, from)
	}()
	r.pd = p
}

// stopPredecode ends the goroutines and waits for them; the reader then
// decodes every sample itself.
func (r *Reader) stopPredecode() {
	p := r.pd
	if p == nil {
		return
	}
	close(p.stop) // the framer ends, then the workers once its chunks are done
	p.wg.Wait()
	r.pd = nil
}

// parallelSafe reports whether a record of type typ leaves what the
// workers read (the attributes, their formats and decoders) unchanged, so
// that chunks may run past it.
func parallelSafe(typ uint32) bool {
	switch typ {
	case recHeaderAttr, recTracingData, recHeaderFeature, recEventUpdate, recCompressed, recCompressed2:
		return false
	}
	return typ != 0 && typ <= maxUserRecord
}

// frame cuts mm[pos:r.mend] into chunks at record boundaries and queues
// them, until the end, a record that is not parallelSafe or a bad record
// header (the reader meets those itself), or stop.
func (r *Reader) frame(p *predecoder, pos int) {
	defer close(p.order)
	defer close(p.jobs)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		// A mapped page that vanished (the file was truncated): stop
		// here; the reader meets the fault and reports it.
		if e := recover(); e != nil {
			if _, fault := e.(interface{ Addr() uintptr }); !fault {
				panic(e)
			}
		}
	}()
	mm, end, o := r.mm, r.mend, r.end
	for pos < end {
		var c *recChunk
		select {
		case c = <-p.free:
		case <-p.stop:
			return
		}
		c.start, c.samples, c.done = pos, c.samples[:0], make(chan struct{})
		limit := pos + predecodeChunk
		last := false
		for pos < limit {
			if end-pos < 8 {
				last = true
				break
			}
			size := int(o.Uint16(mm[pos+6:]))
			if size < 8 || end-pos < size || !parallelSafe(o.Uint32(mm[pos:])) {
				last = true
				break
			}
			pos += size
		}
		c.end = pos
		if c.end > c.start {
			p.jobs <- c // never blocks: as many slots as chunks
			p.order <- c
		}
		if last {
			return
		}
	}
}

// preWorker is one decoding goroutine's state: its own decoders (they
// cache task names) and sample-id cache.
type preWorker struct {
	r      *Reader
	skip   [len(trace.Kinds)]bool
	dec    map[*tpformat.SchedDecoder]*tpformat.SchedDecoder
	intern tpformat.Interner
	ids    idCache
}

func (r *Reader) newPreWorker(skip [len(trace.Kinds)]bool) *preWorker {
	w := &preWorker{r: r, skip: skip, dec: map[*tpformat.SchedDecoder]*tpformat.SchedDecoder{}}
	for _, a := range r.attrs {
		if a.dec == nil || w.dec[a.dec] != nil {
			continue
		}
		d, err := tpformat.NewSchedDecoder(a.dec.Format, r.order, &w.intern)
		if err != nil {
			continue // cannot happen (the reader's own was built from it): the reader decodes
		}
		d.NrCPUs = a.dec.NrCPUs
		w.dec[a.dec] = d
	}
	return w
}

// decode decodes the samples of c that need nothing but their bytes.
func (w *preWorker) decode(c *recChunk) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			if _, fault := e.(interface{ Addr() uintptr }); !fault {
				panic(e)
			}
			c.samples = c.samples[:0] // the reader decodes (and meets the fault)
		}
	}()
	mm, o := w.r.mm, w.r.end
	for pos := c.start; pos < c.end; {
		size := int(o.Uint16(mm[pos+6:]))
		if o.Uint32(mm[pos:]) == recSample {
			w.sample(c, pos, mm[pos:pos+size])
		}
		pos += size
	}
}

// sample decodes one sample into c, or leaves it to the reader.
func (w *preWorker) sample(c *recChunk, pos int, rec []byte) {
	a := w.r.attrOfSampleCached(rec, &w.ids)
	if a == nil || a.dec == nil || w.skip[a.dec.Kind] {
		return
	}
	l := &a.layout
	o := w.r.end
	if !l.fixed || l.time < 0 || l.raw+4 > len(rec) || int(o.Uint32(rec[l.raw:])) > len(rec)-l.raw-4 {
		return
	}
	d := w.dec[a.dec]
	if d == nil {
		return
	}
	var pid, tid int32 = -1, -1
	if l.tid >= 0 {
		pid, tid = int32(o.Uint32(rec[l.tid:])), int32(o.Uint32(rec[l.tid+4:]))
	}
	cpu := int32(-1)
	if l.cpu >= 0 {
		cpu = int32(o.Uint32(rec[l.cpu:]))
		if n := max(w.r.meta.NrCPUsAvail, w.r.meta.NrCPUs); cpu < 0 || n > 0 && int64(cpu) >= int64(n) {
			return // damage: the reader decodes it again, warns and skips it (cpuOutOfRange)
		}
	}
	raw := rec[l.raw+4 : l.raw+4+int(o.Uint32(rec[l.raw:]))]
	n := len(c.samples)
	if n == cap(c.samples) {
		c.samples = slices.Grow(c.samples, 1)
	}
	c.samples = c.samples[:n+1]
	s := &c.samples[n]
	s.pos, s.a, s.pid, s.tid = pos, a, pid, tid
	s.ev.Reset(int64(o.Uint64(rec[l.time:])), trace.CPU(cpu), a.dec.Kind)
	if d.Decode(raw, &s.ev) != nil {
		c.samples = c.samples[:len(c.samples)-1] // the reader decodes it again and warns
		return
	}
	if tid >= 0 {
		s.ev.CurTID, s.ev.CurPID = trace.TID(tid), trace.PID(pid)
	}
	if a.cgSkip >= 0 && (s.ev.Kind == trace.KindSwitch || s.ev.Kind == trace.KindRuntime && tid >= 0 && s.ev.TID == trace.TID(tid)) {
		s.ev.Cgroup = a.cgroupOf(o, rec, l.raw+4+len(raw)) // as records.go's sample
	}
}

// take returns the decoded sample of the record at mapping position pos,
// or nil when the reader must decode it. Positions must not decrease
// between calls. The sample stays valid until the next call.
func (p *predecoder) take(pos int) *preSample {
	for p.cur == nil || pos >= p.cur.end {
		if p.finished {
			return nil
		}
		if p.cur != nil {
			p.free <- p.cur // never blocks
			p.cur = nil
		}
		c, ok := <-p.order
		if !ok {
			p.finished = true
			return nil
		}
		<-c.done
		p.cur, p.i = c, 0
	}
	c := p.cur
	if pos < c.start {
		return nil
	}
	for p.i < len(c.samples) && c.samples[p.i].pos < pos {
		p.i++
	}
	if p.i < len(c.samples) && c.samples[p.i].pos == pos {
		p.i++
		return &c.samples[p.i-1]
	}
	return nil
}
