package perfcompat

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
	"github.com/traceview/traceview/trace/schedule"
)

// timehistGoldenTrace is a perf.data file and the base path of perf
// 6.12's outputs for it (BASE.timehist.txt, BASE.map.txt, ...).
type timehistGoldenTrace struct{ data, golden string }

// timehistGoldenTraces lists the perf.data traces that have perf 6.12's
// timehist/map outputs: the repo's own (perf.data in testdata/traces, the
// outputs in report/perfcompat/testdata/timehist) and, when the repository is cloned
// next to it, every trace of ../shared/traces.
func timehistGoldenTraces(t *testing.T) []timehistGoldenTrace {
	t.Helper()
	var out []timehistGoldenTrace
	seen := map[string]bool{}
	for _, dirs := range [][2]string{{"../../testdata/traces", "testdata/timehist"}, {"../../../shared/traces", "../../../shared/traces"}} {
		ms, _ := filepath.Glob(filepath.Join(dirs[0], "*.perf.data"))
		for _, m := range ms {
			name := strings.TrimSuffix(filepath.Base(m), ".perf.data")
			golden := filepath.Join(dirs[1], name)
			if _, err := os.Stat(golden + ".timehist.txt"); err != nil || seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, timehistGoldenTrace{m, golden})
		}
	}
	if len(out) == 0 {
		t.Skip("no perf.data traces with perf's timehist outputs")
	}
	return out
}

func timehistRun(t *testing.T, path string, opt TimehistOptions) []string {
	t.Helper()
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var buf bytes.Buffer
	if err := Timehist(&buf, src, opt); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return timehistLines(buf.Bytes())
}

func timehistLines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func timehistGolden(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return timehistLines(b)
}

// perf 6.12 loses a task's identity in three ways (tools/perf/util/machine.c
// and builtin-sched.c): the final switch of an exiting thread whose sample
// tid is already -1 is charged to one pseudo-thread ":-1[-1/PID]"; after
// PERF_RECORD_EXIT the thread is forgotten, so its last switch shows as a
// new ":TID[TID]" with zeroed wait and delay; and a thread first met in a
// wakeup gets pid 0 and prints as a bare ":TID". timehistLost matches those
// rows.
var (
	timehistLost = regexp.MustCompile(`^.{23} :-?\d+(\[| )|(awakened|migrated): :\d+`)
)

// timehistSameTiming checks the parts of a row that do not depend on the
// task's identity: time, CPU and (for switch rows) run time.
func timehistSameTiming(want, got string) bool {
	if len(want) < 23 || len(got) < 23 || want[:23] != got[:23] {
		return false
	}
	if len(want) >= 88 && len(got) >= 88 && !strings.Contains(want, "awakened:") && !strings.Contains(want, "migrated:") {
		// (Or a run whose switch-in the trace lacks: its wait, delay and
		// run print "-", TimehistResult.UnchainedRuns.)
		return want[77:88] == got[77:88] || strings.Fields(got[55:88]) != nil && slices.Equal(strings.Fields(got[55:88]), []string{"-", "-", "-"})
	}
	return true
}

// TestTimehistGoldenExact: with Exact, the output equals perf 6.12's
// (NAME.timehist.txt, -w, -M -n --state and -s) byte for byte, also where
// threads exit (perf's ":-1[-1/PID]" pseudo-thread of the samples whose tid
// the kernel reported as -1, trace.Event.CurGone) and in the summary's row
// order (perf's thread-table order, perfThreads).
func TestTimehistGoldenExact(t *testing.T) {
	for _, tr := range timehistGoldenTraces(t) {
		base := tr.golden
		for _, c := range []struct {
			suffix string
			opt    TimehistOptions
		}{
			{".timehist.txt", TimehistOptions{}},
			{".timehist-w.txt", TimehistOptions{Wakeups: true}},
			{".timehist-M.txt", TimehistOptions{Migrations: true, Next: true, State: true}},
			{".timehist-summary.txt", TimehistOptions{SummaryOnly: true}},
		} {
			if _, err := os.Stat(base + c.suffix); err != nil {
				continue
			}
			t.Run(filepath.Base(base)+c.suffix, func(t *testing.T) {
				c.opt.Exact = true
				want := timehistGolden(t, base+c.suffix)
				got := timehistRun(t, tr.data, c.opt)
				timehistCompareRows(t, want, got, nil)
			})
		}
	}
}

