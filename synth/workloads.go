package synth

import "github.com/traceview/traceview/replay"

func init() {
	register(Generator{
		Name:    "pipeline",
		Summary: "x264-style frame pipeline: thread i starts frame f once thread i-1 finished frame f+dist-1",
		Source:  "../shared/workloads/pipeline.c (x264 frame threading); back-pressure QUEUE not modelled",
		CPUs:    4,
		Params: []Param{
			{"threads", "4", "pipeline threads"},
			{"frames", "300", "frames each thread processes"},
			{"work", "300us", "CPU time per frame per thread"},
			{"dist", "1", "frames thread i-1 must be ahead (at least 1)"},
		},
		Min: map[string]int64{"threads": 1, "frames": 1, "dist": 1},
		Build: func(v Values) *replay.Model {
			return Pipeline(v.Int("threads"), v.Int("frames"), v.Dur("work"), v.Int("dist"), 4)
		},
		Bursts: func(v Values) float64 { return (v.f("threads")-1)*(v.f("frames")+1) + 1 },
	})
	register(Generator{
		Name:    "massive_intr",
		Summary: "N processes running RUN and sleeping SLEEP in a loop, beside a periodic probe",
		Source:  "massive_intr.c (Satoru Takeuchi, LKML 2008; ../shared/workloads), cyclictest-like probe",
		CPUs:    2,
		Params: []Param{
			{"procs", "8", "massive_intr processes"},
			{"run", "8ms", "CPU burst per loop"},
			{"sleep", "1ms", "sleep per loop"},
			{"loops", "60", "loops per process"},
			{"probe_period", "1ms", "probe sleep between wakeups (0: no probe)"},
			{"probe_work", "20us", "probe CPU per wakeup"},
			{"probe_loops", "2000", "probe wakeups"},
		},
		Build: func(v Values) *replay.Model {
			return MassiveIntr(2, v.Int("procs"), v.Dur("run"), v.Dur("sleep"), v.Int("loops"),
				v.Dur("probe_period"), v.Dur("probe_work"), v.Int("probe_loops"))
		},
		Bursts: func(v Values) float64 {
			probe := v.f("probe_loops")
			if v.Dur("probe_period") == 0 {
				probe = 0
			}
			return v.f("procs")*v.f("loops") + probe
		},
	})
	register(Generator{
		Name:    "messaging",
		Summary: "hackbench / perf bench sched messaging: groups of 20 senders writing to 20 receivers",
		Source:  "perf bench sched messaging (tools/perf/bench/sched-messaging.c), hackbench; senders never block (a socket holds all loops × 100 bytes a sender writes to one receiver)",
		CPUs:    1,
		Params: []Param{
			{"groups", "4", "groups of senders and receivers"},
			{"loops", "50", "messages each sender sends to each receiver"},
			{"fds", "20", "senders (and receivers) per group"},
			{"send", "10us", "CPU per message written"},
			{"recv", "10us", "CPU per message read"},
			{"by_loop", "0", "1: a receiver reads loop 0 of every sender, then loop 1, ...; 0: all of sender 0's loops, then " +
				"sender 1's (the arrival order when senders run one after another)"},
		},
		Build: func(v Values) *replay.Model {
			return Messaging(1, v.Int("groups"), v.Int("loops"), v.Int("fds"), v.Dur("send"), v.Dur("recv"), v.Int("by_loop") != 0)
		},
		Bursts: func(v Values) float64 { return v.f("groups") * v.f("fds") * (v.f("fds")*v.f("loops") + 2) },
		// loops=0 or fds=0: tasks that start and exit with no message, a
		// trace of nothing to measure (groups=0 is refused as empty).
		Min: map[string]int64{"loops": 1, "fds": 1},
	})
	register(Generator{
		Name:    "pipe",
		Summary: "perf bench sched pipe: two tasks passing a token back and forth",
		Source:  "perf bench sched pipe (tools/perf/bench/sched-pipe.c), Ingo Molnar's pipe-test",
		CPUs:    1,
		Params: []Param{
			{"loops", "1000", "round trips"},
			{"work", "5us", "CPU per pass"},
		},
		Build:  func(v Values) *replay.Model { return Pipe(1, v.Int("loops"), v.Dur("work")) },
		Bursts: func(v Values) float64 { return 2*v.f("loops") + 2 },
		Min:    map[string]int64{"loops": 1}, // no round trip: nothing to measure
	})
	register(Generator{
		Name:    "manytasks",
		Summary: "a large population of short-burst, long-sleep tasks with a chosen number runnable",
		Source:  "the 2001 multi-queue scheduler benchmarks (HP, IBM LSE): ~1400 tasks, 70-80 runnable, 2.4 kernels",
		CPUs:    2,
		Params: []Param{
			{"tasks", "1400", "tasks"},
			{"runnable", "75", "target runnable tasks when the CPUs are saturated"},
			{"burst", "200us", "CPU burst per wakeup"},
			{"loops", "10", "bursts per task"},
		},
		Build: func(v Values) *replay.Model {
			return ManyTasks(2, v.Int("tasks"), v.Int("runnable"), v.Dur("burst"), v.Int("loops"))
		},
		Bursts: func(v Values) float64 { return v.f("tasks") * v.f("loops") },
	})
	register(Generator{
		Name:    "latt",
		Summary: "latt-style wakeup probe (a server wakes a client every period) under a make -jN-like load",
		Source:  "latt (Jens Axboe, LKML 2009); compile jobs as CPU bursts with short I/O sleeps",
		CPUs:    2,
		Params: []Param{
			{"period", "10ms", "server period"},
			{"client_work", "50us", "client CPU per wakeup"},
			{"loops", "200", "client wakeups"},
			{"jobs", "4", "parallel compile jobs (make -jN)"},
			{"job_burst", "40ms", "mean CPU burst of a compile job (varies 50%-150%)"},
			{"job_io", "1ms", "I/O sleep between compile bursts"},
		},
		Build: func(v Values) *replay.Model {
			return Latt(2, v.Dur("period"), v.Dur("client_work"), v.Int("loops"), v.Int("jobs"), v.Dur("job_burst"), v.Dur("job_io"))
		},
		Bursts: func(v Values) float64 {
			span := v.f("loops") * v.fd("period")
			return 2*v.f("loops") + v.f("jobs")*span/(v.fd("job_burst")+v.fd("job_io"))
		},
	})
}

