package perfdata

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceview/traceview/trace/tpformat"
)

// TestBigEndian converts the little-endian pipe-mode fixture into the
// stream a big-endian machine would have written (every integer of the
// header, attrs, features, tracing data, sample fields, tracepoint payloads
// and sample_id trailers byte-swapped, the attr bit-field word bit-reversed,
// the tracing data flagged big-endian) and checks that it decodes to the
// very same events. Records the reader ignores (MMAP, ID_INDEX, ...) and
// features it does not read are left out of the converted stream.
func TestBigEndian(t *testing.T) {
	le := readFile(t, pipeTrace)
	be := toBigEndian(t, le)
	want, lr, err := drain(le, true)
	if err != nil {
		t.Fatal(err)
	}
	got, br, err := drain(be, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 100 {
		t.Fatalf("only %d events", len(got))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("big-endian events differ (-little +big):\n%s", d)
	}
	lm, bm := lr.Meta(), br.Meta()
	if lm.Hostname != bm.Hostname || lm.OSRelease != bm.OSRelease || lm.Tool != bm.Tool ||
		lm.NrCPUs != bm.NrCPUs || len(lm.Cmdline) != len(bm.Cmdline) {
		t.Errorf("meta: little %+v, big %+v", lm, bm)
	}
	if br.ByteOrder() != binary.ByteOrder(binary.BigEndian) {
		t.Error("not read as big-endian")
	}
}

type beConv struct {
	t       *testing.T
	out     bytes.Buffer
	formats map[int]*tpformat.Format
	stype   map[uint64]uint64 // sample id -> sample_type
	trailer uint64            // sample_type of the first attr (trailers)
}

var le, be = binary.LittleEndian, binary.BigEndian

// swapWords byte-swaps b in place as a sequence of n-byte integers.
func swapWords(b []byte, n int) {
	for i := 0; i+n <= len(b); i += n {
		switch n {
		case 2:
			be.PutUint16(b[i:], le.Uint16(b[i:]))
		case 4:
			be.PutUint32(b[i:], le.Uint32(b[i:]))
		case 8:
			be.PutUint64(b[i:], le.Uint64(b[i:]))
		}
	}
}

func toBigEndian(t *testing.T, in []byte) []byte {
	c := &beConv{t: t, formats: map[int]*tpformat.Format{}, stype: map[uint64]uint64{}}
	c.out.WriteString(magicBE)
	binary.Write(&c.out, be, uint64(pipeHeaderSize))
	for _, r := range records(in, pipeHeaderSize, len(in)) {
		rec := append([]byte(nil), in[r.off:r.off+r.size]...)
		typ := le.Uint32(rec)
		var extra []byte
		switch typ {
		case recHeaderAttr:
			asize := int(le.Uint32(rec[12:]))
			a := rec[8 : 8+asize]
			st := le.Uint64(a[24:])
			flags := le.Uint64(a[40:])
			swapWords(a[0:8], 4)
			swapWords(a[8:40], 8)
			be.PutUint64(a[40:], bits.Reverse64(flags))
			swapWords(a[48:], 8) // not read by the reader
			for p := 8 + asize; p+8 <= len(rec); p += 8 {
				c.stype[le.Uint64(rec[p:])] = st
				swapWords(rec[p:p+8], 8)
			}
			if c.trailer == 0 {
				c.trailer = st
			}
		case recHeaderFeature:
			if !c.feature(rec) {
				continue
			}
		case recTracingData:
			n := int(le.Uint32(rec[8:]))
			blob := c.tracingData(in[r.off+r.size : r.off+r.size+n])
			be.PutUint32(rec[8:], uint32(len(blob)))
			extra = append(blob, make([]byte, (len(blob)+7)&^7-len(blob))...)
		case recSample:
			c.sample(rec)
		case recComm:
			swapWords(rec[8:16], 4)
			c.swapTrailer(rec)
		case recFork, recExit:
			swapWords(rec[8:24], 4)
			swapWords(rec[24:32], 8)
			c.swapTrailer(rec)
		case recFinishedRound, recFinishedInit:
		default:
			continue
		}
		swapWords(rec[0:4], 4)
		swapWords(rec[4:8], 2)
		c.out.Write(rec)
		c.out.Write(extra)
	}
	return c.out.Bytes()
}

// feature converts the features the reader reads; false drops the record.
func (c *beConv) feature(rec []byte) bool {
	bit := le.Uint64(rec[8:])
	body := rec[16:]
	str := func(b []byte) int { // {u32 len; char[len]}
		n := int(le.Uint32(b))
		swapWords(b[:4], 4)
		return 4 + n
	}
	switch bit {
	case featHostname, featOSRelease, featVersion, featArch:
		str(body)
	case featNrCPUs:
		swapWords(body[:8], 4)
	case featCmdline:
		n := int(le.Uint32(body))
		swapWords(body[:4], 4)
		p := 4
		for i := 0; i < n; i++ {
			p += str(body[p:])
		}
	case featSampleTime:
		swapWords(body[:16], 8)
	default:
		return false
	}
	swapWords(rec[8:16], 8)
	return true
}

// tracingData rebuilds the tracing data up to the event formats (what the
// reader parses) with big-endian integers, and learns the formats.
func (c *beConv) tracingData(b []byte) []byte {
	var out bytes.Buffer
	p := len(tracingMagic)
	p += bytes.IndexByte(b[p:], 0) + 1 // version
	out.Write(b[:p])
	out.WriteByte(1) // big_endian
	out.WriteByte(b[p+1])
	binary.Write(&out, be, le.Uint32(b[p+2:]))
	p += 6
	for range 2 { // header_page, header_event
		e := p + bytes.IndexByte(b[p:], 0) + 1
		n := int(le.Uint64(b[e:]))
		out.Write(b[p:e])
		binary.Write(&out, be, uint64(n))
		out.Write(b[e+8 : e+8+n])
		p = e + 8 + n
	}
	formats := func(system string) {
		n := int(le.Uint32(b[p:]))
		binary.Write(&out, be, uint32(n))
		p += 4
		for range n {
			size := int(le.Uint64(b[p:]))
			binary.Write(&out, be, uint64(size))
			text := b[p+8 : p+8+size]
			out.Write(text)
			if f, err := tpformat.Parse(text); err == nil {
				c.formats[f.ID] = f
			}
			p += 8 + size
		}
	}
	formats("ftrace")
	nsys := int(le.Uint32(b[p:]))
	binary.Write(&out, be, uint32(nsys))
	p += 4
	for range nsys {
		e := p + bytes.IndexByte(b[p:], 0) + 1
		out.Write(b[p:e])
		p = e
		formats("")
	}
	return out.Bytes()
}

// sample swaps a sample's fields and its tracepoint payload, field by field.
func (c *beConv) sample(rec []byte) {
	st := c.stype[le.Uint64(rec[8:])]
	p := 8
	for _, f := range []struct {
		bit   uint64
		words int // 8: one u64; 4: two u32
	}{
		{sampleIdentifier, 8}, {sampleIP, 8}, {sampleTID, 4}, {sampleTime, 8},
		{sampleAddr, 8}, {sampleID, 8}, {sampleStreamID, 8}, {sampleCPU, 4}, {samplePeriod, 8},
	} {
		if st&f.bit != 0 {
			swapWords(rec[p:p+8], f.words)
			p += 8
		}
	}
	if st&^(sampleIdentifier|sampleIP|sampleTID|sampleTime|sampleAddr|sampleID|sampleStreamID|sampleCPU|samplePeriod|sampleRaw) != 0 {
		c.t.Fatalf("sample_type %#x not handled by the converter", st)
	}
	if st&sampleRaw == 0 {
		return
	}
	n := int(le.Uint32(rec[p:]))
	swapWords(rec[p:p+4], 4)
	raw := rec[p+4 : p+4+n]
	f := c.formats[int(le.Uint16(raw))]
	if f == nil {
		c.t.Fatalf("no format for tracepoint id %d", le.Uint16(raw))
	}
	for _, fd := range f.Fields {
		w := fd.Size
		if fd.DataLoc || fd.RelLoc {
			w = 4
		} else if fd.ArrayLen > 0 {
			continue
		}
		if w == 2 || w == 4 || w == 8 {
			swapWords(raw[fd.Offset:fd.Offset+w], w)
		}
	}
}

// swapTrailer swaps the sample_id_all trailer {pid,tid; time; cpu,res; id}
// of the first attr's sample_type (identical for all attrs of this trace).
func (c *beConv) swapTrailer(rec []byte) {
	st := c.trailer
	size := 8 * bits.OnesCount64(st&(sampleTID|sampleTime|sampleID|sampleStreamID|sampleCPU|sampleIdentifier))
	p := len(rec) - size
	for _, f := range []struct {
		bit   uint64
		words int
	}{
		{sampleTID, 4}, {sampleTime, 8}, {sampleID, 8}, {sampleStreamID, 8}, {sampleCPU, 4}, {sampleIdentifier, 8},
	} {
		if st&f.bit != 0 {
			swapWords(rec[p:p+8], f.words)
			p += 8
		}
	}
}
