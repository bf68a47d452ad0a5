package main

import (
	"strings"
	"testing"
)

// TestHelpTexts: every command's --help prose comes from its help/*.txt
// file, non-empty, with the filters' text substituted.
func TestHelpTexts(t *testing.T) {
	root := newRootCmd()
	n := 0
	for _, c := range append(root.Commands(), root) {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		n++
		if strings.TrimSpace(c.Long) == "" {
			t.Errorf("%s: no --help prose (help/%s.txt missing?)", c.Name(), c.Name())
		}
		if strings.Contains(c.Long, "{{") {
			t.Errorf("%s: an unsubstituted placeholder in its --help prose", c.Name())
		}
	}
	if n < 17 {
		t.Errorf("%d commands, want the 16 and the root", n)
	}
}

// TestCgroupFilterHelpFirstWait: the filters' help says where a task's
// events before its first switch-out go under --cgroup as the code does
// since 65a95af (with the group that switch-out names, as --by cgroup);
// it said they "match none" (latency --cgroup /tv-u counts 460 delays,
// --by cgroup's /tv-u table 460, on the cgrun capture of that commit).
func TestCgroupFilterHelpFirstWait(t *testing.T) {
	for _, c := range []string{"latency", "export", "stats"} {
		out, _, code := runCLI(t, c, "--help")
		text := strings.Join(strings.Fields(out), " ")
		if code != 0 || strings.Contains(text, "match none") ||
			!strings.Contains(text, "a task's events before its first switch-out go with the group that switch-out names, as --by cgroup counts them") {
			t.Errorf("%s --help (exit %d) on --cgroup:\n%s", c, code, out)
		}
	}
}