// Pipeline builds the x264-style pipeline on cpus CPUs: threads threads of
// one process, frames frames of work ns each; thread i > 0 starts frame f
// once thread i−1 has finished frame min(f+dist−1, frames−1) (pipeline.c's
// must_wait without back-pressure). Thread 0 never waits: it is one burst
// of frames × work that wakes thread 1 at each frame boundary.
func Pipeline(threads, frames int, work int64, dist, cpus int) *replay.Model {
	threads, frames, dist = max(threads, 1), max(frames, 1), max(dist, 1)
	b := newBuilder(cpus)
	pid := 0
	for i := 0; i < threads; i++ {
		t := b.task("x264", pid, 0, i%cpus, 0, i > 0)
		if i == 0 {
			pid = int(b.m.Tasks[t].TID)
			b.burst(t, int64(frames)*work, replay.Cause{}, true)
			continue
		}
		b.setWake(t, 0, t-1)
		for f := 0; f < frames; f++ {
			last := f == frames-1
			j := b.burst(t, work, replay.Cause{}, last)
			if !last {
				b.setWake(t, j, t-1)
			}
		}
	}
	// Thread i's block k (before frame k) waits for frame g of thread i−1.
	for i := 1; i < threads; i++ {
		for k := 0; k < frames; k++ {
			g := min(k+dist-1, frames-1)
			if i == 1 {
				b.wakeAt(0, 0, int64(g+1)*work, i, k)
			} else {
				b.wakeAt(i-1, g+1, work, i, k)
			}
		}
	}
	return b.finish()
}

// MassiveIntr builds procs processes of loops × (run CPU, sleep timer) and,
// when period > 0, a probe task "cyclictest" of probeLoops × (work CPU,
// period timer).
func MassiveIntr(cpus, procs int, run, sleep int64, loops int, period, work int64, probeLoops int) *replay.Model {
	b := newBuilder(cpus)
	for p := 0; p < procs; p++ {
		t := b.task("massive_intr", 0, 0, p%cpus, 0, false)
		for l := 0; l < loops; l++ {
			b.burst(t, run, timer(sleep), l == loops-1)
		}
	}
	if period > 0 && probeLoops > 0 {
		t := b.task("cyclictest", 0, 0, 0, 0, false)
		for l := 0; l < probeLoops; l++ {
			b.burst(t, work, timer(period), l == probeLoops-1)
		}
	}
	return b.finish()
}

