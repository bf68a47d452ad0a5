//go:build ignore

// SPDX-License-Identifier: GPL-2.0
/* traceview scheduler capture: one fixed-size record per scheduler
 * tracepoint hit, written with bpf_perf_event_output into the emitting CPU's
 * perf buffer (a BPF_MAP_TYPE_PERF_EVENT_ARRAY), which the Go side
 * (capture_linux.go) drains into traceview's trace format.
 *
 * Why per-CPU perf buffers and not one BPF ring buffer: on the project's
 * 2-vCPU PVM guest (Linux 6.18), with kernel.bpf_stats_enabled, the
 * sched_switch program took 450-500 ns per run with bpf_ringbuf_reserve/
 * submit (one buffer and one spinlock shared by every CPU) and 140-150 ns
 * with bpf_perf_event_output (per-CPU, lock-free), under perf bench sched
 * pipe.
 *
 * Two program sets, the loader picks one: BTF-enabled tracepoints (tp_btf,
 * Linux >= 5.5, arguments are the kernel's own task_struct pointers, read
 * with CO-RE) and classic tracepoints (the tracepoint's payload, for kernels
 * without tp_btf). Tracepoint prototypes: include/trace/events/sched.h.
 *
 * What perf cannot record and we do: for every wakeup, the waker (the task
 * current when sched_waking fired: try_to_wake_up runs in the waker's
 * context), its CPU, and whether it ran in interrupt context.
 */
#include "sched_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* Record kinds; the numbers are trace.Kind's (trace/event.go). */
enum {
	TV_SWITCH = 1,
	TV_WAKING = 2,
	TV_WAKEUP = 3,
	TV_WAKEUP_NEW = 4,
	TV_MIGRATE = 5,
	TV_FORK = 6,
	TV_EXEC = 7,
	TV_EXIT = 8,
	TV_COMM = 9,
	TV_RUNTIME = 10,
};

/* Record flags. */
enum {
	TV_F_PREEMPT = 1,  /* sched_switch: prev was preempted */
	TV_F_IRQ_KNOWN = 2, /* the in-interrupt bit below is meaningful */
	TV_F_IRQ = 4,      /* emitted in interrupt context (hardirq, softirq, NMI) */
	TV_F_WAKER = 8,    /* waker_tid/waker_cpu are set */
};

/* One record: 112 bytes, little-endian. bpf2go -type record generates its
 * Go twin (schedRecord in sched_bpfel.go); record_test.go checks every
 * offset record.go decodes at against it. */
struct record {
	u64 ts;        /* bpf_ktime_get_ns: CLOCK_MONOTONIC, ns */
	u32 cpu;       /* emitting CPU */
	u8 kind;
	u8 flags;
	u16 pad;
	s32 cur_tid;   /* task current on cpu */
	s32 cur_pid;
	s32 tid;       /* subject: prev, wakee, migrating task, parent, exec'ing or exiting task */
	s32 pid;
	s32 prio;
	s32 tid2;      /* switch: next; fork: child */
	s32 pid2;
	s32 prio2;
	u32 arg1;      /* switch: prev_state; wakeups: target CPU; migrate: orig CPU; runtime: low half */
	u32 arg2;      /* switch: prev exit_state; wakeups: waker CPU; migrate: dest CPU; runtime: high half */
	s32 waker_tid; /* classic wakeups; tp_btf: -1, user space pairs each wakeup with its waking */
	s32 kstack;    /* switch with want_stacks: kernel stack id in stacks, < 0 none */
	char comm[16];
	char comm2[16];
	u64 cgroup;    /* switch: cgroup v2 id of prev (bpf_get_current_cgroup_id) */
	s32 ustack;    /* switch with want_stacks: user stack id in stacks, < 0 none */
	u32 pad2;
};

/* Make the type reach BTF for bpf2go -type record. */
struct record *unused_record __attribute__((unused));
struct task_stat *unused_task_stat __attribute__((unused));

