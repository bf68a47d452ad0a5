package perfdata

import (
	"io"

	"github.com/traceview/traceview/trace"
)

func init() {
	trace.Register(trace.Format{
		Name:        "perf.data",
		Description: "perf record / perf sched record output (file or pipe mode, either byte order)",
		Detect:      Detect,
		Open: func(r io.Reader, opts trace.ReadOptions) (trace.Source, error) {
			rd, err := newReader(r, opts.Stop)
			if err != nil {
				return nil, err
			}
			rd.Decoders = opts.Decoders
			return rd, nil
		},
	})
}

// Detect reports whether head starts with a perf.data magic (either byte
// order).
func Detect(head []byte) bool {
	return len(head) >= 8 && (string(head[:8]) == magicLE || string(head[:8]) == magicBE)
}
