//go:build !unix

package replay

// processCPU returns 0: the process CPU time is not read on this OS.
func processCPU() int64 { return 0 }