/* Who woke a task: written at sched_waking, read at its sched_wakeup, which
 * may run later on another CPU (the target's wake list, in an IPI). */
struct waker {
	s32 tid;
	u32 cpu;
	u8 flags; /* record flags; 0: no pending waking */
};

/* One perf buffer per CPU; the loader sizes them. Records that do not fit
 * are counted by perf itself and reported to the reader (PERF_RECORD_LOST). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} events SEC(".maps");

/* Classic programs (older kernels) carry the waker from sched_waking to
 * sched_wakeup in an LRU hash keyed by TID. tp_btf programs do not: a
 * task-storage lookup in both programs made them cost 550-580 ns a run
 * (bpf_stats, perf bench sched pipe, Linux 6.18 PVM guest), and user space
 * pairs each sched_wakeup with the task's previous sched_waking instead,
 * after the capture (the sched_waking record carries the waker as its
 * current task, its CPU and the interrupt flags). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, s32);
	__type(value, struct waker);
} wakers SEC(".maps");

/* Set by the loader before loading. */
const volatile u32 filter_cpus = 0;    /* record only CPUs in cpu_mask */
const volatile u64 cpu_mask[16] = {};  /* bit c%64 of word c/64: CPU c */
const volatile u64 thread_size = 16384; /* THREAD_SIZE of the kernel's task stacks */
const volatile u32 want_stacks = 0;     /* record stacks at switch-out */
const volatile u32 want_wakeups = 0;    /* sched_wakeup is attached too (classic: keep wakers) */

/* Stacks of tasks leaving a CPU (record --stacks): kernel and user, up to
 * 127 frames (PERF_MAX_STACK_DEPTH), symbolized by user space at the end.
 * The loader sizes it (max_entries) and drops it without --stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} stacks SEC(".maps");

/* Cleared by the loader when the capture stops, before it detaches the
 * programs one by one: every program stops at once, so the capture ends
 * with one clean cut instead of, say, wakeups recorded after the last
 * sched_switch. */
volatile u32 enabled = 1;

/* cpu_wanted says whether to record an event emitted on cpu. */
static __always_inline bool cpu_wanted(u32 cpu)
{
	if (!enabled)
		return false;
	if (!filter_cpus)
		return true;
	if (cpu >= 16 * 64)
		return false;
	return (cpu_mask[cpu / 64] >> (cpu % 64)) & 1;
}

/* preempt_count bits (include/linux/preempt.h): hardirq, NMI, and serving a
 * softirq (SOFTIRQ_OFFSET; the rest of SOFTIRQ_MASK only counts bh-disabled
 * sections, which are task context). */
#define TV_HARDIRQ_MASK 0x000f0000
#define TV_NMI_MASK 0x00f00000
#define TV_SOFTIRQ_OFFSET 0x00000100

/* Whether the program runs in interrupt context (hardirq, serving softirq,
 * NMI).
 *
 * arm64 keeps preempt_count in thread_info, read with CO-RE. x86-64 keeps it
 * in a per-CPU variable that BPF reaches only through typed ksyms, which
 * need CONFIG_KALLSYMS_ALL; there we infer it from the stacks
 * (arch/x86/include/asm/irq_stack.h, arch/x86/entry): an interrupt taken in
 * kernel mode, and every softirq run from it, runs on the per-CPU IRQ stack
 * and an NMI on its own stack, so the BPF frame lies outside the task's
 * stack [task->stack, task->stack + THREAD_SIZE); an interrupt taken in user
 * mode runs on the task stack, whose saved user registers at the top then
 * carry the negated vector in orig_ax (a syscall stores its number, >= 0).
 * Known miss: a wakeup from task work run on the way back to user mode after
 * such an interrupt is reported as from interrupt. */
