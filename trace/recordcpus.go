package trace

import (
	"path/filepath"
	"strings"

	"github.com/traceview/traceview/internal/cpulist"
)

// RecordedCPUs returns the CPUs a recording was limited to, sorted, or nil
// when it covered every CPU or m does not say: m.RecordedCPUs (the header
// of traceview record --cpu's files), else the -C/--cpu of perf record's
// command line (PerfRecordCPUs) or of traceview record's (a file written
// before the header said so).
func RecordedCPUs(m *Meta) []CPU {
	if m == nil {
		return nil
	}
	if len(m.RecordedCPUs) > 0 {
		return m.RecordedCPUs
	}
	if c := PerfRecordCPUs(m.Cmdline); c != nil {
		return c
	}
	return traceviewRecordCPUs(m.Cmdline)
}

// traceviewRecordCPUs returns the CPUs of traceview record's --cpu/-C
// (pflag's forms: "--cpu 1", "--cpu=1", "-C 1", "-C1", "-C=1") on its
// command line, read up to "--" or the first argument that is not an
// option's (the COMMAND), or nil.
func traceviewRecordCPUs(argv []string) []CPU {
	if len(argv) < 2 || !strings.HasPrefix(filepath.Base(argv[0]), "traceview") || argv[1] != "record" {
		return nil
	}
	return parseCPUList(cpuOption(argv[2:], tvRecordTakesValue))
}

// tvRecordTakesValue lists traceview record's options whose value is the
// next argument (cmd/traceview/record.go).
var tvRecordTakesValue = map[string]bool{
	"-o": true, "--output": true, "-d": true, "--duration": true, "-m": true, "--buffer-size": true,
	"--backlog": true, "--rotate": true, "--ring": true, "--post": true, "--trigger": true, "--control": true,
}

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
	return parseCPUList(cpuOption(args[1:], takesValue))
}

// cpuOption returns the value of the last -C/--cpu among a record
// command's options args ("--cpu 1", "--cpu=1", "-C 1", "-C1", pflag's
// "-C=1"), read up to "--" or the first argument that is no option's (the
// workload: its own -C or --cpu are its); takesValue names the options
// whose value is the next argument (-o FILE, -e EVENT, ...: the value is
// no workload). "" when there is none.
func cpuOption(args []string, takesValue map[string]bool) string {
	var list string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || !strings.HasPrefix(a, "-"):
			i = len(args)
		case takesValue[a]:
			i++
		case a == "-C" || a == "--cpu":
			if i+1 < len(args) {
				list = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--cpu="):
			list = strings.TrimPrefix(a, "--cpu=")
		case strings.HasPrefix(a, "-C") && len(a) > 2:
			list = strings.TrimPrefix(a[2:], "=")
		}
	}
	return list
}

// parseCPUList is a CPU list's CPUs, or nil for an empty or bad list.
func parseCPUList(list string) []CPU {
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
