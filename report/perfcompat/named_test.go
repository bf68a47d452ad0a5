package perfcompat

import "testing"

// TestNamedWorkerName: a name a COMM record (or perf script's task column)
// gave that extends the events' name as /proc extends a kworker's (-desc,
// +desc: wq_worker_comm) keeps, whenever it came (new-user pass 110 F1: the
// perf script text of a perf.data gave "kworker/0:0-vir" at the task's
// first line, not at 0, and the rows read "kworker/0:0"); any other name
// the events contradict after a record at a nonzero time gives way to
// theirs (a lost rename), as before.
func TestNamedWorkerName(t *testing.T) {
	for _, c := range []struct {
		comm   string
		commAt int64
		seen   string
		want   string
	}{
		{"kworker/0:0-vir", 5, "kworker/0:0", "kworker/0:0-vir"},
		{"kworker/0:0+eve", 5, "kworker/0:0", "kworker/0:0+eve"},
		{"kworker/0:0-vir", 0, "kworker/0:0", "kworker/0:0-vir"},
		{"perf-exec", 5, "wl1.sh", "wl1.sh"},
		{"foo2", 5, "foo", "foo"},  // a prefix, but no worker's description
		{"foo2", 0, "foo", "foo2"}, // synthesized at the start: kept, as before
	} {
		th := &LatencyThread[struct{}]{TID: 7850, PID: 7850, Comm: c.comm, CommAt: c.commAt, Seen: c.seen, SeenAt: 10}
		if got := th.Named(); got != c.want {
			t.Errorf("Comm %q at %d, events %q: Named %q, want %q", c.comm, c.commAt, c.seen, got, c.want)
		}
	}
}
