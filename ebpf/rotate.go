package ebpf

import "github.com/traceview/traceview/trace/tvf"

// Size rotation constants. blockShare: a file rotated by size is written
// in blocks of about 1/blockShare of SIZE (at the compressed bytes per
// event measured so far), so that the file ends within about that much of
// SIZE; firstBlockEvents: the first block of a file, before any rate is
// known, is that short, and its bytes are taken for the opening task
// table (the frame ahead of it); minBlockEvents: no block is shorter,
// however small SIZE is (zstd frames of fewer events compress badly);
// closeMargin: the trailer and footer, beyond the closing task table, are
// reserved at this many bytes (the trailers of this VM's captures take
// 0.4-1.5 KB: counts, times, a few cgroups and their settings).
const (
	blockShare       = 16
	firstBlockEvents = 64
	minBlockEvents   = 64
	closeMargin      = 4 << 10
)

// sizeCut decides where each file of a series rotated by size (record
// --rotate SIZE) ends. tvf.Writer.Bytes counts only the blocks written,
// and a block used to hold 8192 events (35-57 KB compressed here) with
// the closing task table and trailer uncounted too: files came out 1.7-3x
// SIZE below 64 KiB. Here a file's blocks are cut short (tvf.Writer.Flush)
// so that its size is known at each block's end, and it ends at a block's
// end when the next block and its closing frames (the task table, trailer
// and footer: reserve) would take it past SIZE. A file then ends at most
// SIZE plus what its last block and its closing frames took beyond their
// estimates: at most one block, a sixteenth of SIZE at the measured rate,
// when the closing frames are no larger than the larger of the last
// file's (for the first file, its opening task table and closeMargin) and
// the last task table written ahead of a block, closeMargin and the
// recorder's estimate of the trailer's per-process tables (trailer). A
// file holds at least one block whatever SIZE is.
type sizeCut struct {
	limit   int64
	block   uint64 // events per block
	flushed uint64 // the writer's event count at the last block's end
	// bytesAt is the writer's Bytes at the last block's end (or the
	// file's opening): a block's bytes are those since, with any block a
	// Sync ended early and the groups frames ahead of them. (Measured
	// around the Flush alone, a Sync's block left the rate at 19 bytes
	// for events that took 200: the next block was 8192 events, 47.9 KB,
	// and the file 79,882 bytes of a 64K series; new-user pass 114 F5.)
	bytesAt int64
	// trailer is the recorder's estimate of the trailer's per-process
	// tables for the processes the file named so far (segment.trailerEst),
	// which the closing frames take beyond the task table.
	trailer int64
	rate    float64 // compressed bytes per event of the last block (0: none measured yet)
	reserve int64   // bytes held back for the closing frames
	blocks  int     // blocks of this file ended here
}

func newSizeCut(limit int64) *sizeCut { return &sizeCut{limit: limit, block: firstBlockEvents} }

// start begins a file: its first block is firstBlockEvents long.
func (c *sizeCut) start() {
	c.flushed, c.blocks, c.block, c.bytesAt, c.trailer = 0, 0, firstBlockEvents, 0, 0
}

// opened counts the first block of w, a file just begun, from the events
// it holds now: the names of the tasks alive that addProcTasks wrote as
// the file opened are events of the writer too, and, hundreds of them,
// they ended the first block at the file's first event of the capture, so
// that a SIZE below their bytes ended every file there: files of 1-2
// events, each one's rotation kicking the CPUs into the events of the
// next, at 100 % CPU for as long as the capture ran (new-user pass 111
// F6: 28,118 files in 10 minutes of a `-d 1s --rotate 10`).
func (c *sizeCut) opened(w *tvf.Writer) { c.flushed, c.bytesAt = w.Events(), w.Bytes() }

// MinRotateBytes is the smallest SIZE of record --rotate: blockShare
// times closeMargin, so that the closing frames a file reserves take no
// more of it than one of its blocks (64 KiB; the trailers of this VM's
// captures take 0.4-1.5 KB and the opening task table a few KB more).
const MinRotateBytes = blockShare * closeMargin

// wrote ends w's block when it holds c.block events (counting every event
// the writer took, names included). It reports whether the file must end
// now: the next block and the closing frames would take it past the
// limit.
func (c *sizeCut) wrote(w *tvf.Writer) (full bool, err error) {
	n := w.Events() - c.flushed
	if n < c.block {
		return false, nil
	}
	if err := w.Flush(); err != nil {
		return false, err
	}
	got := w.Bytes() - c.bytesAt
	c.bytesAt = w.Bytes()
	if c.blocks == 0 {
		// The first block went out behind the opening task table: the
		// closing one holds at least those tasks.
		c.reserve = max(c.reserve, got+closeMargin)
	} else {
		c.rate = float64(got) / float64(n)
	}
	c.blocks++
	c.flushed = w.Events()
	if c.rate > 0 {
		c.block = min(max(uint64(float64(c.limit)/blockShare/c.rate), minBlockEvents), tvf.BlockEvents)
	}
	next := int64(float64(c.block) * c.rate)
	return w.Bytes()+next+max(c.reserve, w.TaskFrameBytes()+closeMargin+c.trailer) > c.limit, nil
}

// closed notes the bytes a file's closing frames took (its final Bytes
// less its Bytes at its last block's end): the next file reserves as much
// (or its own opening task table and closeMargin, if more).
func (c *sizeCut) closed(final, atLastBlock int64) {
	c.reserve = max(final-atLastBlock, 0)
}
