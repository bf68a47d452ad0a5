// Task-group settings for a capture: the CPU-controller files of the
// cgroups (v2 cpu.weight, cpu.max, cpu.max.burst; v1 cpu.shares,
// cpu.cfs_quota_us, cpu.cfs_period_us, cpu.cfs_burst_us), their cpu.stat
// bandwidth counters, and the autogroups (/proc/PID/autogroup) of tasks in
// the root group, read when a file starts and again when it ends
// (trace.Meta.CgroupSettings, CgroupStats, Autogroup).

package ebpf

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/traceview/traceview/trace"
)

// CgroupMounts are the cgroup hierarchies a capture reads task-group
// settings from.
type CgroupMounts struct {
	// V2 is the cgroup2 mount (the hierarchy of the events' cgroup ids,
	// Meta.Cgroups), "" when none.
	V2 string
	// V1CPU is the mount of the cgroup v1 hierarchy that has the cpu
	// controller ("/sys/fs/cgroup/cpu" or ".../cpu,cpuacct"), "" when the
	// controller is not bound to a v1 hierarchy.
	V1CPU string
	// V1CPURoot is the path in that hierarchy the mount shows ("/", or a
	// container's group), mountinfo's fourth field.
	V1CPURoot string
}

// FindCgroupMounts reads the cgroup mounts from a mountinfo file
// (/proc/self/mountinfo, proc(5)): the first cgroup2 mount and the first
// cgroup (v1) mount whose super options name the cpu controller.
func FindCgroupMounts(mountinfo string) CgroupMounts {
	var m CgroupMounts
	f, err := os.Open(mountinfo)
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu"
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if !ok || len(pf) < 5 || len(qf) < 3 {
			continue
		}
		switch {
		case qf[0] == "cgroup2" && m.V2 == "":
			m.V2 = unescapeMount(pf[4])
		case qf[0] == "cgroup" && m.V1CPU == "" && hasOption(qf[2], "cpu"):
			m.V1CPU, m.V1CPURoot = unescapeMount(pf[4]), unescapeMount(pf[3])
		}
	}
	return m
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes of space, tab, newline
// and backslash ("\040").
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// ReadCgroupSettings reads the CPU-controller settings of the cgroup
// directory dir, named path in the trace: with v1, cpu.shares (stored as
// Shares and as Weight via trace.WeightFromShares), cpu.cfs_quota_us
// (-1: no limit), cpu.cfs_period_us and cpu.cfs_burst_us (Linux 5.14+);
// else cgroup v2's cpu.weight, cpu.max ("$MAX $PERIOD" in µs, "max" no
// limit) and cpu.max.burst (µs, Linux 5.14+). Times become ns. ok is false
// when dir has neither a weight nor a quota file (the root group, or a v2
// group whose parent does not enable the cpu controller).
func ReadCgroupSettings(dir, path string, v1 bool) (s trace.CgroupSettings, ok bool) {
	s.Path = path
	if v1 {
		if sh, ok := readInt(filepath.Join(dir, "cpu.shares")); ok && sh > 0 {
			s.Shares, s.Weight = int(sh), trace.WeightFromShares(int(sh))
		}
		if q, ok := readInt(filepath.Join(dir, "cpu.cfs_quota_us")); ok {
			s.QuotaNS = q * 1000
			if q < 0 {
				s.QuotaNS = -1
			}
		}
		if p, ok := readInt(filepath.Join(dir, "cpu.cfs_period_us")); ok && p > 0 {
			s.PeriodNS = p * 1000
		}
		if b, ok := readInt(filepath.Join(dir, "cpu.cfs_burst_us")); ok && b > 0 {
			s.BurstNS = b * 1000
		}
		return s, s.Weight != 0 || s.QuotaNS != 0
	}
	if w, ok := readInt(filepath.Join(dir, "cpu.weight")); ok && w > 0 {
		s.Weight = int(w)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.max")); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if f[0] == "max" {
				s.QuotaNS = -1
			} else if q, err := strconv.ParseInt(f[0], 10, 64); err == nil && q > 0 {
				s.QuotaNS = q * 1000
			}
			if p, err := strconv.ParseInt(f[1], 10, 64); err == nil && p > 0 {
				s.PeriodNS = p * 1000
			}
		}
	}
	if b, ok := readInt(filepath.Join(dir, "cpu.max.burst")); ok && b > 0 {
		s.BurstNS = b * 1000
	}
	return s, s.Weight != 0 || s.QuotaNS != 0
}

