package policies_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/trace"
)

// Helpers for the hand-computed schedules of the classic policies (bfs, sd,
// o1, goodness24, mq-hp, mq-lse). Every task of a test model runs
// bursts[0], sleeps sleeps[0] (a timer), runs bursts[1], ... and exits
// after its last burst. Times are in µs to keep the arithmetic readable.

type ttask struct {
	comm   string
	nice   int
	cpu    int
	start  int64   // µs
	bursts []int64 // µs of CPU time
	sleeps []int64 // µs asleep after bursts[i] (timer)
	pid    int     // process (mm); 0 means its own
}

func testModel(ncpu int, tasks ...ttask) *replay.Model {
	m := &replay.Model{NrCPUs: ncpu, WorkloadRoot: -1}
	for i, tt := range tasks {
		tid := trace.TID(100 + i)
		pid := trace.PID(tid)
		if tt.pid != 0 {
			pid = trace.PID(tt.pid)
		}
		k := replay.Task{TID: tid, PID: pid, Comm: tt.comm, Prio: int32(120 + tt.nice), Parent: -1,
			Init: replay.InitRunnable, CPU: tt.cpu, Start: tt.start * 1000}
		for j, b := range tt.bursts {
			bu := replay.Burst{Len: b * 1000, End: replay.EndExit}
			if j < len(tt.sleeps) {
				bu.End = replay.EndBlock
				bu.Wake = replay.Cause{Kind: replay.CauseTimer, Delay: tt.sleeps[j] * 1000}
			}
			k.Bursts = append(k.Bursts, bu)
		}
		m.Tasks = append(m.Tasks, k)
	}
	return m
}

// schedule replays m under spec and returns the switch-ins as
// "<µs> cpu<N> <comm>" ("-" for idle).
func schedule(t *testing.T, spec string, m *replay.Model, cfg replay.Config) []string {
	t.Helper()
	res := simulate(t, spec, m, cfg)
	var out []string
	for _, ev := range res.Events() {
		if ev.Kind != trace.KindSwitch {
			continue
		}
		next := ev.NextComm
		if ev.NextTID == 0 {
			next = "-"
		}
		out = append(out, fmt.Sprintf("%d cpu%d %s", ev.Time/1000, ev.CPU, next))
	}
	return out
}

func simulate(t *testing.T, spec string, m *replay.Model, cfg replay.Config) *replay.Result {
	t.Helper()
	specs, err := policies.ParseSpecs(spec)
	if err != nil {
		t.Fatal(err)
	}
	cpus := cfg.CPUs
	if cpus == 0 {
		cpus = m.NrCPUs
	}
	pol, err := specs[0].New(cpus)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Simulate(m, pol, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wantSchedule(t *testing.T, spec string, m *replay.Model, cfg replay.Config, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, schedule(t, spec, m, cfg)); diff != "" {
		t.Errorf("%s schedule (-want +got):\n%s", spec, diff)
	}
}

func TestBFSConstants(t *testing.T) {
	// prio_ratios: 128, then ×11/10 with integer truncation per nice level:
	// 128,140,154,169,185,203,223,245,269,295,324,356,391,430,473,520,572,
	// 629,691,760, 836 (nice 0), 919,1010,1111,1222, 1344 (nice 5).
	// Nice 0: 836 × 6 × 2^20/128 = 836 × 6 × 8192 = 41,091,072 ns.
	if got := policies.BFSDeadlineDiff(0, 6); got != 41_091_072 {
		t.Errorf("deadline diff nice 0 = %d ns, want 41091072", got)
	}
	// Nice 5: 1344 × 49152 = 66,060,288 ns.
	if got := policies.BFSDeadlineDiff(5, 6); got != 66_060_288 {
		t.Errorf("deadline diff nice 5 = %d ns, want 66060288", got)
	}
	// timeslice: 6 << 10 = 6144 µs.
	if got := policies.BFSTimeslice(6); got != 6_144_000 {
		t.Errorf("timeslice = %d ns, want 6144000", got)
	}
}

func TestBFSTwoHogs(t *testing.T) {
	// Two nice-0 hogs of 20 ms on one CPU, HZ 250 (tick 4 ms). Both start
	// at 0 with a 6.144 ms slice and the same deadline D = 41.09 ms; the
	// tie goes to the lower ID, A. The slice is checked at ticks: at 4 ms A
	// has 2.144 ms left, at 8 ms −1.856 ms < 100 µs: refill, deadline
	// 8+D > D, B runs. B expires at 16 (deadline 16+D), A (8+D) runs 16-24
	// (expires, 24+D), B (16+D) 24-32 (32+D), A (24+D) runs its last 4 ms
	// 32-36 and exits, B its last 4 ms 36-40.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{20000}},
		ttask{comm: "B", bursts: []int64{20000}})
	wantSchedule(t, "bfs", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "8000 cpu0 B", "16000 cpu0 A", "24000 cpu0 B", "32000 cpu0 A", "36000 cpu0 B", "40000 cpu0 -"})
}