// TestTimehistGoldenDefault: without Exact, traceview keeps identities.
// Every row perf prints for a known task is identical; rows where perf lost
// the task (timehistLost) keep time, CPU and run time, and name the real
// task instead of a number. A row whose delay was spent queued on a CPU
// that had recorded nothing (timehist_unrecorded.go), or whose switch-in
// the trace lacks, prints "-" for its
// wait time and sch delay where perf prints numbers, and nothing else differs: as many rows as the run
// counts (grpw.eq.1cpu: 1, rcu_preempt's 0.004 ms at 18111.379888, as
// latency counts it), none elsewhere.
func TestTimehistGoldenDefault(t *testing.T) {
	for _, tr := range timehistGoldenTraces(t) {
		base := tr.golden
		if _, err := os.Stat(base + ".timehist-w.txt"); err != nil {
			continue
		}
		t.Run(filepath.Base(base), func(t *testing.T) {
			want := timehistGolden(t, base+".timehist-w.txt")
			var res TimehistResult
			got := timehistRun(t, tr.data, TimehistOptions{Wakeups: true, Result: &res})
			dashes, noWake, raced, idleUnknown, waitUnknown := 0, 0, 0, 0, 0
			for i := range got {
				if f := strings.Fields(got[i]); len(f) >= 6 && f[3] == "-" && f[4] == "-" {
					dashes++
				}
				if i < len(want) && noWakeRow(want[i], got[i]) {
					got[i] = want[i]
					noWake++
				}
				if i < len(want) {
					want[i] = idleWaitZero(want[i])
				}
				if i < len(want) && unrecordedRow(want[i], got[i]) {
					got[i] = want[i]
				}
				if i < len(want) && timehistLost.MatchString(want[i]) && len(strings.Fields(got[i])) >= 6 && strings.Fields(got[i])[3] == "-" && strings.Fields(got[i])[4] != "-" {
					waitUnknown++ // (a row perf lost the task of: timehistLost, compared below)
				}
				if i < len(want) && waitUnknownRow(want[i], got[i]) {
					got[i] = want[i]
					waitUnknown++
				}
				if i < len(want) && racedRow(want[i], got[i]) {
					got[i] = want[i]
					raced++
				}
				if i < len(want) && idleUnknownRow(want[i], got[i]) {
					got[i] = want[i]
					idleUnknown++
				}
			}
			if int64(waitUnknown) != res.WaitUnknown {
				t.Errorf("%d rows with wait time - alone, %d counted (a task whose first event is its wakeup)", waitUnknown, res.WaitUnknown)
			}
			if int64(idleUnknown) != res.UnchainedIdle {
				t.Errorf("%d idle rows with run time -, %d idle periods counted without their switch-in", idleUnknown, res.UnchainedIdle)
			}
			// A wait after a switch-out to sleep that the task's
			// waking came before (the schedule's Raced): a sch delay
			// equal to the wait where perf prints 0.000, no more than the
			// schedule has.
			s := buildSchedule(t, tr.data)
			wantRaced := 0
			for _, d := range s.Delays {
				// (A raced delay whose switch-in the trace lacks ends at
				// the switch-in the schedule recovers; timehist, which
				// infers none, prints perf's row.)
				if d.Cause == schedule.CauseWokenBeforeSwitchOut && !d.Recovered && !d.Excluded {
					wantRaced++
				}
			}
			// (Row for row, TestTimehistAgreesWithSchedule.)
			if int64(raced) > s.Counters.Raced || wantRaced > 0 && raced == 0 {
				t.Errorf("%d rows with a raced wait's sch delay; the schedule has %d raced delays, %d with a recorded switch-in", raced, s.Counters.Raced, wantRaced)
			}
			wantDashes := int64(0)
			if filepath.Base(base) == "grpw.eq.1cpu" {
				wantDashes = 1
			}
			// And the rows whose switch-in the trace lacks (a vCPU's exit
			// from idle goes unrecorded here): at most one per unchained
			// sched_switch.
			var unchained int64
			for _, n := range res.Unchained {
				unchained += n
			}
			if int64(dashes) != res.UnrecordedDelays+res.MissingSwitchIns+res.FirstSeen || res.UnrecordedDelays != wantDashes || res.MissingSwitchIns > unchained || int64(noWake) != res.NoWakeups {
				t.Errorf("%d rows with wait and sch delay -, %d unrecorded delays, %d missing switch-ins and %d first switch-ins counted (%d unchained switches), %d rows with sch delay - alone and %d counted; want %d unrecorded", dashes, res.UnrecordedDelays, res.MissingSwitchIns, res.FirstSeen, unchained, noWake, res.NoWakeups, wantDashes)
			}
			timehistCompareRows(t, want, got, timehistLost)
			for i, g := range got {
				if i >= 3 && timehistLost.MatchString(g) {
					t.Errorf("row %d still has a lost identity: %q", i+1, g)
					break
				}
			}
		})
	}
}

