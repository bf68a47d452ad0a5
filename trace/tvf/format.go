package tvf

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/traceview/traceview/trace"
)

// Magic starts every file (8 bytes, PNG-style: a high byte, the name, CR LF,
// ^Z, LF, so text-mode and 7-bit damage is detected), followed by the format
// version as a little-endian uint32.
const Magic = "\x89TVF\r\n\x1a\n"

// Version is the format version this package writes: 2 added the optional
// fields Cgroup and Stack (two more block columns), 3 CurGone (one more), 4
// Policy and NextPolicy (two more: trace.SchedPolicy, 2026-12-05). Readers
// accept versions 1..Version.
const Version = 4

// BlockEvents is the largest number of events in one block: large enough for
// zstd to find the repetition across events, small enough that a damaged
// block loses little (8192 events is about 10 ms of a busy 2-CPU capture).
const BlockEvents = 8192

// Frame types (byte 4 of a frame header).
const (
	frameHeader  = 'H' // JSON fileHeader, stored raw
	frameTasks   = 'K' // JSON []Task, zstd
	frameEvents  = 'E' // one columnar block, zstd
	frameTrailer = 'T' // JSON trailer, stored raw
	frameGroups  = 'G' // JSON groupsFrame, stored raw
)

// Payload encodings (byte 5 of a frame header).
const (
	encRaw  = 0
	encZstd = 1
)

// frameSync starts every frame so a reader can find the next frame after
// damage.
const frameSync = "TVFR"

// frameHeaderSize is the size of a frame header:
//
//	0  "TVFR"
//	4  type        u8
//	5  encoding    u8
//	6  reserved    u16 (0)
//	8  length      u32  bytes of payload as stored
//	12 rawLength   u32  bytes after decompression
//	16 count       u32  events in the block (0 for other frames)
//	20 payloadCRC  u32  CRC-32C (Castagnoli) of the stored payload
//	24 headerCRC   u32  CRC-32C of bytes 0..23
const frameHeaderSize = 28

// maxPayload bounds a frame's stored and raw lengths, so a damaged length
// field (or a crafted zstd payload) cannot make a reader allocate without
// limit; a block of BlockEvents events takes well under 1 MiB raw.
const maxPayload = 64 << 20

// maxBlockEvents bounds the events of one block a reader accepts (writers
// of this version write at most BlockEvents).
const maxBlockEvents = 1 << 20

