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
		{`back\slash`, `back\slash`},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
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

// TestValidUTF8: only the bytes of invalid UTF-8 are escaped (\xHH, as Name
// writes them); control characters, backslashes and valid runes stay.
func TestValidUTF8(t *testing.T) {
	for in, want := range map[string]string{
		"bash":           "bash",
		"\xff\xfebad":    `\xff\xfebad`,
		"a\tb\n":         "a\tb\n",
		"é\xc3":          `é\xc3`,
		`back\slash`:     `back\slash`,
		"\xe2\x82\xacok": "€ok",
	} {
		if got := ValidUTF8(in); got != want {
			t.Errorf("ValidUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}