// idleRow matches a timehist row of the idle task up to its run time:
// the wait time and sch delay columns are groups 2 and 4.
var idleRow = regexp.MustCompile(`^(\s*\d+\.\d+ \[\d+\]  <idle>\s+?)(\s*\S+)(\s+?)(\s*\S+)(\s)`)

// idleWaitZero is perf's row line with an idle row's wait time and sch
// delay 0.000, as the default mode prints them (perf gives idle the time
// its CPU was busy since idle left it: 2005.457 ms at 689.437910 in
// nice.2cpu).
func idleWaitZero(line string) string {
	m := idleRow.FindStringSubmatchIndex(line)
	if m == nil {
		return line
	}
	pad := func(s string) string { return fmt.Sprintf("%*s", len(s), "0.000") }
	return line[:m[4]] + pad(line[m[4]:m[5]]) + line[m[6]:m[8]] + pad(line[m[8]:m[9]]) + line[m[10]:]
}

func timehistCompareRows(t *testing.T, want, got []string, lost *regexp.Regexp) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%d lines, perf has %d", len(got), len(want))
	}
	bad := 0
	for i := range want {
		if want[i] == got[i] {
			continue
		}
		if lost != nil && lost.MatchString(want[i]) && timehistSameTiming(want[i], got[i]) {
			continue
		}
		t.Errorf("line %d:\n perf %q\n ours %q", i+1, want[i], got[i])
		if bad++; bad > 5 {
			t.FailNow()
		}
	}
}

var timehistSumRow = regexp.MustCompile(`^\s*(\S+)\s+(-?\d+)\s+(\d+)\s+(\d+)\.(\d{3})\s`)

// timehistMigrations is the last column of a summary row: migrations.
var timehistMigrations = regexp.MustCompile(`\s+\d+$`)

