package textfmt

import (
	"bytes"
	"io"

	"github.com/traceview/traceview/trace"
)

// Format names, as `traceview formats` lists them.
const (
	FormatFtrace   = "ftrace-text"
	FormatTraceCmd = "trace-cmd-report"
	FormatPerf     = "perf-script"
)

func init() {
	for _, f := range []struct{ name, desc string }{
		{FormatFtrace, "ftrace text: tracefs trace / trace_pipe (with or without irq-info and tgid columns; latency-format too)"},
		{FormatTraceCmd, "trace-cmd report text (sched plugin or raw field=value payloads)"},
		{FormatPerf, "perf script text of sched tracepoints (default or -F comm,pid,tid,cpu,time,event,trace)"},
	} {
		name := f.name
		trace.Register(trace.Format{
			Name:        name,
			Description: f.desc,
			Detect:      func(head []byte) bool { return Classify(head) == name },
			Open: func(r io.Reader, o trace.ReadOptions) (trace.Source, error) {
				return NewReaderWith(r, name, o), nil
			},
		})
	}
}

// Classify names the text dialect of head (FormatFtrace, FormatTraceCmd or
// FormatPerf), or returns "" when head is not tracing text: binary data,
// or no event line among its first lines and no "# tracer:" header. The dialect is told by the
// task column ("comm-tid" vs "comm pid/tid"), the irq-info column and the
// headers each tool writes ("# tracer:", "cpus=").
func Classify(head []byte) string {
	if bytes.IndexByte(head, 0) >= 0 {
		return ""
	}
	var p prefix
	ftraceHeader, tracecmdHeader := false, false
	perf, ftrace, flags, tcmd, noCPU := 0, 0, 0, 0, 0
	lines := 0
	for len(head) > 0 && lines < 200 {
		i := bytes.IndexByte(head, '\n')
		var line []byte
		if i < 0 {
			line, head = head, nil
		} else {
			line, head = head[:i], head[i+1:]
		}
		line = bytes.TrimRight(line, "\r")
		t := skipSpaces(line)
		switch {
		case len(t) == 0:
			continue
		case bytes.HasPrefix(t, []byte("# tracer:")):
			ftraceHeader = true
			continue
		case t[0] == '#':
			continue
		case lines == 0 && (bytes.HasPrefix(t, []byte("cpus=")) || bytes.HasPrefix(t, []byte("version = "))):
			tracecmdHeader = true
			continue
		}
		lines++
		if !parsePrefix(line, &p) {
			if noCPUColumn(line) {
				noCPU++
			}
			if parseLatPrefix(line, &p) && p.system == nil {
				// ftrace's latency format (trace_pipe has no header).
				flags++
				ftrace++
			}
			continue
		}
		switch {
		case p.dialect == dialectPerf && p.system != nil:
			perf++
		case p.dialect == dialectFtrace && p.system == nil && p.flags != nil:
			flags++
			ftrace++
		case p.dialect == dialectFtrace && p.system == nil:
			tcmd++
			ftrace++
		}
	}
	switch {
	case perf > 0 && perf >= ftrace:
		return FormatPerf
	case ftrace == 0 && ftraceHeader:
		// An ftrace buffer with no event in it ("# tracer:" and the
		// column headers only): the reader then says no sched events.
		return FormatFtrace
	case ftrace == 0 && noCPU > 0:
		// perf script text printed without its cpu field: the reader
		// says so at the first line (noCPUColumn).
		return FormatPerf
	case ftrace == 0:
		return ""
	case tracecmdHeader:
		return FormatTraceCmd
	case ftraceHeader || flags > tcmd:
		return FormatFtrace
	}
	return FormatTraceCmd
}
