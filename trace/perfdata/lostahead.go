package perfdata

import (
	"github.com/traceview/traceview/trace"
)

// Losses known before the events they hide.
//
// The kernel writes a PERF_RECORD_LOST into a CPU's ring buffer when room
// comes back (perf_output_begin, kernel/events/ring_buffer.c: the lost
// count goes out before the next record that fits), so the record is
// stamped at the loss's end and read a round or more after the CPU's last
// record before the loss. The reader sorts events in a window released
// round by round (FINISHED_ROUND) and by the CPUs' progress (advanceMark):
// events of other CPUs inside the loss were delivered before the LOST
// record was read, and a delay that ended in it was measured though the
// task may have run unseen on the losing CPU (new-user pass 17 F4: a 6.062
// ms delay inside CPU 1's 32 ms loss of 63 events was counted, and printed
// by timehist, with lossy_delays 0). For a mapped file the reader can look
// ahead: scanLost reads the data section's records once before the events
// are read (pread, not through the mapping), and each loss it finds is queued at its start (the CPU's
// previous record in file order, as kernelRecord dates it), with its
// length known ahead (trace.Event.Runtime), so the schedule knows the CPU
// unobserved before any delay that overlaps it ends. The LOST record
// itself then adds its window to Meta.Lost as before, and no second event.

// Times pushed ahead, found by the same scan.
//
// A CPU's samples come in time order in its ring buffer, so a sample
// stamped later than the next one on its CPU is damage: either that sample's
// time was pushed ahead or the next one's back. The reader meeting them
// in order can only drop the later-met one, which for a time pushed ahead
// is every good sample after it until the CPU's times pass the outlier
// (new-user pass 20 F3: one time 2.5 ms ahead dropped the 61 events after
// it). The scan tells the two apart by the sample before: a sample later
// than its next whose previous is not later than that next is the one out
// of order (timeAhead), and the reader drops it alone; otherwise the next
// sample is, and the reader drops it when met, as before.

// cpuOrder is a CPU's last samples in order (samples out of order left
// out), up to aheadRun+1 of them: their times and offsets, oldest first.
type cpuOrder struct {
	t   [aheadRun + 1]int64
	off [aheadRun + 1]int64
	n   int
	// below counts the samples in order after a run of the CPU's first
	// samples that are all earlier than the run's first (belowLast: the
	// latest): the run is stamped ahead once they outnumber it.
	below     int
	belowLast int64
}

// aheadRun is the longest run of a CPU's samples stamped ahead that the
// scan tells from a sample stamped back (new-user pass 94 F5: two and three
// neighbouring samples pushed 1 s ahead were kept, and the CPU's 6886 good
// samples after them dropped).
const aheadRun = 8

// timedOff is a sample's time and offset.
type timedOff struct{ t, off int64 }

