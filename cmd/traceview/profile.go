package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile starts a CPU profile into the file named by the environment
// variable TRACEVIEW_CPUPROFILE, when set (go tool pprof reads it), and
// returns the function that stops it. It is for finding where a command's
// time goes (docs/latency.md); unset, it does nothing.
func startProfile() (stop func(), err error) {
	path := os.Getenv("TRACEVIEW_CPUPROFILE")
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("TRACEVIEW_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("TRACEVIEW_CPUPROFILE: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