static __always_inline u8 irq_flags(void)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct pt_regs *regs;
	u64 stack, sp;

	if (bpf_core_field_exists(((struct task_struct___pc *)cur)->thread_info.preempt_count)) {
		u64 pc = BPF_CORE_READ((struct task_struct___pc *)cur, thread_info.preempt_count);
		if (pc & (TV_HARDIRQ_MASK | TV_NMI_MASK | TV_SOFTIRQ_OFFSET))
			return TV_F_IRQ_KNOWN | TV_F_IRQ;
		return TV_F_IRQ_KNOWN;
	}
	stack = (u64)BPF_CORE_READ(cur, stack);
	if (!stack)
		return 0;
	asm volatile("%0 = r10" : "=r"(sp));
	if (sp < stack || sp >= stack + thread_size)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	regs = (struct pt_regs *)(stack + thread_size - bpf_core_type_size(struct pt_regs));
	if ((BPF_CORE_READ(regs, cs) & 3) == 3 && (long)BPF_CORE_READ(regs, orig_ax) < 0)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	return TV_F_IRQ_KNOWN;
}

/* Records are built in a per-CPU scratch area, not on the BPF stack: a
 * program using 64 bytes of stack or more gets a per-CPU private stack from
 * the x86 JIT on recent kernels (kernel/bpf/verifier.c,
 * BPF_PRIV_STACK_MIN_SIZE; seen on Linux 6.18), and irq_flags below needs
 * r10 on the kernel's own stack. A program interrupted on its CPU (by a
 * softirq, hardirq or NMI running another of ours) takes the next slot:
 * nesting is strictly last-in first-out, so the unlocked depth counter is
 * exact. Deeper nesting than TV_NEST_MAX drops the record. */
#define TV_NEST_MAX 4

struct scratch {
	u32 depth;
	u32 pad;
	struct record recs[TV_NEST_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* get takes this CPU's next scratch record; submit gives it back. */
static __always_inline struct record *get(struct scratch **sp)
{
	u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	u32 d;

	if (!s)
		return 0;
	d = s->depth;
	if (d >= TV_NEST_MAX)
		return 0;
	s->depth = d + 1;
	*sp = s;
	return &s->recs[d & (TV_NEST_MAX - 1)];
}

/* start fills the common part of a record. */
static __always_inline void start(struct record *r, u32 cpu, u8 kind)
{
	u64 id = bpf_get_current_pid_tgid();

	r->ts = bpf_ktime_get_ns();
	r->cpu = cpu;
	r->kind = kind;
	r->flags = 0;
	r->pad = 0;
	r->cur_tid = (s32)id;
	r->cur_pid = (s32)(id >> 32);
	r->tid = r->pid = r->tid2 = r->pid2 = -1;
	r->prio = r->prio2 = -1;
	r->arg1 = r->arg2 = 0;
	r->waker_tid = -1;
	r->kstack = r->ustack = -1;
	r->cgroup = 0;
	r->pad2 = 0;
	__builtin_memset(r->comm, 0, sizeof(r->comm));
	__builtin_memset(r->comm2, 0, sizeof(r->comm2));
}

/* begin starts a record of kind for an event emitted on cpu, or returns 0
 * when the CPU is not recorded or no scratch slot is free. */
static __always_inline struct record *begin(struct scratch **sp, u32 cpu, u8 kind)
{
	struct record *r;

	if (!cpu_wanted(cpu) || !(r = get(sp)))
		return 0;
	start(r, cpu, kind);
	return r;
}

/* submit writes a record to this CPU's perf buffer and frees its scratch
 * slot. perf wakes the reader only when half a buffer is queued (the
 * loader's watermark): the reader polls on a timer, because waking it for
 * records would make the capture perturb the schedule it records. */
static __always_inline void submit(void *ctx, struct scratch *s, struct record *r)
{
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, r, sizeof(*r));
	s->depth--;
}

/* subject and object fill the record's first and second task from a
 * BTF-typed (trusted) task pointer with direct, CO-RE relocated loads, which
 * cost far less than bpf_probe_read_kernel calls. */
static __always_inline void subject(struct record *r, struct task_struct *p)
{
	r->tid = p->pid;
	r->pid = p->tgid;
	r->prio = p->prio;
	__builtin_memcpy(r->comm, p->comm, sizeof(r->comm));
}

static __always_inline void object(struct record *r, struct task_struct *p)
{
	r->tid2 = p->pid;
	r->pid2 = p->tgid;
	r->prio2 = p->prio;
	__builtin_memcpy(r->comm2, p->comm, sizeof(r->comm2));
}

static __always_inline u32 task_cpu_btf(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return ((struct task_struct___cpu *)p)->cpu;
}

/* The same through bpf_probe_read_kernel, for untrusted pointers (classic
 * programs on kernels without bpf_get_current_task_btf). */
static __always_inline void subject_probe(struct record *r, struct task_struct *p)
{
	r->tid = BPF_CORE_READ(p, pid);
	r->pid = BPF_CORE_READ(p, tgid);
	r->prio = BPF_CORE_READ(p, prio);
	BPF_CORE_READ_STR_INTO(&r->comm, p, comm);
}

/* ---- BTF-enabled tracepoints ---- */

/* ctx[i] is the i-th argument of the tracepoint's TP_PROTO. */

SEC("tp_btf/sched_switch")
int tp_btf_sched_switch(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_SWITCH)))
		return 0;
	subject(r, prev);
	object(r, next);
	if ((bool)ctx[0])
		r->flags |= TV_F_PREEMPT;
	r->arg1 = (u32)ctx[3];
	r->arg2 = prev->exit_state;
	r->cgroup = bpf_get_current_cgroup_id();
	if (want_stacks) {
		r->kstack = bpf_get_stackid(ctx, &stacks, 0);
		r->ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	}
	submit(ctx, s, r);
	return 0;
}