// footer (16 bytes) ends a complete file: "TVFEND\0\0" and the offset of the
// tail (the first frame after the last events block) as a u64.
const (
	footerMagic = "TVFEND\x00\x00"
	footerSize  = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type frameHdr struct {
	typ, enc byte
	// seq numbers an event block (bytes 6-7, little-endian): 1 for the
	// file's first, then on, 65535 followed by 1 again; 0 in other frames
	// and in files written before 2026-12-06, whose bytes 6-7 were
	// reserved as 0 (readers of those ignore them).
	seq           uint16
	length, raw   uint32
	count         uint32
	payloadCRC    uint32
	headerCRCGood bool
}

func putFrameHeader(b []byte, h frameHdr) {
	copy(b[0:4], frameSync)
	b[4], b[5] = h.typ, h.enc
	binary.LittleEndian.PutUint16(b[6:], h.seq)
	binary.LittleEndian.PutUint32(b[8:], h.length)
	binary.LittleEndian.PutUint32(b[12:], h.raw)
	binary.LittleEndian.PutUint32(b[16:], h.count)
	binary.LittleEndian.PutUint32(b[20:], h.payloadCRC)
	binary.LittleEndian.PutUint32(b[24:], crc32.Checksum(b[:24], castagnoli))
}

// parseFrameHeader decodes b (frameHeaderSize bytes); ok is false when the
// sync bytes or the header checksum are wrong or a length is implausible.
func parseFrameHeader(b []byte) (frameHdr, bool) {
	if string(b[0:4]) != frameSync {
		return frameHdr{}, false
	}
	if crc32.Checksum(b[:24], castagnoli) != binary.LittleEndian.Uint32(b[24:]) {
		return frameHdr{}, false
	}
	h := frameHdr{
		typ: b[4], enc: b[5],
		seq:        binary.LittleEndian.Uint16(b[6:]),
		length:     binary.LittleEndian.Uint32(b[8:]),
		raw:        binary.LittleEndian.Uint32(b[12:]),
		count:      binary.LittleEndian.Uint32(b[16:]),
		payloadCRC: binary.LittleEndian.Uint32(b[20:]),
	}
	if h.length > maxPayload || h.raw > maxPayload {
		return frameHdr{}, false
	}
	return h, true
}

// The optional fields of an event, in column order. A field is stored only
// when it differs from its trace.NewEvent default; bit i of an event's mask
// says field i is stored.
const (
	fCurTID = iota
	fCurPID
	fTID
	fPID
	fComm
	fPrio
	fPrevState
	fNextTID
	fNextPID
	fNextComm
	fNextPrio
	fTargetCPU
	fWakerTID
	fFromIRQ
	fOrigCPU
	fDestCPU
	fChildTID
	fChildPID
	fChildComm
	fRuntime
	fCount
	fWakerCPU
	fCgroup
	fStack
	fCurGone
	fPolicy
	fNextPolicy
	numFields
)

// fieldsOf returns the number of optional fields (columns after the mask)
// of a block of the given format version.
func fieldsOf(version uint32) int {
	switch {
	case version < 2:
		return fWakerCPU + 1
	case version < 3:
		return fStack + 1
	case version < 4:
		return fCurGone + 1
	}
	return numFields
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// maskOf returns which optional fields of e differ from the defaults.
func maskOf(e *trace.Event) uint32 {
	var m uint32
	set := func(f int, c bool) {
		if c {
			m |= 1 << f
		}
	}
	set(fCurTID, e.CurTID != -1)
	set(fCurPID, e.CurPID != -1)
	set(fTID, e.TID != -1)
	set(fPID, e.PID != -1)
	set(fComm, e.Comm != "")
	set(fPrio, e.Prio != -1)
	set(fPrevState, e.PrevState != 0)
	set(fNextTID, e.NextTID != -1)
	set(fNextPID, e.NextPID != -1)
	set(fNextComm, e.NextComm != "")
	set(fNextPrio, e.NextPrio != -1)
	set(fTargetCPU, e.TargetCPU != -1)
	set(fWakerTID, e.WakerTID != -1)
	set(fFromIRQ, e.FromIRQ != 0)
	set(fOrigCPU, e.OrigCPU != -1)
	set(fDestCPU, e.DestCPU != -1)
	set(fChildTID, e.ChildTID != -1)
	set(fChildPID, e.ChildPID != -1)
	set(fChildComm, e.ChildComm != "")
	set(fRuntime, e.Runtime != 0)
	set(fCount, e.Count != 0)
	set(fWakerCPU, e.WakerCPU != -1)
	set(fCgroup, e.Cgroup != 0)
	set(fStack, e.Stack != 0)
	set(fCurGone, e.CurGone != 0)
	set(fPolicy, e.Policy != trace.PolicyUnknown)
	set(fNextPolicy, e.NextPolicy != trace.PolicyUnknown)
	return m
}

// blockSeq is the number of the event block with index i (0 the file's
// first) in its frame header: 1..65535, cycling; never 0, which says "not
// numbered".
func blockSeq(i uint64) uint16 { return uint16(i%65535) + 1 }

// seqAfter is the number of the event block after the one numbered s.
func seqAfter(s uint16) uint16 { return s%65535 + 1 }

// seqDist is how many blocks on from a b is (numbers cycling over
// 1..65535): 1 for the next, 0 for a itself; above 32767 b comes before a.
func seqDist(a, b uint16) int { return (int(b) - int(a) + 65535) % 65535 }
