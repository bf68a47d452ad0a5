package tvf

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/klauspost/compress/zstd"

	"github.com/traceview/traceview/trace"
)

// Header describes a capture. It is written first, before any event, so it
// holds what is known when the capture starts; losses, counted while
// capturing, go in the trailer (see Writer.Close).
type Header struct {
	Hostname  string   `json:"hostname,omitempty"`   // uname -n
	OSRelease string   `json:"os_release,omitempty"` // uname -r, the kernel release
	Arch      string   `json:"arch,omitempty"`       // uname -m
	Tool      string   `json:"tool,omitempty"`       // writer, e.g. "traceview record"
	Cmdline   []string `json:"cmdline,omitempty"`    // the capture's command line
	NrCPUs    int      `json:"nr_cpus,omitempty"`    // CPUs online at capture time
	// RecordedCPUs are the only CPUs whose events the capture recorded
	// (record --cpu; trace.Meta.RecordedCPUs), sorted; empty: every CPU.
	RecordedCPUs []int  `json:"recorded_cpus,omitempty"`
	NrCPUsAvail  int    `json:"nr_cpus_avail,omitempty"` // CPUs present
	Clock        string `json:"clock,omitempty"`         // clock of event times, e.g. "CLOCK_MONOTONIC (bpf_ktime_get_ns)"
	// StartWall is the wall-clock time (Unix ns) at the start of the
	// capture, when known; 0 otherwise.
	StartWall int64 `json:"start_wall_ns,omitempty"`
	// Source is the format of the trace this file was converted from
	// ("perf.data"), empty for a capture.
	Source string `json:"source,omitempty"`
	// FirstTime and LastTime are the first and last sample times (ns, the
	// events' clock) of the source's own header (perf.data's
	// HEADER_SAMPLE_TIME), when it has one; 0 otherwise. The writer then
	// puts them in the trailer instead of the times of the events it saw.
	FirstTime int64 `json:"first_time_ns,omitempty"`
	LastTime  int64 `json:"last_time_ns,omitempty"`
	// Autogroup is kernel.sched_autogroup_enabled at the start of the
	// capture (trace.Meta.Autogroup): 1 on, -1 off, 0 unknown (and in files
	// written before it was added).
	Autogroup int8 `json:"autogroup,omitempty"`
}

// HeaderFromMeta fills a Header from a source's metadata (for convert).
func HeaderFromMeta(m *trace.Meta) Header {
	if m == nil {
		return Header{}
	}
	return Header{
		Hostname: m.Hostname, OSRelease: m.OSRelease, Arch: m.Arch, Tool: m.Tool,
		Cmdline: m.Cmdline, NrCPUs: m.NrCPUs, NrCPUsAvail: m.NrCPUsAvail, Clock: m.Clock,
		Source: m.Format, FirstTime: m.FirstTime, LastTime: m.LastTime,
		Autogroup: m.Autogroup, RecordedCPUs: cpuInts(trace.RecordedCPUs(m)),
	}
}

// cpuInts is cpus as ints (nil for none).
func cpuInts(cpus []trace.CPU) []int {
	if len(cpus) == 0 {
		return nil
	}
	out := make([]int, len(cpus))
	for i, c := range cpus {
		out[i] = int(c)
	}
	return out
}

// fileHeader is the JSON of the header frame.
type fileHeader struct {
	Header
	Version int `json:"version"`
}

// Task is one entry of the task table: the latest name of a thread.
type Task struct {
	TID  trace.TID `json:"tid"`
	PID  trace.PID `json:"pid"`
	Comm string    `json:"comm"`
}

