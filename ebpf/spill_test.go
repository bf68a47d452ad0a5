package ebpf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestBacklog: batches come back from the backlog, in memory and in an
// unnamed file, in the order pushed and equal to what was pushed (records,
// losses with their positions, watermark); size counts the bytes held; a
// backlog emptied and refilled works again (the file starts over), and
// the file leaves nothing in its directory.
func TestBacklog(t *testing.T) {
	mk := func(n int, wm int64, losses ...lossReport) batch {
		b := batch{watermark: wm, losses: losses}
		for i := range n {
			b.recs = append(b.recs, ev(uint64(100+i), uint16(i%2), 1, 0, 1, 1, 2, 1)...)
		}
		return b
	}
	in := []batch{
		mk(3, 0),
		mk(0, 5000, lossReport{CPU: 1, At: 0, N: 9, Noticed: 77}),
		mk(2, 6000, lossReport{CPU: 0, At: RecordSize, N: 1, Noticed: 80}, lossReport{CPU: 1, At: 2 * RecordSize, N: 2, Noticed: 81}),
	}
	dir := t.TempDir()
	// In memory only; in the file only; the first batch in memory and the
	// next two in the file (memory full), and so on.
	for _, c := range []struct {
		dir    string
		memMax int64
	}{{"", 0}, {dir, 0}, {dir, int64(len(in[0].recs))}} {
		where := fmt.Sprintf("%q/%d", c.dir, c.memMax)
		q, err := newBacklog(c.dir, c.memMax)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			for i := range in {
				b := in[i] // the backlog may take it over
				if _, err := q.push(&b); err != nil {
					t.Fatal(err)
				}
			}
			if q.size() == 0 || q.empty() {
				t.Errorf("%s round %d: size %d, empty %v", where, round, q.size(), q.empty())
			}
			for i := range in {
				var got batch
				if err := q.pop(&got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(in[i], got, cmp.AllowUnexported(batch{}), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s round %d batch %d (-want +got):\n%s", where, round, i, diff)
				}
			}
			if err := q.pop(&batch{}); !errors.Is(err, io.EOF) || !q.empty() || q.size() != 0 {
				t.Errorf("%s: after the last batch: %v, empty %v, size %d", where, err, q.empty(), q.size())
			}
		}
		q.close()
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("backlog left %d files in its directory", len(ents))
	}
}

// TestSlab: batches carved from the slab do not overlap (appending past
// one's capacity reallocates instead of writing into the next), and once
// the slab is used up batches are allocated one by one.
func TestSlab(t *testing.T) {
	s := newSlab(3*1024, 1024)
	var got []*batch
	for range 4 {
		got = append(got, s.get())
	}
	for i, b := range got {
		if len(b.recs) != 0 || cap(b.recs) != 1024 {
			t.Fatalf("batch %d: len %d cap %d, want 0 and 1024", i, len(b.recs), cap(b.recs))
		}
	}
	got[1].recs = append(got[1].recs, make([]byte, 1024)...)
	got[0].recs = append(got[0].recs, bytes.Repeat([]byte{1}, 1025)...) // past its capacity
	if got[1].recs[0] != 0 {
		t.Errorf("batch 0 overflowed into batch 1")
	}
}