func TestBFSSleeperKeepsDeadline(t *testing.T) {
	// A hog H (40 ms) and a task S that runs 1 ms, sleeps 10 ms, runs 1 ms,
	// on one CPU. At 0 both get deadline D = 41.09 ms; S (lower ID) runs
	// 0-1 ms and sleeps, keeping its deadline D and 5.144 ms of slice. H
	// runs from 1 ms; at the 8 ms tick it has used 7 ms > 6.144 ms: refill,
	// deadline 8+D. S wakes at 11 ms with deadline D < 8+D and preempts at
	// once; it runs 11-12 and exits; H ran 1-11 (10 ms) and runs its
	// remaining 30 ms 12-42.
	m := testModel(1,
		ttask{comm: "S", bursts: []int64{1000, 1000}, sleeps: []int64{10000}},
		ttask{comm: "H", bursts: []int64{40000}})
	wantSchedule(t, "bfs", m, replay.DefaultConfig(), []string{
		"0 cpu0 S", "1000 cpu0 H", "11000 cpu0 S", "12000 cpu0 H", "42000 cpu0 -"})
}

func TestBFSGlobalQueue(t *testing.T) {
	// Three 10 ms hogs on 2 CPUs: A and B start queued on CPU 0, C on CPU 1,
	// all with deadline D = 41.09 ms. CPU 0 runs A (lower ID), CPU 1 runs C.
	// At the 8 ms tick A and C have used 8 ms > 6.144 ms: refilled, deadline
	// 8+D. On CPU 0, B (D) is the earliest: B runs from 8. CPU 1 keeps C
	// (A and C tie at 8+D, C last ran there). C exits at 10; CPU 1 takes the
	// earliest waiting task from the one global queue, A (queued on CPU 0):
	// A runs its last 2 ms 10-12 on CPU 1. B expires at 16 (16+D) but is
	// alone and runs on to 18.
	m := testModel(2,
		ttask{comm: "A", cpu: 0, bursts: []int64{10000}},
		ttask{comm: "B", cpu: 0, bursts: []int64{10000}},
		ttask{comm: "C", cpu: 1, bursts: []int64{10000}})
	wantSchedule(t, "bfs", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "0 cpu1 C", "8000 cpu0 B", "10000 cpu1 A", "12000 cpu1 -", "18000 cpu0 -"})
}

func TestO1Constants(t *testing.T) {
	// SCALE_PRIO: nice −20 (static 100): 400 ms × 40 / 20 = 800 ms; nice 0:
	// 100 × 20 / 20 = 100 ms; nice 19: 100 × 1 / 20 = 5 ms (= MIN_TIMESLICE).
	for _, c := range []struct {
		static int
		want   int64
	}{{100, 800_000_000}, {120, 100_000_000}, {139, 5_000_000}} {
		if got := policies.O1Timeslice(c.static); got != c.want {
			t.Errorf("timeslice(static %d) = %d ns, want %d", c.static, got, c.want)
		}
	}
}

func TestO1ExpiredArray(t *testing.T) {
	// Two nice-0 hogs of 250 ms on one CPU, HZ 250: slice 100 ms = 25
	// jiffies; sleep_avg 0, so bonus 0 and prio = 120 − (0 − 5) = 125, not
	// interactive (needs prio ≤ 120 − DELTA = 118, DELTA = 20×10/40 − 5 + 2
	// = 2). A runs 0-100 and expires to the expired array, B 100-200
	// likewise; the active array is empty: swap; A 200-300, B 300-400, A its
	// last 50 ms 400-450, B 450-500.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{250000}},
		ttask{comm: "B", bursts: []int64{250000}})
	wantSchedule(t, "o1", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "100000 cpu0 B", "200000 cpu0 A", "300000 cpu0 B", "400000 cpu0 A", "450000 cpu0 B", "500000 cpu0 -"})
}

