//go:build linux

package ebpf

import (
	"os"

	"golang.org/x/sys/unix"
)

// openTmpFile opens an unnamed file in dir (O_TMPFILE, Linux >= 3.11, mode
// 0600): it never appears in the directory and the kernel frees it when
// it is closed, also when the process dies. Filesystems without O_TMPFILE
// get a named file removed at once.
func openTmpFile(dir string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err == nil {
		return os.NewFile(uintptr(fd), dir+"/(backlog)"), nil
	}
	return namedTmpFile(dir)
}
