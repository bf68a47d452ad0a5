package termsafe

import "testing"

func TestName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sched-pipe", "sched-pipe"},
		{"sp ace(3)", "sp ace(3)"},
		{"a,b\nc", `a,b\nc`},
		{"\xff\xfebad", `\xff\xfebad`},
		{"x\x1b[2Jy", `x\x1b[2Jy`},
		{"tab\there\r", `tab\there\r`},
		{"del\x7f", `del\x7f`},
		{"naïve", "naïve"},
		{"zw\u200bsp", `zw\u200bsp`},
		{`back\slash`, `back\\slash`},
		{`tab\there`, `tab\\there`},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Unescape(c.want); got != c.in {
			t.Errorf("Unescape(%q) = %q, want %q", c.want, got, c.in)
		}
	}
	// PerfName keeps a backslash as perf prints it.
	if got := PerfName(`back\slash` + "\t"); got != `back\slash\t` {
		t.Errorf("PerfName = %q", got)
	}
	// A lone backslash typed raw reads as itself; a bad escape too.
	for in, want := range map[string]string{`back\slash`: `back\slash`, `a\x`: `a\x`, `a\xzz`: `a\xzz`, `a\u12`: `a\u12`, `end\`: `end\`, `a\x41`: "aA"} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sched-pipe", "sched-pipe"},
		{"", ""},
		{" ", `\x20`},
		{"   ", `\x20\x20\x20`},
		{" a b ", `\x20a b\x20`},
		{"a  ", `a\x20\x20`},
		{"\t ", `\t\x20`},
	} {
		if got := Label(c.in); got != c.want {
			t.Errorf("Label(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestValidUTF8: the bytes of invalid UTF-8 are escaped (\xHH) and
// backslashes doubled, as Name writes them; control characters and valid
// runes stay. The byte 0xff and a name spelled \xff stay apart (new-user
// pass 30 F5).
func TestValidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"bash":           "bash",
		"\xff\xfebad":    `\xff\xfebad`,
		"a\tb\n":         "a\tb\n",
		"é\xc3":          `é\xc3`,
		`back\slash`:     `back\\slash`,
		"\xffA":          `\xffA`,
		`\xffA`:          `\\xffA`,
		"\xe2\x82\xacok": "€ok",
	} {
		if got := ValidUTF8(in); got != want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShellWord: the --comm list a hint suggests reads back as one shell
// word: plain, single-quoted (a space, a quote, a non-ASCII letter), or
// bash's $'...' for control characters, which cannot be pasted raw.
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"hog,nice,sh":          "hog,nice,sh",
		"nice10 w,pymain":      "'nice10 w,pymain'",
		"it's":                 `'it'\''s'`,
		"héllo":                "'héllo'",
		"ctl\x1bname,idle\tjo": `$'ctl\x1bname,idle\x09jo'`,
		"a'b\\\x01":            `$'a\'b\\\x01'`,
		"":                     "''",
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestShellLine: a recorded command line reads back word for word: the
// HTML report's "Command line" printed bash -c's script unquoted (joined
// with spaces), which a shell reads as other words (new-user pass 15 F8).
func TestShellLine(t *testing.T) {
	got := ShellLine([]string{"traceview", "record", "--", "bash", "-c", "for i in 1 2; do :; done"})
	if want := `traceview record -- bash -c 'for i in 1 2; do :; done'`; got != want {
		t.Errorf("ShellLine = %s, want %s", got, want)
	}
}

// TestWidth: ASCII and escaped names take a column a byte; "t17é中" is 8
// bytes, 6 columns (é 1, 中 2: East Asian Wide), so PadRight pads it to
// 10 columns with 4 spaces; a name as wide as the column gets none.
func TestWidth(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{{"hog:42", 6}, {`t17\x1b[2Jesc`, 13}, {"t17é中", 6}, {"", 0}} {
		if got := Width(c.s); got != c.want {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	if got := PadRight("t17é中", 10); got != "t17é中    " {
		t.Errorf("PadRight: %q", got)
	}
	if got := PadRight("abcdef", 4); got != "abcdef" {
		t.Errorf("PadRight wider: %q", got)
	}
}
