package policies

import "testing"

// fakeSim is a minimal Sim for driving a policy by hand.
type fakeSim struct {
	now    int64
	ncpu   int
	curr   []*Task
	nr     []int
	tasks  []*Task
	resced []int
}

func newFakeSim(ncpu int) *fakeSim {
	return &fakeSim{ncpu: ncpu, curr: make([]*Task, ncpu), nr: make([]int, ncpu)}
}

func (f *fakeSim) Now() int64                     { return f.now }
func (f *fakeSim) NumCPUs() int                   { return f.ncpu }
func (f *fakeSim) Curr(cpu int) *Task             { return f.curr[cpu] }
func (f *fakeSim) NrRunning(cpu int) int          { return f.nr[cpu] }
func (f *fakeSim) Resched(cpu int)                { f.resced = append(f.resced, cpu) }
func (f *fakeSim) Migrate(t *Task, dst int) error { return nil }
func (f *fakeSim) Tasks() []*Task                 { return f.tasks }
func (f *fakeSim) HZ() int                        { return 250 }

func (f *fakeSim) task(nice int) *Task {
	t := &Task{ID: len(f.tasks), Nice: nice, Weight: Weight(nice), Affinity: AllCPUs(f.ncpu), State: TaskRunnable}
	f.tasks = append(f.tasks, t)
	return t
}

