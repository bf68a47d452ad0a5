//go:build !linux

package ebpf

type moveWatcher struct{}

func openMoveWatcher(int) (*moveWatcher, error) { return nil, ErrNotSupported }

func (w *moveWatcher) drain(func(cgMove)) uint64 { return 0 }

func (w *moveWatcher) close() {}