// TestTimehistGoldenSummary compares default-mode -s with
// NAME.timehist-summary.txt (Exact is byte for byte, TestTimehistGoldenExact):
// every perf row for a task perf still knew is identical but for the
// migrations column (perf counts migrations only with -M and prints 0;
// TestTimehistSummaryMigrations), and the total number of context switches
// equals the number of sched_switch events in the trace (perf 6.12 drops
// exited threads from its total).
func TestTimehistGoldenSummary(t *testing.T) {
	for _, tr := range timehistGoldenTraces(t) {
		base := tr.golden
		if _, err := os.Stat(base + ".timehist-summary.txt"); err != nil {
			continue
		}
		t.Run(filepath.Base(base), func(t *testing.T) {
			want := timehistGolden(t, base+".timehist-summary.txt")
			var res TimehistResult
			got := timehistRun(t, tr.data, TimehistOptions{SummaryOnly: true, Result: &res})
			have := map[string]bool{}
			byTask := map[string][]string{} // name, parent -> the row's fields
			for _, g := range got {
				have[g] = true
				if m := timehistSumRow.FindStringSubmatch(g); m != nil {
					have[timehistMigrations.ReplaceAllString(g, "")] = true
					byTask[m[1]+" "+m[2]] = m
				}
			}
			// A task with runs whose switch-in the trace lacks has them
			// in its sched-in count but not in its run time (outside
			// Exact they print "-"): its row has perf's count and less
			// run time, and the deficits add up to no more than
			// UnchainedRunNs (to the µs each row is printed to; the rest
			// is of the rows perf names by number, left out here).
			var deficitUS, rows int64
			for _, w := range want {
				m := timehistSumRow.FindStringSubmatch(w)
				if m == nil || strings.HasPrefix(m[1], ":") || have[timehistMigrations.ReplaceAllString(w, "")] {
					continue
				}
				o := byTask[m[1]+" "+m[2]]
				us := func(f []string) int64 { n, _ := strconv.ParseInt(f[4]+f[5], 10, 64); return n }
				if o == nil || o[3] != m[3] || us(o) >= us(m) {
					t.Errorf("default mode lacks perf's row %q (ours %q)", w, o)
					continue
				}
				deficitUS += us(m) - us(o)
				rows++
			}
			if deficitUS > res.UnchainedRunNs/1000+rows+1 {
				t.Errorf("rows short of perf's run time by %d µs in all, %d µs left out as unchained runs", deficitUS, res.UnchainedRunNs/1000)
			}
			switches := timehistCountSwitches(t, tr.data)
			if line := "Total number of context switches: " + strconv.Itoa(switches); !have[line] {
				t.Errorf("default mode: want %q (one per sched_switch event)", line)
			}
		})
	}
}

func timehistCountSwitches(t *testing.T, path string) int {
	src, err := trace.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	n := 0
	for {
		e, err := src.Next()
		if err != nil {
			break
		}
		if e.Kind == trace.KindSwitch {
			n++
		}
	}
	return n
}

// TestMapGolden: perf sched map's output (NAME.map.txt) byte for byte in
// Exact mode. Without Exact the allowed differences are the name after
// "=>" of a task perf knew only by number, and no "XX => comm:tid" where
// perf repeats the one it printed last for XX (a COMM record setting the
// same name again: stress-ng's workers name themselves several times).
func TestMapGolden(t *testing.T) {
	for _, tr := range timehistGoldenTraces(t) {
		base := tr.golden
		if _, err := os.Stat(base + ".map.txt"); err != nil {
			continue
		}
		t.Run(filepath.Base(base), func(t *testing.T) {
			want := timehistGolden(t, base+".map.txt")
			for _, exact := range []bool{true, false} {
				src, err := trace.Open(tr.data)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				err = Map(&buf, src, MapOptions{Exact: exact})
				src.Close()
				if err != nil {
					t.Fatal(err)
				}
				got := timehistLines(buf.Bytes())
				if len(got) != len(want) {
					t.Fatalf("exact=%v: %d lines, perf has %d", exact, len(got), len(want))
				}
				shown := map[string]string{} // XX -> "XX => comm:tid" we printed last
				for i := range want {
					if j := strings.Index(got[i], " => "); j >= 2 {
						shown[got[i][j-2:j]] = got[i][j-2:]
					}
					if want[i] == got[i] {
						continue
					}
					if j := strings.Index(want[i], " => "); !exact && j >= 2 && got[i]+want[i][j-2:] == want[i] && shown[want[i][j-2:j]] == want[i][j-2:] {
						continue // the same name again
					}
					if !exact && strings.Contains(want[i], "=> :") {
						a, _, _ := strings.Cut(want[i], "=> :")
						if strings.HasPrefix(got[i], a+"=> ") {
							continue
						}
					}
					t.Fatalf("exact=%v line %d:\n perf %q\n ours %q", exact, i+1, want[i], got[i])
				}
			}
		})
	}
}

