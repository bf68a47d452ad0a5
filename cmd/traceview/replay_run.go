package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/traceview/traceview/internal/termsafe"
	"github.com/traceview/traceview/policies"
	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/replay/predict"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
)

// loadReplayModel reads input into the workload model and prints the
// reader's warnings and those of the events Extract skipped as damage (in
// full when the trace cannot be replayed). It returns the trace's Meta for
// the topology. Unless keep is set, the model leaves out the recorded
// schedule when input is a file that can be read again
// (ExtractOptions.DropRecorded; recordedOnce reads it again).
func loadReplayModel(errw io.Writer, input string, keep bool) (*replay.Model, *trace.Meta, error) {
	src, err := openInputProgress(input)
	if err != nil {
		return nil, nil, err
	}
	// Closed at once: the reader's buffers go before the simulations start.
	m, err := replay.ExtractWith(src, replay.ExtractOptions{DropRecorded: !keep && rereadable(input)})
	meta := src.Meta()
	src.Close()
	// The reading's garbage (the reader's window and batches, the
	// extractor's state: 20-30 MB on bench/replaymem's file) goes back to
	// the OS before the simulation and the second read allocate theirs;
	// left to the scavenger it stayed resident into that peak. Measured
	// there (2026-12-05, 5 runs each alternating, load 2): peak RSS 115.5
	// -> 106.9 MiB (60 -> 56 B/event), CPU 2.76 -> 2.81 s (the forced
	// collection), wall within the noise.
	debug.FreeOSMemory()
	if err != nil {
		printAllWarnings(errw, input, meta) // in full, as readFailed
		return nil, nil, fmt.Errorf("%s: %w", input, err)
	}
	// The reader's, then the events Extract skipped as damage.
	ws := append(metaWarnings(meta), m.Meta.Warnings.List()...)
	if len(m.Tasks) == 0 {
		for _, w := range ws { // in full, as readFailed
			fmt.Fprintf(errw, "warning: %s\n", namedWarning(input, "", w))
		}
		if meta != nil && (meta.CutAt > 0 || cutOrDamagedMeta(meta)) {
			return nil, nil, noSwitchesError("replay", input, -1, meta) // the warnings above say where
		}
		return nil, nil, fmt.Errorf("replay: %s: no task to replay: the trace has no sched_switch events (record with 'perf sched record')", input)
	}
	writeWarnings(errw, input, "", withoutKey(ws, partialCPUsKey)) // warnCPUsSeen says it for the replay
	return m, meta, nil
}

// withReaderWarnings adds to doc, the observed table's JSON, what the
// input's reader said (meta: its warnings, first, and its lost windows), as
// latency -o json has them: the observed table is computed from the model's
// recorded schedule, whose Meta carries neither, so a cut file's
// "truncated" warning was printed by loadReplayModel but missing from the
// JSON. A warning of a key doc already has is not added again.
func withReaderWarnings(doc report.LatencyJSON, meta *trace.Meta) report.LatencyJSON {
	if meta == nil {
		return doc
	}
	ws := meta.Warnings.List()
	for _, w := range doc.Warnings {
		if !slices.ContainsFunc(ws, func(r trace.Warning) bool { return r.Key == w.Key }) {
			ws = append(ws, w)
		}
	}
	if len(ws) > 0 {
		doc.Warnings = answerFirst(ws)
	}
	if len(doc.Lost) == 0 {
		for _, lw := range meta.Lost {
			doc.Lost = append(doc.Lost, report.LatencyJSONLost{CPU: int(lw.CPU), Count: lw.Count, StartNs: lw.Start, EndNs: lw.End})
		}
	}
	return doc
}

// replayAssumptionsOf is what every run of a model rests on (-o json's
// assumptions), from the model's counts.
func replayAssumptionsOf(st replay.ModelStats) replayAssumptions {
	return replayAssumptions{InferredCauses: st.Inferred, InferredWakers: st.Dependencies, PingPongs: st.PingPongs,
		AbsoluteTimers: st.AbsoluteTimers, RecoveredArrivals: st.RecoveredArrivals, QueuedRequests: st.QueuedRequests,
		External: st.External, WorkBound: st.WorkBound, CountBound: st.CountBound, DeadlineBound: st.DeadlineBound,
		DeadlineInferred: st.DeadlineInferred, PinnedTasks: st.PinnedTasks, UpdatePoints: st.UpdatePoints}
}

