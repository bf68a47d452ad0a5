// Command fidelity replays every shared trace under eevdf (self-replay) and
// the what-if pairs, and prints the fidelity table in markdown: observed vs
// predicted run time, switches and average delay per command name with at
// least 100 ms of run time, and the workload's makespan, each with its bound.
//
// Usage: go run ./bench/fidelity [-dir ../shared/traces] [-policy eevdf:llc_size=0] [-run REGEXP]
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/traceview/traceview/replay"
	_ "github.com/traceview/traceview/trace/formats"
)

func main() {
	dir := flag.String("dir", "../shared/traces", "directory of the shared traces")
	policy := flag.String("policy", "eevdf", "policy spec to replay under (the bounds and known gaps are for eevdf)")
	run := flag.String("run", "", "only the cases whose name matches this regular expression")
	flag.Parse()
	re, err := regexp.Compile(*run)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fidelity: -run: %v\n", err)
		os.Exit(2)
	}
	var all []replay.Check
	for _, c := range replay.FidelityCases(*dir) {
		if !re.MatchString(c.Name) {
			continue
		}
		c.Policy = *policy
		checks, err := replay.RunFidelity(c)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fidelity: %s: %v\n", c.Name, err)
			continue
		}
		all = append(all, checks...)
	}
	pass := 0
	for _, c := range all {
		if c.Pass() {
			pass++
		}
	}
	fmt.Print(replay.MarkdownTable(all, replay.KnownGaps))
	fmt.Printf("\n%d of %d checks within bounds.\n", pass, len(all))
}