static __always_inline int on_waking(void *ctx, struct task_struct *p)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_WAKING)))
		return 0;
	subject(r, p);
	r->arg1 = task_cpu_btf(p);
	r->arg2 = cpu;
	r->waker_tid = r->cur_tid;
	r->flags |= irq_flags() | TV_F_WAKER;
	submit(ctx, s, r);
	return 0;
}

/* A wakeup's waker is its waking's (paired in user space); a new task's is
 * the parent, current here (wake_up_new_task runs in the parent's
 * context). */
static __always_inline int on_wakeup(void *ctx, struct task_struct *p, u8 kind)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, kind)))
		return 0;
	subject(r, p);
	r->arg1 = task_cpu_btf(p);
	if (kind == TV_WAKEUP_NEW) {
		r->waker_tid = r->cur_tid;
		r->arg2 = cpu;
		r->flags |= irq_flags() | TV_F_WAKER;
	}
	submit(ctx, s, r);
	return 0;
}

SEC("tp_btf/sched_waking")
int tp_btf_sched_waking(u64 *ctx)
{
	return on_waking(ctx, (struct task_struct *)ctx[0]);
}

SEC("tp_btf/sched_wakeup")
int tp_btf_sched_wakeup(u64 *ctx)
{
	return on_wakeup(ctx, (struct task_struct *)ctx[0], TV_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int tp_btf_sched_wakeup_new(u64 *ctx)
{
	return on_wakeup(ctx, (struct task_struct *)ctx[0], TV_WAKEUP_NEW);
}

SEC("tp_btf/sched_migrate_task")
int tp_btf_sched_migrate_task(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_MIGRATE)))
		return 0;
	subject(r, p);
	r->arg1 = task_cpu_btf(p);
	r->arg2 = (u32)ctx[1];
	submit(ctx, s, r);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int tp_btf_sched_process_fork(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_FORK)))
		return 0;
	subject(r, (struct task_struct *)ctx[0]);
	object(r, (struct task_struct *)ctx[1]);
	submit(ctx, s, r);
	return 0;
}

static __always_inline int on_task(void *ctx, struct task_struct *p, u8 kind)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, kind)))
		return 0;
	subject(r, p);
	submit(ctx, s, r);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int tp_btf_sched_process_exec(u64 *ctx)
{
	return on_task(ctx, (struct task_struct *)ctx[0], TV_EXEC);
}

