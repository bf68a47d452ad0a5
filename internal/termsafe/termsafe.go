// Package termsafe makes task names safe to print in a text table: a
// kernel comm is up to 15 arbitrary bytes (prctl(PR_SET_NAME) takes any),
// and a newline splits a row, an ESC sequence reaches the terminal, and a
// byte 0xff is text/tabwriter's escape character, which breaks the
// alignment of every later row. CSV and JSON keep the raw name (quoted by
// their encoders) but for bytes of invalid UTF-8, written \xHH as the table
// does, and backslashes, doubled so that \xHH is not ambiguous
// (ValidUTF8): JSON cannot carry such bytes (encoding/json made each
// U+FFFD, so two such names collided); text tables print Name(comm).
package termsafe

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Name returns s with every byte or rune that is not printable written as
// a visible escape: \n, \t, \r, and \xHH for other control characters
// (ESC is \x1b, DEL \x7f) and for each byte of invalid UTF-8 (0xff is
// \xff), and a backslash doubled, so that a name really spelled "tab\there"
// (\\ then t) is told from one with a TAB (new-user pass 28 F9): Unescape
// reads it back. Printable runes and spaces are kept, so an ordinary name
// is returned as it is (without allocating). Perf's own formats print a
// backslash as it is (PerfName).
func Name(s string) string { return escape(s, true) }

// PerfName is Name with backslashes kept as they are, for the formats that
// reproduce perf's output byte for byte (perf prints a name's bytes raw):
// a name of printable characters is then printed as perf prints it.
func PerfName(s string) string { return escape(s, false) }

func escape(s string, backslash bool) string {
	if plain(s, backslash) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x` + hex2(s[i]))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf && (r < 0x20 || r == 0x7f):
			b.WriteString(`\x` + hex2(byte(r)))
		case !unicode.IsPrint(r) && r != ' ':
			q := strconv.QuoteRuneToASCII(r) // '\u200b'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// ValidUTF8 returns s for the machine outputs (JSON, CSV): each byte of
// invalid UTF-8 written \xHH and each backslash doubled, as Name writes
// them, and everything else as it is (control characters too: JSON and
// CSV quote them). So a name spelled "\xffA" ("\\xffA") is told from one
// holding the byte 0xff ("\xffA"; new-user passes 28 F9 and 30 F5 found
// them written alike), and Unescape reads any of them back. s itself when
// it is valid UTF-8 without a backslash, as nearly every name is.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) && !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x` + hex2(s[i]))
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Label is Name for a name that stands alone in a column or a list (the
// default tables, compare, replay, top, HTML): a space at either end is
// written \x20 as well, so that a name of spaces only (prctl(PR_SET_NAME,
// " ") is legal) does not print as a blank label and " a" is told from
// "a". Spaces inside are kept ("a b"). perf's formats, where the name is
// followed by its id (comm:tid, comm[tid]), keep Name: perf prints the
// spaces as they are.
func Label(s string) string {
	s = Name(s)
	if s == "" || (s[0] != ' ' && s[len(s)-1] != ' ') {
		return s
	}
	lead := len(s) - len(strings.TrimLeft(s, " "))
	if lead == len(s) {
		return strings.Repeat(`\x20`, lead)
	}
	trail := len(s) - len(strings.TrimRight(s, " "))
	return strings.Repeat(`\x20`, lead) + s[lead:len(s)-trail] + strings.Repeat(`\x20`, trail)
}

// plain reports whether s is printable ASCII only (and, with backslash,
// has none).
func plain(s string, backslash bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || backslash && c == '\\' {
			return false
		}
	}
	return true
}

// Unescape reads back a name as Name prints it: \\ is a backslash, \n,
// \t and \r those control characters, \xHH the byte HH, \uHHHH and
// \UHHHHHHHH the rune; any other backslash is itself, so a name typed
// raw with a lone backslash ("back\slash") reads as it is.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		hexRun := func(n int) (uint64, bool) {
			if i+2+n > len(s) {
				return 0, false
			}
			v, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			return v, err == nil
		}
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			v, ok := hexRun(2)
			if !ok {
				b.WriteByte('\\')
				continue
			}
			b.WriteByte(byte(v))
			i += 2
		case 'u', 'U':
			n := 4
			if s[i+1] == 'U' {
				n = 8
			}
			v, ok := hexRun(n)
			if !ok || !utf8.ValidRune(rune(v)) {
				b.WriteByte('\\')
				continue
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte('\\')
			continue
		}
		i++
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// ShellWord returns s as one word a POSIX shell reads back as s: itself
// when it holds only letters, digits and _ - . , / : = + @ %; else in
// single quotes ('\” for a quote); with control characters, bash's
// $'...' with \xHH escapes (a raw ESC or TAB cannot be pasted).
func ShellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.,/:=+@%", r)))
	}) {
		return s
	}
	if !strings.ContainsFunc(s, unicode.IsControl) && utf8.ValidString(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// ShellLine returns args as one command line a POSIX shell reads back as
// args: each ShellWord, separated by spaces (a recorded command line,
// shown so that it can be pasted: bash -c 'for i in ...; done' keeps its
// quotes).
func ShellLine(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = ShellWord(a)
	}
	return strings.Join(words, " ")
}

// Width is the number of terminal columns s takes, for padding a column
// of names: its bytes when it is ASCII (as Name leaves every control byte
// and invalid UTF-8), else its grapheme clusters' widths as
// github.com/rivo/uniseg reckons them (East Asian wide characters 2, a
// combining mark 0), so that a row with "t17é中" (8 bytes, 6 columns)
// lines up with the others.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return uniseg.StringWidth(s)
		}
	}
	return len(s)
}

// PadRight returns s followed by the spaces that make it width columns
// wide (Width), or s when it is that wide or wider.
func PadRight(s string, width int) string {
	if n := width - Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
