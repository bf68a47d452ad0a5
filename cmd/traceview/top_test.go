package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/traceview/traceview/ebpf"
	"github.com/traceview/traceview/report"
)

// sleepLoop starts a shell that runs sleep n times (each sleep is woken by
// its timer, so each brings at least one measured delay) and returns a
// function that waits for it.
func sleepLoop(t *testing.T, n int) func() {
	t.Helper()
	c := exec.Command("sh", "-c", "i=0; while [ $i -lt "+strconv.Itoa(n)+" ]; do i=$((i+1)); sleep 0.01; done")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return func() { c.Wait() }
}

// TestTopOnceJSON: `top --once -d 1s -o json` while a shell runs 40
// sleeps of 10 ms prints latency's JSON document, whose "sleep" row
// counts at least 20 switches in and 20 delays (each sleep process is
// switched in when it starts and again when its timer wakes it: about 60
// ms of the window hold at least 20 of them even on a loaded machine,
// while the loop needs >= 400 ms), with avg = sum / count and max <= sum.
func TestTopOnceJSON(t *testing.T) {
	requireCapture(t)
	wait := sleepLoop(t, 40)
	defer wait()
	stdout, stderr, code := runCLI(t, "top", "--once", "-d", "1s", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var doc report.LatencyJSON
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not latency's JSON: %v\n%s", err, stdout)
	}
	for _, r := range doc.Tasks {
		if r.Comm != "sleep" {
			continue
		}
		if r.Switches < 20 || r.Count < 20 || r.AvgDelayNs != r.SumDelayNs/r.Count || r.MaxDelayNs > r.SumDelayNs || r.MaxDelayEndNs-r.MaxDelayStartNs != r.MaxDelayNs {
			t.Errorf("sleep row %+v: want >= 20 switches and delays, avg = sum/count, max <= sum, end - start = max", r)
		}
		return
	}
	t.Errorf("no sleep row in %s", stdout)
}

// TestTopMetrics scrapes the collector of `top --metrics` over HTTP and
// parses the exposition: the per-comm delay histogram has a "sleep"
// series whose bucket counts rise to at most the count, whose +Inf count
// is at least 20 (the sleeps of a loop of 40, as in TestTopOnceJSON); no
// series anywhere has a tid or pid label.
func TestTopMetrics(t *testing.T) {
	requireCapture(t)
	top, err := ebpf.OpenTop(ebpf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer top.Close()
	sleepLoop(t, 40)()
	time.Sleep(50 * time.Millisecond)
	reg := prometheus.NewRegistry()
	reg.MustRegister(&topCollector{top: top})
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("exposition does not parse: %v\n%s", err, buf.String())
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "tid" || l.GetName() == "pid" {
					t.Errorf("%s has a per-task label %s", name, l.GetName())
				}
			}
		}
	}
	h := fams["traceview_comm_sched_delay_seconds"]
	if h == nil || fams["traceview_cgroup_sched_delay_seconds"] == nil || fams["traceview_comm_switches_total"] == nil || fams["traceview_lost_events_total"] == nil {
		t.Fatalf("families missing: %v", keys(fams))
	}
	for _, m := range h.GetMetric() {
		if m.GetLabel()[0].GetValue() != "sleep" {
			continue
		}
		hist := m.GetHistogram()
		prev := uint64(0)
		for _, b := range hist.GetBucket() {
			if b.GetCumulativeCount() < prev || b.GetCumulativeCount() > hist.GetSampleCount() {
				t.Errorf("bucket le=%g: %d after %d, count %d", b.GetUpperBound(), b.GetCumulativeCount(), prev, hist.GetSampleCount())
			}
			prev = b.GetCumulativeCount()
		}
		if hist.GetSampleCount() < 20 || hist.GetSampleSum() <= 0 {
			t.Errorf("sleep: %d delays, sum %g s; want >= 20 and > 0", hist.GetSampleCount(), hist.GetSampleSum())
		}
		return
	}
	t.Errorf("no sleep series in\n%s", buf.String())
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestTopUsage: bad values exit 2 with one line.
func TestTopUsage(t *testing.T) {
	for _, args := range [][]string{
		{"top", "--by", "pid"},
		{"top", "-o", "csv"},
		{"top", "-s", "bogus"},
		{"top", "--metrics", ":9464"},
	} {
		_, stderr, code := runCLI(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}