// ReadCgroupStat reads the bandwidth counters of dir's cpu.stat (v1:
// nr_periods, nr_throttled, throttled_time ns, nr_bursts, burst_time ns;
// v2: the same with throttled_usec and burst_usec in µs), at time now
// (ns, the trace clock). ok is false when the file is missing or has no
// nr_periods (a v2 group without the cpu controller has only the usage
// fields).
func ReadCgroupStat(dir, path string, now int64) (st trace.CgroupStat, ok bool) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return st, false
	}
	st.Path, st.Time = path, now
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			continue
		}
		switch k {
		case "nr_periods":
			st.NrPeriods, ok = uint64(n), true
		case "nr_throttled":
			st.NrThrottled = uint64(n)
		case "throttled_time":
			st.ThrottledNS = n
		case "throttled_usec":
			st.ThrottledNS = n * 1000
		case "nr_bursts":
			st.NrBursts = uint64(n)
		case "burst_time":
			st.BurstNS = n
		case "burst_usec":
			st.BurstNS = n * 1000
		}
	}
	return st, ok
}

// AutogroupEnabled reads kernel.sched_autogroup_enabled under proc (the
// /proc mount) as trace.Meta.Autogroup has it: 1 on, -1 off or a kernel
// without CONFIG_SCHED_AUTOGROUP (the file missing where /proc/sys/kernel
// is readable), 0 unknown.
func AutogroupEnabled(proc string) int8 {
	n, ok := readInt(filepath.Join(proc, "sys/kernel/sched_autogroup_enabled"))
	switch {
	case ok && n != 0:
		return 1
	case ok:
		return -1
	}
	if _, err := os.Stat(filepath.Join(proc, "sys/kernel")); err == nil {
		return -1
	}
	return 0
}

// ReadAutogroup reads /proc/PID/autogroup ("/autogroup-24 nice 0",
// kernel/sched/autogroup.c proc_sched_autogroup_show_task) under proc as
// settings: Path "/autogroup-24", Nice and the Weight of that nice
// (trace.AutogroupWeight). ok is false when the file is missing (the task
// exited, or no CONFIG_SCHED_AUTOGROUP) or unreadable.
func ReadAutogroup(proc string, pid trace.PID) (s trace.CgroupSettings, ok bool) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(int(pid)), "autogroup"))
	if err != nil {
		return s, false
	}
	f := strings.Fields(string(b))
	if len(f) != 3 || !strings.HasPrefix(f[0], "/autogroup-") || f[1] != "nice" {
		return s, false
	}
	nice, err := strconv.Atoi(f[2])
	if err != nil || nice < -20 || nice > 19 {
		return s, false
	}
	return trace.CgroupSettings{Path: f[0], Nice: nice, Weight: trace.AutogroupWeight(nice)}, true
}

// procCPUGroup returns the group of process pid under proc that holds its
// CPU-controller settings: its path in the v1 hierarchy with the cpu
// controller when v1 (a "N:cpu,cpuacct:/path" line of /proc/PID/cgroup),
// else its cgroup v2 path (the "0::/path" line). ok is false when the
// process is gone or the line is missing.
func procCPUGroup(proc string, pid trace.PID, v1 bool) (string, bool) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(int(pid)), "cgroup"))
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if (v1 && f[0] != "0" && hasOption(f[1], "cpu")) || (!v1 && f[0] == "0" && f[1] == "") {
			return filepath.Clean("/" + f[2]), true
		}
	}
	return "", false
}

// maxGroupsRead bounds the cgroup directories a snapshot reads per
// hierarchy (a big container host has thousands; the groups beyond are
// read at the end of the file if its tasks ran in them).
const maxGroupsRead = 4096

// walkGroups calls fn with the directory and the path ("/" for root
// itself) of each group of the hierarchy mounted at root, up to
// maxGroupsRead.
func walkGroups(root string, fn func(dir, path string)) {
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if n++; n > maxGroupsRead {
			return fs.SkipAll
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return nil
		}
		fn(p, filepath.Clean("/"+rel))
		return nil
	})
}

// groupSnapshot is what a file's start saw of the task groups.
type groupSnapshot struct {
	time     int64 // trace clock when read
	settings map[string]trace.CgroupSettings
	stats    map[string]trace.CgroupStat
	// cpuGroup is each process's group (procCPUGroup), autogroup its
	// autogroup when that group is the root.
	cpuGroup  map[trace.PID]string
	autogroup map[trace.PID]trace.CgroupSettings
}

// groupReader reads task-group settings for a Recorder.
type groupReader struct {
	mounts    CgroupMounts
	proc      string
	autogroup bool // the sysctl was on at the start
}

