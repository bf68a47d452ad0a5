package ebpf

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// CgroupRoot returns the mount point of the cgroup v2 hierarchy (the first
// "cgroup2" entry of /proc/self/mountinfo), or /sys/fs/cgroup when none is
// listed.
func CgroupRoot() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "/sys/fs/cgroup"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "36 25 0:31 / /sys/fs/cgroup rw,... shared:9 - cgroup2 cgroup2 rw"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if fs := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(fs) >= 5 {
			return fs[4]
		}
	}
	return "/sys/fs/cgroup"
}

// ResolveCgroups maps cgroup ids (bpf_get_current_cgroup_id: the kernfs
// node id of the cgroup's directory, which cgroup v2 also gives as that
// directory's inode number; kernel/cgroup/cgroup.c cgroup_id(),
// fs/kernfs/inode.c kernfs_init_inode sets i_ino = kernfs_ino(kn), Linux
// >= 5.5 with 64-bit ino_t) to their paths relative to root, the cgroup v2
// mount ("/" for the root itself), by walking root. Ids not found (their
// cgroup was removed) are left out; unreadable directories are skipped.
func ResolveCgroups(root string, ids map[uint64]bool) map[uint64]string {
	out := map[uint64]string{}
	if len(ids) == 0 {
		return out
	}
	walkCgroups(root, func(id uint64, path string) bool {
		if ids[id] {
			out[id] = path
		}
		return len(out) == len(ids)
	})
	return out
}

// walkCgroups calls visit with the id (inode number) and the path
// relative to root ("/" for root itself) of each cgroup directory under
// root, until visit returns true; unreadable directories are skipped.
func walkCgroups(root string, visit func(id uint64, path string) (stop bool)) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		if visit(uint64(st.Ino), filepath.Clean("/"+rel)) {
			return fs.SkipAll
		}
		return nil
	})
}

// allCgroups maps every cgroup under root (the cgroup v2 mount) to its
// path, as ResolveCgroups does for the ids asked (the root itself is
// "/"): what a file's groups frames name as the capture goes
// (segment.nameCgroup), read once and again only for an id it lacks.
func allCgroups(root string) map[uint64]string {
	out := map[uint64]string{}
	walkCgroups(root, func(id uint64, path string) bool {
		out[id] = path
		return false
	})
	return out
}
