// Command agree measures how well the real system predicts itself: given
// two or more directories holding recordings of the same recipes under the
// same file names (the shared traces and held-back copies recorded with
// the same commands, e.g. by /tmp/.../record.sh), it scores each recording
// against the others with the fidelity checks themselves
// (report.ScoreReplay: run time, switches and average delay per command
// with at least 100 ms of run time, and the makespan, within
// ±5/20/25/10 %), as if another recording of the same command were the
// prediction.
//
// Two figures per family (the name up to its first dot) and overall:
//
//   - pairs: every ordered pair (A as the prediction of B) of recordings of
//     a recipe; both carry the real system's run-to-run variation, so this
//     is below what a perfect predictor could reach.
//   - median: each recording against, per check, the median of the other
//     recordings' values: an estimate of the expected value, so this is
//     about the best fraction of checks any prediction of one recording
//     can expect to pass; the fidelity counts of replay are to be read
//     against it.
//
// Usage: go run ./bench/fidelity/agree [-run REGEXP] DIR DIR [DIR...]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/traceview/traceview/replay"
	"github.com/traceview/traceview/report"
	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// recording is the observed side of one recording: its latency table by
// command and its makespan.
type recording struct {
	lat      *report.LatencyResult
	makespan int64
}

func load(path string) (*recording, error) {
	src, err := trace.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	m, err := replay.Extract(src)
	if err != nil {
		return nil, err
	}
	lat, err := report.ComputeLatency(m.RecordedSource(), report.LatencyOptions{})
	if err != nil {
		return nil, err
	}
	return &recording{lat: lat, makespan: m.ObservedMakespan()}, nil
}

// tally counts checks within their bounds, per family.
type tally struct{ pass, all map[string]int }

func newTally() tally { return tally{pass: map[string]int{}, all: map[string]int{}} }

func (t tally) add(fam string, ok bool) {
	t.all[fam]++
	if ok {
		t.pass[fam]++
	}
}

func (t tally) line(fam string) string {
	if t.all[fam] == 0 {
		return "-"
	}
	return fmt.Sprintf("%d of %d (%.0f %%)", t.pass[fam], t.all[fam], 100*float64(t.pass[fam])/float64(t.all[fam]))
}

func main() {
	run := flag.String("run", "", "only the recipes whose file name matches this regular expression")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./bench/fidelity/agree [-run REGEXP] DIR DIR [DIR...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("agree: ")
	dirs := flag.Args()
	if len(dirs) < 2 {
		flag.Usage()
		os.Exit(2)
	}
	re, err := regexp.Compile(*run)
	if err != nil {
		log.Fatalf("-run: %v", err)
	}
	// The recipes: perf.data names present in at least two directories.
	count := map[string]int{}
	for _, d := range dirs {
		fs, _ := filepath.Glob(filepath.Join(d, "*.perf.data"))
		for _, f := range fs {
			count[filepath.Base(f)]++
		}
	}
	var names []string
	for n, c := range count {
		if c >= 2 && re.MatchString(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		log.Fatalf("no recording name is in two of the directories")
	}
	pairs, median := newTally(), newTally()
	fams := map[string]bool{}
	for _, name := range names {
		var recs []*recording
		for _, d := range dirs {
			r, err := load(filepath.Join(d, name))
			if err != nil {
				if !os.IsNotExist(err) {
					fmt.Fprintf(os.Stderr, "agree: %s: %v\n", filepath.Join(d, name), err)
				}
				continue
			}
			recs = append(recs, r)
		}
		recipe := strings.TrimSuffix(name, ".perf.data")
		fam, _, _ := strings.Cut(recipe, ".")
		fams[fam] = true
		for i, b := range recs {
			// Per check ID, the values the other recordings give it.
			others := map[string][]int64{}
			var ids []string
			first := map[string]report.ReplayCheck{}
			for j, a := range recs {
				if i == j {
					continue
				}
				for _, c := range report.ScoreReplay(recipe, b.lat, a.lat, b.makespan, a.makespan) {
					pairs.add(fam, c.Pass())
					id := c.ID()
					if _, ok := first[id]; !ok {
						first[id] = c
						ids = append(ids, id)
					}
					others[id] = append(others[id], c.Predicted)
				}
			}
			for _, id := range ids {
				c := first[id]
				if len(others[id]) != len(recs)-1 {
					continue // a row some recordings lack (under 100 ms there)
				}
				c.Predicted = medianOf(others[id])
				median.add(fam, c.Pass())
			}
		}
		fmt.Printf("%-20s %d recordings\n", recipe, len(recs))
	}
	var fl []string
	for f := range fams {
		fl = append(fl, f)
	}
	sort.Strings(fl)
	fmt.Printf("\n| family | pairs within bounds | each vs the others' median |\n|---|---|---|\n")
	pairs.all[""], pairs.pass[""], median.all[""], median.pass[""] = 0, 0, 0, 0
	for _, f := range fl {
		fmt.Printf("| %s | %s | %s |\n", f, pairs.line(f), median.line(f))
		pairs.all[""] += pairs.all[f]
		pairs.pass[""] += pairs.pass[f]
		median.all[""] += median.all[f]
		median.pass[""] += median.pass[f]
	}
	fmt.Printf("| all | %s | %s |\n", pairs.line(""), median.line(""))
}

// medianOf returns the median of vs (the lower middle for an even count).
func medianOf(vs []int64) int64 {
	s := append([]int64(nil), vs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[(len(s)-1)/2]
}
