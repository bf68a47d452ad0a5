// Package kallsyms resolves kernel addresses to function names through a
// /proc/kallsyms table ("ffffffff81000000 T _stext", module symbols
// followed by "\t[module]"), as perf does for the kernel frames of a
// callchain when it has no vmlinux: an address belongs to the text symbol
// (types t, T, w, W) with the largest start at or below it.
package kallsyms

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// ErrHidden is returned by Parse when every address is 0: the kernel hides
// them from this reader (kernel.kptr_restrict, or not root).
var ErrHidden = errors.New("kallsyms: every address is 0 (hidden by kernel.kptr_restrict; read it as root)")

// Table is a parsed kallsyms: text symbols sorted by address.
type Table struct {
	addrs []uint64
	names []string
}

// Parse reads a kallsyms table. Lines that are not "ADDR TYPE NAME [MOD]"
// are skipped; data symbols are left out. Errors: reading r, no text
// symbol, ErrHidden.
func Parse(r io.Reader) (*Table, error) {
	type sym struct {
		addr uint64
		name string
	}
	var syms []sym
	zero := true
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 || len(fs[1]) != 1 || !strings.Contains("tTwW", fs[1]) {
			continue
		}
		addr, err := strconv.ParseUint(fs[0], 16, 64)
		if err != nil {
			continue
		}
		if addr != 0 {
			zero = false
		}
		syms = append(syms, sym{addr, fs[2]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("kallsyms: %w", err)
	}
	if len(syms) == 0 {
		return nil, fmt.Errorf("kallsyms: no text symbol")
	}
	if zero {
		return nil, ErrHidden
	}
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].addr < syms[j].addr })
	t := &Table{addrs: make([]uint64, len(syms)), names: make([]string, len(syms))}
	for i, s := range syms {
		t.addrs[i], t.names[i] = s.addr, s.name
	}
	return t, nil
}

// Load parses the kallsyms file at path (e.g. /proc/kallsyms). Errors name
// the path.
func Load(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Lookup returns the name of the function addr falls in, and false when
// addr is below every symbol (a nil Table knows none).
func (t *Table) Lookup(addr uint64) (string, bool) {
	if t == nil {
		return "", false
	}
	i := sort.Search(len(t.addrs), func(i int) bool { return t.addrs[i] > addr })
	if i == 0 {
		return "", false
	}
	return t.names[i-1], true
}

// Len returns the number of text symbols.
func (t *Table) Len() int { return len(t.addrs) }
