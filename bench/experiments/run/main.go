// Command run reproduces the five classic scheduler experiments of issue 6
// and prints docs/experiments.md (markdown) on stdout.
//
// Usage: go run ./bench/experiments/run [-dir ../shared/traces] [-small]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/traceview/traceview/bench/experiments"
	_ "github.com/traceview/traceview/trace/formats"
)

func main() {
	dir := flag.String("dir", "../shared/traces", "directory of the shared recordings (replayed beside the synthetic workloads when present)")
	small := flag.Bool("small", false, "reduced workloads (seconds instead of a minute)")
	flag.Parse()
	tables, err := experiments.All(experiments.Options{Small: *small, TraceDir: *dir})
	if err != nil {
		fmt.Fprintf(os.Stderr, "experiments: %v\n", err)
		os.Exit(1)
	}
	fmt.Print(experiments.Header)
	for _, t := range tables {
		fmt.Print(t.Markdown())
	}
}