// trailer is the JSON of the trailer frame.
type trailer struct {
	Events     uint64             `json:"events"`
	Blocks     uint64             `json:"blocks"`
	FirstTime  int64              `json:"first_time_ns"`
	LastTime   int64              `json:"last_time_ns"`
	LostPerCPU []uint64           `json:"lost_per_cpu,omitempty"` // index: CPU
	Lost       []trace.LostWindow `json:"lost_windows,omitempty"`
	Warnings   []trace.Warning    `json:"warnings,omitempty"`
	// LostUnplaced and LostInFile: trace.Meta's counts of a trace
	// converted to this one (events its recorder lost with no CPU or
	// time, and events its file held that its reader could not read), so
	// that the copy reports the source's losses (added within version 3,
	// as optional keys: older readers ignore them, older files have none).
	LostUnplaced uint64 `json:"lost_unplaced,omitempty"`
	LostInFile   uint64 `json:"lost_in_file,omitempty"`
	// Cgroups and Stacks: trace.Meta's, known at the end of a capture
	// (added in the same format version: readers that predate them ignore
	// these keys).
	Cgroups map[uint64]string `json:"cgroups,omitempty"`
	Stacks  []trace.Stack     `json:"stacks,omitempty"`
	// CgroupSettings and CgroupStats: trace.Meta's task-group settings
	// and cpu.stat readings (added within version 3, as optional keys:
	// older readers ignore them, older files have none).
	CgroupSettings []trace.CgroupSettings `json:"cgroup_settings,omitempty"`
	CgroupStats    []trace.CgroupStat     `json:"cgroup_stats,omitempty"`
	// TaskAutogroups: trace.Meta's, by PID (added within version 3, as an
	// optional key: older readers ignore it, older files have none).
	TaskAutogroups map[trace.PID]string `json:"task_autogroups,omitempty"`
	// TaskAffinity: trace.Meta's, each a CPU list ("0", "0-3,6"), by
	// PID (the same, optional).
	TaskAffinity map[trace.PID]string `json:"task_affinity,omitempty"`
}

// groupsFrame is the JSON of a groups frame: task groups and autogroups
// the writer learned while it wrote, ahead of the events that name them,
// so that a file cut short (whose trailer holds the whole table) still
// names them (new-user pass 70 F3: "cgroup id 9223372036854775809", the
// autogroups lost). Keys as the trailer's; each frame holds only what
// the ones before it did not.
type groupsFrame struct {
	Cgroups        map[uint64]string    `json:"cgroups,omitempty"`
	TaskAutogroups map[trace.PID]string `json:"task_autogroups,omitempty"`
}

// Writer writes a trace in traceview's format. Events are buffered into
// blocks of BlockEvents and written when a block fills; Close writes the
// last block, the task table, the trailer and the footer. A Writer is not
// safe for concurrent use.
type Writer struct {
	// uncounted counts the events written that reports do not (Uncounted).
	uncounted uint64
	// taskFrame: the bytes of the last task table frame written
	// (TaskFrameBytes).
	taskFrame int64
	bw        *bufio.Writer
	off       int64 // bytes written so far
	enc       *zstd.Encoder
	blk       *blockEncoder
	raw       []byte
	comp      []byte
	tasks     map[trace.TID]Task
	pending   bool // tasks added since the last tasks frame
	tr        trailer
	hdr       Header
	// groups and groupsSent are the group names added (AddGroups) and
	// not yet written, and those written, in groups frames.
	groups, groupsSent groupsFrame
	err                error
	closed             bool
}

// NewWriter writes the file magic and the header to w and returns a Writer.
// w is buffered internally; it is not closed by Close.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	// SpeedFastest: on the shared traces files are 3-5 % larger than at
	// SpeedDefault but writing costs half the CPU, which a live capture
	// takes from the workload it measures. Each block is one frame of its
	// own (EncodeAll), under 1 MiB raw, so a larger window finds no more
	// matches; the default one (4 MiB at this level) made the encoder
	// keep an 8 MiB history buffer, a sixth of a capture's memory limit.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20))
	if err != nil {
		return nil, fmt.Errorf("traceview format: zstd: %w", err)
	}
	tw := &Writer{
		bw:    bufio.NewWriterSize(w, 256<<10),
		enc:   enc,
		blk:   newBlockEncoder(),
		tasks: map[trace.TID]Task{},
		hdr:   h,
	}
	var head [12]byte
	copy(head[:], Magic)
	binary.LittleEndian.PutUint32(head[8:], Version)
	tw.write(head[:])
	js, err := json.Marshal(fileHeader{Header: h, Version: Version})
	if err != nil {
		return nil, fmt.Errorf("traceview format: header: %w", err)
	}
	tw.frame(frameHeader, encRaw, js, uint32(len(js)), 0)
	if tw.err != nil {
		return nil, tw.err
	}
	return tw, nil
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.bw.Write(b)
	w.off += int64(n)
	if err != nil {
		w.err = fmt.Errorf("traceview format: write: %w", err)
	}
}

