//go:build !linux

package ebpf

import (
	"context"

	"github.com/traceview/traceview/trace"
)

// Capture is a running capture; on this OS it cannot be created.
type Capture struct{}

// Open returns ErrNotSupported: eBPF capture needs Linux.
func Open(Options) (*Capture, error) { return nil, ErrNotSupported }

// PossibleCPUs returns ErrNotSupported.
func PossibleCPUs() (int, error) { return 0, ErrNotSupported }

// Run returns ErrNotSupported.
func (c *Capture) Run(context.Context, func(trace.Event) error) error { return ErrNotSupported }

// Lost returns nil.
func (c *Capture) Lost() []uint64 { return nil }

// Mode returns "".
func (c *Capture) Mode() string { return "" }

// Close does nothing.
func (c *Capture) Close() error { return nil }