func TestO1SleepBonus(t *testing.T) {
	// S runs 1 ms, sleeps 300 ms, runs 1 ms; H is a 500 ms hog; one CPU,
	// HZ 250 (jiffy 4 ms). Both start at prio 125; S (lower ID) runs 0-1 ms,
	// its sleep_avg stays 0. H runs from 1 ms, expiring every 100 ms into
	// the expired array and coming back by array swap (alone). S wakes at
	// 301 ms: slept 300 ms < INTERACTIVE_SLEEP = 1 s × (5+2+1)/10 − 4 ms =
	// 796 ms, so sleep_avg = 300 ms = 75 jiffies, CURRENT_BONUS = 75 × 10 /
	// 250 = 3, prio = 120 − (3 − 5) = 122 < 125: S preempts
	// H at 301 and exits at 302; H ran 300 ms and finishes at 502.
	m := testModel(1,
		ttask{comm: "S", bursts: []int64{1000, 1000}, sleeps: []int64{300000}},
		ttask{comm: "H", bursts: []int64{500000}})
	wantSchedule(t, "o1", m, replay.DefaultConfig(), []string{
		"0 cpu0 S", "1000 cpu0 H", "301000 cpu0 S", "302000 cpu0 H", "502000 cpu0 -"})
}

func TestO1IdlePull(t *testing.T) {
	// Three 50 ms hogs queued on CPU 0 of 2. At the first tick (4 ms) CPU 0
	// has 3 tasks and CPU 1 is idle: the idle balance pulls (3−0)/2 = 1
	// task, the first cache-cold candidate scanning each list from its
	// tail: C (never ran). C runs 4-54 on CPU 1; A 0-50 and B 50-100 on
	// CPU 0 (each finishes within its 100 ms slice).
	m := testModel(2,
		ttask{comm: "A", bursts: []int64{50000}},
		ttask{comm: "B", bursts: []int64{50000}},
		ttask{comm: "C", bursts: []int64{50000}})
	wantSchedule(t, "o1", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "4000 cpu1 C", "50000 cpu0 B", "54000 cpu1 -", "100000 cpu0 -"})
}

func TestGoodness24Epochs(t *testing.T) {
	// Two nice-0 hogs of 100 ms on one CPU, HZ 250: NICE_TO_TICKS(0) =
	// (20>>1)+1 = 11 ticks = 44 ms. Both start with counter 11; the run
	// queue is [B, A] (add at head), both goodness 11 + 20 = 31, the first
	// in list order wins: B 0-44. At 44 B's counter is 0; A (31) runs 44-88.
	// At 88 A and B have counter 0: recalculation, both 0/2 + 11 = 11; A, the
	// previous task, gets 11 + 15 (PROC_CHANGE_PENALTY, last ran here) + 1
	// (same mm) + 20 = 47 against B's 11 + 15 + 20 = 46: A keeps the CPU
	// 88-132 (it has run 88 ms). B (46 > A's 0) runs 132-176; at 176 a new
	// epoch, B keeps the CPU (47 vs 46) for its last 12 ms, 176-188; A runs
	// its last 12 ms 188-200.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{100000}},
		ttask{comm: "B", bursts: []int64{100000}})
	wantSchedule(t, "goodness24", m, replay.DefaultConfig(), []string{
		"0 cpu0 B", "44000 cpu0 A", "132000 cpu0 B", "188000 cpu0 A", "200000 cpu0 -"})
}

func TestGoodness24ScanCost(t *testing.T) {
	// The same two hogs with ScanCost 100 µs per entry scanned. Decisions:
	// at 0 the scan touches 2 entries: B starts at 0.2 ms; its counter ends
	// at the 44 ms tick (11 ticks): ran 43.8. At 44: 2 entries, A runs
	// 44.2-88 (43.8). At 88: 2 entries, all zero, recalculation of 2 tasks,
	// 2 entries again: 6 × 100 µs; A runs 88.6-132 (43.4, total 87.2). At
	// 132: 2 entries; B runs 132.2-176 (total 87.6). At 176: 6 entries; B
	// runs 176.6-189.0 (12.4 ms left). At 189: queue [A], 1 entry: A runs
	// 189.1-201.9 (12.8 ms left).
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{100000}},
		ttask{comm: "B", bursts: []int64{100000}})
	cfg := replay.DefaultConfig()
	cfg.ScanCost = 100_000
	wantSchedule(t, "goodness24", m, cfg, []string{
		"0 cpu0 B", "44000 cpu0 A", "132000 cpu0 B", "189000 cpu0 A", "201900 cpu0 -"})
}

