// Command run reproduces the five classic scheduler experiments and prints
// docs/experiments.md (markdown) on stdout, or with -json one JSON array
// of rows (experiments.JSONRow).
//
// Usage: go run ./bench/experiments/run [-dir ../shared/traces] [-small] [-json] [-only ID]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/traceview/traceview/bench/experiments"
	_ "github.com/traceview/traceview/trace/formats"
)

func main() {
	dir := flag.String("dir", "../shared/traces", "directory of the shared recordings (replayed beside the synthetic workloads when present)")
	small := flag.Bool("small", false, "reduced workloads (seconds instead of minutes; CI)")
	asJSON := flag.Bool("json", false, "print the rows as one JSON array instead of markdown")
	only := flag.String("only", "", "run only the experiment of this ID (000..004), for working on one")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("experiments: ")
	tables, err := experiments.All(experiments.Options{Small: *small, TraceDir: *dir, Only: *only})
	if err != nil {
		log.Fatal(err)
	}
	if *asJSON {
		if err := experiments.WriteJSON(os.Stdout, tables); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Print(experiments.Header)
	for _, t := range tables {
		fmt.Print(t.Markdown())
	}
	fmt.Print(experiments.Summarize(tables).Markdown(tables))
}
