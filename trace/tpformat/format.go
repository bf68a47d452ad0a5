package tpformat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxPayload bounds field offsets and sizes: tracepoint payloads live in
// ring-buffer pages (at most 64 KiB with the largest page size).
const maxPayload = 1 << 16

// ErrSyntax is wrapped by Parse errors for format text it cannot read.
var ErrSyntax = errors.New("bad tracepoint format")

// Field is one field of a tracepoint payload, as a "field:" line of the
// format file declares it.
type Field struct {
	Name   string // e.g. "prev_pid", "prev_comm", "filename"
	Type   string // C type as declared, e.g. "pid_t", "char", "__data_loc char[]"
	Offset int    // bytes from the start of the payload
	Size   int    // bytes; for __data_loc/__rel_loc the 4-byte descriptor
	Signed bool
	// ArrayLen is N for a fixed array "name[N]", 0 otherwise.
	ArrayLen int
	// DataLoc is set for __data_loc fields: a u32 whose low 16 bits give the
	// offset of the data from the payload start and whose high 16 bits give
	// its length. RelLoc (__rel_loc, Linux >= 5.18) is the same with the
	// offset counted from the end of the descriptor field.
	DataLoc, RelLoc bool
	// Common is set for the common_* header fields shared by all events.
	Common bool
}

// Format is one parsed event format description.
type Format struct {
	System   string // e.g. "sched"; empty when the text does not say (set by callers)
	Name     string // e.g. "sched_switch"
	ID       int    // the event id found in each payload's common_type field
	Fields   []Field
	PrintFmt string // the text after "print fmt: "
	byName   map[string]int
}

// Parse reads one format description (the text of an events/*/format file).
// It needs the name, ID and format: lines; errors wrap ErrSyntax and name the
// line.
func Parse(text []byte) (*Format, error) {
	f := &Format{ID: -1, byName: map[string]int{}}
	lines := bytes.Split(text, []byte("\n"))
	common := true
	for i, lb := range lines {
		line := strings.TrimSpace(string(lb))
		switch {
		case line == "":
			if len(f.Fields) > 0 {
				common = false
			}
		case strings.HasPrefix(line, "name:"):
			f.Name = strings.TrimSpace(line[len("name:"):])
		case strings.HasPrefix(line, "ID:"):
			id, err := strconv.Atoi(strings.TrimSpace(line[len("ID:"):]))
			if err != nil {
				return nil, fmt.Errorf("tracepoint format line %d: bad ID: %w", i+1, ErrSyntax)
			}
			f.ID = id
		case strings.HasPrefix(line, "field"):
			fd, err := parseField(line)
			if err != nil {
				return nil, fmt.Errorf("tracepoint format %q line %d: %w", f.Name, i+1, err)
			}
			fd.Common = common && strings.HasPrefix(fd.Name, "common_")
			if _, dup := f.byName[fd.Name]; !dup {
				f.byName[fd.Name] = len(f.Fields)
			}
			f.Fields = append(f.Fields, fd)
		case strings.HasPrefix(line, "print fmt:"):
			f.PrintFmt = strings.TrimSpace(line[len("print fmt:"):])
		}
	}
	if f.Name == "" {
		return nil, fmt.Errorf("tracepoint format: no name line: %w", ErrSyntax)
	}
	if f.ID < 0 {
		return nil, fmt.Errorf("tracepoint format %q: no ID line: %w", f.Name, ErrSyntax)
	}
	return f, nil
}

// parseField reads "field:TYPE NAME;	offset:N;	size:N;	signed:N;".
// Old kernels also wrote "field special:" lines and omitted signed:.
func parseField(line string) (Field, error) {
	var fd Field
	parts := strings.Split(line, ";")
	decl := parts[0]
	c := strings.IndexByte(decl, ':')
	if c < 0 {
		return fd, fmt.Errorf("field without ':': %w", ErrSyntax)
	}
	decl = strings.TrimSpace(decl[c+1:])
	sp := strings.LastIndexAny(decl, " \t*")
	if sp < 0 {
		return fd, fmt.Errorf("field %q without type: %w", decl, ErrSyntax)
	}
	fd.Type = strings.TrimSpace(decl[:sp+1])
	name := decl[sp+1:]
	if b := strings.IndexByte(name, '['); b >= 0 {
		if e := strings.IndexByte(name[b:], ']'); e > 1 {
			n, err := strconv.Atoi(name[b+1 : b+e])
			if err == nil {
				fd.ArrayLen = n
			}
		}
		name = name[:b]
	}
	fd.Name = name
	fd.DataLoc = strings.HasPrefix(fd.Type, "__data_loc")
	fd.RelLoc = strings.HasPrefix(fd.Type, "__rel_loc")
	haveSigned, haveOffset, haveSize := false, false, false
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		k, v, ok := strings.Cut(p, ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fd, fmt.Errorf("field %s: bad %s %q: %w", fd.Name, k, v, ErrSyntax)
		}
		switch k {
		case "offset":
			fd.Offset, haveOffset = n, true
		case "size":
			fd.Size, haveSize = n, true
		case "signed":
			fd.Signed, haveSigned = n != 0, true
		}
	}
	if !haveOffset || !haveSize {
		return fd, fmt.Errorf("field %s: missing offset or size: %w", fd.Name, ErrSyntax)
	}
	// A payload is at most a page; larger values are corrupt input.
	if fd.Offset < 0 || fd.Size < 0 || fd.Offset > maxPayload || fd.Size > maxPayload {
		return fd, fmt.Errorf("field %s: offset %d size %d out of range: %w", fd.Name, fd.Offset, fd.Size, ErrSyntax)
	}
	if !haveSigned {
		fd.Signed = !strings.Contains(fd.Type, "unsigned") && !strings.HasPrefix(fd.Type, "u") && fd.Type != "char"
	}
	return fd, nil
}

