package replay

import (
	"testing"
	"unsafe"
)

// TestBurstList: bursts pushed across several chunks read back in order
// (at, last), pop takes the last one off across a chunk boundary, and
// flatten gives them all in one slice of their exact length; a chunk
// fills 4096 bytes.
func TestBurstList(t *testing.T) {
	if got := burstChunk * int(unsafe.Sizeof(Burst{})); got > 4096 || got+int(unsafe.Sizeof(Burst{})) <= 4096 {
		t.Errorf("a chunk of %d bursts takes %d bytes, want the most that fit 4096", burstChunk, got)
	}
	var l burstList
	n := 3*burstChunk + 5
	for k := range n {
		l.push(Burst{Len: int64(k)})
	}
	if l.len() != n || l.at(burstChunk).Len != int64(burstChunk) || l.last(0).Len != int64(n-1) || l.last(2).Len != int64(n-3) {
		t.Fatalf("after %d pushes: len %d, at(%d) %d, last %d", n, l.len(), burstChunk, l.at(burstChunk).Len, l.last(0).Len)
	}
	for range 6 { // the last 5 and one of the full chunk before them
		l.pop()
	}
	n -= 6
	if l.len() != n || l.last(0).Len != int64(n-1) || len(l.chunks) != 3 {
		t.Fatalf("after 6 pops: len %d, last %d, %d chunks; want %d, %d, 3", l.len(), l.last(0).Len, len(l.chunks), n, n-1)
	}
	l.push(Burst{Len: -1})
	bs := l.flatten()
	if len(bs) != n+1 || cap(bs) != n+1 || bs[n].Len != -1 || l.len() != 0 {
		t.Fatalf("flatten: %d bursts (cap %d), last %d, list len %d after; want %d", len(bs), cap(bs), bs[len(bs)-1].Len, l.len(), n+1)
	}
	for k := range n {
		if bs[k].Len != int64(k) {
			t.Fatalf("flattened burst %d has Len %d", k, bs[k].Len)
		}
	}
}
