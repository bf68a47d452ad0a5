//go:build linux

package ebpf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"unsafe"

	cilium "github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// perfRings are the per-CPU perf buffers the programs write with
// bpf_perf_event_output, read in place. cilium/ebpf's perf.Reader copies
// each record through an io.Reader and stores the ring's tail after each
// one; under perf bench sched pipe that was about half of the recorder's
// CPU time during a capture (perf record -g of the recorder, measured on
// this machine). Here a drain pass walks each ring's records in one loop,
// copies each record's payload once, and moves the tail once per pass.
//
// The ring layout is the kernel's (include/uapi/linux/perf_event.h): a
// metadata page (struct perf_event_mmap_page: data_head written by the
// kernel, data_tail by the reader) followed by a power-of-two data area
// of records, each a struct perf_event_header (u32 type, u16 misc, u16
// size) and its body, 8-byte aligned, possibly wrapping at the end.
type perfRings struct {
	rings []*perfRing
	size  int // data bytes per ring
	// events is the perf event array the rings' fds are stored in, and
	// watermark the bytes a ring queues before it wakes a reader (open).
	events    *cilium.Map
	watermark int
}

type perfRing struct {
	cpu  int
	fd   int
	mem  []byte // the mapping: metadata page, then data
	meta *unix.PerfEventMmapPage
	data []byte
	tmp  []byte // a record that wraps, made contiguous
	head uint64 // the kernel's head when the pass began (snapshot)
}

// Record types of struct perf_event_header (include/uapi/linux/perf_event.h).
const (
	perfRecordLost   = 2
	perfRecordSample = 9
)

// openPerfRings opens, for every possible CPU that is online, a
// PERF_COUNT_SW_BPF_OUTPUT event with a ring of size data bytes (a power
// of two of pages) that wakes no one until watermark bytes are queued
// (the drain polls), and stores its fd in the perf event array at the
// CPU's index, as bpf_perf_event_output with BPF_F_CURRENT_CPU expects.
func openPerfRings(events *cilium.Map, nCPU, size, watermark int) (*perfRings, error) {
	pr := &perfRings{size: size, events: events, watermark: watermark}
	for cpu := 0; cpu < nCPU; cpu++ {
		r, err := pr.open(cpu)
		if err != nil {
			pr.Close()
			return nil, err
		}
		if r != nil {
			pr.rings = append(pr.rings, r)
		}
	}
	return pr, nil
}

// open opens cpu's ring and stores its fd in the perf event array; nil,
// nil when the CPU is offline (ENODEV: nothing runs there).
func (pr *perfRings) open(cpu int) (*perfRing, error) {
	page := os.Getpagesize()
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_SOFTWARE,
		Config:      unix.PERF_COUNT_SW_BPF_OUTPUT,
		Sample_type: unix.PERF_SAMPLE_RAW,
		Bits:        unix.PerfBitWatermark,
		Wakeup:      uint32(pr.watermark),
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if errors.Is(err, unix.ENODEV) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("perf_event_open on CPU %d: %w", cpu, err)
	}
	mem, err := unix.Mmap(fd, 0, page+pr.size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mmap perf buffer of CPU %d: %w", cpu, err)
	}
	r := &perfRing{cpu: cpu, fd: fd, mem: mem, meta: (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0]))}
	off := int(r.meta.Data_offset)
	if off == 0 { // kernels before 4.1 leave it 0: the data follows the page
		off = page
	}
	r.data = mem[off : off+pr.size]
	if err := pr.events.Put(uint32(cpu), uint32(fd)); err != nil {
		r.close()
		return nil, fmt.Errorf("perf event array, CPU %d: %w", cpu, err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		r.close()
		return nil, fmt.Errorf("enable perf buffer of CPU %d: %w", cpu, err)
	}
	return r, nil
}

// close unmaps and closes the ring.
func (r *perfRing) close() {
	unix.Munmap(r.mem)
	unix.Close(r.fd)
}

// snapshot notes where the kernel's head is: the next reads stop there.
// It returns the bytes queued.
func (r *perfRing) snapshot() int {
	r.head = atomic.LoadUint64(&r.meta.Data_head) // the load-acquire the kernel's smp_store_release pairs with
	return int(r.head - r.meta.Data_tail)
}

// read walks the ring's records from its tail towards the snapshot's head,
// for about max bytes, calling sample with each sample's raw payload and
// lost with each PERF_RECORD_LOST count, then gives the space read back to
// the kernel. done reports that it reached the head.
func (r *perfRing) read(max int, sample func(raw []byte) error, lost func(n uint64)) (done bool, err error) {
	tail := r.meta.Data_tail
	head := r.head
	mask := uint64(len(r.data) - 1)
	le := binary.LittleEndian
	end := tail + uint64(max)
	for tail < head && tail < end {
		off := tail & mask
		var hdr [8]byte
		r.copyOut(hdr[:], off)
		size := uint64(le.Uint16(hdr[6:]))
		if size < 8 || size > head-tail {
			atomic.StoreUint64(&r.meta.Data_tail, tail)
			return false, fmt.Errorf("perf buffer of CPU %d: record of %d bytes at %d (head %d)", r.cpu, size, tail, head)
		}
		var rec []byte
		if off+size <= uint64(len(r.data)) {
			rec = r.data[off : off+size]
		} else {
			if cap(r.tmp) < int(size) {
				r.tmp = make([]byte, size)
			}
			rec = r.tmp[:size]
			r.copyOut(rec, off)
		}
		switch le.Uint32(rec) {
		case perfRecordSample:
			// u32 size, then the payload (padded to 8-byte alignment).
			if len(rec) >= 12 {
				n := min(int(le.Uint32(rec[8:])), len(rec)-12)
				if err := sample(rec[12 : 12+n]); err != nil {
					atomic.StoreUint64(&r.meta.Data_tail, tail+size)
					return false, err
				}
			}
		case perfRecordLost:
			// u64 id, u64 lost.
			if len(rec) >= 24 {
				lost(le.Uint64(rec[16:]))
			}
		}
		tail += size
	}
	atomic.StoreUint64(&r.meta.Data_tail, tail) // the store-release the kernel's reads pair with
	return tail >= head, nil
}

// copyOut copies len(dst) bytes of the data area from off, wrapping.
func (r *perfRing) copyOut(dst []byte, off uint64) {
	n := copy(dst, r.data[off:])
	copy(dst[n:], r.data)
}

// Close unmaps and closes every ring.
func (pr *perfRings) Close() error {
	for _, r := range pr.rings {
		r.close()
	}
	pr.rings = nil
	return nil
}
