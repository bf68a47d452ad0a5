package kallsyms

import (
	"errors"
	"strings"
	"testing"
)

// A hand-made table: lines in /proc/kallsyms' layout, out of order as
// module symbols are, with a data symbol ('D') that must not be used.
const table = `ffffffff82265000 T __schedule
ffffffff82266200 T schedule
ffffffff82266300 D some_data
ffffffffc0a01000 t mod_func	[mymod]
ffffffff81000000 T _stext
`

func TestLookup(t *testing.T) {
	tb, err := Parse(strings.NewReader(table))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr uint64
		name string
		ok   bool
	}{
		{0xffffffff82265908, "__schedule", true}, // inside __schedule
		{0xffffffff82266200, "schedule", true},   // a symbol's first byte
		{0xffffffff82266273, "schedule", true},
		{0xffffffff82266380, "schedule", true}, // the data symbol is skipped
		{0xffffffffc0a01010, "mod_func", true},
		{0xffffffff80000000, "", false}, // below every symbol
	} {
		name, ok := tb.Lookup(c.addr)
		if name != c.name || ok != c.ok {
			t.Errorf("Lookup(%x) = %q, %v; want %q, %v", c.addr, name, ok, c.name, c.ok)
		}
	}
	if tb.Len() != 4 {
		t.Errorf("%d text symbols, want 4", tb.Len())
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := Parse(strings.NewReader("0000000000000000 T _stext\n0000000000000000 T schedule\n")); !errors.Is(err, ErrHidden) {
		t.Errorf("hidden addresses: %v", err)
	}
	if _, err := Parse(strings.NewReader("garbage\n")); err == nil || err.Error() != "kallsyms: no text symbol" {
		t.Errorf("no symbol: %v", err)
	}
	var none *Table
	if _, ok := none.Lookup(1); ok {
		t.Error("a nil table resolved an address")
	}
}
