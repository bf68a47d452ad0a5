package synth

import "github.com/traceview/traceview/replay"

func init() {
	register(Generator{
		Name: "x264",
		Summary: "x264 frame threading (sliceless): a main thread dispatching frames to N encoder threads; " +
			"each row of a frame waits for the previous frame to be `lead` rows ahead",
		Source: "x264 frame-based threading (encoder/encoder.c, common/frame.c x264_frame_cond_wait: a thread " +
			"waits on the reference frame's row progress; the main thread waits for a free thread); the 2009 x264 " +
			"postings: --preset ultrafast --threads 4, 600 frames, about 130 fps on one thread",
		CPUs: 4,
		Params: []Param{
			{"threads", "4", "encoder threads (--threads)"},
			{"frames", "600", "frames"},
			{"fps1", "130", "frames per second of one thread (the postings' single-thread figure): sets the CPU per frame"},
			{"rows", "45", "macroblock rows per frame (720p, 720/16; assumed: the postings give no resolution)"},
			{"lead", "7", "rows the reference frame must be ahead (assumed: about 112 pixels, x264's per-thread motion-vector range at 720p and 4 threads plus its 24-pixel X264_THREAD_HEIGHT margin)"},
			{"main", "300us", "main thread CPU per frame (input read and dispatch; assumed, part of the per-frame CPU)"},
		},
		Min: map[string]int64{"threads": 1, "frames": 1, "fps1": 1, "rows": 1},
		Build: func(v Values) *replay.Model {
			return X264(4, v.Int("threads"), v.Int("frames"), v.Int("fps1"), v.Int("rows"), v.Int("lead"), v.Dur("main"))
		},
		Bursts: func(v Values) float64 { return v.f("frames")*(v.f("rows")+1) + v.f("threads") },
	})
}

// X264 builds x264's frame threading on cpus CPUs: a main thread "x264"
// runs main ns per frame and hands frame f to encoder thread f mod threads
// ("x264_frame"), waiting first for that thread to finish frame f −
// threads; the encoder encodes rows rows of (1e9/fps1 − main)/rows ns each,
// and before row r waits until frame f − 1 finished row min(r+lead, rows−1)
// (a wait that is already satisfied costs nothing). The last frame's end
// ends the run.
func X264(cpus, threads, frames, fps1, rows, lead int, main int64) *replay.Model {
	threads, frames, rows, fps1 = max(threads, 1), max(frames, 1), max(rows, 1), max(fps1, 1)
	lead = min(max(lead, 0), rows-1)
	row := max((int64(1e9)/int64(fps1)-main)/int64(rows), 1)
	b := newBuilder(cpus)
	mt := b.task("x264", 0, 0, 0, 0, false)
	pid := int(b.m.Tasks[mt].TID)
	enc := make([]int, threads)
	for k := range enc {
		enc[k] = b.task("x264_frame", pid, 0, (k+1)%cpus, 0, true)
	}
	// Where each row of each frame ends: the encoder's burst and the offset
	// in it. Frame 0 waits for nothing: its rows are one burst.
	type end struct {
		burst int
		at    int64
	}
	rowEnd := make([][]end, frames)
	mainBurst := make([]int, frames)
	// The main thread: frames 0..threads-1 in its first burst, then one
	// burst per frame after waiting for the thread to be free.
	first := b.burst(mt, int64(min(threads, frames))*main, replay.Cause{}, frames <= threads)
	for f := 0; f < min(threads, frames); f++ {
		mainBurst[f] = first
	}
	for f := threads; f < frames; f++ {
		mainBurst[f] = b.burst(mt, main, replay.Cause{}, f == frames-1)
	}
	// Encoders: per frame a dispatch block (woken by main), then per row a
	// progress block (woken by the previous frame's encoder) and the row.
	for f := 0; f < frames; f++ {
		e := enc[f%threads]
		rowEnd[f] = make([]end, rows)
		last := f >= frames-threads
		// The dispatch block ends the encoder's last burst.
		d := len(b.m.Tasks[e].Bursts) - 1
		b.setWake(e, d, mt)
		at := main
		if f < threads {
			at = int64(f+1) * main
		}
		b.wakeAt(mt, mainBurst[f], at, e, d)
		if f == 0 {
			j := b.burst(e, int64(rows)*row, replay.Cause{}, last)
			for r := range rowEnd[f] {
				rowEnd[f][r] = end{j, int64(r+1) * row}
			}
			continue
		}
		// An empty burst splits the dispatch block from the first
		// progress block.
		b.burst(e, 0, replay.Cause{}, false)
		prev := enc[(f-1)%threads]
		for r := 0; r < rows; r++ {
			k := len(b.m.Tasks[e].Bursts) - 1
			b.setWake(e, k, prev)
			need := rowEnd[f-1][min(r+lead, rows-1)]
			b.wakeAt(prev, need.burst, need.at, e, k)
			j := b.burst(e, row, replay.Cause{}, last && r == rows-1)
			rowEnd[f][r] = end{j, row}
		}
	}
	// The main thread waits for the encoder of frame f − threads.
	for f := threads; f < frames; f++ {
		k := mainBurst[f] - 1
		e := enc[f%threads]
		done := rowEnd[f-threads][rows-1]
		b.setWake(mt, k, e)
		b.wakeAt(e, done.burst, done.at, mt, k)
	}
	return b.finish()
}
