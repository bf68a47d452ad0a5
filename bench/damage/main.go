// Command damage is the damage sweep of issue 29 item 3: it damages each
// perf.data file given (bit flips, 8-byte overwrites, zeroed 1 KiB blocks,
// duplicated 1 KiB blocks, truncation, at offsets drawn from a seeded
// generator), runs `traceview replay --policy P` on every damaged copy
// under a wall-clock timeout and an address-space cap (ulimit -v), and
// counts panics, timeouts, out-of-memory ends and measured costs above
// 1 ms printed as measured.
//
//	go build -o /tmp/tv ./cmd/traceview
//	go run ./bench/damage -bin /tmp/tv -n 4 -seed 1 testdata/traces/*.data /work/shared/traces/*.perf.data
//
// A run that fails is kept in -keep (damaged file and stderr) so it can be
// replayed by hand; the damage is also reproducible from its line (file,
// class, seed, offset).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// damage classes; each returns the damaged copy and the offset it chose.
var classes = []struct {
	name string
	fn   func(b []byte, r *rand.Rand) ([]byte, int)
}{
	{"flip", func(b []byte, r *rand.Rand) ([]byte, int) {
		o := r.IntN(len(b))
		b[o] ^= 1 << r.IntN(8)
		return b, o
	}},
	{"over8", func(b []byte, r *rand.Rand) ([]byte, int) {
		o := r.IntN(len(b) - 8)
		for i := 0; i < 8; i++ {
			b[o+i] = byte(r.Uint32())
		}
		return b, o
	}},
	{"zero1k", func(b []byte, r *rand.Rand) ([]byte, int) {
		o := r.IntN(len(b) - 1024)
		clear(b[o : o+1024])
		return b, o
	}},
	{"dup1k", func(b []byte, r *rand.Rand) ([]byte, int) {
		// a 1 KiB block written twice, as by a copy that repeated a
		// buffer: the rest of the file moves 1 KiB on.
		o := r.IntN(len(b) - 1024)
		out := make([]byte, 0, len(b)+1024)
		out = append(out, b[:o+1024]...)
		out = append(out, b[o:]...)
		return out, o
	}},
	{"trunc", func(b []byte, r *rand.Rand) ([]byte, int) {
		o := r.IntN(len(b))
		return b[:o], o
	}},
}

type result struct {
	file, class, policy string
	seed                uint64
	off                 int
	kind                string // ok, error, panic, timeout, oom, killed, bigcost
	detail              string
	dur                 time.Duration
}

// bigCost matches a measured cost printed in ms or s, or above 1000 µs.
var measuredLine = regexp.MustCompile(`(?m)^measured:.*$`)
var costValue = regexp.MustCompile(`([a-z -]+?) ([0-9]+(?:\.[0-9]+)?) (µs|ms|s)\b`)

func bigCost(out string) string {
	line := measuredLine.FindString(out)
	for _, m := range costValue.FindAllStringSubmatch(line, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		if m[3] != "µs" || v > 1000 {
			return strings.TrimSpace(m[0])
		}
	}
	return ""
}

