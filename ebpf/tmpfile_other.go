//go:build !linux

package ebpf

import "os"

// openTmpFile opens a file in dir that is removed at once (no O_TMPFILE
// here).
func openTmpFile(dir string) (*os.File, error) { return namedTmpFile(dir) }
