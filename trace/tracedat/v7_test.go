package tracedat

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// buildV7 writes the content of buildV6 as a v7 file (trace-cmd.dat.v7(5)):
// sections for the header info, event formats and command lines, one
// options section pointing at them and describing the buffer, and the
// per-CPU pages, with every section and the CPU data compressed in 2-page
// chunks when comp is "zlib".
func buildV7(t testing.TB, formats []string, cmdlines string, cpus [][]byte, comp string) []byte {
	return buildV7Table(t, formats, cmdlines, cpus, comp, nil)
}

// v7Loc is one CPU's entry in a BUFFER option: offset and size (bytes).
type v7Loc struct{ off, size int64 }

// buildV7Table is buildV7 with edit, when not nil, changing the CPU
// entries of the BUFFER option (where each CPU's data are) before they are
// written: a damaged table.
func buildV7Table(t testing.TB, formats []string, cmdlines string, cpus [][]byte, comp string, edit func([]v7Loc)) []byte {
	le := binary.LittleEndian
	zip := func(b []byte) []byte {
		var out bytes.Buffer
		w := zlib.NewWriter(&out)
		w.Write(b)
		w.Close()
		return out.Bytes()
	}
	var f []byte
	f = append(f, Magic...)
	f = append(f, '7', 0, 0, 8)
	f = le.AppendUint32(f, uint32(testPage))
	if comp == "" {
		f = append(f, "none\x00\x00"...)
	} else {
		f = append(f, comp+"\x00"+"1.2.13\x00"...)
	}
	firstOpt := len(f)
	f = le.AppendUint64(f, 0)
	section := func(id uint16, data []byte) int64 {
		off := int64(len(f))
		flags := uint16(0)
		if comp != "" {
			z := zip(data)
			data = le.AppendUint32(le.AppendUint32(nil, uint32(len(z))), uint32(len(data)))
			data = append(data, z...)
			flags = sectionFlagCompressed
		}
		f = le.AppendUint16(f, id)
		f = le.AppendUint16(f, flags)
		f = le.AppendUint32(f, 0)
		f = le.AppendUint64(f, uint64(len(data)))
		f = append(f, data...)
		return off
	}
	var hi []byte
	hi = append(hi, "header_page\x00"...)
	hi = le.AppendUint64(hi, uint64(len(headerPage64)))
	hi = append(hi, headerPage64...)
	hi = append(hi, "header_event\x00"...)
	hi = le.AppendUint64(hi, 0)
	hiOff := section(optHeaderInfo, hi)
	var ef []byte
	ef = le.AppendUint32(ef, 1)
	ef = append(ef, "sched\x00"...)
	ef = le.AppendUint32(ef, uint32(len(formats)))
	for _, s := range formats {
		ef = le.AppendUint64(ef, uint64(len(s)))
		ef = append(ef, s...)
	}
	efOff := section(optEventFormats, ef)
	cl := le.AppendUint64(nil, uint64(len(cmdlines)))
	clOff := section(optCmdlines, append(cl, cmdlines...))
	// CPU data, each CPU in chunks of 2 pages when compressed.
	var locs []v7Loc
	for _, d := range cpus {
		off := int64(len(f))
		if comp == "" {
			f = append(f, d...)
		} else {
			var chunks [][]byte
			for i := 0; i < len(d); i += 2 * testPage {
				chunks = append(chunks, d[i:min(len(d), i+2*testPage)])
			}
			f = le.AppendUint32(f, uint32(len(chunks)))
			for _, c := range chunks {
				z := zip(c)
				f = le.AppendUint32(f, uint32(len(z)))
				f = le.AppendUint32(f, uint32(len(c)))
				f = append(f, z...)
			}
		}
		locs = append(locs, v7Loc{off, int64(len(f)) - off})
	}
	if edit != nil {
		edit(locs)
	}
	opt := func(b []byte, id uint16, data []byte) []byte {
		b = le.AppendUint16(b, id)
		b = le.AppendUint32(b, uint32(len(data)))
		return append(b, data...)
	}
	var o []byte
	o = opt(o, optHeaderInfo, le.AppendUint64(nil, uint64(hiOff)))
	o = opt(o, optEventFormats, le.AppendUint64(nil, uint64(efOff)))
	o = opt(o, optCmdlines, le.AppendUint64(nil, uint64(clOff)))
	o = opt(o, optCPUCount, le.AppendUint32(nil, uint32(len(cpus))))
	o = opt(o, optUname, []byte("Linux box 6.1.0 aarch64\x00"))
	var buf []byte
	buf = le.AppendUint64(buf, 0)
	buf = append(buf, "\x00local\x00"...)
	buf = le.AppendUint32(buf, uint32(testPage))
	buf = le.AppendUint32(buf, uint32(len(cpus)))
	for i, l := range locs {
		buf = le.AppendUint32(buf, uint32(i))
		buf = le.AppendUint64(buf, uint64(l.off))
		buf = le.AppendUint64(buf, uint64(l.size))
	}
	o = opt(o, optBuffer, buf)
	o = opt(o, optDone, le.AppendUint64(nil, 0))
	optOff := section(optDone, o)
	le.PutUint64(f[firstOpt:], uint64(optOff))
	return f
}

// handmadeV7 is handmade(t, 7) (CPU 1 page with 7 lost events) in v7 form.
func handmadeV7(t testing.TB, comp string) []byte {
	swText, _ := testFormat(t, "sched_switch")
	wkText, _ := testFormat(t, "sched_waking")
	exText, _ := testFormat(t, "sched_process_exec")
	v6 := handmade(t, 7)
	f, err := parseFile(bytes.NewReader(v6), int64(len(v6)))
	if err != nil {
		t.Fatal(err)
	}
	var cpus [][]byte
	for _, c := range f.buffers[0].cpus {
		cpus = append(cpus, v6[c.offset:c.offset+c.size])
	}
	return buildV7(t, []string{swText, wkText, exText}, "1 a\n2 b\n", cpus, comp)
}

// TestV7Shapes: the hand-made trace in v7 form, uncompressed and with zlib
// (which this machine's trace-cmd cannot write), gives exactly the events
// of its v6 form.
func TestV7Shapes(t *testing.T) {
	want, _, err := readBytes(handmade(t, 7))
	if err != nil {
		t.Fatal(err)
	}
	for _, comp := range []string{"", "zlib"} {
		got, meta, err := readBytes(handmadeV7(t, comp))
		if err != nil {
			t.Fatalf("%q: %v", comp, err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("v7 %q differs from v6:\n%s", comp, d)
		}
		if meta.Arch != "aarch64" || meta.Hostname != "box" || meta.NrCPUs != 2 || len(meta.Lost) != 1 {
			t.Errorf("v7 %q meta %+v", comp, meta)
		}
	}
}
