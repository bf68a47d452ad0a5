package tables_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/traceview/traceview/report/tables"
)

// BenchmarkWrite converts pipe.perf.data (2023 switches) into the seven
// tables; it reports sched_slice and thread_state rows written per second.
func BenchmarkWrite(b *testing.B) {
	b.ReportAllocs()
	root := b.TempDir()
	var rows int64
	for i := 0; i < b.N; i++ {
		src := open(b, pipeTrace)
		sum, err := tables.Write(filepath.Join(root, strconv.Itoa(i)), src, tables.Options{TraceID: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		rows += sum.Rows[tables.TableSchedSlice] + sum.Rows[tables.TableThreadState]
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
