//go:build !linux

package ebpf

// PinProcess returns ErrNotSupported outside Linux.
func PinProcess([]int) (func() error, error) { return nil, ErrNotSupported }
