package tracedat

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/traceview/traceview/trace/tpformat"
)

// This file builds small v6 trace.dat files by hand for edge cases and
// fuzz seeds, following trace-cmd.dat.v6(5) and the kernel's ring-buffer
// page layout (see doc.go).

// testPage is the page size of hand-built files (a var: the synthetic
// benchmark builds 4096-byte pages).
var testPage = 512

// headerPage64 is header_page of a 64-bit kernel (as in every shared file).
const headerPage64 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" +
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" +
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" +
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"

// testFormat loads a real Linux 6.18 format text from tpformat's testdata.
func testFormat(t testing.TB, name string) (string, *tpformat.Format) {
	t.Helper()
	text, err := os.ReadFile("../tpformat/testdata/" + name + ".format")
	if err != nil {
		t.Fatal(err)
	}
	f, err := tpformat.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return string(text), f
}

// payload encodes a tracepoint record of format f from field values (ints
// or strings; __data_loc strings are appended after the fixed fields).
func payload(f *tpformat.Format, order binary.ByteOrder, vals map[string]any) []byte {
	size := 0
	for _, fd := range f.Fields {
		size = max(size, fd.End())
	}
	b := make([]byte, size)
	order.PutUint16(b, uint16(f.ID))
	for _, fd := range f.Fields {
		v, ok := vals[fd.Name]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case int:
			switch fd.Size {
			case 1:
				b[fd.Offset] = byte(v)
			case 2:
				order.PutUint16(b[fd.Offset:], uint16(v))
			case 4:
				order.PutUint32(b[fd.Offset:], uint32(v))
			case 8:
				order.PutUint64(b[fd.Offset:], uint64(v))
			}
		case string:
			if fd.DataLoc {
				order.PutUint32(b[fd.Offset:], uint32(len(v)+1)<<16|uint32(len(b)))
				b = append(append(b, v...), 0)
			} else {
				copy(b[fd.Offset:fd.Offset+fd.Size-1], v)
			}
		}
	}
	return b
}

// Ring-buffer event encoders (32-bit header: type_len low 5 bits, delta
// the high 27, little endian).
func evHeader(typeLen, delta uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, delta<<5|typeLen)
}

func evRecord(delta uint32, data []byte) []byte {
	for len(data)%4 != 0 {
		data = append(data, 0)
	}
	if len(data) <= 28*4 {
		return append(evHeader(uint32(len(data)/4), delta), data...)
	}
	b := evHeader(0, delta)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)+4))
	return append(b, data...)
}

func evExtend(delta uint64) []byte {
	b := evHeader(typeTimeExtend, uint32(delta&(1<<27-1)))
	return binary.LittleEndian.AppendUint32(b, uint32(delta>>27))
}

func evAbs(ts uint64) []byte {
	b := evHeader(typeTimeStamp, uint32(ts&(1<<27-1)))
	return binary.LittleEndian.AppendUint32(b, uint32(ts>>27))
}

// evPadding is a discarded record of n payload bytes with a time delta.
func evPadding(delta uint32, n int) []byte {
	b := evHeader(typePadding, delta)
	b = binary.LittleEndian.AppendUint32(b, uint32(n+4))
	return append(b, make([]byte, n)...)
}

// page builds one ring-buffer page; lost >= 0 sets the missed-events flags
// (with the count stored after the data when lost > 0).
func page(ts uint64, lost int64, events ...[]byte) []byte {
	p := make([]byte, testPage)
	binary.LittleEndian.PutUint64(p, ts)
	data := bytes.Join(events, nil)
	copy(p[16:], data)
	commit := uint64(len(data))
	if lost >= 0 {
		commit |= missedEvents
		if lost > 0 {
			commit |= missedStored
			binary.LittleEndian.PutUint64(p[16+len(data):], uint64(lost))
		}
	}
	binary.LittleEndian.PutUint64(p[8:], commit)
	return p
}

// buildV6 writes a little-endian v6 trace.dat with the sched formats given,
// saved cmdlines, and one run of pages per CPU.
func buildV6(formats []string, cmdlines string, cpus [][]byte) []byte {
	le := binary.LittleEndian
	var b []byte
	b = append(b, Magic...)
	b = append(b, '6', 0, 0, 8)
	b = le.AppendUint32(b, uint32(testPage))
	b = append(b, "header_page\x00"...)
	b = le.AppendUint64(b, uint64(len(headerPage64)))
	b = append(b, headerPage64...)
	b = append(b, "header_event\x00"...)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint32(b, 0) // ftrace formats
	b = le.AppendUint32(b, 1) // systems
	b = append(b, "sched\x00"...)
	b = le.AppendUint32(b, uint32(len(formats)))
	for _, f := range formats {
		b = le.AppendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = le.AppendUint32(b, 0) // kallsyms
	b = le.AppendUint32(b, 0) // printk
	b = le.AppendUint64(b, uint64(len(cmdlines)))
	b = append(b, cmdlines...)
	b = le.AppendUint32(b, uint32(len(cpus)))
	b = append(b, "options  \x00"...)
	b = le.AppendUint16(b, optCPUCount)
	b = le.AppendUint32(b, 4)
	b = le.AppendUint32(b, uint32(len(cpus)))
	b = le.AppendUint16(b, 0)
	b = append(b, "flyrecord\x00"...)
	table := len(b)
	b = append(b, make([]byte, 16*len(cpus))...)
	for len(b)%testPage != 0 {
		b = append(b, 0)
	}
	for i, d := range cpus {
		le.PutUint64(b[table+16*i:], uint64(len(b)))
		le.PutUint64(b[table+16*i+8:], uint64(len(d)))
		b = append(b, d...)
	}
	return b
}