// TestTimehistOptionsGolden checks the options the shared golden files do
// not cover against perf 6.12's own output for nice.2cpu, recorded into
// testdata/timehist/ with the perf command in each case. perf prints the
// summary rows in hash-table order, so the summary block is compared as a
// set; everything else byte for byte.
func TestTimehistOptionsGolden(t *testing.T) {
	trc := ""
	for _, p := range []string{"../../testdata/traces/nice.2cpu.perf.data", "../../../shared/traces/nice.2cpu.perf.data"} {
		if _, err := os.Stat(p); err == nil {
			trc = p
			break
		}
	}
	if trc == "" {
		t.Skip("nice.2cpu.perf.data not found (../shared/traces absent)")
	}
	cases := []struct {
		golden string // testdata/timehist/nice.2cpu.GOLDEN.txt
		perf   string
		th     *TimehistOptions
		mp     *MapOptions
	}{
		{"prio", "perf sched timehist --show-prio", &TimehistOptions{ShowPrio: true}, nil},
		{"prio-f", "perf sched timehist --prio 115-120", &TimehistOptions{Prios: timehistRange(115, 120)}, nil},
		{"idle", "perf sched timehist -I -S", &TimehistOptions{IdleHist: true, Summary: true}, nil},
		{"cpu1", "perf sched timehist -C 1 -S", &TimehistOptions{CPUs: []int{1}, Summary: true}, nil},
		{"time", "perf sched timehist --time 687.5,688.0 -S --state -w", &TimehistOptions{Start: 687_500_000_000, End: 688_000_000_000, Summary: true, State: true, Wakeups: true}, nil},
		{"pid", "perf sched timehist -p 13337 -S", &TimehistOptions{PIDs: []int{13337}, Summary: true}, nil},
		{"cpuvis", "perf sched timehist -V -w -M", &TimehistOptions{CPUVisual: true, Wakeups: true, Migrations: true}, nil},
		{"map-compact", "perf sched map --compact", nil, &MapOptions{Compact: true}},
		{"map-cpus", "perf sched map --cpus 1", nil, &MapOptions{CPUs: []int{1}}},
		{"map-task", "perf sched map --task-name nice0,hog", nil, &MapOptions{TaskNames: []string{"nice0", "hog"}}},
		{"map-fuzzy", "perf sched map --task-name ice --fuzzy-name", nil, &MapOptions{TaskNames: []string{"ice"}, Fuzzy: true}},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			want := timehistGolden(t, "testdata/timehist/nice.2cpu."+c.golden+".txt")
			src, err := trace.Open(trc)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var buf bytes.Buffer
			if c.th != nil {
				opt := *c.th
				opt.Exact = true
				err = Timehist(&buf, src, opt)
			} else {
				opt := *c.mp
				opt.Exact = true
				err = Map(&buf, src, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := timehistLines(buf.Bytes())
			if len(got) != len(want) {
				t.Fatalf("%s: %d lines, perf has %d", c.perf, len(got), len(want))
			}
			inSummary := false
			wantSet, gotSet := map[string]int{}, map[string]int{}
			for i := range want {
				if strings.HasPrefix(want[i], "-----------------------------------------------------------------") {
					inSummary = true
				} else if want[i] == "" {
					inSummary = false
				}
				if inSummary {
					wantSet[want[i]]++
					gotSet[got[i]]++
					continue
				}
				if want[i] != got[i] {
					t.Fatalf("%s line %d:\n perf %q\n ours %q", c.perf, i+1, want[i], got[i])
				}
			}
			for k, n := range wantSet {
				if gotSet[k] != n {
					t.Errorf("%s: summary row %q: perf %d, ours %d", c.perf, k, n, gotSet[k])
				}
			}
		})
	}
}

