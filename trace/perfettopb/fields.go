package perfettopb

// Field numbers of the Perfetto protos this package writes and reads, from
// github.com/google/perfetto at commit ec5d16b14b743ba6063d720956d6d6af6610fd72
// (August 2026). Each group names its .proto file; the same messages are
// concatenated in protos/perfetto/trace/perfetto_trace.proto.

// protos/perfetto/trace/trace.proto: message Trace.
const fTracePacket = 1 // repeated TracePacket packet = 1

// protos/perfetto/trace/trace_packet.proto: message TracePacket.
const (
	fPacketFtraceEvents    = 1   // FtraceEventBundle ftrace_events = 1
	fPacketProcessTree     = 2   // ProcessTree process_tree = 2
	fPacketClockSnapshot   = 6   // ClockSnapshot clock_snapshot = 6
	fPacketTimestamp       = 8   // optional uint64 timestamp = 8
	fPacketSequenceID      = 10  // uint32 trusted_packet_sequence_id = 10
	fPacketFtraceStats     = 34  // FtraceStats ftrace_stats = 34
	fPacketTraceStats      = 35  // TraceStats trace_stats = 35
	fPacketSystemInfo      = 45  // SystemInfo system_info = 45
	fPacketTraceConfig     = 33  // TraceConfig trace_config = 33
	fPacketCompressed      = 50  // bytes compressed_packets = 50
	fPacketTimestampClock  = 58  // optional uint32 timestamp_clock_id = 58
	fPacketSequenceFlags   = 13  // optional uint32 sequence_flags = 13
	seqIncrementalCleared  = 1   // SEQ_INCREMENTAL_STATE_CLEARED
	fPacketFirstOnSequence = 87  // optional bool first_packet_on_sequence = 87
	fPacketTrackDescriptor = 60  // TrackDescriptor track_descriptor = 60
	fPacketTraceAttributes = 126 // TraceAttributes trace_attributes = 126
)

// protos/perfetto/trace/track_event/track_descriptor.proto (TrackDescriptor),
// process_descriptor.proto (ProcessDescriptor) and thread_descriptor.proto
// (ThreadDescriptor): the tracks that carry each task's cgroup.
const (
	fTrackUUID         = 1  // optional uint64 uuid = 1
	fTrackProcess      = 3  // optional ProcessDescriptor process = 3
	fTrackThread       = 4  // optional ThreadDescriptor thread = 4
	fTrackDescription  = 14 // optional string description = 14 (the UI's help popup of the track)
	fProcessDescPid    = 1  // ProcessDescriptor.pid = 1
	fProcessDescLabels = 8  // ProcessDescriptor.process_labels = 8 (repeated string; trace processor: process args)
	fThreadDescPid     = 1  // ThreadDescriptor.pid = 1
	fThreadDescTid     = 2  // ThreadDescriptor.tid = 2
)

// protos/perfetto/trace/clock_snapshot.proto: message ClockSnapshot and
// protos/perfetto/common/builtin_clock.proto: enum BuiltinClock.
const (
	fClockSnapshotClocks  = 1 // repeated Clock clocks = 1
	fClockSnapshotPrimary = 2 // optional BuiltinClock primary_trace_clock = 2
	fClockID              = 1 // Clock.clock_id = 1
	fClockTimestamp       = 2 // Clock.timestamp = 2
	clockBoottime         = 6 // BUILTIN_CLOCK_BOOTTIME = 6
)

// protos/perfetto/common/system_info.proto: messages SystemInfo, Utsname.
const (
	fSystemInfoUtsname        = 1 // optional Utsname utsname = 1
	fSystemInfoServiceVersion = 4 // optional string tracing_service_version = 4
	fSystemInfoNumCPUs        = 8 // optional uint32 num_cpus = 8
	fUtsnameSysname           = 1 // optional string sysname = 1
	fUtsnameVersion           = 2 // optional string version = 2
	fUtsnameRelease           = 3 // optional string release = 3
	fUtsnameMachine           = 4 // optional string machine = 4
)

// protos/perfetto/trace/ps/process_tree.proto: message ProcessTree.
const (
	fTreeProcesses      = 1 // repeated Process processes = 1
	fTreeThreads        = 2 // repeated Thread threads = 2
	fProcessPid         = 1 // Process.pid = 1
	fProcessPpid        = 2 // Process.ppid = 2
	fProcessCmdline     = 3 // Process.cmdline = 3 (repeated string)
	fProcessCmdlineComm = 9 // Process.cmdline_is_comm = 9
	fThreadTid          = 1 // Thread.tid = 1
	fThreadName         = 2 // Thread.name = 2
	fThreadTgid         = 3 // Thread.tgid = 3
)

// protos/perfetto/trace/ftrace/ftrace_event_bundle.proto: message
// FtraceEventBundle and its CompactSched.
const (
	fBundleCPU          = 1 // optional uint32 cpu = 1
	fBundleEvent        = 2 // repeated FtraceEvent event = 2
	fBundleLostEvents   = 3 // optional bool lost_events = 3
	fBundleCompactSched = 4 // optional CompactSched compact_sched = 4
	// optional uint64 previous_bundle_end_timestamp = 10: "the last event
	// in the previous bundle" of the CPU (perfetto v47+).
	fBundlePrevEnd = 10

	fCompactSwitchTimestamp = 1  // repeated uint64 switch_timestamp = 1 [packed]: delta-encoded, first absolute
	fCompactSwitchPrevState = 2  // repeated int64 switch_prev_state = 2 [packed]
	fCompactSwitchNextPid   = 3  // repeated int32 switch_next_pid = 3 [packed]
	fCompactSwitchNextPrio  = 4  // repeated int32 switch_next_prio = 4 [packed]
	fCompactInternTable     = 5  // repeated string intern_table = 5
	fCompactSwitchNextComm  = 6  // repeated uint32 switch_next_comm_index = 6 [packed]
	fCompactWakingTimestamp = 7  // repeated uint64 waking_timestamp = 7 [packed]: delta-encoded, first absolute
	fCompactWakingPid       = 8  // repeated int32 waking_pid = 8 [packed]
	fCompactWakingTargetCPU = 9  // repeated int32 waking_target_cpu = 9 [packed]
	fCompactWakingPrio      = 10 // repeated int32 waking_prio = 10 [packed]
	fCompactWakingComm      = 11 // repeated uint32 waking_comm_index = 11 [packed]
	fCompactWakingFlags     = 12 // repeated uint32 waking_common_flags = 12 [packed]
)