// replayRuns holds what the policies' runs of one replay share, and
// gathers what they give: the -o json document, the -o csv rows, the last
// prediction for -w, and the run Ctrl-C stopped.
type replayRuns struct {
	out, errw io.Writer
	o         replayOptions
	m         *replay.Model
	cfg       replay.Config
	watch     *simWatch
	obs       *report.LatencyResult
	trust     *report.ReplayTrust
	self      *predict.Self // the self-replay's prediction, reused once at most
	doc       replayJSON
	asm       replayAssumptions
	csvRows   [][]string
	last      *replay.Result // the last run's prediction, kept for -w only
	lastSpec  string
	cut       string      // why a run stopped early (Ctrl-C); the rest are skipped
	srcMeta   *trace.Meta // the input's, with its readers' warnings
}

// run replays the model under one policy (or takes the self-replay's run
// of it) and renders it: its JSON run, its table or CSV rows, and a note
// when its conclusion rests on tasks inferred deadline-bound. It reports
// whether Ctrl-C stopped the run, which ends the replay.
func (r *replayRuns) run(sp policies.Spec) (stop bool, err error) {
	o, m, cfg := r.o, r.m, r.cfg
	if sp.Info.Name == "as-traced" && (len(cfg.Overrides) > 0 || cfg.CPUs > 0) {
		fmt.Fprintf(r.errw, "warning: as-traced replays the recorded schedule: --cpus and the task overrides do not apply to it\n")
	}
	var p *predict.Prediction
	if r.self.Reusable(sp, cfg) {
		p = &r.self.Prediction
	} else {
		rcfg, done := r.watch.watch(m, cfg, "simulating "+sp.String())
		p, err = predict.Predict(m, sp, rcfg, predict.Options{Observed: r.obs, PerTask: o.perTask, Percentiles: o.tables().Percentiles, KeepEvents: o.write != ""})
		done()
		if err != nil {
			return false, err
		}
	}
	res, pred := p.Result, p.Predicted
	r.self = nil // reused once at most: it holds a whole prediction
	r.doc.Runs = append(r.doc.Runs, replayRunJSON{Policy: sp.String(), CPUs: res.CPUs, Predicted: pred.JSON(),
		MakespanNs: res.Makespan, SimulatedNs: simulatedSpan(res), MakespanCensored: m.Stats.Censored > 0, Stats: res.Stats, SelfReplay: r.trust, Assumptions: r.asm,
		Groups: groupsJSON(res.Groups), GroupsModelled: res.GroupsModelled, GroupStats: res.GroupStats, Interrupted: res.Interrupted})
	if res.Interrupted {
		r.cut = interrupted(sp.String(), res, m)
		fmt.Fprintf(r.errw, "warning: %s\n", r.cut)
		if o.output == "table" {
			fmt.Fprintf(r.out, "\n%s\n", r.cut) // (ended: stderr's next line began on it on a terminal)
		}
	}
	if len(res.Stuck) > 0 && !res.Interrupted {
		// (Asleep because the run stopped, not for a wakeup never sent:
		// new-user pass 111 F2.)
		fmt.Fprintf(r.errw, "warning: %s\n", stuckWarning(sp.String(), res, m))
	}
	var ks, kk, kt *predict.KindSensitivity
	if sp.Info.Name != "as-traced" && r.cut == "" {
		if ks, err = predict.CheckKinds(m, sp, cfg, res, pred, o.perTask); err != nil {
			return false, err
		}
		r.doc.Runs[len(r.doc.Runs)-1].KindSensitivity = ks
		if kk, err = predict.CheckKills(m, sp, cfg, res, pred, o.perTask); err != nil {
			return false, err
		}
		r.doc.Runs[len(r.doc.Runs)-1].KillSensitivity = kk
		if kt, err = predict.CheckTogether(m, sp, cfg, res, pred, o.perTask); err != nil {
			return false, err
		}
		r.doc.Runs[len(r.doc.Runs)-1].TogetherSensitivity = kt
	}
	what := o.whatIfText(sp.String())
	if g := o.groupWhatIfs(); len(g) > 0 && !sp.Info.Groups {
		// (new-user pass 29 F1: bfs "with --cpu-max /x=5ms/100ms"
		// predicted what it did without it.)
		verb := "changes"
		if len(g) > 1 {
			verb = "change"
		}
		fmt.Fprintf(r.errw, "warning: %s schedules every task as a peer, so %s %s nothing in its run (%s schedule task groups)\n",
			sp.Info.Name, strings.Join(g, ", "), verb, strings.Join(policies.GroupPolicies(), " and "))
		what += " (task-group what-ifs not modelled: " + sp.Info.Name + " has no task groups)"
	}
	if fair := o.fairWhatIfs(); len(fair) > 0 && sp.Info.OneClass {
		// (new-user pass 124 F2: --nice hog=10 and --class lat=idle
		// under --policy fifo predicted byte for byte what it did
		// without them.)
		fmt.Fprintf(r.errw, "warning: %s runs every task in one real-time class (the traced RT priority, fair tasks at 1), so %s change nothing in its run\n",
			sp.Info.Name, strings.Join(fair, ", "))
		what += " (" + strings.Join(fair, ", ") + " not modelled: " + sp.Info.Name + " has no fair class)"
	}
	if len(o.slice) > 0 && !sp.Info.Slices && sp.Info.New != nil && !asTraced([]policies.Spec{sp}) {
		// (new-user pass 74 F3: "policy cfs ... with --slice hog=10ms"
		// predicted byte for byte what it did without it.)
		fmt.Fprintf(r.errw, "warning: %s has no custom slice (sched_attr.sched_runtime, which only eevdf reads), so --slice changes nothing in its run\n", sp.Info.Name)
		what += " (--slice not modelled: " + sp.Info.Name + " has no custom slice)"
	}
	if o.output == "table" {
		writeReplayTable(r.out, sp.String(), what, res, r.obs, pred, r.doc.Makespan, m.Stats.Censored, o.rows, o.wide, restsOn(ks, kk, kt))
		writeGroupThrottle(r.out, res.GroupStats, res.Groups, r.obs, res.GroupsModelled)
	}
	if ks != nil && ks.Conclusions {
		fmt.Fprintln(r.errw, kindNote(ks, sp.String(), m))
	}
	if kk != nil && kk.Conclusions {
		fmt.Fprintln(r.errw, killNote(kk, sp.String(), m))
	}
	if kt != nil && kt.Conclusions {
		fmt.Fprintln(r.errw, togetherNote(kt, sp.String(), m))
	}
	if n := forkLoopNote(m, sp.String(), what); n != "" {
		fmt.Fprintln(r.errw, n)
	}
	if o.output == "csv" {
		r.csvRows = append(r.csvRows, replayCSVRows(sp.String(), res, r.obs, pred, r.doc.Makespan, r.m.Stats.Censored > 0)...)
	}
	if o.write != "" { // else let the prediction go before the next run
		r.last, r.lastSpec = res, sp.String()
	}
	return r.cut != "", nil
}

