/* Trimmed CO-RE types for traceview's scheduler capture.
 *
 * Only the task_struct members the programs read, declared with
 * preserve_access_index so that clang emits BTF relocations and the loader
 * (cilium/ebpf) fixes the offsets for the running kernel from
 * /sys/kernel/btf/vmlinux. Member names and types follow include/linux/sched.h
 * (Linux 6.x); a member a kernel lacks is probed with bpf_core_field_exists.
 */
#ifndef TRACEVIEW_SCHED_TYPES_H
#define TRACEVIEW_SCHED_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed int __s32;
typedef signed long long __s64;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

/* BPF map and helper constants (include/uapi/linux/bpf.h). */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};
#define BPF_F_USER_STACK (1ULL << 8)
#define BPF_F_NO_PREALLOC 1
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
#define BPF_ANY 0
#define BPF_NOEXIST 1
#define BPF_F_CURRENT_CPU 0xffffffffULL

/* CONFIG_THREAD_INFO_IN_TASK kernels (x86, arm64 since 5.16) keep the CPU in
 * thread_info. */
struct thread_info {
	u32 cpu;
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	int prio;
	unsigned int policy; /* SCHED_NORMAL 0, FIFO 1, RR 2, BATCH 3, IDLE 5, DEADLINE 6 (include/uapi/linux/sched.h) */
	int exit_state;
	int pid;
	int tgid;
	char comm[16];
	void *stack;
} __attribute__((preserve_access_index));

/* arm64 keeps preempt_count in thread_info. */
struct thread_info___pc {
	u64 preempt_count;
} __attribute__((preserve_access_index));

struct task_struct___pc {
	struct thread_info___pc thread_info;
} __attribute__((preserve_access_index));

/* x86-64 saved user registers at the top of the task stack. */
struct pt_regs {
	unsigned long orig_ax;
	unsigned long cs;
} __attribute__((preserve_access_index));

/* Kernels whose CPU field lives in task_struct itself. */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

/* Classic (non-BTF) tracepoint payloads, include/trace/events/sched.h; CO-RE
 * relocates them too (vmlinux BTF carries trace_event_raw_* types). */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_switch {
	struct trace_entry ent;
	char prev_comm[16];
	int prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	int next_pid;
	int next_prio;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_wakeup_template {
	struct trace_entry ent;
	char comm[16];
	int pid;
	int prio;
	int target_cpu;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_migrate_task {
	struct trace_entry ent;
	char comm[16];
	int pid;
	int prio;
	int orig_cpu;
	int dest_cpu;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_process_fork {
	struct trace_entry ent;
	/* parent_comm and child_comm are __string (__data_loc) since 6.10,
	 * char[16] before: not read, the names come from the tasks. */
	int parent_pid;
	int child_pid;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_process_template {
	struct trace_entry ent;
	char comm[16];
	int pid;
	int prio;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_process_exec {
	struct trace_entry ent;
	unsigned int __data_loc_filename;
	int pid;
	int old_pid;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_stat_runtime {
	struct trace_entry ent;
	char comm[16];
	int pid;
	u64 runtime;
} __attribute__((preserve_access_index));

struct trace_event_raw_task_rename {
	struct trace_entry ent;
	int pid;
	char oldcomm[16];
	char newcomm[16];
} __attribute__((preserve_access_index));

#endif