// Field returns the field called name.
func (f *Format) Field(name string) (*Field, bool) {
	i, ok := f.byName[name]
	if !ok {
		return nil, false
	}
	return &f.Fields[i], true
}

// FullName returns "system:name" ("name" alone when System is empty).
func (f *Format) FullName() string {
	if f.System == "" {
		return f.Name
	}
	return f.System + ":" + f.Name
}

// End returns the offset just past the field.
func (fd *Field) End() int { return fd.Offset + fd.Size }

// Endian reads integers in one byte order through static (inlinable)
// calls, unlike the binary.ByteOrder interface; decoders keep one.
type Endian struct{ Big bool }

// EndianOf returns the Endian of order (big-endian or not).
func EndianOf(order binary.ByteOrder) Endian {
	return Endian{Big: order == binary.ByteOrder(binary.BigEndian)}
}

// Uint16 reads a 2-byte integer.
func (e Endian) Uint16(b []byte) uint16 {
	if e.Big {
		return binary.BigEndian.Uint16(b)
	}
	return binary.LittleEndian.Uint16(b)
}

// Uint32 reads a 4-byte integer.
func (e Endian) Uint32(b []byte) uint32 {
	if e.Big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// Uint64 reads an 8-byte integer.
func (e Endian) Uint64(b []byte) uint64 {
	if e.Big {
		return binary.BigEndian.Uint64(b)
	}
	return binary.LittleEndian.Uint64(b)
}

// Int returns the field as an integer, sign-extended when the field is
// signed. Sizes other than 1, 2, 4 and 8 bytes, and payloads too short to
// hold the field, give 0.
func (fd *Field) Int(raw []byte, order binary.ByteOrder) int64 { return fd.IntE(raw, EndianOf(order)) }

// IntE is Int with an Endian.
func (fd *Field) IntE(raw []byte, e Endian) int64 {
	if fd.Offset+fd.Size > len(raw) {
		return 0
	}
	b := raw[fd.Offset:]
	switch fd.Size {
	case 1:
		if fd.Signed {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		v := e.Uint16(b)
		if fd.Signed {
			return int64(int16(v))
		}
		return int64(v)
	case 4:
		v := e.Uint32(b)
		if fd.Signed {
			return int64(int32(v))
		}
		return int64(v)
	case 8:
		return int64(e.Uint64(b))
	}
	return 0
}

// Uint returns the field as an unsigned integer (no sign extension).
func (fd *Field) Uint(raw []byte, order binary.ByteOrder) uint64 {
	return fd.UintE(raw, EndianOf(order))
}

// UintE is Uint with an Endian.
func (fd *Field) UintE(raw []byte, e Endian) uint64 {
	if fd.Offset+fd.Size > len(raw) {
		return 0
	}
	b := raw[fd.Offset:]
	switch fd.Size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(e.Uint16(b))
	case 4:
		return uint64(e.Uint32(b))
	case 8:
		return e.Uint64(b)
	}
	return 0
}

// Bytes returns the field's string bytes without copying: a char array up to
// its first NUL, or the data a __data_loc/__rel_loc descriptor points at (up
// to its first NUL). Out-of-range descriptors give nil.
func (fd *Field) Bytes(raw []byte, order binary.ByteOrder) []byte {
	return fd.BytesE(raw, EndianOf(order))
}

// BytesE is Bytes with an Endian.
func (fd *Field) BytesE(raw []byte, e Endian) []byte {
	if fd.Offset+fd.Size > len(raw) {
		return nil
	}
	var b []byte
	if (fd.DataLoc || fd.RelLoc) && fd.Size == 4 {
		d := e.Uint32(raw[fd.Offset:])
		off, n := int(d&0xffff), int(d>>16)
		if fd.RelLoc {
			off += fd.End()
		}
		if off+n > len(raw) {
			return nil
		}
		b = raw[off : off+n]
	} else {
		b = raw[fd.Offset : fd.Offset+fd.Size]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return b
}

// String returns Bytes as a string (this allocates; see Interner).
func (fd *Field) String(raw []byte, order binary.ByteOrder) string {
	return string(fd.Bytes(raw, order))
}

// Interner hands out one shared string per distinct byte sequence, so that
// decoding task names does not allocate per event. A small direct-mapped
// cache in front of the map makes repeated names cheap. The zero value is
// ready; it is not safe for concurrent use.
type Interner struct {
	m     map[string]string
	cache [256]string
}

// Intern returns the string equal to b, allocating only the first time.
func (in *Interner) Intern(b []byte) string {
	// Cache index: a multiplicative hash of the length and the first and
	// last 8 bytes (task names are at most 15 bytes).
	var h uint64
	if len(b) >= 8 {
		h = binary.LittleEndian.Uint64(b) ^ binary.LittleEndian.Uint64(b[len(b)-8:])<<1
	} else {
		for _, c := range b {
			h = h<<8 | uint64(c)
		}
	}
	h = (h ^ uint64(len(b))) * 0x9e3779b97f4a7c15
	slot := &in.cache[h>>56]
	if *slot == string(b) && (len(b) > 0 || *slot == "") {
		return *slot
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	s, ok := in.m[string(b)]
	if !ok {
		s = string(b)
		in.m[s] = s
	}
	*slot = s
	return s
}
