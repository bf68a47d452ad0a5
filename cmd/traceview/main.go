// Command traceview reads, analyzes, captures and replays Linux scheduler
// traces. See `traceview --help`.
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintf(os.Stderr, "traceview: %v\n", err)
		os.Exit(exitCode(err))
	}
}
