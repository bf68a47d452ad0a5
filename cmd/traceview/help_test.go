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