func run(bin, policy, file string, timeout time.Duration, mem int) (kind, detail string, dur time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	// ulimit -v rather than prlimit --as: prlimit segfaults on this
	// machine before it runs the command, whatever the limit.
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v "$1" && exec "$2" replay --policy "$3" -i "$4"`, "sh", strconv.Itoa(mem), bin, policy, file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	t0 := time.Now()
	err := cmd.Run()
	dur = time.Since(t0)
	se := stderr.String()
	first := func(s string) string {
		s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
		return s
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timeout", "", dur
	case strings.Contains(se, "out of memory") || strings.Contains(se, "cannot allocate memory"):
		i := strings.Index(se, "fatal error")
		if i < 0 {
			i = 0
		}
		return "oom", first(se[i:]), dur
	case strings.Contains(se, "panic:") || strings.Contains(se, "fatal error:"):
		i := strings.Index(se, "panic:")
		if i < 0 {
			i = strings.Index(se, "fatal error:")
		}
		d := first(se[i:])
		// the first frame in our code
		if j := strings.Index(se[i:], "github.com/traceview/traceview/"); j >= 0 {
			d += " @ " + first(se[i+j+len("github.com/traceview/traceview/"):])
		}
		return "panic", d, dur
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() < 0 {
		return "killed", ee.String(), dur
	}
	if c := bigCost(stdout.String() + se); c != "" {
		return "bigcost", c, dur
	}
	if err != nil {
		lines := strings.Split(strings.TrimSpace(se), "\n")
		return "error", lines[len(lines)-1], dur
	}
	return "ok", "", dur
}

func main() {
	bin := flag.String("bin", "/tmp/traceview", "traceview binary")
	n := flag.Int("n", 4, "damaged copies per file and class")
	seed := flag.Uint64("seed", 1, "first seed")
	pols := flag.String("policies", "eevdf,cfs", "comma-separated policies")
	timeout := flag.Duration("timeout", 60*time.Second, "wall-clock limit per run")
	mem := flag.Int("mem", 4<<20, "address-space cap per run in KiB (ulimit -v)")
	jobs := flag.Int("j", 1, "runs at a time")
	keep := flag.String("keep", "", "directory for failing damaged files and their stderr")
	classFlag := flag.String("classes", "", "comma-separated classes (default all)")
	verbose := flag.Bool("v", false, "print every run")
	flag.Parse()
	tmp, err := os.MkdirTemp("", "damage")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)

	type job struct {
		file, class, policy string
		seed                uint64
	}
	var jobsList []job
	for _, f := range flag.Args() {
		for _, c := range classes {
			if *classFlag != "" && !strings.Contains(","+*classFlag+",", ","+c.name+",") {
				continue
			}
			for i := 0; i < *n; i++ {
				for _, p := range strings.Split(*pols, ",") {
					jobsList = append(jobsList, job{f, c.name, p, *seed + uint64(i)})
				}
			}
		}
	}
	ch := make(chan job)
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	for w := 0; w < *jobs; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := range ch {
				orig, err := os.ReadFile(j.file)
				if err != nil || len(orig) < 2048 {
					continue
				}
				var ci int
				for i, c := range classes {
					if c.name == j.class {
						ci = i
					}
				}
				// the seed mixes in the file name so files differ
				var h uint64
				for _, c := range filepath.Base(j.file) {
					h = h*31 + uint64(c)
				}
				r := rand.New(rand.NewPCG(j.seed, h^uint64(ci)))
				b, off := classes[ci].fn(orig, r)
				path := filepath.Join(tmp, fmt.Sprintf("w%d.perf.data", w))
				if err := os.WriteFile(path, b, 0o644); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				kind, detail, dur := run(*bin, j.policy, path, *timeout, *mem)
				res := result{filepath.Base(j.file), j.class, j.policy, j.seed, off, kind, detail, dur}
				if *keep != "" && kind != "ok" && kind != "error" {
					os.MkdirAll(*keep, 0o755)
					name := fmt.Sprintf("%s.%s.%d.%s", res.file, j.class, j.seed, kind)
					os.WriteFile(filepath.Join(*keep, name), b, 0o644)
				}
				mu.Lock()
				results = append(results, res)
				if *verbose || (kind != "ok" && kind != "error") {
					fmt.Printf("%-8s %-32s %-6s seed %-3d off %-8d %-5s %6.1fs %s\n", kind, res.file, j.class, j.seed, off, j.policy, dur.Seconds(), detail)
				}
				mu.Unlock()
			}
		}(w)
	}
	for _, j := range jobsList {
		ch <- j
	}
	close(ch)
	wg.Wait()

	counts := map[string]map[string]int{}
	kinds := map[string]bool{}
	for _, r := range results {
		if counts[r.class] == nil {
			counts[r.class] = map[string]int{}
		}
		counts[r.class][r.kind]++
		kinds[r.kind] = true
	}
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	fmt.Printf("\n%-8s", "class")
	for _, k := range ks {
		fmt.Printf(" %8s", k)
	}
	fmt.Println()
	tot := map[string]int{}
	for _, c := range classes {
		if counts[c.name] == nil {
			continue
		}
		fmt.Printf("%-8s", c.name)
		for _, k := range ks {
			fmt.Printf(" %8d", counts[c.name][k])
			tot[k] += counts[c.name][k]
		}
		fmt.Println()
	}
	fmt.Printf("%-8s", "total")
	for _, k := range ks {
		fmt.Printf(" %8d", tot[k])
	}
	fmt.Printf("\n%d runs\n", len(results))
}