func TestMQStealOnlyWhenEmpty(t *testing.T) {
	// A and B (nice 0) queued on CPU 0, L (nice 19) on CPU 1, 20 ms hogs,
	// HZ 250. Counters: NICE_TO_TICKS(0) = 11, NICE_TO_TICKS(19) =
	// (1>>1)+1 = 1. CPU 0 picks B, head of [B, A] (goodness 11 + 20 = 31).
	// mq-hp: CPU 1 has L in its own queue (goodness 1 + 1 = 2) and runs it;
	// A waits for CPU 0 until B exits at 20. mq-lse and goodness24: the best
	// task anywhere wins: A (31, no last-CPU bonus yet) beats L (2), so CPU
	// 1 takes A at 0 and L waits; at 20 CPU 0 has nothing local and takes L
	// (2) from CPU 1's queue.
	m := testModel(2,
		ttask{comm: "A", cpu: 0, bursts: []int64{20000}},
		ttask{comm: "B", cpu: 0, bursts: []int64{20000}},
		ttask{comm: "L", nice: 19, cpu: 1, bursts: []int64{20000}})
	wantSchedule(t, "mq-hp", m, replay.DefaultConfig(), []string{
		"0 cpu0 B", "0 cpu1 L", "20000 cpu0 A", "20000 cpu1 -", "40000 cpu0 -"})
	global := []string{"0 cpu0 B", "0 cpu1 A", "20000 cpu0 L", "20000 cpu1 -", "40000 cpu0 -"}
	wantSchedule(t, "mq-lse", m, replay.DefaultConfig(), global)
	wantSchedule(t, "goodness24", m, replay.DefaultConfig(), global)
}

func TestMQIdleSteal(t *testing.T) {
	// Three 30 ms hogs queued on CPU 0 of 2: CPU 0 runs C (head of
	// [C, B, A]). At the first tick (4 ms) CPU 0 has 3 tasks and CPU 1 is
	// idle: it takes the best waiting task, B (first of [B, A] at equal
	// goodness 31), and runs it 4-34; A follows C on CPU 0 at 30.
	m := testModel(2,
		ttask{comm: "A", bursts: []int64{30000}},
		ttask{comm: "B", bursts: []int64{30000}},
		ttask{comm: "C", bursts: []int64{30000}})
	for _, p := range []string{"goodness24", "mq-hp", "mq-lse"} {
		wantSchedule(t, p, m, replay.DefaultConfig(), []string{
			"0 cpu0 C", "4000 cpu1 B", "30000 cpu0 A", "34000 cpu1 -", "60000 cpu0 -"})
	}
}

func TestSDStaircase(t *testing.T) {
	// Two nice-0 hogs of 30 ms on one CPU, HZ 250, rr_interval 8 ms. Both
	// enter at level 120 with 8 ms of quota; the level's quota is 8 × 2 =
	// 16 ms. A runs 0-8 (its quota is used at the 8 ms tick: it steps to
	// 121), B 8-16 (steps to 121; the level quota is used, the level is
	// empty). Level 121 [A, B]: A 16-24, B 24-32; level 122: A 32-40, B
	// 40-48; level 123: A has 6 ms left: 48-54, B its last 6 ms 54-60.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{30000}},
		ttask{comm: "B", bursts: []int64{30000}})
	wantSchedule(t, "sd", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "8000 cpu0 B", "16000 cpu0 A", "24000 cpu0 B", "32000 cpu0 A", "40000 cpu0 B", "48000 cpu0 A", "54000 cpu0 B", "60000 cpu0 -"})
}

