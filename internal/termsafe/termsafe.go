// Package termsafe makes task names safe to print in a text table: a
// kernel comm is up to 15 arbitrary bytes (prctl(PR_SET_NAME) takes any),
// and a newline splits a row, an ESC sequence reaches the terminal, and a
// byte 0xff is text/tabwriter's escape character, which breaks the
// alignment of every later row. CSV and JSON keep the raw name (quoted by
// their encoders) but for bytes of invalid UTF-8, written \xHH as the table
// does (ValidUTF8): JSON cannot carry them (encoding/json made each U+FFFD,
// so two such names collided); text tables print Name(comm).
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
// \xff). Printable runes, spaces and backslashes are kept, so an ordinary
// name is returned as it is (without allocating).
func Name(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
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

// ValidUTF8 returns s with each byte of invalid UTF-8 written \xHH, as
// Name writes it, and everything else as it is (control characters too:
// JSON and CSV quote them): a name machine outputs can carry and that
// matches the table's. s itself when it is valid UTF-8.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteString(`\x` + hex2(s[i]))
		} else {
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

// plain reports whether s is printable ASCII only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
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
