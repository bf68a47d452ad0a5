package perfdata

import (
	"bufio"
	"io"
)

// firstSampleScan bounds how much of a data section scanFirstSample reads:
// perf's first round holds the first sample of every CPU, and a round is
// at most the ring buffers' size (perf sched record's default, 16 MiB a
// CPU at 4 KiB pages: 4096 pages, tools/perf/util/evlist.c
// evlist__mmap_size with perf_event_mlock_kb; 64 MiB covers 4 CPUs of it).
const firstSampleScan = 64 << 20

// scanFirstSample estimates the recording's first sample time when the
// header does not give it (HEADER_SAMPLE_TIME is a feature section, gone
// from a file cut after its data): the earliest PERF_RECORD_SAMPLE time of
// the records from off to end before the first FINISHED_ROUND that follows
// a sample (perf copies every CPU's buffer in each round, so the first
// round holds the earliest sample), reading at most firstSampleScan bytes.
// It returns 0 when the samples' time is not at a fixed place (attributes
// that differ in the fields before it) or no sample is found. The side-band
// records before that time (the traced command's PERF_RECORD_FORK, written
// before the tracepoints were enabled) are then kept as beforeSamples keeps
// them with the header's time (new-user pass 61 F4: the workload's fork
// dropped from a file cut 60 bytes after its data section).
func (r *Reader) scanFirstSample(ra io.ReaderAt, off, end int64) int64 {
	if len(r.attrs) == 0 || !r.attrs[0].sampleIDAll {
		return 0
	}
	const fixed = sampleIdentifier | sampleIP | sampleTID | sampleTime
	st := r.attrs[0].sampleType
	for _, a := range r.attrs[1:] {
		if a.sampleType&fixed != st&fixed {
			return 0
		}
	}
	if st&sampleTime == 0 {
		return 0
	}
	timeOff := 8 + 8*popcount(st&(sampleIdentifier|sampleIP|sampleTID))
	end = min(end, off+firstSampleScan)
	if end <= off {
		return 0
	}
	br := bufio.NewReaderSize(io.NewSectionReader(ra, off, end-off), 1<<20)
	o := r.end
	var first int64
	for {
		hdr, err := br.Peek(8)
		if err != nil {
			return first
		}
		typ, size := o.Uint32(hdr), int(o.Uint16(hdr[6:]))
		if size < 8 {
			return first
		}
		switch typ {
		case recSample:
			if rec, err := br.Peek(size); err == nil && timeOff+8 <= size {
				if t := int64(o.Uint64(rec[timeOff:])); t > 0 && (first == 0 || t < first) {
					first = t
				}
			}
		case recFinishedRound:
			if first > 0 {
				return first
			}
		case recCompressed, recCompressed2:
			return 0
		}
		if _, err := br.Discard(size); err != nil {
			return first
		}
	}
}