func TestSDNice(t *testing.T) {
	// A (nice 0, enters at level 120) and B (nice 10, level 130), 100 ms
	// hogs on one CPU. A is alone on levels 120..129: 10 × 8 = 80 ms. At 80
	// A steps into level 130 behind B: [B, A], level quota 16 ms. B 80-88,
	// A 88-96 (both step to 131, the level is used up), B 96-104, A 104-112
	// (level 132), B 112-120, A 120-124 (its 100th ms: exits). B, alone,
	// runs its remaining 100 − 24 = 76 ms 124-200 (stepping down, expiring
	// and coming back by major rotation without a switch).
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{100000}},
		ttask{comm: "B", nice: 10, bursts: []int64{100000}})
	wantSchedule(t, "sd", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "80000 cpu0 B", "88000 cpu0 A", "96000 cpu0 B", "104000 cpu0 A", "112000 cpu0 B", "120000 cpu0 A", "124000 cpu0 B", "200000 cpu0 -"})
}

func TestCFSNewFairSleepers(t *testing.T) {
	// One CPU (factor 1: sched_latency 6 ms, wakeup_granularity 1 ms), HZ
	// 250. S runs 1 ms, sleeps 50 ms, runs 1 ms; H is a 100 ms hog. S (lower
	// ID, same vruntime 0) runs 0-1, H from 1. At 51 S wakes with vruntime
	// 1 ms; min_vruntime is H's, 50 ms.
	//   NEW_FAIR_SLEEPERS (default, GENTLE): S is placed at max(1, 50 − 6/2)
	//   = 47 ms; H leads by 3 ms > 1 ms granularity: S preempts at 51, runs
	//   51-52; H runs on to 102 (50 + 50 ms).
	//   NO_NEW_FAIR_SLEEPERS: S is placed at max(1, 50) = 50 ms, no lead, no
	//   preemption; at the 52 ms tick H has run 51 ms > its 3 ms ideal slice
	//   (6 ms × 1/2): S (50 < 51) runs 52-53, H 53-102.
	m := testModel(1,
		ttask{comm: "S", bursts: []int64{1000, 1000}, sleeps: []int64{50000}},
		ttask{comm: "H", bursts: []int64{100000}})
	wantSchedule(t, "cfs", m, replay.DefaultConfig(), []string{
		"0 cpu0 S", "1000 cpu0 H", "51000 cpu0 S", "52000 cpu0 H", "102000 cpu0 -"})
	wantSchedule(t, "cfs:NO_NEW_FAIR_SLEEPERS", m, replay.DefaultConfig(), []string{
		"0 cpu0 S", "1000 cpu0 H", "52000 cpu0 S", "53000 cpu0 H", "102000 cpu0 -"})
}

func TestCFSNewIdleBalanceFlag(t *testing.T) {
	// 2 CPUs (factor 2: sched_latency 12 ms): A (5 ms) on CPU 1; B (10 ms)
	// and C (20 ms) queued on CPU 0. CPU 1 runs A, CPU 0 runs B. At 5 CPU 1
	// goes newly idle while C waits on CPU 0: SD_BALANCE_NEWIDLE pulls C,
	// which runs 5-25 on CPU 1; B ends at 10.
	// Without the flag CPU 1 stays idle until CPU 0's next tick, at 8 ms,
	// kicks an idle balance on it: CPU 1 last balanced (busy) at its 4 ms
	// tick, and an idle CPU's interval is the domain's 2 ms, not the busy
	// 2 ms × 16, counted from that last balance (sched_balance_domains
	// takes the interval for the CPU's state now). C never ran (cold) and
	// moves: C runs 8-28 on CPU 1, B ends at 10 on CPU 0.
	m := testModel(2,
		ttask{comm: "A", cpu: 1, bursts: []int64{5000}},
		ttask{comm: "B", cpu: 0, bursts: []int64{10000}},
		ttask{comm: "C", cpu: 0, bursts: []int64{20000}})
	wantSchedule(t, "cfs", m, replay.DefaultConfig(), []string{
		"0 cpu1 A", "0 cpu0 B", "5000 cpu1 C", "10000 cpu0 -", "25000 cpu1 -"})
	wantSchedule(t, "cfs:NO_SD_BALANCE_NEWIDLE", m, replay.DefaultConfig(), []string{
		"0 cpu1 A", "0 cpu0 B", "5000 cpu1 -", "8000 cpu1 C", "10000 cpu0 -", "28000 cpu1 -"})
}

