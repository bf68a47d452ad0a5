package perfdata

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/traceview/traceview/trace/tpformat"
)

// LocalTracefs lists where localFormats looks for this machine's tracefs
// (tests point it elsewhere).
var LocalTracefs = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

// localFormats gives the tracepoint attrs of a file without tracing data
// (an unfinished recording: the formats are a feature section perf writes
// at the end) the sched formats of the machine reading it, when the
// tracepoint ids match. That is right when the file was recorded on this
// kernel, which the file cannot tell (its osrelease feature is missing too):
// the warning says so. A sample shorter than its format is skipped with a
// bad-tracepoint warning by the decoder.
func (r *Reader) localFormats() {
	want := map[int]bool{}
	for _, a := range r.attrs {
		if a.typ == typeTracepoint {
			want[int(a.config)] = true
		}
	}
	if len(want) == 0 {
		return
	}
	for _, dir := range LocalTracefs {
		paths, _ := filepath.Glob(filepath.Join(dir, "events", "sched", "*", "format"))
		n := 0
		for _, p := range paths {
			text, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			f, err := tpformat.Parse(text)
			if err != nil || !want[f.ID] {
				continue
			}
			f.System = "sched"
			r.formats[f.ID] = f
			n++
		}
		if n == 0 {
			continue
		}
		rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
		r.meta.Warnings.Add("local-formats", "perf.data: the file has no tracepoint formats; the %d sched formats of this machine's %s (Linux %s) whose ids match were used: right only if the file was recorded on this kernel",
			n, dir, strings.TrimSpace(string(rel)))
		r.resolveAttrs()
		return
	}
}