// protos/perfetto/trace/ftrace/ftrace_event.proto: message FtraceEvent
// (common fields and the oneof event members used here).
const (
	fEventTimestamp       = 1   // optional uint64 timestamp = 1 (ns, trace clock)
	fEventPid             = 2   // optional uint32 pid = 2 (the task current on the CPU)
	fEventCommonFlags     = 5   // optional uint32 common_flags = 5 (the kernel's trace flags, irqFlags)
	fEventSchedSwitch     = 4   // SchedSwitchFtraceEvent sched_switch = 4
	fEventSchedWakeup     = 17  // SchedWakeupFtraceEvent sched_wakeup = 17
	fEventSchedWaking     = 20  // SchedWakingFtraceEvent sched_waking = 20
	fEventSchedWakeupNew  = 114 // SchedWakeupNewFtraceEvent sched_wakeup_new = 114
	fEventTaskRename      = 236 // TaskRenameFtraceEvent task_rename = 236
	fEventSchedExit       = 238 // SchedProcessExitFtraceEvent sched_process_exit = 238
	fEventSchedFork       = 239 // SchedProcessForkFtraceEvent sched_process_fork = 239
	fEventGeneric         = 327 // GenericFtraceEvent generic = 327
	fEventSchedMigrate    = 491 // SchedMigrateTaskFtraceEvent sched_migrate_task = 491
	fEventSchedProcessExe = 237 // SchedProcessExecFtraceEvent sched_process_exec = 237
)

// protos/perfetto/trace/ftrace/sched.proto and task.proto: the event
// messages.
const (
	// SchedSwitchFtraceEvent
	fSwitchPrevComm  = 1
	fSwitchPrevPid   = 2
	fSwitchPrevPrio  = 3
	fSwitchPrevState = 4 // int64, the kernel's prev_state bits
	fSwitchNextComm  = 5
	fSwitchNextPid   = 6
	fSwitchNextPrio  = 7

	// SchedWakeupFtraceEvent, SchedWakingFtraceEvent and
	// SchedWakeupNewFtraceEvent share these numbers.
	fWakeComm      = 1
	fWakePid       = 2
	fWakePrio      = 3
	fWakeSuccess   = 4
	fWakeTargetCPU = 5

	// SchedMigrateTaskFtraceEvent
	fMigrateComm    = 1
	fMigratePid     = 2
	fMigratePrio    = 3
	fMigrateOrigCPU = 4
	fMigrateDestCPU = 5

	// SchedProcessForkFtraceEvent
	fForkParentComm = 1
	fForkParentPid  = 2
	fForkChildComm  = 3
	fForkChildPid   = 4

	// SchedProcessExitFtraceEvent
	fExitComm = 1
	fExitPid  = 2
	fExitTgid = 3
	fExitPrio = 4

	// SchedProcessExecFtraceEvent
	fExecFilename = 1
	fExecPid      = 2

	// TaskRenameFtraceEvent (task.proto)
	fRenamePid     = 1
	fRenameOldComm = 2
	fRenameNewComm = 3

	// GenericFtraceEvent (generic.proto) and its Field.
	fGenericName  = 1 // optional string event_name = 1
	fGenericField = 2 // repeated Field field = 2
	fFieldName    = 1 // Field.name = 1
	fFieldStr     = 3 // Field.str_value = 3
	fFieldInt     = 4 // Field.int_value = 4
	fFieldUint    = 5 // Field.uint_value = 5
)

// protos/perfetto/trace/ftrace/ftrace_stats.proto: FtraceStats and
// FtraceCpuStats.
const (
	fStatsPhase      = 1 // optional Phase phase = 1
	fStatsCPU        = 2 // repeated FtraceCpuStats cpu_stats = 2
	phaseEndOfTrace  = 2 // Phase END_OF_TRACE = 2
	fCPUStatsCPU     = 1 // optional uint64 cpu = 1
	fCPUStatsOverrun = 3 // optional uint64 overrun = 3
	fCPUStatsDropped = 8 // optional uint64 dropped_events = 8
)

// protos/perfetto/common/trace_stats.proto: TraceStats (the service's
// stats; trace processor's traced_final_flush_failed stat, a data loss).
const (
	fTraceStatsFinalFlush = 15 // optional FinalFlushOutcome final_flush_outcome = 15
	finalFlushFailed      = 2  // FinalFlushOutcome FINAL_FLUSH_FAILED = 2
)

// protos/perfetto/common/trace_attributes.proto: TraceAttributes, key-value
// pairs about the trace (trace processor's metadata rows
// "trace_attribute.KEY", the Overview of Perfetto's UI).
const (
	fAttributes    = 1 // repeated Attribute attribute = 1
	fAttributeKey  = 1 // Attribute.key = 1
	fAttributeLong = 2 // Attribute.long_value = 2 (oneof value)
	fAttributeStr  = 3 // Attribute.string_value = 3 (oneof value)
)
