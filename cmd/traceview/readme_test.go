package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/traceview/traceview/synth"
)

// exampleSkip says why an example line is not run here: it captures (root,
// BPF, a perf workload), reads perf's own output, needs another tool, or a
// file this repository does not ship. Anything else must run as written.
var exampleSkip = []struct{ re, why string }{
	{`\btraceview (record|top)\b`, "captures with eBPF (root, a workload)"},
	{`\|`, "a shell pipe from or into another program"},
	{`^perf |&& perf |\bperf sched\b`, "needs perf"},
	{`\bgo tool\b|\bduckdb\b`, "runs another tool on the output"},
	{`(^| |=)(perf\.data|trace\.dat|t\.tv|g\.tv)\b|\bfleet/`, "a trace of the reader's own (not shipped)"},
}

// exampleLines returns the command lines of text that start with
// "traceview " (comments cut, "\" continuations joined), split at "&&".
func exampleLines(text string) [][]string {
	var out [][]string
	var cont string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if cont != "" {
			l, cont = cont+" "+l, ""
		}
		if strings.HasSuffix(l, "\\") {
			cont = strings.TrimSuffix(l, "\\")
			continue
		}
		if !strings.HasPrefix(l, "traceview ") && !strings.HasPrefix(l, "sudo traceview ") {
			continue
		}
		if i := strings.Index(l, "  #"); i >= 0 {
			l = l[:i]
		}
		if i := strings.Index(l, " # "); i >= 0 {
			l = l[:i]
		}
		out = append(out, []string{strings.TrimSpace(l)})
	}
	return out
}

// shellWords splits a command like sh would for these examples: blanks,
// and '...' or "..." quoting.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// TestExamplesRun runs, from the repository root, every example of the
// README's Examples section and of every command's --help that this
// machine can run without root, perf or another tool (exampleSkip): each
// must exit 0. Files the examples write are removed afterwards.
func TestExamplesRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(readme)
	if i := strings.Index(sec, "### Examples"); i >= 0 {
		sec = sec[i:]
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	sources := map[string]string{"README": sec}
	for _, c := range newRootCmd().Commands() {
		sources[c.Name()+" --help"] = c.Long
	}
	wd, _ := os.Getwd()
	root, _ := filepath.Abs("../..")
	before, _ := os.ReadDir(root)
	had := map[string]bool{}
	for _, e := range before {
		had[e.Name()] = true
	}
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	clean := func() { // what an example wrote; each example starts afresh
		after, _ := os.ReadDir(root)
		for _, e := range after {
			if !had[e.Name()] {
				os.RemoveAll(filepath.Join(root, e.Name()))
			}
		}
	}
	t.Cleanup(func() {
		clean()
		os.Chdir(wd)
	})
	ran := 0
	for where, text := range sources {
	lines:
		for _, l := range exampleLines(text) {
			line := l[0]
			for _, s := range exampleSkip {
				if regexp.MustCompile(s.re).MatchString(line) {
					t.Logf("%s: skipped (%s): %s", where, s.why, line)
					continue lines
				}
			}
			clean()
			for _, part := range strings.Split(line, "&&") {
				args := shellWords(strings.TrimSpace(part))
				if len(args) == 0 || args[0] != "traceview" {
					t.Errorf("%s: %q: not a traceview command", where, part)
					continue
				}
				_, stderr, code := runCLI(t, args[1:]...)
				if code != 0 {
					t.Errorf("%s: %s: exit %d: %s", where, part, code, firstLine(stderr))
				}
				ran++
			}
		}
	}
	if ran < 20 {
		t.Errorf("ran %d examples; the README and --help texts hold more", ran)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// The README's commands table lists every command (top was missing), and
// the workloads its synth row names in backquotes are synth's (it said
// "hackbench", which synth refuses: the workload is messaging).
func TestReadmeCommandsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{} // command -> its table row
	for _, l := range strings.Split(string(readme), "\n") {
		if m := regexp.MustCompile("^\\| `([a-z]+)[ `]").FindStringSubmatch(l); m != nil {
			listed[m[1]] = l
		}
	}
	for _, c := range newRootCmd().Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if _, ok := listed[c.Name()]; !ok {
			t.Errorf("README's commands table lacks %s", c.Name())
		}
	}
	row := listed["synth"]
	i := strings.Index(row, "|")
	i += strings.Index(row[i+1:], "|") + 1 // the description column
	named := regexp.MustCompile("`([a-z0-9_]+)`").FindAllStringSubmatch(row[i:], -1)
	if len(named) == 0 {
		t.Fatalf("synth row %q names no workload", row)
	}
	for _, m := range named {
		if _, ok := synth.Lookup(m[1]); !ok {
			t.Errorf("README's synth row names %q, not a synth workload", m[1])
		}
	}
}
