//go:build !linux

package ebpf

// KickComm is the name of the threads kickCPUs runs on Linux.
const KickComm = "traceview-kick"

// kickCPUs does nothing outside Linux (no capture runs there).
func kickCPUs([]int) []int { return nil }