func TestCFSLBBias(t *testing.T) {
	// The workload of TestCFSNewIdleBalanceFlag under the 2.6.31 biased
	// balancing with history, cfs:LB_BIAS,newidle_idx=2 (idle_idx unset:
	// 2 too; busy_idx 0; HZ 250). cpu_load[] moves at each balance call:
	// cpu_load[i] = (cpu_load[i] × (2^i − 1) + load) / 2^i.
	//   - 4 ms, both ticks: CPU 0 (load 2048) cpu_load[2] = 512, CPU 1
	//     (1024) 256; neither finds a source 2048 above itself (busy need):
	//     balanced, balance_interval 1 → 2 ms; each CPU's next_balance is
	//     4 + 1 ms × busy_factor 64 = 68 ms.
	//   - 5: CPU 1 goes newly idle: cpu_load[2] = (256 × 3 + 0) / 4 = 192,
	//     target max(192, 0) = 192; CPU 0's source min(512, 2048) = 512;
	//     512 − 192 = 320 < 1024 (one nice-0 task): no pull. idle_balance
	//     leaves next_balance at 68 ms (it pulled nothing and 68 has not
	//     passed), so the idle balances CPU 0's ticks kick at 8, 12, ...
	//     are not due: CPU 1 idles, B and C share CPU 0 (tick preemption
	//     at 8 and 16 ms).
	// With LB_BIAS and newidle_idx=0 (the current load) CPU 1 pulls C at 5
	// as usual, and so it does with NO_LB_BIAS,newidle_idx=2: in 2.6.31 the
	// history counts only with LB_BIAS (source_load = the load now, 2048;
	// target 0; 2048 ≥ 1024: C moves at 5 ms).
	m := testModel(2,
		ttask{comm: "A", cpu: 1, bursts: []int64{5000}},
		ttask{comm: "B", cpu: 0, bursts: []int64{10000}},
		ttask{comm: "C", cpu: 0, bursts: []int64{20000}})
	wantSchedule(t, "cfs:LB_BIAS,newidle_idx=2", m, replay.DefaultConfig(), []string{
		"0 cpu1 A", "0 cpu0 B", "5000 cpu1 -", "8000 cpu0 C", "16000 cpu0 B", "18000 cpu0 C", "30000 cpu0 -"})
	wantSchedule(t, "cfs:LB_BIAS", m, replay.DefaultConfig(), []string{
		"0 cpu1 A", "0 cpu0 B", "5000 cpu1 C", "10000 cpu0 -", "25000 cpu1 -"})
	wantSchedule(t, "cfs:NO_LB_BIAS,newidle_idx=2", m, replay.DefaultConfig(), []string{
		"0 cpu1 A", "0 cpu0 B", "5000 cpu1 C", "10000 cpu0 -", "25000 cpu1 -"})
}

// forkModel: P runs 10 ms on one CPU and forks C (a new process) 2 ms into
// its burst; C runs 3 ms and exits.
func forkModel() *replay.Model {
	m := testModel(1, ttask{comm: "P", bursts: []int64{10000}})
	m.Tasks[0].SetActions(&m.Tasks[0].Bursts[0], []replay.Action{{At: 2_000_000, Kind: replay.ActFork, Target: 1}})
	m.Tasks = append(m.Tasks, replay.Task{TID: 200, PID: 200, Comm: "C", Prio: 120, Parent: 0, Init: replay.InitForked,
		Bursts: []replay.Burst{{Len: 3_000_000, End: replay.EndExit}}})
	return m
}

func TestO1ChildRunsFirst(t *testing.T) {
	// O(1) wake_up_new_task: the child of a new process is queued just
	// before its running parent, at its prio, and the parent is
	// rescheduled: C runs 2-5, P its remaining 8 ms 5-13.
	wantSchedule(t, "o1", forkModel(), replay.DefaultConfig(), []string{
		"0 cpu0 P", "2000 cpu0 C", "5000 cpu0 P", "13000 cpu0 -"})
}

func TestGoodness24ForkNoPreempt(t *testing.T) {
	// 2.4 do_fork halves the counter: C gets (11+1)>>1 = 6, P keeps 11>>1 =
	// 5. preemption_goodness(C) − goodness(P) = (6 + 20) − (5 + 15 + 1 +
	// 20) = 26 − 41 < 0: no preemption. The ticks at 4 and 8 ms take P's
	// counter from 5 to 3, never to 0: P runs on until it exits at 10; C
	// runs 10-13.
	wantSchedule(t, "goodness24", forkModel(), replay.DefaultConfig(), []string{
		"0 cpu0 P", "10000 cpu0 C", "13000 cpu0 -"})
}