func (w *Writer) frame(typ, enc byte, payload []byte, raw, count uint32) {
	var seq uint16
	if typ == frameEvents {
		seq = blockSeq(w.tr.Blocks)
	}
	var h [frameHeaderSize]byte
	putFrameHeader(h[:], frameHdr{
		typ: typ, enc: enc, seq: seq, length: uint32(len(payload)), raw: raw, count: count,
		payloadCRC: crc32.Checksum(payload, castagnoli),
	})
	w.write(h[:])
	w.write(payload)
}

// AddTask records the name of a thread in the task table (the latest call
// for a TID wins). Tasks added before the first block is written go in a
// task frame ahead of the events, so a streaming reader knows them early;
// the full table is written again at Close. Names carried by events (Comm,
// NextComm, ChildComm) are added automatically.
func (w *Writer) AddTask(tid trace.TID, pid trace.PID, comm string) {
	if tid < 0 || comm == "" {
		return
	}
	old, ok := w.tasks[tid]
	if ok && old.Comm == comm && (pid < 0 || old.PID == pid) {
		return
	}
	if pid < 0 && ok {
		pid = old.PID
	}
	w.tasks[tid] = Task{TID: tid, PID: pid, Comm: comm}
	w.pending = true
}

// Write adds one event. Events should come in time order (the order a
// trace.Source gives them); the writer stores them as given.
func (w *Writer) Write(e trace.Event) error {
	if w.closed {
		return errors.New("traceview format: write after close")
	}
	if w.err != nil {
		return w.err
	}
	// Time 0 is the time of synthesized records (perf's COMM/FORK records
	// of tasks alive before the capture, record's /proc names): not a
	// sample time, so it does not start the trace.
	if w.tr.FirstTime == 0 && e.Time > 0 {
		w.tr.FirstTime = e.Time
	}
	w.tr.Events++
	if !trace.Counted(&e) {
		w.uncounted++
	}
	w.tr.LastTime = max(w.tr.LastTime, e.Time)
	switch e.Kind {
	case trace.KindSwitch:
		w.AddTask(e.TID, e.PID, e.Comm)
		w.AddTask(e.NextTID, e.NextPID, e.NextComm)
	case trace.KindFork:
		w.AddTask(e.TID, e.PID, e.Comm)
		w.AddTask(e.ChildTID, e.ChildPID, e.ChildComm)
	case trace.KindLost:
		w.addLost(e.CPU, e.Count)
	default:
		w.AddTask(e.TID, e.PID, e.Comm)
	}
	w.blk.add(&e)
	if w.blk.n >= BlockEvents {
		w.flushBlock()
	}
	return w.err
}

func (w *Writer) addLost(cpu trace.CPU, n uint64) {
	if cpu < 0 || cpu > 1<<16 {
		return
	}
	for int(cpu) >= len(w.tr.LostPerCPU) {
		w.tr.LostPerCPU = append(w.tr.LostPerCPU, 0)
	}
	w.tr.LostPerCPU[cpu] += n
}

// SetLost records the source's loss windows (trace.Meta.Lost) for the
// trailer. Per-CPU loss counts come from the KindLost events written; when
// there were none, they are summed from lost.
func (w *Writer) SetLost(lost []trace.LostWindow) {
	w.tr.Lost = append([]trace.LostWindow(nil), lost...)
}

// SetLostCounts records, for the trailer, the events a source converted to
// this file lost where no lost window says (trace.Meta.LostUnplaced:
// counts of events, no CPU or time) and those its file held but its reader
// could not read (trace.Meta.LostInFile, events of damaged or cut
// blocks). A reader of this file adds them to its Meta's.
func (w *Writer) SetLostCounts(unplaced, inFile uint64) {
	w.tr.LostUnplaced, w.tr.LostInFile = unplaced, inFile
}