func TestCFSWakeupGranularity(t *testing.T) {
	// check_preempt_wakeup on 1 CPU (factor 1: wakeup_granularity 1 ms):
	// the wakee preempts only when curr.vruntime - wakee.vruntime exceeds
	// calc_delta_fair(1 ms, wakee) = 1 ms for nice 0 and
	// 1 ms × 1024/335 = 3.0567 ms for nice 5 (inverse-weight arithmetic:
	// 1e6 × floor(2^32/335) × 1024 >> 32 = 3056716 ns).
	tests := []struct {
		name      string
		wakeeNice int
		vdiff     int64 // curr.vruntime - wakee.vruntime, ns
		want      bool
	}{
		{"nice0 lead 0.9ms", 0, 900_000, false},
		{"nice0 lead exactly 1ms", 0, 1_000_000, false},
		{"nice0 lead 1.1ms", 0, 1_100_000, true},
		{"nice0 behind", 0, -500_000, false},
		{"nice5 lead 3.0ms", 5, 3_000_000, false},
		{"nice5 lead 3.06ms", 5, 3_060_000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := newFakeSim(1)
			p := NewCFS(nil, 1)
			p.Init(sim)
			curr, wakee := sim.task(0), sim.task(tc.wakeeNice)
			p.TaskNew(curr)
			p.TaskNew(wakee)
			p.Enqueue(0, curr, 0)
			p.Enqueue(0, wakee, 0)
			p.e[curr.ID].v = 50_000_000
			p.e[wakee.ID].v = 50_000_000 - tc.vdiff
			if got := p.CheckPreemptWakeup(0, curr, wakee, WakeTTWU); got != tc.want {
				t.Errorf("preempt = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestEEVDFPick(t *testing.T) {
	// Three entities on one runqueue, v0 = 0 (vruntimes in ms):
	//   A: v=0, w=1024, deadline 6;  B: v=1, w=1024, deadline 5;
	//   C: v=4, w=2048, deadline 4.2.
	// V = (0·1024 + 1·1024 + 4·2048) / 4096 = 9216/4096 = 2.25 ms.
	// Eligible (V >= v): A and B; C is not (4 > 2.25) although its
	// deadline is the earliest. Earliest eligible deadline: B (5 < 6).
	sim := newFakeSim(1)
	p := NewEEVDF(Values{"RUN_TO_PARITY": "off"}, 1)
	p.Init(sim)
	ms := int64(1_000_000)
	rq := &p.rqs[0]
	for i, e := range []eent{{v: 0, w: 1024, deadline: 6 * ms}, {v: 1 * ms, w: 1024, deadline: 5 * ms}, {v: 4 * ms, w: 2048, deadline: 4200_000}} {
		tk := sim.task(0)
		tk.Weight = e.w
		p.TaskNew(tk)
		p.e[i] = e
		p.e[i].cpu = 0
		rq.add(i, &p.e[i])
	}
	rq.v0, rq.sumWK = 0, 0
	for _, id := range rq.q {
		rq.sumWK += p.e[id].v * p.e[id].w
	}
	if V := rq.avg(); V != 2_250_000 {
		t.Fatalf("avg_vruntime = %d ns, want 2250000", V)
	}
	for id, want := range []bool{true, true, false} {
		if got := rq.eligible(&p.e[id]); got != want {
			t.Errorf("entity %d eligible = %v, want %v", id, got, want)
		}
	}
	if got := p.pick(rq, -1); got != 1 {
		t.Errorf("pick_eevdf = entity %d, want 1 (B)", got)
	}
	// B running (curr), A queued at v = 2 ms with B's deadline (5 ms):
	// V = (2·1024 + 1·1024 + 4·2048)/4096 = 2.75 ms, both eligible. The
	// queued entity wins the tie although curr's vruntime is lower: curr
	// keeps the CPU only with a strictly earlier deadline (__pick_eevdf,
	// kernel/sched/fair.c v6.18); with A's deadline at 5.1 ms, B stays.
	// set moves a queued entity: off the runqueue, then back on (the
	// timeline is ordered by deadline and vruntime).
	set := func(id int, v, deadline int64) {
		rq.remove(id, &p.e[id])
		p.e[id].v, p.e[id].deadline = v, deadline
		rq.add(id, &p.e[id])
	}
	set(0, 2*ms, 5*ms)
	rq.sumWK = 0
	for _, id := range rq.q {
		rq.sumWK += p.e[id].v * p.e[id].w
	}
	if V := rq.avg(); V != 2_750_000 {
		t.Fatalf("avg_vruntime = %d ns, want 2750000", V)
	}
	if got := p.pick(rq, 1); got != 0 {
		t.Errorf("pick_eevdf, curr B and A tied at 5 ms = entity %d, want 0 (A)", got)
	}
	set(0, 2*ms, 5100_000)
	if got := p.pick(rq, 1); got != 1 {
		t.Errorf("pick_eevdf, curr B at 5 ms and A at 5.1 ms = entity %d, want 1 (B)", got)
	}
	set(0, 0, 6*ms)
	rq.sumWK = 0
	for _, id := range rq.q {
		rq.sumWK += p.e[id].v * p.e[id].w
	}
	// With B gone, A (deadline 6) is the only eligible one: V = (0·1024 +
	// 4·2048)/3072 = 2.667 ms, C still not eligible.
	rq.remove(1, &p.e[1])
	if got := p.pick(rq, -1); got != 0 {
		t.Errorf("pick_eevdf without B = entity %d, want 0 (A)", got)
	}
}

// newEEVDFTasks returns an eevdf policy with values v on ncpu CPUs of a
// fake simulator, and n nice-0 tasks made known to it (TaskNew), none
// queued.
func newEEVDFTasks(v Values, ncpu, n int) (*fakeSim, *EEVDF, []*Task) {
	sim := newFakeSim(ncpu)
	p := NewEEVDF(v, ncpu)
	p.Init(sim)
	ts := make([]*Task, n)
	for k := range ts {
		ts[k] = sim.task(0)
		p.TaskNew(ts[k])
	}
	return sim, p, ts
}

func TestEEVDFPlaceLag(t *testing.T) {
	// place_entity with PLACE_LAG: a task with saved vlag = 1 ms joining a
	// runqueue of weight W = 2048 (two nice-0 tasks at V) with w = 1024 is
	// placed at v = V - vlag·(W+w)/W = V - 1.5 ms, so that after joining
	// V' = (2048·V + 1024·(V-1.5ms)) / 3072 = V - 0.5 ms and its lag
	// V' - v = 1 ms again. Its deadline is v + 1.4 ms (base slice 0.7 ms
	// × factor 2 for 2 CPUs).
	_, p, ts := newEEVDFTasks(nil, 2, 3)
	a, b, c := ts[0], ts[1], ts[2]
	p.Enqueue(0, a, 0)
	p.Enqueue(0, b, 0)
	V := p.rqs[0].avg()
	p.e[c.ID].vlag = 1_000_000
	p.Enqueue(0, c, EnqueueWakeup)
	if got, want := p.e[c.ID].v, V-1_500_000; got != want {
		t.Errorf("placed vruntime = %d, want %d", got, want)
	}
	if got, want := p.e[c.ID].deadline-p.e[c.ID].v, int64(1_400_000); got != want {
		t.Errorf("deadline - vruntime = %d, want %d (1.4 ms)", got, want)
	}
	if lag := p.rqs[0].avg() - p.e[c.ID].v; lag != 1_000_000 {
		t.Errorf("lag after placement = %d, want 1000000", lag)
	}
}

func TestScaleFactorAndSlices(t *testing.T) {
	// 1 + ilog2(min(ncpus, 8)): 1, 2, 2, 3, 3, 3, 3, 4, 4 for 1..9 CPUs.
	want := []int64{1, 2, 2, 3, 3, 3, 3, 4, 4}
	for n, w := range want {
		if got := ScaleFactor(n + 1); got != w {
			t.Errorf("ScaleFactor(%d) = %d, want %d", n+1, got, w)
		}
	}
	if got := DefaultBaseSlice(2); got != 1_400_000 {
		t.Errorf("DefaultBaseSlice(2) = %d, want 1400000", got)
	}
	c := NewCFS(nil, 2)
	if c.latency != 12_000_000 || c.minGran != 1_500_000 || c.wakeGran != 2_000_000 {
		t.Errorf("cfs on 2 CPUs: latency %d min_gran %d wakeup_gran %d, want 12 ms, 1.5 ms, 2 ms", c.latency, c.minGran, c.wakeGran)
	}
}

func TestCFSWakeMigrationBaseline(t *testing.T) {
	// A task that slept on CPU 1 (min_vruntime 100 ms) at vruntime 101 ms
	// wakes on CPU 0 (min_vruntime 20 ms). migrate_task_rq_fair (v5.10;
	// set_task_cpu in 2.6.31) makes it relative to CPU 1: 1 ms;
	// enqueue_entity adds CPU 0's: 21 ms; place_entity (2 CPUs, factor 2:
	// sched_latency 12 ms, GENTLE: thresh 6 ms) keeps max(21, 20 − 6) = 21
	// ms. Keeping CPU 1's baseline gave 101 + 20 = 121 ms: 100 ms of
	// vruntime behind everyone on CPU 0.
	sim := newFakeSim(2)
	p := NewCFS(nil, 2)
	p.Init(sim)
	w, s := sim.task(0), sim.task(0)
	p.TaskNew(w)
	p.TaskNew(s)
	p.Enqueue(0, w, 0)
	p.rqs[0].minV, p.e[w.ID].v = 20_000_000, 20_000_000
	p.Enqueue(1, s, 0)
	p.rqs[1].minV, p.e[s.ID].v = 100_000_000, 101_000_000
	p.Dequeue(1, s, DequeueSleep)
	p.Enqueue(0, s, EnqueueWakeup|EnqueueMigrated)
	if got, want := p.e[s.ID].v, int64(21_000_000); got != want {
		t.Errorf("vruntime after the wakeup migration = %d ns, want %d", got, want)
	}
}

func TestCFSTickLeftmost(t *testing.T) {
	// check_preempt_tick on 1 CPU with two nice-0 tasks (factor 1: latency
	// 6 ms, so sched_slice = 6 × 1024/2048 = 3 ms; min_granularity
	// 0.75 ms). curr has run 1 ms of this slice and leads the waiting
	// task by 4 ms of vruntime (> the 3 ms slice): v5.10 (TICK_LEFTMOST)
	// reschedules; 2.6.31's check_preempt_tick (NO_TICK_LEFTMOST) waits
	// for the slice to run out. At 3.5 ms run both reschedule.
	for _, tc := range []struct {
		spec string
		ran  int64
		want bool
	}{
		{"", 1_000_000, true},
		{"NO_TICK_LEFTMOST", 1_000_000, false},
		{"NO_TICK_LEFTMOST", 3_500_000, true},
		{"", 500_000, false}, // below min_granularity
	} {
		sim := newFakeSim(1)
		v := Values{}
		if tc.spec != "" {
			v = mustSpec(t, "cfs:"+tc.spec).Values
		}
		p := NewCFS(v, 1)
		p.Init(sim)
		curr, other := sim.task(0), sim.task(0)
		p.TaskNew(curr)
		p.TaskNew(other)
		p.Enqueue(0, curr, 0)
		p.Enqueue(0, other, 0)
		p.e[curr.ID].v, p.e[other.ID].v = 54_000_000, 50_000_000
		p.e[curr.ID].prevSum, curr.SumExec = 10_000_000, 10_000_000+tc.ran
		if got := p.Tick(0, curr); got != tc.want {
			t.Errorf("%q ran %d: resched %v, want %v", tc.spec, tc.ran, got, tc.want)
		}
	}
}

// TestEEVDFDelayedOn: A and B nice 0 on CPU 1; A has run 2 ms more than B
// (vA = vB + 2 ms, so V = vB + 1 ms and A is not eligible: V < vA). A
// sleeps: DELAY_DEQUEUE keeps it queued (delayed) on CPU 1, and DelayedOn
// says so, for the Stack the simulator holds as well; woken there it is
// requeued in place and no longer delayed. B, eligible, leaves at once.
func TestEEVDFDelayedOn(t *testing.T) {
	sim := newFakeSim(2)
	p := NewEEVDF(nil, 2)
	p.Init(sim)
	a, b := sim.task(1), sim.task(1)
	p.TaskNew(a)
	p.TaskNew(b)
	p.Enqueue(1, a, 0)
	p.Enqueue(1, b, 0)
	rq := &p.rqs[1]
	rq.remove(a.ID, &p.e[a.ID])
	p.e[a.ID].v = p.e[b.ID].v + 2_000_000
	rq.add(a.ID, &p.e[a.ID])
	if rq.eligible(&p.e[a.ID]) || !rq.eligible(&p.e[b.ID]) {
		t.Fatalf("eligible: A %v, B %v; want false, true", rq.eligible(&p.e[a.ID]), rq.eligible(&p.e[b.ID]))
	}
	p.Dequeue(1, a, DequeueSleep)
	var dq DelayedQueue = p
	if cpu, ok := dq.DelayedOn(a); !ok || cpu != 1 {
		t.Errorf("DelayedOn(A) = %d, %v; want 1, true", cpu, ok)
	}
	if cpu, ok := (&Stack{Fair: p}).DelayedOn(a); !ok || cpu != 1 {
		t.Errorf("Stack.DelayedOn(A) = %d, %v; want 1, true", cpu, ok)
	}
	p.Enqueue(1, a, EnqueueWakeup)
	if _, ok := dq.DelayedOn(a); ok {
		t.Errorf("A still delayed after its wakeup")
	}
	p.Dequeue(1, b, DequeueSleep)
	if _, ok := dq.DelayedOn(b); ok {
		t.Errorf("B (eligible) delayed at its sleep")
	}
}

// TestEEVDFDelayedGroupEntity: DELAY_DEQUEUE of a group entity (kernel/
// sched/fair.c v6.12-v6.18: dequeue_entities passes DEQUEUE_SLEEP to the
// levels above, and dequeue_entity delays any entity that is not eligible).
// One CPU, task A alone in /a, task B alone in /b, both groups weight 1024.
// /a's group entity is put 2 ms of vruntime ahead of /b's, so it is not
// eligible on the root runqueue. A sleeps: /a's runqueue empties, and its
// group entity stays queued, delayed, with its negative lag; A's wakeup
// requeues it as it was (no new placement). A sleeps again, then B: the
// root runqueue holds only the delayed /a, which the pick dequeues, and
// the CPU has nothing to run.
func TestEEVDFDelayedGroupEntity(t *testing.T) {
	sim := newFakeSim(1)
	p := NewEEVDF(nil, 1)
	p.SetGroups([]Group{{Path: "/", Parent: -1}, {Path: "/a", Parent: 0, Shares: 1024}, {Path: "/b", Parent: 0, Shares: 1024}})
	p.Init(sim)
	a, b := sim.task(0), sim.task(0)
	a.Group, b.Group = 1, 2
	p.TaskNew(a)
	p.TaskNew(b)
	p.Enqueue(0, a, 0)
	p.Enqueue(0, b, 0)
	root := &p.rqs[0]
	ga, gb := p.gid(1, 0), p.gid(2, 0)
	ea, eb := p.ent(ga), p.ent(gb)
	root.remove(ga, ea)
	ea.v = eb.v + 2_000_000
	root.add(ga, ea)
	if root.eligible(ea) || !root.eligible(eb) {
		t.Fatalf("eligible: /a %v, /b %v; want false, true", root.eligible(ea), root.eligible(eb))
	}
	v := ea.v
	p.Dequeue(0, a, DequeueSleep)
	if !ea.queued || !ea.delayed || len(root.q) != 2 {
		t.Fatalf("after A's sleep: /a queued %v delayed %v, root holds %d entities; want true, true, 2", ea.queued, ea.delayed, len(root.q))
	}
	p.Enqueue(0, a, EnqueueWakeup)
	if ea.delayed || !ea.queued || ea.v != v {
		t.Fatalf("after A's wakeup: /a delayed %v queued %v v %d; want false, true, %d (requeued as it was)", ea.delayed, ea.queued, ea.v, v)
	}
	p.Dequeue(0, a, DequeueSleep)
	p.Dequeue(0, b, DequeueSleep)
	if eb.queued || !ea.delayed || len(root.q) != 1 {
		t.Fatalf("after both sleep: /b queued %v, /a delayed %v, root holds %d; want false, true, 1", eb.queued, ea.delayed, len(root.q))
	}
	if got := p.PickNext(0, nil); got != nil {
		t.Errorf("PickNext = task %d, want nothing to run", got.ID)
	}
	if ea.queued || ea.delayed || len(root.q) != 0 {
		t.Errorf("after the pick: /a queued %v delayed %v, root holds %d; want false, false, 0", ea.queued, ea.delayed, len(root.q))
	}
	// A migrating task's group entity is never delayed (no DEQUEUE_SLEEP).
	p.Enqueue(0, a, EnqueueWakeup)
	p.Enqueue(0, b, EnqueueWakeup)
	root.remove(ga, ea)
	ea.v = eb.v + 2_000_000
	root.add(ga, ea)
	p.Dequeue(0, a, DequeueMigrate)
	if ea.queued || ea.delayed {
		t.Errorf("after A's migration: /a queued %v delayed %v; want false, false", ea.queued, ea.delayed)
	}
}

// TestEEVDFWakeupDequeuesDelayed: the wakeup preemption check dequeues a
// delayed entity it picks and picks again (WAKEUP_DEQUEUE_DELAYED, upstream
// commit ac8e69e69363). One CPU, three nice-0 tasks (weight 1024):
//   - H runs at v = 10 ms, D is queued at v = 12 ms: V = 11 ms, so D is not
//     eligible and its sleep is delayed;
//   - H is charged 3 ms: v_H = 13 ms, V = (13 + 12) / 2 = 12.5 ms: D is
//     eligible, H is not; D's deadline is set to 12.1 ms;
//   - W wakes, new (lag 0): placed at V = 12.5 ms, deadline 12.5 + 0.7 =
//     13.2 ms (base slice 0.70 ms on 1 CPU); V stays 12.5 ms.
//
// The eligible entities are D and W; D's deadline is the earlier, so a pick
// takes D. Without the feature W does not preempt H and D stays delayed.
// With it D is dequeued (lag 12.5 − 12 = 0.5 ms > 0, clipped to 0 by
// DELAY_ZERO), V becomes (13 + 12.5) / 2 = 12.75 ms, W (12.5) is eligible
// and H (13) is not: the pick takes W, which preempts.
func TestEEVDFWakeupDequeuesDelayed(t *testing.T) {
	for _, tc := range []struct {
		spec        string
		preempt     bool
		stillQueued bool
	}{
		{"eevdf", true, false},
		{"eevdf:NO_WAKEUP_DEQUEUE_DELAYED", false, true},
	} {
		sim, p, ts := newEEVDFTasks(mustSpec(t, tc.spec).Values, 1, 3)
		h, d, w := ts[0], ts[1], ts[2]
		p.Enqueue(0, h, 0)
		p.Enqueue(0, d, 0)
		rq := &p.rqs[0]
		set := func(x *Task, v, deadline int64) {
			e := &p.e[x.ID]
			rq.remove(x.ID, e)
			e.v, e.deadline = v, deadline
			rq.add(x.ID, e)
		}
		set(h, 10_000_000, 11_400_000)
		set(d, 12_000_000, 13_400_000)
		p.setCurr(rq, h.ID)
		sim.curr[0] = h
		p.Dequeue(0, d, DequeueSleep)
		if !p.e[d.ID].delayed {
			t.Fatalf("%s: D (v 12 ms, V 11 ms) not delayed at its sleep", tc.spec)
		}
		p.UpdateCurr(0, h, 3_000_000)
		set(d, 12_000_000, 12_100_000)
		p.Enqueue(0, w, EnqueueWakeup)
		if got := p.e[w.ID].v; got != 12_500_000 {
			t.Fatalf("%s: W placed at v %d, want 12500000", tc.spec, got)
		}
		if got := p.CheckPreemptWakeup(0, h, w, 0); got != tc.preempt {
			t.Errorf("%s: W preempts H: %v, want %v", tc.spec, got, tc.preempt)
		}
		if e := &p.e[d.ID]; e.delayed != tc.stillQueued || e.queued != tc.stillQueued {
			t.Errorf("%s: D delayed %v, queued %v; want both %v", tc.spec, e.delayed, e.queued, tc.stillQueued)
		}
		if !tc.stillQueued && p.e[d.ID].vlag != 0 {
			t.Errorf("%s: D's lag after the dequeue %d, want 0 (DELAY_ZERO)", tc.spec, p.e[d.ID].vlag)
		}
	}
}

// TestBatchIdleWakeeNoPreempt: SCHED_BATCH and SCHED_IDLE wakees never
// preempt (wakeup_preempt_fair's !normal_policy(p->policy) return,
// kernel/sched/fair.c v6.12-v6.18; check_preempt_wakeup's p->policy !=
// SCHED_NORMAL before v6.6), while a SCHED_IDLE current task is preempted
// by any other wakee. One CPU, nice 0. EEVDF: the current task H at
// v 10 ms (deadline 11.4 ms) has run 3 ms past its pick (v 13 ms, so its
// RUN_TO_PARITY protection is over: 13 > 11.4); the wakee W sits at
// v 11 ms, deadline 12.4 ms: V = (13 + 11) / 2 = 12 ms, W is eligible with
// the earlier deadline and is picked, so a normal W preempts. CFS: H leads
// W by 5 ms of vruntime, over the 1 ms wakeup granularity.
func TestBatchIdleWakeeNoPreempt(t *testing.T) {
	for _, tc := range []struct {
		name          string
		curr, wakee   Class
		batch, preemp bool
	}{
		{"normal wakee", ClassFair, ClassFair, false, true},
		{"batch wakee", ClassFair, ClassFair, true, false},
		{"idle wakee", ClassFair, ClassIdle, false, false},
		{"idle wakee, idle current", ClassIdle, ClassIdle, false, false},
		{"normal wakee, idle current", ClassIdle, ClassFair, false, true},
		{"batch wakee, idle current", ClassIdle, ClassFair, true, true},
	} {
		t.Run("eevdf/"+tc.name, func(t *testing.T) {
			sim, p, ts := newEEVDFTasks(nil, 1, 2)
			h, w := ts[0], ts[1]
			h.Class, w.Class, w.Batch = tc.curr, tc.wakee, tc.batch
			p.Enqueue(0, h, 0)
			rq := &p.rqs[0]
			e := &p.e[h.ID]
			rq.remove(h.ID, e)
			e.v, e.deadline = 10_000_000, 11_400_000
			rq.add(h.ID, e)
			p.setCurr(rq, h.ID)
			sim.curr[0] = h
			p.UpdateCurr(0, h, 3_000_000)
			p.Enqueue(0, w, EnqueueWakeup)
			ew := &p.e[w.ID]
			rq.remove(w.ID, ew)
			ew.v, ew.deadline = 11_000_000, 12_400_000
			rq.add(w.ID, ew)
			if got := p.CheckPreemptWakeup(0, h, w, WakeTTWU); got != tc.preemp {
				t.Errorf("preempt = %v, want %v", got, tc.preemp)
			}
		})
		t.Run("cfs/"+tc.name, func(t *testing.T) {
			sim := newFakeSim(1)
			p := NewCFS(nil, 1)
			p.Init(sim)
			h, w := sim.task(0), sim.task(0)
			h.Class, w.Class, w.Batch = tc.curr, tc.wakee, tc.batch
			p.TaskNew(h)
			p.TaskNew(w)
			p.Enqueue(0, h, 0)
			p.Enqueue(0, w, 0)
			p.e[h.ID].v = 50_000_000
			p.e[w.ID].v = 45_000_000
			if got := p.CheckPreemptWakeup(0, h, w, WakeTTWU); got != tc.preemp {
				t.Errorf("preempt = %v, want %v", got, tc.preemp)
			}
		})
	}
}