SEC("tp_btf/sched_process_exit")
int tp_btf_sched_process_exit(u64 *ctx)
{
	return on_task(ctx, (struct task_struct *)ctx[0], TV_EXIT);
}

/* sched_stat_runtime(curr, runtime): CPU time charged to curr (ns), perf's
 * source of the Runtime column. */
SEC("tp_btf/sched_stat_runtime")
int tp_btf_sched_stat_runtime(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_RUNTIME)))
		return 0;
	subject(r, (struct task_struct *)ctx[0]);
	r->arg1 = (u32)ctx[1];
	r->arg2 = (u32)(ctx[1] >> 32);
	submit(ctx, s, r);
	return 0;
}

/* task_rename(task, comm): exec and prctl(PR_SET_NAME) renames, the events
 * perf records as PERF_RECORD_COMM. */
SEC("tp_btf/task_rename")
int tp_btf_task_rename(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_COMM)))
		return 0;
	subject(r, p);
	bpf_probe_read_kernel_str(r->comm, sizeof(r->comm), (const void *)ctx[1]);
	submit(ctx, s, r);
	return 0;
}

/* ---- Classic tracepoints (kernels without tp_btf) ----
 * The payload carries pids and comms but not tgids: PIDs are known only for
 * the current task. */

SEC("tracepoint/sched/sched_switch")
int tp_sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct scratch *s;
	struct record *r;
	long state;

	if (!(r = begin(&s, cpu, TV_SWITCH)))
		return 0;
	r->tid = BPF_CORE_READ(ctx, prev_pid);
	r->pid = r->cur_pid;
	r->prio = BPF_CORE_READ(ctx, prev_prio);
	BPF_CORE_READ_STR_INTO(&r->comm, ctx, prev_comm);
	r->tid2 = BPF_CORE_READ(ctx, next_pid);
	r->prio2 = BPF_CORE_READ(ctx, next_prio);
	BPF_CORE_READ_STR_INTO(&r->comm2, ctx, next_comm);
	/* Already in the reported encoding; the loader knows (classic mode). */
	state = BPF_CORE_READ(ctx, prev_state);
	r->arg1 = (u32)state;
	r->arg2 = BPF_CORE_READ(cur, exit_state);
	r->cgroup = bpf_get_current_cgroup_id();
	if (want_stacks) {
		r->kstack = bpf_get_stackid(ctx, &stacks, 0);
		r->ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	}
	submit(ctx, s, r);
	return 0;
}

static __always_inline int classic_wake(struct trace_event_raw_sched_wakeup_template *ctx, u8 kind)
{
	u32 cpu = bpf_get_smp_processor_id();
	u64 id = bpf_get_current_pid_tgid();
	s32 tid = BPF_CORE_READ(ctx, pid);
	struct waker w = {.tid = (s32)id, .cpu = cpu, .flags = irq_flags() | TV_F_WAKER};
	struct waker *saved = 0;
	struct scratch *s;
	struct record *r;

	if (kind == TV_WAKING && want_wakeups)
		bpf_map_update_elem(&wakers, &tid, &w, BPF_ANY);
	else if (kind == TV_WAKEUP && (saved = bpf_map_lookup_elem(&wakers, &tid)))
		w = *saved;
	if (saved)
		bpf_map_delete_elem(&wakers, &tid);
	if (!(r = begin(&s, cpu, kind)))
		return 0;
	r->tid = tid;
	r->prio = BPF_CORE_READ(ctx, prio);
	BPF_CORE_READ_STR_INTO(&r->comm, ctx, comm);
	r->arg1 = BPF_CORE_READ(ctx, target_cpu);
	r->arg2 = w.cpu;
	r->waker_tid = w.tid;
	r->flags |= w.flags;
	submit(ctx, s, r);
	return 0;
}

SEC("tracepoint/sched/sched_waking")
int tp_sched_waking(struct trace_event_raw_sched_wakeup_template *ctx)
{
	return classic_wake(ctx, TV_WAKING);
}

