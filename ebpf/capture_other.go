//go:build !linux

package ebpf

import (
	"context"
	"time"

	"github.com/traceview/traceview/trace"
)

// Capture is a running capture; on this OS it cannot be created.
type Capture struct {
	opts    Options
	classic bool
}

// Open returns ErrNotSupported: eBPF capture needs Linux.
func Open(Options) (*Capture, error) { return nil, ErrNotSupported }

// PossibleCPUs returns ErrNotSupported.
func PossibleCPUs() (int, error) { return 0, ErrNotSupported }

// Run returns ErrNotSupported.
func (c *Capture) Run(context.Context, func(trace.Event) error) error { return ErrNotSupported }

// Lost returns nil.
func (c *Capture) Lost() []uint64 { return nil }

// OfflineCPUs returns nil: no capture outside Linux.
func (c *Capture) OfflineCPUs() []trace.CPU { return nil }

// RecursionMisses returns 0.
func (c *Capture) RecursionMisses() uint64 { return 0 }

// Warnings returns nil.
func (c *Capture) Warnings() []trace.Warning { return nil }

// Mode returns "".
func (c *Capture) Mode() string { return "" }

// Attached returns the zero time: no capture here.
func (c *Capture) Attached() time.Time { return time.Time{} }

func (c *Capture) Attaching() int64 { return 0 }

// Stopped returns the zero time: no capture here.
func (c *Capture) Stopped() time.Time { return time.Time{} }

// Close does nothing.
func (c *Capture) Close() error { return nil }

// Stacks returns nil: there is no capture here.
func (c *Capture) Stacks() []trace.Stack { return nil }

// Top is the in-kernel aggregation of traceview top (Linux only).
type Top struct{}

// OpenTop returns ErrNotSupported outside Linux.
func OpenTop(Options) (*Top, error) { return nil, ErrNotSupported }

// Snapshot is never reached outside Linux.
func (t *Top) Snapshot() (map[trace.TID]TaskStat, error) { return nil, ErrNotSupported }

// SnapshotAt is never reached outside Linux.
func (t *Top) SnapshotAt() (map[trace.TID]TaskStat, int64, error) { return nil, 0, ErrNotSupported }

// SnapshotLate is never reached outside Linux.
func (t *Top) SnapshotLate() int64 { return 0 }

// Stats is never reached outside Linux.
func (t *Top) Stats() (ProgramTotals, error) { return ProgramTotals{}, ErrNotSupported }

// Now returns 0 outside Linux.
func Now() int64 { return 0 }

// Close does nothing.
func (t *Top) Close() error { return nil }

// runRaw returns ErrNotSupported.
func (c *Capture) runRaw(context.Context, bool, *slab, func(*batch) (bool, error)) error {
	return ErrNotSupported
}

func monotonicNow() int64 { return 0 }