func TestSDWakeupAtServedLevel(t *testing.T) {
	// One CPU, HZ 250, rr_interval 8 ms. S runs 1 ms and sleeps 300 ms; H
	// is a 400 ms hog. Level 120 holds [S, H] (level quota 16 ms): S runs
	// 0-1, H from 1; at the 12 ms tick H has used 11 ms ≥ 8: it steps to
	// 121 (level 120's quota still has 4 ms, but the level is empty). H,
	// alone, then steps a level every 8 ms: 121 at 12, ..., past 139 at
	// 12 + 19 × 8 = 164: expired, arrays swap (major rotation), H back at
	// 120; 137 at 164 + 17 × 8 = 300. S wakes at 301 after a rotation: it
	// starts afresh at 120, but never above the level being served: 137,
	// the level of H, so no preemption. At 308 H's quota at 137 ends and H
	// steps to 138; so does the level's quota (8 ms: H was alone at 137 when
	// the level began to be served): the minor rotation pushes what is left
	// at 137, S, down to 138 behind H. H runs 308-316 and steps to 139; S
	// (138) runs 316-317; H runs its last 400 − 315 = 85 ms 317-402.
	m := testModel(1,
		ttask{comm: "S", bursts: []int64{1000, 1000}, sleeps: []int64{300000}},
		ttask{comm: "H", bursts: []int64{400000}})
	wantSchedule(t, "sd", m, replay.DefaultConfig(), []string{
		"0 cpu0 S", "1000 cpu0 H", "316000 cpu0 S", "317000 cpu0 H", "402000 cpu0 -"})
}

func TestBFSNice(t *testing.T) {
	// A (nice 0, deadline offset 41.09 ms) and B (nice 5, 66.06 ms), hogs of
	// 60 and 40 ms on one CPU, slices of 6.144 ms expiring at the 8 ms
	// ticks. Deadlines at 0: A 41.09, B 66.06: A runs. A's refills: at 8 →
	// 49.09, 16 → 57.09, 24 → 65.09 (all before B's 66.06: A keeps the
	// CPU), 32 → 73.09: B runs. B refills at 40 → 106.06; A (73.09) runs
	// 40-68: its refills 89.09, 97.09, 105.09 stay before 106.06, and A
	// exits at 68 (60 ms). B runs its last 32 ms 68-100. Nice 5 gets 8 of
	// the first 40 ms: 20 %.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{60000}},
		ttask{comm: "B", nice: 5, bursts: []int64{40000}})
	wantSchedule(t, "bfs", m, replay.DefaultConfig(), []string{
		"0 cpu0 A", "32000 cpu0 B", "40000 cpu0 A", "68000 cpu0 B", "100000 cpu0 -"})
}

func TestCFSForkPlacement(t *testing.T) {
	// task_fork_fair (kernel/sched/fair.c v5.10) on 1 CPU (factor 1:
	// sched_latency 6 ms, HZ 250). Hogs P and H (30 ms each) alternate every
	// 4 ms tick (ideal slice 6 × 1/2 = 3 ms < 4 ms ran): P 0-4, H 4-8, ...
	// P forks C 18 ms into its CPU time, at 34 ms (P ran 0-4, 8-12, 16-20,
	// 24-28, 32-34). Then P's vruntime is 18 ms, H's 16 ms, min_vruntime
	// 16 ms. C: vslice = 6 ms × 1024/3072 (three tasks) = 2 ms, vruntime =
	// max(18, 16 + 2) = 18 ms, stored as 2 ms relative and enqueued at
	// 16 + 2 = 18 ms: no wakeup preemption (vdiff 0). At the 36 ms tick P
	// ran 4 ms > 2 ms: H (16) runs 36-40, then C (18 < P 20, H 20) 40-41.
	// Adding min_vruntime twice put C at 34 ms: it waited until both hogs
	// passed 34 ms of vruntime, past the end of P.
	m := testModel(1,
		ttask{comm: "P", bursts: []int64{30000}},
		ttask{comm: "H", bursts: []int64{30000}})
	m.Tasks[0].SetActions(&m.Tasks[0].Bursts[0], []replay.Action{{At: 18_000_000, Kind: replay.ActFork, Target: 2}})
	m.Tasks = append(m.Tasks, replay.Task{TID: 200, PID: 200, Comm: "C", Prio: 120, Parent: 0, Init: replay.InitForked,
		Bursts: []replay.Burst{{Len: 1_000_000, End: replay.EndExit}}})
	got := schedule(t, "cfs", m, replay.DefaultConfig())
	want := []string{"0 cpu0 P", "4000 cpu0 H", "8000 cpu0 P", "12000 cpu0 H", "16000 cpu0 P", "20000 cpu0 H",
		"24000 cpu0 P", "28000 cpu0 H", "32000 cpu0 P", "36000 cpu0 H", "40000 cpu0 C", "41000 cpu0 P"}
	if len(got) < len(want) {
		t.Fatalf("schedule %v, want it to start with %v", got, want)
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("cfs fork schedule (-want +got):\n%s", diff)
	}
}