// dir returns the directory of group path in the settings hierarchy (the
// v1 cpu one when there is one, else cgroup v2; "" when neither is
// mounted) and whether that is v1.
func (g *groupReader) dir(path string) (string, bool) {
	switch {
	case g.mounts.V1CPU != "":
		return filepath.Join(g.mounts.V1CPU, path), true
	case g.mounts.V2 != "":
		return filepath.Join(g.mounts.V2, path), false
	}
	return "", false
}

// read reads group path's settings and counters at time now.
func (g *groupReader) read(path string, now int64) (s trace.CgroupSettings, st trace.CgroupStat, ok, stOK bool) {
	if g == nil {
		return s, st, false, false
	}
	dir, v1 := g.dir(path)
	if path == "/" || path == "" || dir == "" {
		return s, st, false, false
	}
	s, ok = ReadCgroupSettings(dir, path, v1)
	if !ok {
		return s, st, false, false
	}
	st, stOK = ReadCgroupStat(dir, path, now)
	return s, st, ok, stOK
}

// snapshot reads every group of the settings hierarchy (up to
// maxGroupsRead) and the group and autogroup of every process.
//
// A nil reader (a Recorder built without NewRecorder) reads nothing.
func (g *groupReader) snapshot(now int64) *groupSnapshot {
	snap := &groupSnapshot{time: now, settings: map[string]trace.CgroupSettings{}, stats: map[string]trace.CgroupStat{},
		cpuGroup: map[trace.PID]string{}, autogroup: map[trace.PID]trace.CgroupSettings{}}
	if g == nil {
		return snap
	}
	root, v1 := g.dir("/")
	if root != "" {
		walkGroups(root, func(_, path string) {
			if s, st, ok, stOK := g.read(path, now); ok {
				snap.settings[path] = s
				if stOK {
					snap.stats[path] = st
				}
			}
		})
	}
	pids, _ := filepath.Glob(filepath.Join(g.proc, "[0-9]*"))
	for _, p := range pids {
		n, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		pid := trace.PID(n)
		if grp, ok := procCPUGroup(g.proc, pid, v1); ok {
			snap.cpuGroup[pid] = grp
			if grp == "/" && g.autogroup {
				if a, ok := ReadAutogroup(g.proc, pid); ok {
					snap.autogroup[pid] = a
				}
			}
		}
	}
	return snap
}

// finish returns the settings and counters of the groups a file saw:
// the groups of its events' cgroups (seen, v2 paths) and of its processes
// (pids), with their ancestors, and the autogroups of its processes in
// the root group. Each group's settings at the start come first (Time 0
// when before the file's events, startTime0), then, read again now, those
// that changed (Time now); each group's counters at the start and now.
// Groups made during the file have only the reading of now.
//
// stop, when set, holds counters read as the capture stopped: they replace
// those read now (after the drain) for the groups it has. first holds the
// settings of groups read during the file, when a task was first seen in
// them (v1Attrib): a group made after the start comes with that reading
// (its Time), and the reading of now only when it differs, so a group
// removed before the end is still described.
//
// sampled, when set, dates the changes between the start and now: each
// reading of the settings sampler that differs from the one before it
// comes between them, with the time it was read.
//
// agOf and agReadings are what the autogroup sampler read of the file's
// processes (procSampler.forFile): a process the start did not see takes its
// autogroup from there, and an autogroup first seen during the file comes
// with the sampler's readings (its first, then each change of its nice).
// taskAG is the autogroup of each process of pids that ran in one.
func (g *groupReader) finish(start *groupSnapshot, seen map[uint64]string, pids map[trace.PID]bool, now int64, startTime0 bool, stop map[string]trace.CgroupStat, first map[string]trace.CgroupSettings,
	agOf map[trace.PID]string, agReadings []trace.CgroupSettings, sampled *settingsSampler) (set []trace.CgroupSettings, stats []trace.CgroupStat, taskAG map[trace.PID]string) {
	if g == nil {
		return nil, nil, nil
	}
	_, v1 := g.dir("/")
	paths := map[string]bool{}
	addPath := func(p string) {
		for p != "/" && p != "." && p != "" && !paths[p] {
			paths[p] = true
			p = filepath.Dir(p)
		}
	}
	for _, p := range seen {
		addPath(p)
	}
	autos := map[string]trace.PID{}
	late := map[string]bool{} // autogroups of agReadings, first seen during the file
	for pid := range pids {
		if p := agOf[pid]; p != "" && g.autogroup {
			// In the root group when the sampler read it (it may have
			// exited since), which it follows past a setsid(2) soon
			// after the process started, where the start's reading
			// may have come before it.
			if taskAG == nil {
				taskAG = map[trace.PID]string{}
			}
			taskAG[pid] = p
			late[p] = true
			continue
		}
		grp, ok := start.cpuGroup[pid]
		if !ok {
			grp, ok = procCPUGroup(g.proc, pid, v1)
		}
		if !ok {
			continue
		}
		addPath(grp)
		if grp != "/" || !g.autogroup {
			continue
		}
		a, ok := start.autogroup[pid]
		if !ok {
			if a, ok = ReadAutogroup(g.proc, pid); !ok {
				continue
			}
			start.autogroup[pid] = a
		}
		if taskAG == nil {
			taskAG = map[trace.PID]string{}
		}
		taskAG[pid] = a.Path
		if _, dup := autos[a.Path]; !dup || pid < autos[a.Path] {
			autos[a.Path] = pid
		}
	}
	for _, p := range sortedKeys(paths) {
		s0, had := start.settings[p]
		s1, st1, ok, stOK := g.read(p, now)
		var list []trace.CgroupSettings
		if had {
			if !startTime0 {
				s0.Time = start.time
			}
			list = append(list, s0)
			if st0, ok := start.stats[p]; ok {
				stats = append(stats, st0)
			}
		} else if f, late := first[p]; late {
			list = append(list, f)
		}
		// The changes the settings sampler dated between the start's
		// reading and now.
		for _, c := range sampled.between(p, start.time, now) {
			if len(list) == 0 || !sameSettings(c, list[len(list)-1]) {
				list = append(list, c)
			}
		}
		if ok && (len(list) == 0 || !sameSettings(s1, list[len(list)-1])) {
			s1.Time = now
			list = append(list, s1)
		}
		set = append(set, list...)
		if st, ok := stop[p]; ok {
			st1, stOK = st, true
		}
		if stOK {
			stats = append(stats, st1)
		}
	}
	set = append(set, g.autogroupReadings(start, autos, late, agReadings, now, startTime0)...)
	return set, stats, taskAG
}