func timehistRange(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// TestTimehistSummaryMigrations: the summary's migrations column counts
// every sched_migrate_task of the task, -M or not (perf 6.12 counts them
// only with -M, its migrate handler being registered only then, and prints
// 0 for a task that migrated); --exact keeps perf's 0. nice.2cpu.perf.data
// has 7 (perf script): perf 13334 0->1 and 1->0, perf-exec/sh 13335 1->0
// and 0->1, sh 13339 0->1, rcu_preempt 15 1->0, nice 13337 1->0.
func TestTimehistSummaryMigrations(t *testing.T) {
	const path = "../../testdata/traces/nice.2cpu.perf.data"
	want := map[string]string{"perf[13334]": "2", "sh[13335]": "2", "hog[13339]": "1", "rcu_preempt[15]": "1", "hog[13337]": "1"}
	count := func(opt TimehistOptions) (map[string]string, int) {
		got, sum := map[string]string{}, 0
		for _, l := range timehistRun(t, path, opt) {
			f := strings.Fields(l)
			if !timehistSumRow.MatchString(l) || len(f) < 9 {
				continue
			}
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				t.Fatalf("row %q: %v", l, err)
			}
			if n > 0 {
				got[f[0]] = f[len(f)-1]
			}
			sum += n
		}
		return got, sum
	}
	for _, opt := range []TimehistOptions{{SummaryOnly: true}, {SummaryOnly: true, Migrations: true}} {
		got, sum := count(opt)
		if sum != 7 || !maps.Equal(got, want) {
			t.Errorf("%+v: migrations %v (%d in all), want %v (7)", opt, got, sum, want)
		}
	}
	if got, sum := count(TimehistOptions{SummaryOnly: true, Exact: true}); sum != 0 {
		t.Errorf("--exact without -M: migrations %v, want none (perf's 0)", got)
	}
}

// unrecordedRow reports whether row ours is perf's row with its wait time
// and sch delay (the fourth and fifth fields) "-" instead of perf's
// numbers.
func unrecordedRow(perf, ours string) bool {
	p, o := strings.Fields(perf), strings.Fields(ours)
	if len(p) != len(o) || len(p) < 6 || o[3] != "-" || o[4] != "-" || p[3] == "-" || p[4] == "-" {
		return false
	}
	o[3], o[4] = p[3], p[4]
	if o[5] == "-" { // (a task's run since before the trace: FirstSeen)
		o[5] = p[5]
	}
	return slices.Equal(p, o)
}

// idleUnknownRow reports whether our row is perf's but for the idle
// task's run time "-" (an idle period whose switch-in the trace lacks:
// TimehistResult.UnchainedIdle).
func idleUnknownRow(perf, ours string) bool {
	p, o := strings.Fields(perf), strings.Fields(ours)
	if len(p) != len(o) || len(p) < 6 || p[2] != "<idle>" || o[5] != "-" || p[5] == "-" {
		return false
	}
	o[5] = p[5]
	return slices.Equal(p, o)
}

// noWakeRow reports whether our row is perf's but for a sch delay "-"
// (after a sleep with no recorded wakeup: TimehistResult.NoWakeups).
func noWakeRow(perf, ours string) bool {
	p, o := strings.Fields(perf), strings.Fields(ours)
	if len(p) != len(o) || len(p) < 6 || o[4] != "-" || o[3] == "-" || p[4] == "-" {
		return false
	}
	o[4] = p[4]
	return slices.Equal(p, o)
}

// waitUnknownRow reports whether our row is perf's but for a wait time "-"
// where perf prints 0.000: a task whose first event is its wakeup
// (timehistThread.dtWaitUnknown).
func waitUnknownRow(perf, ours string) bool {
	p, o := strings.Fields(perf), strings.Fields(ours)
	if len(p) != len(o) || len(p) < 6 || o[3] != "-" || p[3] != "0.000" || o[4] == "-" {
		return false
	}
	o[3] = p[3]
	return slices.Equal(p, o)
}

// racedRow reports whether our row is perf's but for a sch delay equal to
// the wait time where perf prints 0.000 (a raced wait, timehistThread.raced).
func racedRow(perf, ours string) bool {
	p, o := strings.Fields(perf), strings.Fields(ours)
	if len(p) != len(o) || len(p) < 6 || p[4] != "0.000" || o[4] == "0.000" || o[4] != o[3] || o[3] != p[3] {
		return false
	}
	o[4] = p[4]
	return slices.Equal(p, o)
}