// costly adds a fixed DecisionNS to a policy.
type costly struct {
	policies.Policy
	ns int64
}

func (c costly) DecisionNS(cpu int, prev, next *policies.Task) int64 { return c.ns }

func TestCostModelHook(t *testing.T) {
	// A CostModel's DecisionNS delays the picked task: A (5 ms) on one CPU
	// with 1 ms per decision switches in at 0, runs 1-6, and the CPU
	// switches to idle at 6. Without the hook A would end at 5.
	m := testModel(1, ttask{comm: "A", bursts: []int64{5000}})
	specs, err := policies.ParseSpecs("cfs")
	if err != nil {
		t.Fatal(err)
	}
	pol, err := specs[0].New(1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := replay.Simulate(m, costly{pol, 1_000_000}, replay.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range res.Events() {
		if ev.Kind == trace.KindSwitch {
			got = append(got, fmt.Sprintf("%d %d", ev.Time/1000, ev.NextTID))
		}
	}
	if diff := cmp.Diff([]string{"0 100", "6000 0"}, got); diff != "" {
		t.Errorf("switches (-want +got):\n%s", diff)
	}
}

func TestEEVDFTickPick(t *testing.T) {
	// Two nice-0 hogs of 6 ms on one CPU, HZ 1000, eevdf:era=6.3 with a
	// 3 ms base slice. Both are queued at 0 (not forked, so no half slice):
	// v = 0, deadline 3 ms; the tie goes to the lower ID, A.
	//
	// TICK_PICK (the 6.3-rc check_preempt_tick): at every tick the running
	// task yields when pick_eevdf prefers another. At 1 ms vA = 1, V = 0.5:
	// A is not eligible, B runs. At 2 ms vA = vB = 1, equal deadlines: A
	// (lower ID). At 3 ms vA = 2, V = 1.5: B. And so on, a switch at every
	// tick (a deadline passed at 5 ms moves to 8 ms without a resched); A
	// ends its 6 ms at 11, B at 12.
	m := testModel(1,
		ttask{comm: "A", bursts: []int64{6000}},
		ttask{comm: "B", bursts: []int64{6000}})
	cfg := replay.DefaultConfig()
	cfg.HZ = 1000
	wantSchedule(t, "eevdf:era=6.3,base_slice=3ms", m, cfg, []string{
		"0 cpu0 A", "1000 cpu0 B", "2000 cpu0 A", "3000 cpu0 B", "4000 cpu0 A", "5000 cpu0 B", "6000 cpu0 A",
		"7000 cpu0 B", "8000 cpu0 A", "9000 cpu0 B", "10000 cpu0 A", "11000 cpu0 B", "12000 cpu0 -"})
	// NO_TICK_PICK (v6.6+ update_deadline): a resched only when the
	// request is used up. At 3 ms vA = 3: deadline 6, resched, V = 1.5 <
	// vA: B. At 6 ms vB = 3: deadline 6, V = 3, tie: A, which ends at 9;
	// B runs 9-12.
	wantSchedule(t, "eevdf:era=6.3,base_slice=3ms,NO_TICK_PICK", m, cfg, []string{
		"0 cpu0 A", "3000 cpu0 B", "6000 cpu0 A", "9000 cpu0 B", "12000 cpu0 -"})
}