// SetCgroups stores the cgroup id to path table (trace.Meta.Cgroups) in
// the trailer.
func (w *Writer) SetCgroups(m map[uint64]string) { w.tr.Cgroups = m }

// SetCgroupSettings stores the task groups' settings
// (trace.Meta.CgroupSettings) in the trailer.
func (w *Writer) SetCgroupSettings(s []trace.CgroupSettings) {
	w.tr.CgroupSettings = append([]trace.CgroupSettings(nil), s...)
}

// SetCgroupStats stores the task groups' cpu.stat readings
// (trace.Meta.CgroupStats) in the trailer.
func (w *Writer) SetCgroupStats(s []trace.CgroupStat) {
	w.tr.CgroupStats = append([]trace.CgroupStat(nil), s...)
}

// SetTaskAutogroups stores the processes' autogroups
// (trace.Meta.TaskAutogroups) in the trailer.
func (w *Writer) SetTaskAutogroups(m map[trace.PID]string) { w.tr.TaskAutogroups = m }

// SetTaskAffinity stores the processes' CPU affinity as CPU lists
// (trace.Meta.TaskAffinity, written "0-3,6") in the trailer.
func (w *Writer) SetTaskAffinity(m map[trace.PID]string) { w.tr.TaskAffinity = m }

// SetStacks stores the stack table (trace.Meta.Stacks: stacks[i].ID ==
// i+1, which Close does not check) in the trailer.
func (w *Writer) SetStacks(stacks []trace.Stack) { w.tr.Stacks = stacks }

// SetWarnings records warnings met while producing the events (for
// example the source reader's), kept in the trailer.
func (w *Writer) SetWarnings(ws []trace.Warning) { w.tr.Warnings = append([]trace.Warning(nil), ws...) }

func (w *Writer) flushTasks(all bool) {
	if !w.pending && !all {
		return
	}
	list := make([]Task, 0, len(w.tasks))
	for _, t := range w.tasks {
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].TID < list[j].TID })
	js, err := json.Marshal(list)
	if err != nil {
		w.err = fmt.Errorf("traceview format: task table: %w", err)
		return
	}
	w.comp = w.enc.EncodeAll(js, w.comp[:0])
	at := w.off
	w.frame(frameTasks, encZstd, w.comp, uint32(len(js)), 0)
	w.taskFrame = w.off - at
	w.pending = false
}

// TaskFrameBytes returns the bytes of the last task table frame written
// (0 before the first): each holds every task named so far, as the table
// Close writes will, with the names added since, so it is the closing
// table's size less theirs (record --rotate SIZE reserves it).
func (w *Writer) TaskFrameBytes() int64 { return w.taskFrame }

// AddGroups notes the paths of cgroup ids (trace.Meta.Cgroups) and the
// autogroups of processes (trace.Meta.TaskAutogroups) that the events
// from here on may name: those not noted before go in a groups frame
// ahead of the next event block. The trailer's tables (SetCgroups,
// SetTaskAutogroups) stay the whole ones; these are for a reader of a
// file that lacks its trailer.
func (w *Writer) AddGroups(cgroups map[uint64]string, autogroups map[trace.PID]string) {
	for id, p := range cgroups {
		if old, ok := w.groupsSent.Cgroups[id]; ok && old == p {
			continue
		}
		if w.groups.Cgroups == nil {
			w.groups.Cgroups = map[uint64]string{}
		}
		w.groups.Cgroups[id] = p
	}
	for pid, p := range autogroups {
		if old, ok := w.groupsSent.TaskAutogroups[pid]; ok && old == p {
			continue
		}
		if w.groups.TaskAutogroups == nil {
			w.groups.TaskAutogroups = map[trace.PID]string{}
		}
		w.groups.TaskAutogroups[pid] = p
	}
}