SEC("tracepoint/sched/sched_wakeup")
int tp_sched_wakeup(struct trace_event_raw_sched_wakeup_template *ctx)
{
	return classic_wake(ctx, TV_WAKEUP);
}

SEC("tracepoint/sched/sched_wakeup_new")
int tp_sched_wakeup_new(struct trace_event_raw_sched_wakeup_template *ctx)
{
	return classic_wake(ctx, TV_WAKEUP_NEW);
}

SEC("tracepoint/sched/sched_migrate_task")
int tp_sched_migrate_task(struct trace_event_raw_sched_migrate_task *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_MIGRATE)))
		return 0;
	r->tid = BPF_CORE_READ(ctx, pid);
	r->prio = BPF_CORE_READ(ctx, prio);
	/* comm is a __data_loc string since 6.10; not worth decoding here. */
	if (bpf_core_field_exists(ctx->comm))
		BPF_CORE_READ_STR_INTO(&r->comm, ctx, comm);
	r->arg1 = BPF_CORE_READ(ctx, orig_cpu);
	r->arg2 = BPF_CORE_READ(ctx, dest_cpu);
	submit(ctx, s, r);
	return 0;
}

SEC("tracepoint/sched/sched_process_fork")
int tp_sched_process_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_FORK)))
		return 0;
	/* fork runs in the parent: its name is current's. */
	subject_probe(r, cur);
	r->tid = BPF_CORE_READ(ctx, parent_pid);
	r->tid2 = BPF_CORE_READ(ctx, child_pid);
	BPF_CORE_READ_STR_INTO(&r->comm2, cur, comm);
	submit(ctx, s, r);
	return 0;
}

static __always_inline int on_current(void *ctx, u8 kind)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, kind)))
		return 0;
	subject_probe(r, (struct task_struct *)bpf_get_current_task());
	submit(ctx, s, r);
	return 0;
}

SEC("tracepoint/sched/sched_process_exec")
int tp_sched_process_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	return on_current(ctx, TV_EXEC);
}

SEC("tracepoint/sched/sched_process_exit")
int tp_sched_process_exit(struct trace_event_raw_sched_process_template *ctx)
{
	return on_current(ctx, TV_EXIT);
}

SEC("tracepoint/sched/sched_stat_runtime")
int tp_sched_stat_runtime(struct trace_event_raw_sched_stat_runtime *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;
	u64 runtime;

	if (!(r = begin(&s, cpu, TV_RUNTIME)))
		return 0;
	r->tid = BPF_CORE_READ(ctx, pid);
	r->pid = r->cur_pid;
	/* comm is a __data_loc string since 6.10; the task is current. */
	if (bpf_core_field_exists(ctx->comm))
		BPF_CORE_READ_STR_INTO(&r->comm, ctx, comm);
	runtime = BPF_CORE_READ(ctx, runtime);
	r->arg1 = (u32)runtime;
	r->arg2 = (u32)(runtime >> 32);
	submit(ctx, s, r);
	return 0;
}

SEC("tracepoint/task/task_rename")
int tp_task_rename(struct trace_event_raw_task_rename *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct scratch *s;
	struct record *r;

	if (!(r = begin(&s, cpu, TV_COMM)))
		return 0;
	r->tid = BPF_CORE_READ(ctx, pid);
	r->pid = r->cur_pid;
	BPF_CORE_READ_STR_INTO(&r->comm, ctx, newcomm);
	submit(ctx, s, r);
	return 0;
}

/* ---- In-kernel aggregation for `traceview top` (tp_btf only) ----
 * No per-event records: per task, the run time (switch-in to switch-out),
 * the switches in, and the scheduling delays (wakeup or preemption to the
 * next switch-in, perf sched latency's definition: tools/perf/builtin-sched.c
 * latency_runtime_event/latency_switch_event) as a count, sum, max (with the
 * time of its switch-in) and a log2 histogram. User space reads the map
 * every refresh and takes differences. */
#define TV_HIST 32