// finish writes -w's prediction (a whole one: none once Ctrl-C cut a run)
// and the -o json or csv document, and fails when a run was cut.
func (r *replayRuns) finish() error {
	if r.cut != "" {
		r.last = nil
	}
	if r.last != nil {
		carrySourceDamage(r.last.Meta, r.srcMeta, r.o.input)
	}
	if err := writePrediction(r.o, r.last, r.lastSpec, r.cfg); err != nil {
		return err
	}
	if n := policyCount(r.o.policies); r.last != nil && n > 1 {
		// -w holds one prediction: say whose, as the file alone does
		// only through info's command line.
		fmt.Fprintf(r.errw, "note: -w %s holds the %s prediction, the last of the %d policies (run replay with one --policy for another's)\n", r.o.write, r.lastSpec, n)
	}
	var err error
	switch r.o.output {
	case "json":
		enc := json.NewEncoder(r.out)
		enc.SetIndent("", "  ")
		err = enc.Encode(r.doc)
	case "csv":
		w := csv.NewWriter(r.out)
		w.Write(replayCSVHeader)
		w.WriteAll(r.csvRows)
		err = w.Error()
	}
	if err == nil && r.cut != "" {
		err = fmt.Errorf("replay: %s", r.cut)
	}
	return err
}

// stuckWarning says which tasks a simulation left asleep, waiting for a
// wakeup no task sent (replay.Result.Stuck): their rows lack the work
// after that sleep.
func stuckWarning(policy string, res *replay.Result, m *replay.Model) string {
	return fmt.Sprintf("the %s prediction left %s asleep at its end, waiting for a wakeup no task sent (%s): their run time and switches lack the work after that sleep, and the makespan is a lower bound",
		policy, plural(len(res.Stuck), "task"), commNames(m, res.Stuck))
}

