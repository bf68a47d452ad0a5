package main

// The commands' --help prose lives in help/*.txt, one file per command, so
// that the code building a command says what it does and the prose can be
// read and edited as text.

import (
	"embed"
	"strings"
)

//go:embed help/*.txt
var helpFS embed.FS

// helpText is the --help prose of command name (help/NAME.txt), with the
// filters' shared text (filterHelp) in place of "{{filters}}". A missing
// file is a build mistake that TestHelpTexts catches: it returns "".
func helpText(name string) string {
	b, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		return ""
	}
	return strings.Replace(string(b), "{{filters}}", filterHelp, 1)
}