// flushGroups writes the groups noted since the last groups frame.
func (w *Writer) flushGroups() {
	g := w.groups
	if len(g.Cgroups) == 0 && len(g.TaskAutogroups) == 0 {
		return
	}
	js, err := json.Marshal(g)
	if err != nil {
		w.err = fmt.Errorf("traceview format: groups: %w", err)
		return
	}
	w.frame(frameGroups, encRaw, js, uint32(len(js)), 0)
	for id, p := range g.Cgroups {
		if w.groupsSent.Cgroups == nil {
			w.groupsSent.Cgroups = map[uint64]string{}
		}
		w.groupsSent.Cgroups[id] = p
	}
	for pid, p := range g.TaskAutogroups {
		if w.groupsSent.TaskAutogroups == nil {
			w.groupsSent.TaskAutogroups = map[trace.PID]string{}
		}
		w.groupsSent.TaskAutogroups[pid] = p
	}
	w.groups = groupsFrame{}
}

func (w *Writer) flushBlock() {
	if w.blk.n == 0 {
		return
	}
	if w.tr.Blocks == 0 {
		w.flushTasks(false)
	}
	w.flushGroups()
	w.raw = w.blk.bytes(w.raw[:0])
	w.comp = w.enc.EncodeAll(w.raw, w.comp[:0])
	w.frame(frameEvents, encZstd, w.comp, uint32(len(w.raw)), uint32(w.blk.n))
	w.tr.Blocks++
	w.blk.reset()
}

// Flush writes the events buffered so far as a block, shorter than
// BlockEvents (nothing when there are none), so that Bytes counts every
// event written. A series rotated by size (record --rotate SIZE) cuts its
// blocks short this way to know each file's size before it ends one.
func (w *Writer) Flush() error {
	if w.closed {
		return errors.New("traceview format: flush after close")
	}
	w.flushBlock()
	return w.err
}

// Sync writes the events buffered so far as a block (as Flush) and hands
// every byte written so far to the underlying writer, so that a process
// killed after it has left them in the file: record calls it every second
// (new-user pass 36 F3: with --backlog 64K a file stayed empty for 3.5 s
// of a 4 s capture, held in the 8192-event block and the 256 KiB buffer).
func (w *Writer) Sync() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil && w.err == nil {
		w.err = fmt.Errorf("traceview format: write: %w", err)
	}
	return w.err
}

// Events returns the number of events written so far.
func (w *Writer) Events() uint64 { return w.tr.Events }

// Uncounted returns how many of Events are not scheduler events as
// reports count them (trace.Counted): the task records of time 0 (the
// names of the tasks alive when the capture began; info: "not counted")
// and the lost-event markers.
func (w *Writer) Uncounted() uint64 { return w.uncounted }

// Bytes returns the number of bytes written so far (including buffered
// ones).
func (w *Writer) Bytes() int64 { return w.off }

// Lost returns the per-CPU loss counts so far (index: CPU).
func (w *Writer) Lost() []uint64 { return append([]uint64(nil), w.tr.LostPerCPU...) }

// Close writes the last block, the task table, the trailer (event count,
// first and last time, per-CPU losses, loss windows) and the footer, then
// flushes. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.flushBlock()
	w.closed = true
	if len(w.tr.LostPerCPU) == 0 {
		for _, l := range w.tr.Lost {
			w.addLost(l.CPU, l.Count)
		}
	}
	if w.hdr.FirstTime > 0 {
		w.tr.FirstTime = w.hdr.FirstTime
	}
	if w.hdr.LastTime > 0 {
		w.tr.LastTime = w.hdr.LastTime
	}
	tail := w.off
	w.flushTasks(true)
	js, err := json.Marshal(w.tr)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("traceview format: trailer: %w", err)
	}
	w.frame(frameTrailer, encRaw, js, uint32(len(js)), 0)
	var foot [footerSize]byte
	copy(foot[:], footerMagic)
	binary.LittleEndian.PutUint64(foot[8:], uint64(tail))
	w.write(foot[:])
	if w.err == nil {
		if err := w.bw.Flush(); err != nil {
			w.err = fmt.Errorf("traceview format: write: %w", err)
		}
	}
	w.enc.Close()
	return w.err
}