// Messaging builds groups of fds senders and fds receivers; each sender
// writes loops messages to every receiver of its group (send ns each), each
// receiver reads them (recv ns each). A receiver of hackbench reads its one
// socket, so it takes the messages in the order they arrived; the model
// fixes that order in advance: (sender, loop), the arrival order when the
// senders run one after another (each sender's loop writes one message to
// every receiver in turn: sched-messaging.c), or with byLoop (loop,
// sender). A sender never blocks: at hackbench's sizes a socket holds all
// loops × 100 bytes a sender writes to one receiver.
func Messaging(cpus, groups, loops, fds int, send, recv int64, byLoop bool) *replay.Model {
	b := newBuilder(cpus)
	msgs := loops * fds
	for g := 0; g < groups; g++ {
		senders := make([]int, fds)
		receivers := make([]int, fds)
		for r := range receivers {
			t := b.task("sched-messaging", 0, 0, 0, 0, true)
			receivers[r] = t
			for j := 1; j <= msgs; j++ {
				b.burst(t, recv, replay.Cause{}, j == msgs)
			}
		}
		for s := range senders {
			senders[s] = b.task("sched-messaging", 0, 0, 0, 0, false)
			b.burst(senders[s], int64(msgs)*send, replay.Cause{}, true)
		}
		// Receiver r's block j (before reading message j) waits for message
		// (s, l) = (j / loops, j % loops), or (l, s) = (j / fds, j % fds)
		// by loop: sender s's (l×fds + r)-th write.
		for r, rt := range receivers {
			for j := 0; j < msgs; j++ {
				s, l := j/loops, j%loops
				if byLoop {
					l, s = j/fds, j%fds
				}
				b.setWake(rt, j, senders[s])
				b.wakeAt(senders[s], 0, int64(l*fds+r+1)*send, rt, j)
			}
		}
	}
	return b.finish()
}

// Pipe builds two tasks passing a token loops times, work ns per pass.
func Pipe(cpus, loops int, work int64) *replay.Model {
	b := newBuilder(cpus)
	a := b.task("sched-pipe", 0, 0, 0, 0, false)
	c := b.task("sched-pipe", int(b.m.Tasks[a].TID), 0, 0, 0, true)
	for n := 0; n < loops; n++ {
		j := b.burst(a, work, replay.Cause{}, false)
		b.setWake(a, j, c)
		b.wakeAt(a, j, work, c, n)
	}
	b.burst(a, 0, replay.Cause{}, true)
	for j := 1; j <= loops; j++ {
		b.setWake(c, j-1, a)
		k := b.burst(c, work, replay.Cause{}, j == loops)
		b.wakeAt(c, k, work, a, j-1)
	}
	return b.finish()
}

// ManyTasks builds tasks tasks of loops × (burst CPU, sleep timer), the
// sleep chosen so that about runnable tasks are runnable when the CPUs are
// saturated: with every CPU busy, tasks complete cpus/burst bursts per ns
// and (tasks − runnable) sleep, so sleep = (tasks − runnable) × burst /
// cpus (Little's law). Starts are spread over one sleep.
func ManyTasks(cpus, tasks, runnable int, burst int64, loops int) *replay.Model {
	b := newBuilder(cpus)
	sleep := int64(max(tasks-runnable, 0)) * burst / int64(cpus)
	for i := 0; i < tasks; i++ {
		t := b.task("worker", 0, 0, i%cpus, int64(i)*sleep/int64(max(tasks, 1)), false)
		for l := 0; l < loops; l++ {
			b.burst(t, burst, timer(sleep), l == loops-1)
		}
	}
	return b.finish()
}

// Latt builds a latt-style probe, a server "latt" that wakes a client
// "latt-client" every period (the client runs work and waits again), loops
// times, beside jobs compile jobs "cc1" whose CPU bursts cycle through
// 50%, 100% and 150% of jobBurst with jobIO sleeps between, for as long as
// the probe runs.
func Latt(cpus int, period, work int64, loops, jobs int, jobBurst, jobIO int64) *replay.Model {
	b := newBuilder(cpus)
	srv := b.task("latt", 0, 0, 0, 0, false)
	cli := b.task("latt-client", int(b.m.Tasks[srv].TID), 0, 1%cpus, 0, true)
	for n := 0; n < loops; n++ {
		j := b.burst(srv, 10_000, timer(period), n == loops-1)
		b.wakeAt(srv, j, 10_000, cli, n)
	}
	for j := 1; j <= loops; j++ {
		b.setWake(cli, j-1, srv)
		b.burst(cli, work, replay.Cause{}, j == loops)
	}
	total := int64(loops) * period
	for k := 0; k < jobs; k++ {
		t := b.task("cc1", 0, 0, k%cpus, 0, false)
		var used int64
		for n := 0; used < total; n++ {
			l := jobBurst * int64(1+(n+k)%3) / 2
			used += l + jobIO
			b.burst(t, l, timer(jobIO), used >= total)
		}
	}
	return b.finish()
}
