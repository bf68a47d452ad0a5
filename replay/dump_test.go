package replay

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceview/traceview/trace"
)

var updateModels = flag.Bool("update", false, "rewrite the golden model dumps in testdata/model")

// TestModelGolden compares Model.WriteText of testdata/traces recordings
// with testdata/model/NAME.txt: a change to what Extract infers (a task's
// termination, a pool, a period, a cost) shows as a diff of these files.
// After a deliberate change, `go test ./replay -run TestModelGolden
// -update` rewrites them; review the diff before committing it.
func TestModelGolden(t *testing.T) {
	for _, name := range []string{"pipe.perf.data", "nice.2cpu.perf.data", "grpw.eq.1cpu.perf.data", "grpq.q25.perf.data", "grpq1.q25.perf.data.gz"} {
		t.Run(name, func(t *testing.T) {
			src, err := trace.Open(filepath.Join("..", "testdata", "traces", name))
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m, err := Extract(src)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := m.WriteText(&got); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "model", strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".perf.data")+".txt")
			if *updateModels {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./replay -run TestModelGolden -update writes it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				gl, wl := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
				for k := 0; k < max(len(gl), len(wl)); k++ {
					var g, w string
					if k < len(gl) {
						g = gl[k]
					}
					if k < len(wl) {
						w = wl[k]
					}
					if g != w {
						t.Fatalf("%s differs from %s at line %d:\n got: %s\nwant: %s\n(go test ./replay -run TestModelGolden -update rewrites it after a deliberate change)", name, golden, k+1, g, w)
					}
				}
			}
		})
	}
}

// TestModelTextDeterministic: two extractions of one trace give the same
// text (no map order, no addresses), and the text names what the hand-made
// queue model's passes set: the pool and its members' request bursts.
func TestModelTextDeterministic(t *testing.T) {
	x := queueModel()
	x.requestQueues()
	var a, b bytes.Buffer
	if err := x.m.WriteText(&a); err != nil {
		t.Fatal(err)
	}
	y := queueModel()
	y.requestQueues()
	if err := y.m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatalf("two dumps of one model differ:\n%s\n---\n%s", a.String(), b.String())
	}
	for _, want := range []string{
		"pool 1: producer 0, members [1 2], one request per arrival true",
		"task 1 srv:11 pid 10",
		"bursts 8 (block 7, exit 1, trace end 0), cpu 608000 ns", // 3 + 100 + 100 + 4 x 101 + 1 µs (TestRequestQueues)
		"blocks: dependency 7 [srv:10 x7], timer 0, external 0, never 0; 7 inferred, 6 on a pool's queue",
	} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, a.String())
		}
	}
}
