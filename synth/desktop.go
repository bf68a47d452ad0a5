package synth

import (
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

func init() {
	register(Generator{
		Name: "massive_video",
		Summary: "massive_intr processes beside a frame-paced video player (a demuxer waking decode threads, " +
			"a compositor and an X server each frame)",
		Source: "the 6.3-rc EEVDF postings' test (massive_intr 8 9999 beside Firefox playing a video, i7-4790, " +
			"8 CPUs); the player's threads and CPU times are assumptions (no figure in the posting)",
		CPUs: 8,
		Params: []Param{
			{"procs", "8", "massive_intr processes"},
			{"run", "8ms", "massive_intr CPU burst per loop (WORK_MSECS of massive_intr.c)"},
			{"sleep", "1ms", "massive_intr sleep per loop (SLEEP_MSECS of massive_intr.c)"},
			{"frames", "300", "video frames (the run lasts frames / fps)"},
			{"fps", "60", "frames per second of the player and of X's vblank"},
			{"decoders", "4", "decode threads woken each frame"},
			{"decode", "6ms", "CPU per frame per decode thread (4 × 6 ms at 60 fps: 1.44 CPUs, assumed for a software 1080p60 decode on a 2014 quad core)"},
			{"demux", "300us", "demuxer CPU per frame"},
			{"composite", "2ms", "compositor CPU per frame"},
			{"x", "1ms", "X server CPU per frame"},
		},
		Min: map[string]int64{"frames": 1, "fps": 1, "decoders": 1},
		Build: func(v Values) *replay.Model {
			return MassiveVideo(8, v.Int("procs"), v.Dur("run"), v.Dur("sleep"), v.Int("frames"), v.Int("fps"),
				v.Int("decoders"), v.Dur("decode"), v.Dur("demux"), v.Dur("composite"), v.Dur("x"))
		},
		Bursts: func(v Values) float64 {
			span := v.f("frames") / max(v.f("fps"), 1) * 1e9
			return v.f("procs")*span/(v.fd("run")+v.fd("sleep")) + v.f("frames")*(v.f("decoders")+3)
		},
	})
}

// MassiveVideo builds procs massive_intr processes (run CPU, sleep timer,
// for as long as the video plays) beside a video player on cpus CPUs: for
// each of frames frames, at absolute time f/fps, a demuxer "firefox" runs
// demux ns and wakes decoders decode threads "MediaDecoder" (decode ns
// each); the first decode thread, when done, wakes the compositor
// "Compositor" (composite ns), which wakes the X server "Xorg" (x ns).
// The frame times are external events: the player keeps its frame rate
// whatever the schedule (an open-loop arrival, as vblank-paced playback).
func MassiveVideo(cpus, procs int, run, sleep int64, frames, fps, decoders int, decode, demux, composite, x int64) *replay.Model {
	frames, fps, decoders = max(frames, 1), max(fps, 1), max(decoders, 1)
	b := newBuilder(cpus)
	period := int64(1e9) / int64(fps)
	total := int64(frames) * period
	for p := 0; p < procs; p++ {
		t := b.task("massive_intr", 0, 0, p%cpus, 0, false)
		var used int64
		for used < total {
			used += run + sleep
			b.burst(t, run, timer(sleep), used >= total)
		}
	}
	main := b.task("firefox", 0, 0, 0, 0, true)
	pid := int(b.m.Tasks[main].TID)
	dec := make([]int, decoders)
	for k := range dec {
		dec[k] = b.task("MediaDecoder", pid, 0, (k+1)%cpus, 0, true)
	}
	comp := b.task("Compositor", pid, 0, 0, 0, true)
	xs := b.task("Xorg", 0, 0, 0, 0, true)
	for f := 0; f < frames; f++ {
		last := f == frames-1
		b.m.Tasks[main].Bursts[f].Wake = replay.Cause{Kind: replay.CauseExternal, At: int64(f) * period}
		j := b.burst(main, demux, replay.Cause{}, last)
		for _, d := range dec {
			b.wakeAt(main, j, demux, d, f)
		}
		for k, d := range dec {
			b.setWake(d, f, main)
			dj := b.burst(d, decode, replay.Cause{}, last)
			if k == 0 {
				b.wakeAt(d, dj, decode, comp, f)
			}
		}
		b.setWake(comp, f, dec[0])
		cj := b.burst(comp, composite, replay.Cause{}, last)
		b.wakeAt(comp, cj, composite, xs, f)
		b.setWake(xs, f, comp)
		b.burst(xs, x, replay.Cause{}, last)
	}
	return b.finish()
}

func init() {
	register(Generator{
		Name: "latt_make",
		Summary: "latt -cN: a server writing to each of N clients' pipes in turn each period, beside a make -jJ-like build " +
			"(J job slots, each forking compile processes of CPU bursts and I/O sleeps and waiting for them)",
		Source: "latt (Jens Axboe, LKML 2009: latt -c8 'sleep 30' under make -j4 on a dual core); the build's " +
			"burst, I/O and job sizes are assumptions (the posting gives none)",
		CPUs: 2,
		Params: []Param{
			{"period", "10ms", "server period (latt's wakeup interval)"},
			{"clients", "8", "clients woken together (latt -c)"},
			{"client_work", "20us", "client CPU per wakeup"},
			{"write", "1us", "server CPU per pipe write; client c is woken (c+1) writes into the server's burst"},
			{"loops", "300", "server wakeups"},
			{"jobs", "4", "job slots (make -j)"},
			{"job_burst", "20ms", "mean CPU burst of a compile process (cycles 50%, 100%, 150%)"},
			{"job_io", "1ms", "I/O sleep between compile bursts"},
			{"job_bursts", "6", "bursts per compile process before it exits"},
			{"make_work", "500us", "CPU the job slot (make) spends between two compile processes"},
			{"driver", "0s", "CPU of a compiler driver \"gcc\" between make and each compile process (half before it forks cc1, half after cc1 exits); 0: make forks cc1 itself"},
		},
		Min: map[string]int64{"clients": 1, "loops": 1, "job_bursts": 1, "write": 1},
		Build: func(v Values) *replay.Model {
			return LattMake(2, v.Dur("period"), v.Int("clients"), v.Dur("client_work"), v.Dur("write"), v.Int("loops"), v.Int("jobs"),
				v.Dur("job_burst"), v.Dur("job_io"), v.Int("job_bursts"), v.Dur("make_work"), v.Dur("driver"))
		},
		Bursts: func(v Values) float64 {
			span := v.f("loops") * v.fd("period")
			perProc, driver := v.f("job_bursts")+1, 0.0
			if v.Dur("driver") > 0 {
				perProc, driver = perProc+2, v.fd("driver")
			}
			proc := v.f("job_bursts")*(v.fd("job_burst")+v.fd("job_io")) + v.fd("make_work") + driver
			return v.f("loops")*(v.f("clients")+1) + v.f("jobs")*span/proc*perProc
		},
	})
}

// forked adds a task created by a fork of task parent at at ns into its
// burst j, and returns its index.
func (b *builder) forked(comm string, pid, parent, j int, at int64) int {
	i := len(b.m.Tasks)
	tid := trace.TID(1000 + i)
	p := trace.PID(tid)
	if pid > 0 {
		p = trace.PID(pid)
	}
	b.m.Tasks = append(b.m.Tasks, replay.Task{TID: tid, PID: p, Comm: comm, Prio: 120, Parent: parent,
		Init: replay.InitForked, CPU: b.m.Tasks[parent].CPU})
	pt := &b.m.Tasks[parent]
	pt.AddAction(&pt.Bursts[j], replay.Action{At: at, Kind: replay.ActFork, Target: int32(i)})
	return i
}

// LattMake builds the latt experiment on cpus CPUs: a server "latt" that
// every period writes a timestamp to each of clients clients "latt-client"
// in turn (write ns of CPU per write; client c is woken after (c+1) writes,
// so a client that preempts the server delays the later writes, as latt's
// loop over the clients' pipes does), loops times; each client runs work
// and waits again; beside it jobs job slots
// "make", each running makeWork, forking a compile process "cc1" and
// waiting for its exit, again and again while the probe runs (a slot's
// CPU time at cpus/jobs of the machine fits in loops × period). A compile
// process runs bursts bursts (50 %, 100 % and 150 % of jobBurst in turn)
// with jobIO sleeps between and exits, waking its slot. With driver > 0
// the slot forks a compiler driver "gcc" instead, as make runs gcc and gcc
// runs cc1 as its child: gcc runs driver/2 ns, forks cc1, waits for its
// exit, runs driver/2 ns more and exits, waking the slot (the assembler gcc
// runs after cc1 is left out).
func LattMake(cpus int, period int64, clients int, work, write int64, loops, jobs int, jobBurst, jobIO int64, bursts int, makeWork, driver int64) *replay.Model {
	clients, loops, bursts, write = max(clients, 1), max(loops, 1), max(bursts, 1), max(write, 1)
	b := newBuilder(cpus)
	srv := b.task("latt", 0, 0, 0, 0, false)
	cl := make([]int, clients)
	for c := range cl {
		cl[c] = b.task("latt-client", int(b.m.Tasks[srv].TID), 0, c%cpus, 0, true)
	}
	for n := 0; n < loops; n++ {
		j := b.burst(srv, int64(clients)*write, timer(period), n == loops-1)
		for k, c := range cl {
			b.wakeAt(srv, j, int64(k+1)*write, c, n)
		}
	}
	for _, c := range cl {
		for j := 1; j <= loops; j++ {
			b.setWake(c, j-1, srv)
			b.burst(c, work, replay.Cause{}, j == loops)
		}
	}
	total := int64(loops) * period
	for k := 0; k < jobs; k++ {
		slot := b.task("make", 0, 0, k%cpus, 0, false)
		var used int64
		// A slot gets about cpus/jobs of the CPUs: it forks jobs while its
		// CPU time at that share fits in the probe's run.
		for n := 0; used*int64(jobs) < total*int64(cpus); n++ {
			j := b.burst(slot, makeWork, replay.Cause{}, false)
			parent, pj, at := slot, j, makeWork
			var gcc int
			if driver > 0 {
				gcc = b.forked("gcc", 0, slot, j, makeWork)
				parent, pj, at = gcc, b.burst(gcc, driver/2, replay.Cause{}, false), driver/2
				used += driver
			}
			cc := b.forked("cc1", 0, parent, pj, at)
			var jl int
			for x := 0; x < bursts; x++ {
				l := jobBurst * int64(1+(n+k+x)%3) / 2
				used += l + jobIO
				last := x == bursts-1
				w := timer(jobIO)
				if last {
					w = replay.Cause{}
				}
				jl = b.burst(cc, l, w, last)
			}
			b.wakeAt(cc, jl, b.m.Tasks[cc].Bursts[jl].Len, parent, pj)
			b.setWake(parent, pj, cc)
			if driver > 0 {
				gl := b.burst(gcc, driver-driver/2, replay.Cause{}, true)
				b.wakeAt(gcc, gl, driver-driver/2, slot, j)
				b.setWake(slot, j, gcc)
			}
		}
		b.burst(slot, makeWork, replay.Cause{}, true)
	}
	return b.finish()
}
