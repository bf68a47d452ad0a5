package trace

import (
	"path/filepath"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
)

// PerfRecordCPUs returns the CPUs a perf command line (Meta.Cmdline) limited
// its recording to with -C/--cpu (`perf record -C 1`, `perf sched record -C
// 0,2-3`), or nil when it records every CPU or the line is not perf record's
// or cannot be read. Options are read up to "--" or the first argument that
// is not an option's (perf's parse_options stops at the workload); the
// value is perf's CPU list syntax (tools/perf/builtin-record.c v6.12,
// --cpu).
func PerfRecordCPUs(argv []string) []CPU {
	if len(argv) < 2 || !strings.HasPrefix(filepath.Base(argv[0]), "perf") {
		return nil
	}
	args := argv[1:]
	if args[0] == "sched" {
		args = args[1:]
	}
	if len(args) == 0 || args[0] != "record" {
		return nil
	}
	var list string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || !strings.HasPrefix(a, "-"):
			i = len(args) // the workload: its own -C or --cpu are its
		case takesValue[a]:
			i++ // -o FILE, -e EVENT, ...: the value is no workload
		case a == "-C" || a == "--cpu":
			if i+1 < len(args) {
				list = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--cpu="):
			list = strings.TrimPrefix(a, "--cpu=")
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			list = a[2:]
		}
	}
	if list == "" {
		return nil
	}
	ints, err := cpulist.ParseInts(list, 0, cpulist.MaxCPU)
	if err != nil || len(ints) == 0 {
		return nil
	}
	cpus := make([]CPU, len(ints))
	for i, c := range ints {
		cpus[i] = CPU(c)
	}
	return cpus
}

// takesValue lists the perf record options (and perf sched record's) whose
// value is the next argument (tools/perf/builtin-record.c v6.12): past one
// of them the next argument is its value, not the workload.
var takesValue = map[string]bool{
	"-e": true, "--event": true, "-o": true, "--output": true, "-m": true, "--mmap-pages": true,
	"-F": true, "--freq": true, "-c": true, "--count": true, "-p": true, "--pid": true,
	"-t": true, "--tid": true, "-u": true, "--uid": true, "-G": true, "--cgroup": true,
	"-D": true, "--delay": true, "-k": true, "--clockid": true, "-r": true, "--realtime": true,
	"--filter": true, "--max-size": true, "--affinity": true, "-i": true, "--input": true,
}