// sample takes the CPU's next sample (time t at offset off) and returns
// the samples before it that are stamped ahead. A sample earlier than the
// last in order makes a run of the latest samples later than it: one such
// sample with the one before it no later than t is stamped ahead (the
// CPU's first sample too: no previous to tell by, and it is one sample
// where the other way is all that follow it); a run of up to aheadRun
// that rose from the sample before it by at least half as much as it
// falls to t, as samples pushed ahead together do, is too. A run of the
// CPU's first samples has no sample before it to tell by: it is stamped
// ahead when more than aheadRun samples follow it in order, all earlier
// than its first, more than a run moved together (new-user pass 98 F5: a
// CPU's first two samples 30 ms ahead kept, and its 369 good events after
// them dropped); a sample in line with the run before that ends the
// count, and the samples counted are the ones out of order, moved back
// (pass 99 F2: CPU 1's samples 4-11 of fifo.perf.data 50 ms early, its
// three intact first samples dropped for them). Otherwise t is the one out of order (stamped back), left out
// here and dropped by the reader.
func (s *cpuOrder) sample(t, off int64) []timedOff {
	if s.below > 0 {
		if t < s.t[0] && t >= s.belowLast {
			s.below, s.belowLast = s.below+1, t
			if s.below <= aheadRun {
				return nil
			}
			out := make([]timedOff, s.n)
			for i := range out {
				out[i] = timedOff{s.t[i], s.off[i]}
			}
			s.n, s.below = 0, 0
			s.push(t, off)
			return out
		}
		s.below = 0 // (the run stands: the ones counted are dropped by the reader)
	}
	if s.n == 0 || s.t[s.n-1] <= t {
		s.push(t, off)
		return nil
	}
	m := 0 // the latest samples later than t
	for m < s.n && s.t[s.n-1-m] > t {
		m++
	}
	before := s.n - 1 - m // the sample before the run (-1: none)
	ahead := false
	switch {
	case m == s.n && s.n < len(s.t):
		if m > 1 {
			s.below, s.belowLast = 1, t // (the CPU's first samples: told by those after)
			return nil
		}
		ahead = true // (the CPU's first sample alone: as before)
	case m == 1:
		ahead = true // (the one before it is no later than t)
	case m < len(s.t) && before >= 0:
		rise, fall := s.t[before+1]-s.t[before], s.t[s.n-1]-t
		ahead = 2*rise >= fall
	}
	if !ahead {
		return nil
	}
	out := make([]timedOff, m)
	for i := range m {
		out[i] = timedOff{s.t[before+1+i], s.off[before+1+i]}
	}
	s.n -= m
	s.push(t, off)
	return out
}

// push appends a sample in order, dropping the oldest when full.
func (s *cpuOrder) push(t, off int64) {
	if s.n == len(s.t) {
		copy(s.t[:], s.t[1:])
		copy(s.off[:], s.off[1:])
		s.n--
	}
	s.t[s.n], s.off[s.n] = t, off
	s.n++
}

// timeOutlier is a sample stamped ahead (Reader.timeAhead): its CPU and
// time, and its CPU's next sample's time.
type timeOutlier struct {
	cpu        int
	time, next int64
}

// scanLostBuf is the size of the buffer scanLost reads the data section
// through (a record is at most 64 KiB: its size is a u16). Read with
// pread, a 192 MB section took 16-38 ms; walked through the mapping (its
// pages mapped in strides with MADV_POPULATE_READ, then released), 120 ms:
// measured 2026-12-06 on bench/replaymem's messaging file.
const scanLostBuf = 1 << 20

// lostKey names a loss: its CPU and the LOST record's time.
type lostKey struct {
	cpu trace.CPU
	end int64
}