struct task_stat {
	u64 runtime;   /* ns */
	u64 switches;  /* switches in */
	u64 delays;    /* delays measured */
	u64 delay_sum; /* ns */
	u64 delay_max; /* ns */
	u64 max_at;    /* switch-in time (bpf_ktime_get_ns) that ended the max delay */
	u64 cgroup;    /* cgroup v2 id, from the task's last switch-out */
	s32 pid;
	u32 pad;
	char comm[16];
	u64 hist[TV_HIST]; /* hist[i]: delays d with 2^i <= d < 2^(i+1) ns (0 in hist[0]), the last open-ended */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, s32);
	__type(value, struct task_stat);
} agg_stats SEC(".maps");

/* When each runnable task became runnable (wakeup or preemption). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, s32);
	__type(value, u64);
} agg_ready SEC(".maps");

struct oncpu {
	u64 since;
	s32 tid;
	u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct oncpu);
} agg_oncpu SEC(".maps");

static __always_inline u32 log2_u64(u64 v)
{
	u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r;
}

static __always_inline struct task_stat *stat_of(struct task_struct *p)
{
	s32 tid = p->pid;
	struct task_stat *st = bpf_map_lookup_elem(&agg_stats, &tid);

	if (!st) {
		struct task_stat zero = {};
		bpf_map_update_elem(&agg_stats, &tid, &zero, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&agg_stats, &tid);
		if (!st)
			return 0;
	}
	st->pid = p->tgid;
	__builtin_memcpy(st->comm, p->comm, sizeof(st->comm));
	return st;
}

static __always_inline int agg_ready_now(struct task_struct *p)
{
	s32 tid = p->pid;
	u64 now;

	if (!enabled || !cpu_wanted(bpf_get_smp_processor_id()) || tid == 0)
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&agg_ready, &tid, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int agg_sched_wakeup(u64 *ctx)
{
	return agg_ready_now((struct task_struct *)ctx[0]);
}

SEC("tp_btf/sched_wakeup_new")
int agg_sched_wakeup_new(u64 *ctx)
{
	return agg_ready_now((struct task_struct *)ctx[0]);
}

SEC("tp_btf/sched_switch")
int agg_sched_switch(u64 *ctx)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	s32 ptid = prev->pid, ntid = next->pid;
	u32 zero = 0;
	struct oncpu *oc;
	struct task_stat *st;
	u64 now, *ready;

	if (!cpu_wanted(cpu))
		return 0;
	now = bpf_ktime_get_ns();
	oc = bpf_map_lookup_elem(&agg_oncpu, &zero);
	if (!oc)
		return 0;
	if (ptid != 0 && (st = stat_of(prev))) {
		if (oc->tid == ptid && oc->since && now > oc->since)
			__sync_fetch_and_add(&st->runtime, now - oc->since);
		st->cgroup = bpf_get_current_cgroup_id();
		/* Preempted, or switched out still runnable: its delay starts. */
		if ((bool)ctx[0] || (u32)ctx[3] == 0)
			bpf_map_update_elem(&agg_ready, &ptid, &now, BPF_ANY);
	}
	oc->since = now;
	oc->tid = ntid;
	if (ntid == 0)
		return 0;
	ready = bpf_map_lookup_elem(&agg_ready, &ntid);
	st = stat_of(next);
	if (!st)
		return 0;
	__sync_fetch_and_add(&st->switches, 1);
	if (ready) {
		u64 t = *ready;
		bpf_map_delete_elem(&agg_ready, &ntid);
		if (t && now >= t) {
			u64 d = now - t;
			u32 b = log2_u64(d);
			__sync_fetch_and_add(&st->delays, 1);
			__sync_fetch_and_add(&st->delay_sum, d);
			if (d > st->delay_max) {
				st->delay_max = d;
				st->max_at = now;
			}
			if (b >= TV_HIST)
				b = TV_HIST - 1;
			__sync_fetch_and_add(&st->hist[b & (TV_HIST - 1)], 1);
		}
	}
	return 0;
}
