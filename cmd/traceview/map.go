package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/report/perfcompat"
	"github.com/traceview/traceview/trace"
)

type mapFlags struct {
	input     string
	opt       perfcompat.MapOptions
	cpus      string
	taskNames string
	filter    filterFlags
	throttled bool
	recorded  []string
	colorPIDs string
	colorCPUs string
}

func init() {
	addCommand(func() *cobra.Command {
		var o mapFlags
		cmd := &cobra.Command{
			Use:   "map [-i FILE] [--compact] [--cpus CPUS] [--task-name NAMES [--fuzzy-name]] [--time START,STOP] [--pid|--tid LIST] [--comm NAMES] [--throttled]",
			Short: "Which task runs on each CPU, one line per context switch (perf sched map)",
			Long:  helpText("map"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				return runMap(cmd, o)
			},
		}
		f := cmd.Flags()
		f.StringVarP(&o.input, "input", "i", defaultTrace, inputUsage)
		f.BoolVar(&o.opt.Compact, "compact", false, "show only CPUs that switched, in order of first use")
		f.StringVar(&o.cpus, "cpus", "", "only switches on these CPUs, e.g. 0,2-3")
		f.StringVar(&o.taskNames, "task-name", "", "only these tasks (comma-separated comm names)")
		f.BoolVar(&o.opt.Fuzzy, "fuzzy-name", false, "with --task-name: match names containing the text")
		f.BoolVar(&o.opt.Exact, "exact", false, "reproduce perf 6.12's output exactly")
		f.StringVar(&o.colorPIDs, "color-pids", "", "highlight these threads (tids, comma-separated) in blue, on a terminal only, as perf does")
		f.StringVar(&o.colorCPUs, "color-cpus", "", "highlight these CPUs' columns' marks on red, on a terminal only, as perf does, e.g. 0,2-3")
		f.BoolVar(&o.throttled, "throttled", false, "end the line of each switch-in that ended a throttle of the task's cgroup (out of CPU quota) with the throttle's length")
		f.StringArrayVar(&o.recorded, "recorded-cgroup", nil, "PATH:max=QUOTA/PERIOD: a group's quota when recorded, where the trace does not carry it (implies --throttled; repeatable)")
		addFilterFlags(f, &o.filter, nil)
		return cmd
	})
}

func runMap(cmd *cobra.Command, o mapFlags) error {
	raiseGCFloor()
	var err error
	switch {
	case o.cpus != "" && o.filter.cpu != "":
		return usageErrorf("map: --cpus and --cpu: give one of them (--cpu is --cpus)")
	case o.taskNames != "" && o.filter.comm != "":
		return usageErrorf("map: --task-name and --comm: give one of them (--comm is --task-name)")
	}
	if err := o.filter.check("map"); err != nil {
		return err
	}
	if o.opt.Exact && (o.filter.time != "" || o.filter.pid != "" || o.filter.tid != "") {
		// perf sched map has none of them (its filters: --cpus,
		// --task-name): there is no perf output to reproduce.
		return usageErrorf("map: --exact reproduces perf's map, which has no --time, --pid or --tid (its filters: --cpus, --task-name); drop --exact or them")
	}
	nameFlag := "--task-name" // as typed, for the no-match message
	if o.filter.comm != "" {
		o.taskNames, o.filter.comm, o.filter.commGiven, nameFlag = o.filter.comm, "", false, "--comm"
	}
	if o.opt.CPUs, err = cpulist.ParseInts(o.cpus, 0, cpulist.MaxCPU); err != nil {
		return usageErrorf("map: --cpus %q: %v", o.cpus, err)
	}
	if o.opt.ColorCPUs, err = cpulist.ParseInts(o.colorCPUs, 0, cpulist.MaxCPU); err != nil {
		return usageErrorf("map: --color-cpus %q: %v", o.colorCPUs, err)
	}
	for _, p := range strings.Split(o.colorPIDs, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return usageErrorf("map: --color-pids %q: want thread ids, comma-separated", o.colorPIDs)
		}
		o.opt.ColorTIDs = append(o.opt.ColorTIDs, n)
	}
	o.opt.Color = isTerminal(cmd.OutOrStdout()) && (len(o.opt.ColorTIDs) > 0 || len(o.opt.ColorCPUs) > 0)
	if o.taskNames != "" && !o.opt.Exact {
		// Names as the tables print them, as every command's --comm reads
		// them (splitNameList: `\,` a comma, `\t` a TAB, `\xHH` a byte):
		// map matched only raw bytes, so a name with a comma could not be
		// selected at all (new-user pass 50 F1).
		o.opt.TaskNames = splitNameList(o.taskNames)
	} else if o.taskNames != "" {
		// --exact: perf's --task-name, split at every comma.
		for _, n := range strings.Split(o.taskNames, ",") {
			if n = strings.TrimSpace(n); n != "" {
				o.opt.TaskNames = append(o.opt.TaskNames, n)
			}
		}
	} else if o.opt.Fuzzy {
		return usageErrorf("map: --fuzzy-name needs --task-name")
	}
	if o.throttled || len(o.recorded) > 0 {
		if o.opt.Exact {
			return usageErrorf("map: --throttled: perf's exact output (--exact) has no throttling; drop one of them")
		}
		res, groups, err := throttlePass(cmd, "map", o.input, o.recorded)
		if err != nil {
			return err
		}
		o.opt.Unthrottled = res.ThrottleEnds(groups)
	}
	src, err := openInputProgress(o.input)
	if err != nil {
		return err
	}
	defer src.Close()
	if err := checkCPUList("map: --cpus", o.opt.CPUs, src.Meta()); err != nil {
		return err
	}
	flt, err := o.filter.resolve("map", src.Meta())
	if err != nil {
		return err
	}
	cutHeadsUp(cmd.ErrOrStderr(), "map", o.input, src.Meta())
	if flt != nil {
		o.opt.Start, o.opt.End = flt.Start, flt.End
		o.opt.PIDs, o.opt.TIDs = ints(flt.PIDs), ints(flt.TIDs)
		if flt.CPUs != nil {
			o.opt.CPUs = ints(flt.CPUs)
		}
	}
	out := &countingWriter{w: cmd.OutOrStdout()}
	filtered := flt != nil || len(o.opt.TaskNames) > 0
	ext := newTraceExtent() // for the no-match message, as timehist's
	if err := perfcompat.Map(out, &trace.Tap{Source: src, Observe: ext.observe, KeepKinds: filtered}, o.opt); err != nil {
		return readFailed(cmd, o.input, src.Meta(), viewError("map", o.input, err, src.Meta()))
	}
	if out.n == 0 && filtered {
		given := flt.String()
		if len(o.opt.TaskNames) > 0 {
			given = strings.TrimSpace(nameFlag + " " + o.taskNames + " " + given)
		}
		// The answer first, as latency's and timehist's (it came last,
		// after every warning in full, as a failure).
		var pids []trace.PID
		if flt != nil {
			pids = flt.PIDs
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", ext.noMatch(given, o.opt.TaskNames, pids))
	} else {
		ext.addWindowNote(src.Meta(), flt)
	}
	printWarnings(cmd.ErrOrStderr(), o.input, src.Meta())
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