// policyCount is how many policies --policy names (each value a
// comma-separated list, as policies.ParseSpecs reads it).
func policyCount(vals []string) int {
	n := 0
	for _, v := range vals {
		if specs, err := policies.ParseSpecs(v); err == nil {
			n += len(specs)
		}
	}
	return n
}

// carrySourceDamage adds to a prediction's metadata (pred) a warning for
// each of its input's (src, named input) that says the input was cut short
// or damaged or lost events in the file (cutOrDamaged and the other keys
// info exits 1 on, damagedRecordKeys; the lost windows and counts), as
// "replay-input-partial": the prediction was made from what could be read
// (new-user pass 56 F3: a prediction of a cut trace read "lost: 0 events"
// and compared with the whole recording as if the policy explained the
// missing part). The prediction file itself is whole: info still exits 0.
func carrySourceDamage(pred, src *trace.Meta, input string) {
	if pred == nil || src == nil {
		return
	}
	// What the model lacks is simulated as nothing (the tasks did no work
	// there in the model): the prediction shows that time as the policy
	// ran what the model holds, idle where it holds nothing, and not as
	// unobserved (new-user pass 65 F1: a 664.668 ms idle run across a
	// damaged block's gap, stats Unknown 0.000 ms). Each carried warning
	// says so.
	const unmodelled = " (the model holds none of the tasks' work there: the prediction shows that time as the policy ran the rest, idle where nothing was left, not as unobserved)"
	for _, w := range src.Warnings.List() {
		if !cutOrDamaged(w.Key) && !slices.Contains(damagedRecordKeys, w.Key) && !slices.Contains(inputLostKeys, w.Key) {
			continue
		}
		pred.Warnings.Add("replay-input-partial-"+w.Key, "predicted from %s, which the replay read only in part: %s%s", input, w.String(), unmodelled)
	}
	// The recorder's losses (Meta.Lost, not warnings) likewise (F2: a
	// million events lost read "lost: 0 events" and no word in the
	// prediction).
	if len(src.Lost) > 0 || src.LostUnplaced > 0 {
		var lost uint64
		unknown := 0
		for _, lw := range src.Lost {
			lost += lw.Count
			if lw.Count == 0 {
				unknown++
			}
		}
		lost += src.LostUnplaced
		what := fmt.Sprintf("%d events lost in %s", lost, plural(len(src.Lost)-unknown, "window"))
		if unknown > 0 {
			what += fmt.Sprintf(", and %s unobserved (events lost there, number unknown)", plural(unknown, "CPU window"))
		}
		pred.Warnings.Add("replay-input-partial-lost", "predicted from %s, whose recording lost events: %s%s", input, what, unmodelled)
	}
}

// groupsJSON is a run's groups for -o json: an autogroup has no
// cpu.shares, so its Shares (which the replay sets to the nice's load
// weight, autogroupShares) is left out, its nice and weight said (new-user
// pass 72 F6: "shares": 1024 beside info's "-").
//
// Paths are written as the rows' names (termsafe.ValidUTF8): a byte of
// invalid UTF-8 was U+FFFD (new-user pass 103 F4).
func groupsJSON(gs []replay.GroupInfo) []replay.GroupInfo {
	out := slices.Clone(gs)
	for i := range out {
		out[i].Path = termsafe.ValidUTF8(out[i].Path)
		if len(out[i].Changes) > 0 {
			out[i].Changes = slices.Clone(out[i].Changes)
			for k := range out[i].Changes {
				out[i].Changes[k].Path = termsafe.ValidUTF8(out[i].Changes[k].Path)
			}
		}
		if trace.IsAutogroupPath(out[i].Path) {
			out[i].Shares = 0
			out[i].Changes = slices.Clone(out[i].Changes)
			for k := range out[i].Changes {
				out[i].Changes[k].Shares = 0
			}
		}
	}
	return out
}

// fairWhatIfs are the what-ifs of o that only a fair class reads: each
// --nice, and each --class to normal, batch or idle ("--nice hog=10").
func (o replayOptions) fairWhatIfs() []string {
	var out []string
	for _, a := range o.nice {
		out = append(out, "--nice "+a)
	}
	for _, a := range o.class {
		if _, c, ok := strings.Cut(a, "="); ok && (c == "normal" || c == "batch" || c == "idle") {
			out = append(out, "--class "+a)
		}
	}
	return out
}