// scanLost queues, before the first event is read, a KindLost event for
// every PERF_RECORD_LOST of the data section of a mapped file, at the
// start of its loss, and notes it in lostAhead; it also notes the samples
// stamped ahead of their CPU's next one (timeAhead). It does nothing for perf's
// own modes (KeepRepeats: perf prints a loss where its record comes), for
// a stream or a file read unmapped (unfinished: it may grow), for
// compressed records (it stops at the first), and for samples without a
// time and a CPU at fixed places (attributes that differ in the sample
// fields up to CPU).
func (r *Reader) scanLost() {
	if r.scanFile == nil || r.pipe || r.keepRepeats || r.decomp != nil || len(r.attrs) == 0 || !r.attrs[0].sampleIDAll {
		return
	}
	// The fields up to CPU are fixed u64s (perf_event_open(2),
	// PERF_RECORD_SAMPLE's layout): TIME and CPU are at the same places in
	// every sample when the attributes agree on them (perf sched record's
	// dummy tracking event differs in PERIOD and RAW only).
	const fixed = sampleIdentifier | sampleIP | sampleTID | sampleTime | sampleAddr | sampleID | sampleStreamID | sampleCPU
	st := r.attrs[0].sampleType
	for _, a := range r.attrs[1:] {
		if a.sampleType&fixed != st&fixed {
			return
		}
	}
	if st&sampleTime == 0 || st&sampleCPU == 0 {
		return
	}
	timeOff := 8 + 8*popcount(st&(sampleIdentifier|sampleIP|sampleTID))
	cpuOff := 8 + 8*popcount(st&(sampleIdentifier|sampleIP|sampleTID|sampleTime|sampleAddr|sampleID|sampleStreamID))
	ncpu := max(r.meta.NrCPUsAvail, r.meta.NrCPUs)
	if ncpu <= 0 || ncpu > 1<<16 {
		return
	}
	last := make([]int64, ncpu)
	for i := range last {
		last[i] = -1
	}
	order := make([]cpuOrder, ncpu)
	o := r.end
	budget := max(r.MaxPending/8, 1) // queued ahead: far below the window's bound
	buf := make([]byte, scanLostBuf)
	var ids idCache
	pos, keep := r.off, 0
	for pos < r.dataEnd {
		m, err := r.scanFile.ReadAt(buf[keep:min(int64(len(buf)), int64(keep)+r.dataEnd-pos)], pos)
		pos += int64(m)
		n, p := keep+m, 0
		base := pos - int64(n) // the file offset of buf[0]
		for n-p >= 8 {
			typ, size := o.Uint32(buf[p:]), int(o.Uint16(buf[p+6:]))
			if size < 8 {
				return // the reader reports it
			}
			if n-p < size {
				break
			}
			if typ == recSample {
				size = r.sampleFrame(buf[p:n], size, &ids)
			}
			rec, recOff := buf[p:p+size], base+int64(p)
			p += size
			switch typ {
			case recSample:
				if cpuOff+4 > size {
					continue
				}
				if c := int(o.Uint32(rec[cpuOff:])); c < ncpu {
					t := int64(o.Uint64(rec[timeOff:]))
					if r.outsideHeaderTimes(t) {
						// (Dropped by the reader as outside the
						// header's sample times: no time to order by,
						// pass 99 F2: such samples made the CPU's intact
						// first sample one stamped ahead.)
						continue
					}
					last[c] = max(last[c], t)
					for _, a := range order[c].sample(t, recOff) {
						if r.timeAhead == nil {
							r.timeAhead = map[int64]timeOutlier{}
						}
						r.timeAhead[a.off] = timeOutlier{c, a.t, t}
					}
				}
			case recLost:
				if budget > 0 {
					r.queueLostAhead(rec, last, &budget)
				}
			case recCompressed, recCompressed2:
				return
			}
		}
		keep = copy(buf, buf[p:n])
		if err != nil || m == 0 {
			return // (a cut file: the reader reports it)
		}
	}
}

// queueLostAhead queues the loss of LOST record rec (scanLost): at the
// start of the loss, last[cpu], for the time up to the record's.
func (r *Reader) queueLostAhead(rec []byte, last []int64, budget *int) {
	sid, _, ok := r.trailer(rec)
	c := int(sid.cpu)
	if !ok || !sid.hasTime || c < 0 || c >= len(last) || last[c] < 0 || last[c] >= sid.time || len(rec) < 24 {
		return
	}
	*budget--
	ev := r.q.slot()
	*ev = trace.NewEvent(last[c], trace.CPU(c), trace.KindLost)
	ev.Count, ev.Runtime = r.end.Uint64(rec[16:]), sid.time-last[c]
	r.q.push()
	r.stats.Events[trace.KindLost]++
	if r.lostAhead == nil {
		r.lostAhead = map[lostKey]bool{}
	}
	r.lostAhead[lostKey{trace.CPU(c), sid.time}] = true
}

// sampleFrame is the length scanLost frames the sample at b[0:] with, its
// header saying size (b holds it and what follows, as far as read): where
// its fields end instead when the reader finds its size damaged, a record
// header perf writes there and, for a size too small, none at size
// (Reader.oversized, Reader.undersized). Framed by the damaged size, the
// scan read the records after it from inside them and missed a time pushed
// ahead further on, which the reader then kept and dropped the CPU's next
// 19 events for (new-user pass 91 F3).
func (r *Reader) sampleFrame(b []byte, size int, ids *idCache) int {
	end := r.fieldsEnd(b, ids)
	if end <= 0 || end == size || !r.headerAt(b, end) || end > size && (size+8 > len(b) || r.headerAt(b, size)) {
		return size
	}
	return end
}