// autogroupReadings returns the readings of a file's autogroups: those of
// autos (path to a process the start read in it) and of late (paths the
// sampler read). An autogroup the start read comes with that reading (time
// 0 when startTime0, else the start's), the sampler's readings after it
// that change its nice, and a reading now when it changed again; one only
// the sampler read, with the sampler's readings (agReadings, in time
// order).
func (g *groupReader) autogroupReadings(start *groupSnapshot, autos map[string]trace.PID, late map[string]bool, agReadings []trace.CgroupSettings, now int64, startTime0 bool) []trace.CgroupSettings {
	var set []trace.CgroupSettings
	atStart := map[string]trace.PID{} // the start's process of each autogroup, also of late ones
	for pid, a := range start.autogroup {
		if q, ok := atStart[a.Path]; (autos[a.Path] != 0 || late[a.Path]) && (!ok || pid < q) {
			atStart[a.Path] = pid
		}
	}
	for _, p := range sortedKeys(atStart) {
		pid := atStart[p]
		a := start.autogroup[pid]
		if !startTime0 {
			a.Time = start.time
		}
		set = append(set, a)
		nice := a.Nice
		// The sampler's readings after the start: a session started
		// just before the file sets its nice after setsid, maybe after
		// the start's reading.
		for _, r := range agReadings {
			if r.Path == p && r.Time > start.time && r.Nice != nice {
				set = append(set, r)
				nice = r.Nice
			}
		}
		if a1, ok := ReadAutogroup(g.proc, pid); ok && a1.Path == a.Path && a1.Nice != nice {
			a1.Time = now
			set = append(set, a1)
		}
	}
	for _, a := range agReadings {
		if _, ok := atStart[a.Path]; late[a.Path] && !ok {
			set = append(set, a)
		}
	}
	return set
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ReadBandwidth reads the cpu.stat bandwidth counters (ReadCgroupStat) of
// every group of the hierarchy whose settings act on the tasks (the v1
// cpu one when there is one, else cgroup v2), up to maxGroupsRead groups,
// by path ("/" the root), at time now (ns). Groups whose cpu.stat has no
// nr_periods (a v2 group without the cpu controller) are left out; an
// unreadable hierarchy gives an empty map.
func ReadBandwidth(m CgroupMounts, now int64) map[string]trace.CgroupStat {
	out := map[string]trace.CgroupStat{}
	g := groupReader{mounts: m}
	root, _ := g.dir("/")
	if root == "" {
		return out
	}
	walkGroups(root, func(dir, path string) {
		if st, ok := ReadCgroupStat(dir, path, now); ok {
			out[path] = st
		}
	})
	return out
}
