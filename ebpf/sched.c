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

/* Record kinds; the numbers are trace.Kind's (trace/event.go). TV_TASK is
 * not an event: it tells the reader what a task is (see note below). */
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
	TV_TASK = 64,
};

/* Record flags. */
enum {
	TV_F_PREEMPT = 1,   /* sched_switch: prev was preempted */
	TV_F_IRQ_KNOWN = 2, /* the in-interrupt bit below is meaningful */
	TV_F_IRQ = 4,       /* emitted in interrupt context (hardirq, softirq, NMI) */
	TV_F_WAKER = 8,     /* wakeups: the waker is known (cur_tid, or ext1 in a record_ext; its CPU arg2) */
	TV_F_PID = 16,      /* task records: pid is known */
	TV_F_CGROUP = 32,   /* task records: cgroup is known */
	TV_F_POLICY = 64,   /* task records: policy is known */
};

/* What every record starts with: 16 bytes, little-endian. */
struct hdr {
	u64 ts;      /* bpf_ktime_get_ns: CLOCK_MONOTONIC, ns */
	u8 kind;
	u8 flags;
	u16 cpu;     /* emitting CPU */
	s32 cur_tid; /* task current on cpu */
};

/* An event: 28 bytes, which perf stores in 40 (its 8-byte header and the
 * 4-byte raw size, padded to 8). Names, PIDs, priorities and cgroups are
 * not repeated in each record: they are in task records (TV_TASK), written
 * only when they change (note). bpf2go -type record generates the Go twins
 * of these structs (sched_bpfel.go); layout_linux_test.go checks every
 * offset record.go decodes at against them. */
struct record {
	struct hdr h;
	s32 tid;  /* subject: prev, wakee, migrating task, parent, exec'ing, exiting or renamed task */
	u32 arg1; /* switch: next's TID; wakeups: target CPU; migrate: orig CPU; fork: child's TID; runtime: low half */
	u32 arg2; /* switch: prev_state (tp_btf: prev->__state | exit_state); wakeups: waker CPU;
		   * migrate: dest CPU; fork: child's PID (-1 unknown); runtime: high half */
} __attribute__((packed, aligned(4)));

/* An event with two more words: 36 bytes (48 in perf's buffer). */
struct record_ext {
	struct record r;
	s32 ext1; /* switch (want_stacks): kernel stack id in stacks, < 0 none; classic sched_wakeup: waker TID */
	s32 ext2; /* switch (want_stacks): user stack id in stacks, < 0 none */
} __attribute__((packed, aligned(4)));

/* A task as this CPU's records name it from now on: 56 bytes (64 in
 * perf's buffer). */
struct task_record {
	struct hdr h; /* kind TV_TASK */
	s32 tid;
	s32 pid;      /* -1 unknown (classic programs: tasks other than current) */
	s32 prio;
	u32 policy;   /* task_struct.policy (SCHED_NORMAL 0 .. SCHED_DEADLINE 6) when TV_F_POLICY */
	char comm[16];
	u64 cgroup;   /* cgroup v2 id (bpf_get_current_cgroup_id) when TV_F_CGROUP: the task was current */
};

/* Make the types reach BTF for bpf2go -type. */
struct record *unused_record __attribute__((unused));
struct record_ext *unused_record_ext __attribute__((unused));
struct task_record *unused_task_record __attribute__((unused));
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
 * sched_wakeup in an LRU hash keyed by TID when sched_wakeup is recorded
 * (want_wakeups). tp_btf programs do not: a task-storage lookup in both
 * programs made them cost 550-580 ns a run (bpf_stats, perf bench sched
 * pipe, Linux 6.18 PVM guest), and user space pairs each sched_wakeup with
 * the task's previous sched_waking instead, after the capture (the
 * sched_waking record carries the waker as its current task, its CPU and
 * the interrupt flags). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, s32);
	__type(value, struct waker);
} wakers SEC(".maps");

/* What this CPU's records last said of a task: slot TID % TV_TASK_SLOTS
 * (see note). */
#define TV_TASK_SLOTS 4096

struct tslot {
	s32 tid;
	s32 pid;
	s32 prio;
	u32 policy; /* the policy + 1 as last written; 0 unknown */
	u64 comm[2];
	u64 cgroup;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TV_TASK_SLOTS);
	__type(key, u32);
	__type(value, struct tslot);
} tasks SEC(".maps");

/* Set by the loader before loading. */
const volatile u32 filter_cpus = 0;    /* record only CPUs in cpu_mask */
const volatile u64 cpu_mask[16] = {};  /* bit c%64 of word c/64: CPU c */
const volatile u64 thread_size = 16384; /* THREAD_SIZE of the kernel's task stacks */
const volatile u32 have_task_pt_regs = 0; /* the kernel has bpf_task_pt_regs (Linux >= 5.15) */
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
	u32 w;

	if (cpu >= 16 * 64)
		return false;
	/* & 15 gives the verifier its bound on the index, which it does not
	 * take from the test above for a CPU read from a task
	 * (migrate_wanted); the empty asm keeps clang from dropping the mask
	 * the test makes redundant. */
	w = cpu / 64;
	asm volatile("" : "+r"(w));
	return (cpu_mask[w & 15] >> (cpu % 64)) & 1;
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
 * such an interrupt is reported as from interrupt.
 *
 * stack is the current task's stack (tp_btf programs read it directly), 0
 * to read it here.
 *
 * Not inlined: the verifier gives a BPF function whose frame is 64 bytes or
 * more a per-CPU private stack (kernel/bpf/verifier.c,
 * BPF_PRIV_STACK_MIN_SIZE, Linux 6.13+), decided per function; the capture
 * programs' frames are larger than that, this function's is not, so its
 * r10 stays on the kernel's stack. */
static __noinline u8 irq_flags(u64 stack)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	u64 sp, regs, r[3];

	if (bpf_core_field_exists(((struct task_struct___pc *)cur)->thread_info.preempt_count)) {
		u64 pc = BPF_CORE_READ((struct task_struct___pc *)cur, thread_info.preempt_count);
		if (pc & (TV_HARDIRQ_MASK | TV_NMI_MASK | TV_SOFTIRQ_OFFSET))
			return TV_F_IRQ_KNOWN | TV_F_IRQ;
		return TV_F_IRQ_KNOWN;
	}
	if (!stack)
		stack = (u64)BPF_CORE_READ(cur, stack);
	if (!stack)
		return 0;
	asm volatile("%0 = r10" : "=r"(sp));
	if (sp < stack || sp >= stack + thread_size)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	regs = stack + thread_size - bpf_core_type_size(struct pt_regs);
	if (bpf_core_field_offset(struct pt_regs, cs) == bpf_core_field_offset(struct pt_regs, orig_ax) + 16) {
		/* x86-64: orig_ax, ip, cs in one read. */
		if (bpf_probe_read_kernel(r, sizeof(r), (void *)(regs + bpf_core_field_offset(struct pt_regs, orig_ax))))
			return 0;
	} else {
		r[0] = BPF_CORE_READ((struct pt_regs *)regs, orig_ax);
		r[2] = BPF_CORE_READ((struct pt_regs *)regs, cs);
	}
	if ((r[2] & 3) == 3 && (long)r[0] < 0)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	return TV_F_IRQ_KNOWN;
}

/* irq_flags for the tp_btf programs: the same test, with the saved user
 * registers read through bpf_task_pt_regs (Linux >= 5.15; have_task_pt_regs
 * says so, and the verifier skips the call where it is 0), a trusted pointer
 * the program loads from directly, instead of a bpf_probe_read_kernel copy.
 * bpf_stats under perf bench sched pipe -l 50000, medians of 11 alternating
 * runs on the shared 2-vCPU VM: sched_waking 992 -> 969 ns a run, and its
 * excess over sched_switch's in the same run 164 -> 135 ns (runs spread by
 * +-100 ns). stack is the current task's stack. */
static __noinline u8 irq_flags_btf(u64 stack)
{
	struct pt_regs *regs;
	u64 sp;

	if (!have_task_pt_regs || bpf_core_field_exists(((struct task_struct___pc *)0)->thread_info.preempt_count))
		return irq_flags(stack);
	if (!stack)
		return 0;
	asm volatile("%0 = r10" : "=r"(sp));
	if (sp < stack || sp >= stack + thread_size)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if ((regs->cs & 3) == 3 && (long)regs->orig_ax < 0)
		return TV_F_IRQ_KNOWN | TV_F_IRQ;
	return TV_F_IRQ_KNOWN;
}

/* Records are built in a per-CPU scratch area, not on the BPF stack: a
 * program using 64 bytes of stack or more gets a per-CPU private stack from
 * the x86 JIT on recent kernels (kernel/bpf/verifier.c,
 * BPF_PRIV_STACK_MIN_SIZE; seen on Linux 6.18), and the records would
 * make every program's frame that large. A program interrupted on its CPU (by a
 * softirq, hardirq or NMI running another of ours) takes the next slot:
 * nesting is strictly last-in first-out, so the unlocked depth counter is
 * exact. Deeper nesting than TV_NEST_MAX drops the record. A program fills
 * its slot with task records first (note), then with its event. */
#define TV_NEST_MAX 4

union slotbuf {
	struct record_ext r;
	struct task_record t;
};

/* What a program knows of its run, the common part of its records, and
 * the slot it builds them in: in the scratch map, with the program's
 * stack kept under 64 bytes. */
struct run {
	u64 ts;
	u32 cpu;
	s32 cur;
	s32 cur_pid;
	u32 pad;
	union slotbuf b;
};

struct scratch {
	u32 depth;
	u32 pad;
	struct run runs[TV_NEST_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* begin takes this CPU's next scratch slot for an event emitted on this
 * CPU, or returns 0 when the CPU is not recorded or no slot is free; end
 * gives the slot back. */
static __always_inline struct run *begin_if(struct scratch **sp, bool wanted)
{
	u32 zero = 0;
	struct scratch *s;
	struct run *x;
	u32 cpu = bpf_get_smp_processor_id();
	u64 id;
	u32 d;

	if (!wanted)
		return 0;
	s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	d = s->depth;
	if (d >= TV_NEST_MAX)
		return 0;
	s->depth = d + 1;
	*sp = s;
	x = &s->runs[d & (TV_NEST_MAX - 1)];
	x->cpu = cpu;
	x->ts = bpf_ktime_get_ns();
	id = bpf_get_current_pid_tgid();
	x->cur = (s32)id;
	x->cur_pid = (s32)(id >> 32);
	return x;
}

/* begin starts a record of an event emitted on this CPU, if it is wanted. */
static __always_inline struct run *begin(struct scratch **sp)
{
	return begin_if(sp, cpu_wanted(bpf_get_smp_processor_id()));
}

/* migrate_wanted says whether to record a migration from orig to dest
 * emitted on this CPU: with --cpu, also one emitted on another CPU that
 * moves a task off or onto a recorded CPU (a load balancer pulling a
 * waiting task to an unrecorded CPU runs there), so that the reader knows
 * the task left the CPUs it sees instead of reading a scheduling delay. */
static __always_inline bool migrate_wanted(u32 orig, u32 dest)
{
	return cpu_wanted(bpf_get_smp_processor_id()) || cpu_wanted(orig) || cpu_wanted(dest);
}

static __always_inline void end(struct scratch *s)
{
	s->depth--;
}

/* HEAD fills the common part h (a struct hdr lvalue) of a record. A macro:
 * the address of a packed struct's member may be unaligned. */
#define HEAD(h, x, k, f)                 \
	do {                             \
		(h).ts = (x)->ts;        \
		(h).kind = (k);          \
		(h).flags = (f);         \
		(h).cpu = (u16)(x)->cpu; \
		(h).cur_tid = (x)->cur;  \
	} while (0)

/* A task record to fill in for note: its common part, pid and cgroup
 * unknown, comm zeroed. */
static __always_inline struct task_record *task_rec(struct run *x)
{
	struct task_record *t = &x->b.t;

	HEAD(t->h, x, TV_TASK, 0);
	t->pid = -1;
	t->policy = 0;
	t->cgroup = 0;
	return t;
}

/* note makes sure that the reader knows the task of t (tid, pid, prio,
 * comm and, with TV_F_CGROUP and TV_F_POLICY, cgroup and policy) as t says before it reads this CPU's
 * next event: this CPU's slot of the TID holds what its records last said
 * of it, and a task record is written only when that differs (or the slot
 * holds another task). Unknown fields (classic programs) are taken from
 * the slot. A task record perf could not store leaves the slot as it was,
 * so it is written again next time. The reader keeps, per CPU, the last
 * task record of each TID (record.go). */
static __always_inline void note(void *ctx, struct task_record *t)
{
	u32 key = (u32)t->tid & (TV_TASK_SLOTS - 1);
	struct tslot *sl = bpf_map_lookup_elem(&tasks, &key);
	u64 *c = (u64 *)t->comm;

	if (!sl)
		return;
	if (sl->tid == t->tid) {
		if (!(t->h.flags & TV_F_PID) && sl->pid >= 0) {
			t->pid = sl->pid;
			t->h.flags |= TV_F_PID;
		}
		if (!(t->h.flags & TV_F_CGROUP) && sl->cgroup) {
			t->cgroup = sl->cgroup;
			t->h.flags |= TV_F_CGROUP;
		}
		if (!(t->h.flags & TV_F_POLICY) && sl->policy) {
			t->policy = sl->policy - 1;
			t->h.flags |= TV_F_POLICY;
		}
		if (sl->pid == t->pid && sl->prio == t->prio && sl->cgroup == t->cgroup &&
		    sl->policy == ((t->h.flags & TV_F_POLICY) ? t->policy + 1 : 0) &&
		    sl->comm[0] == c[0] && sl->comm[1] == c[1])
			return;
	}
	if (bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, t, sizeof(*t)) != 0)
		return;
	sl->tid = t->tid;
	sl->pid = t->pid;
	sl->prio = t->prio;
	sl->policy = (t->h.flags & TV_F_POLICY) ? t->policy + 1 : 0;
	sl->cgroup = t->cgroup;
	sl->comm[0] = c[0];
	sl->comm[1] = c[1];
}

/* note_btf notes task p (a BTF-typed, trusted pointer: direct, CO-RE
 * relocated loads, which cost far less than bpf_probe_read_kernel calls);
 * cgroup, when not 0, is its cgroup (p is current). */
static __always_inline void note_btf(void *ctx, struct run *x, struct task_struct *p, u64 cgroup)
{
	struct task_record *t = task_rec(x);

	t->tid = p->pid;
	t->pid = p->tgid;
	t->prio = p->prio;
	t->policy = p->policy;
	t->h.flags = TV_F_PID | TV_F_POLICY;
	__builtin_memcpy(t->comm, p->comm, sizeof(t->comm));
	if (cgroup) {
		t->cgroup = cgroup;
		t->h.flags |= TV_F_CGROUP;
	}
	note(ctx, t);
}

/* event writes the event in the slot, sized n (sizeof a record or a
 * record_ext), and gives the slot back. */
static __always_inline void event(void *ctx, struct scratch *s, struct run *x, u32 n)
{
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &x->b.r, n);
	end(s);
}

static __always_inline struct record *ev(struct run *x, u8 kind, u8 flags, s32 tid, u32 arg1, u32 arg2)
{
	struct record *r = &x->b.r.r;

	HEAD(r->h, x, kind, flags);
	r->tid = tid;
	r->arg1 = arg1;
	r->arg2 = arg2;
	return r;
}

/* switch_event writes the switch in the slot, with the stacks of the task
 * leaving (want_stacks: a record_ext). */
static __always_inline void switch_event(void *ctx, struct scratch *s, struct run *x)
{
	struct record_ext *r = &x->b.r;

	if (want_stacks) {
		r->ext1 = bpf_get_stackid(ctx, &stacks, 0);
		r->ext2 = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		event(ctx, s, x, sizeof(struct record_ext));
		return;
	}
	event(ctx, s, x, sizeof(struct record));
}

static __always_inline u32 task_cpu_btf(struct task_struct *p)
{
	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return ((struct task_struct___cpu *)p)->cpu;
}

/* ---- BTF-enabled tracepoints ---- */

/* ctx[i] is the i-th argument of the tracepoint's TP_PROTO. */

SEC("tp_btf/sched_switch")
int tp_btf_sched_switch(u64 *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_btf(ctx, x, prev, bpf_get_current_cgroup_id());
	note_btf(ctx, x, next, 0);
	ev(x, TV_SWITCH, (bool)ctx[0] ? TV_F_PREEMPT : 0, prev->pid, next->pid,
	   (u32)ctx[3] | (u32)prev->exit_state);
	switch_event(ctx, s, x);
	return 0;
}

/* note_current notes the current task, unless it is p (noted already). */
static __always_inline void note_current(void *ctx, struct run *x, struct task_struct *p)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (cur != p)
		note_btf(ctx, x, cur, 0);
}

/* A waking's waker is the current task (try_to_wake_up runs in the
 * waker's context); a wakeup's is its waking's (paired in user space); a
 * new task's is the parent, current here (wake_up_new_task runs in the
 * parent's context). */
static __always_inline int on_wake(void *ctx, struct task_struct *p, u8 kind)
{
	struct scratch *s;
	struct run *x;
	u8 flags = 0;

	if (!(x = begin(&s)))
		return 0;
	note_current(ctx, x, p);
	note_btf(ctx, x, p, 0);
	if (kind != TV_WAKEUP)
		flags = irq_flags_btf((u64)bpf_get_current_task_btf()->stack) | TV_F_WAKER;
	ev(x, kind, flags, p->pid, task_cpu_btf(p), x->cpu);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

SEC("tp_btf/sched_waking")
int tp_btf_sched_waking(u64 *ctx)
{
	return on_wake(ctx, (struct task_struct *)ctx[0], TV_WAKING);
}

SEC("tp_btf/sched_wakeup")
int tp_btf_sched_wakeup(u64 *ctx)
{
	return on_wake(ctx, (struct task_struct *)ctx[0], TV_WAKEUP);
}

SEC("tp_btf/sched_wakeup_new")
int tp_btf_sched_wakeup_new(u64 *ctx)
{
	return on_wake(ctx, (struct task_struct *)ctx[0], TV_WAKEUP_NEW);
}

SEC("tp_btf/sched_migrate_task")
int tp_btf_sched_migrate_task(u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	u32 orig = task_cpu_btf(p), dest = (u32)ctx[1];
	struct scratch *s;
	struct run *x;

	if (!(x = begin_if(&s, migrate_wanted(orig, dest))))
		return 0;
	note_current(ctx, x, p);
	note_btf(ctx, x, p, 0);
	ev(x, TV_MIGRATE, 0, p->pid, orig, dest);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

SEC("tp_btf/sched_process_fork")
int tp_btf_sched_process_fork(u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_current(ctx, x, parent);
	note_btf(ctx, x, parent, 0);
	note_btf(ctx, x, child, 0);
	ev(x, TV_FORK, 0, parent->pid, child->pid, child->tgid);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

static __always_inline int on_task(void *ctx, struct task_struct *p, u8 kind)
{
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_current(ctx, x, p);
	note_btf(ctx, x, p, 0);
	ev(x, kind, 0, p->pid, 0, 0);
	event(ctx, s, x, sizeof(struct record));
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
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_current(ctx, x, p);
	note_btf(ctx, x, p, 0);
	ev(x, TV_RUNTIME, 0, p->pid, (u32)ctx[1], (u32)(ctx[1] >> 32));
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

/* task_rename(task, comm): exec and prctl(PR_SET_NAME) renames, the events
 * perf records as PERF_RECORD_COMM. The tracepoint fires before the new
 * name is copied into task->comm: the task record takes it from comm. */
SEC("tp_btf/task_rename")
int tp_btf_task_rename(u64 *ctx)
{
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct task_record *t;
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_current(ctx, x, p);
	t = task_rec(x);
	t->tid = p->pid;
	t->pid = p->tgid;
	t->prio = p->prio;
	t->policy = p->policy;
	t->h.flags = TV_F_PID | TV_F_POLICY;
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), (const void *)ctx[1]);
	note(ctx, t);
	ev(x, TV_COMM, 0, p->pid, 0, 0);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

/* ---- Classic tracepoints (kernels without tp_btf) ----
 * The payload carries pids and comms but not tgids: PIDs are known only for
 * the current task. */

/* note_cur_classic notes the current task through helpers. */
static __always_inline void note_cur_classic(void *ctx, struct run *x)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	struct task_record *t = task_rec(x);

	t->tid = x->cur;
	t->pid = x->cur_pid;
	t->prio = BPF_CORE_READ(cur, prio);
	t->policy = BPF_CORE_READ(cur, policy);
	t->h.flags = TV_F_PID | TV_F_POLICY;
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	note(ctx, t);
}

/* note_classic notes a task of the payload: TID, prio and the name at
 * comm (a char array of the payload). */
static __always_inline void note_classic(void *ctx, struct run *x, s32 tid, s32 prio, const void *comm)
{
	struct task_record *t = task_rec(x);

	t->tid = tid;
	t->prio = prio;
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), comm);
	note(ctx, t);
}

SEC("tracepoint/sched/sched_switch")
int tp_sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	struct task_record *t;
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	t = task_rec(x);
	t->tid = x->cur;
	t->pid = x->cur_pid;
	t->prio = BPF_CORE_READ(ctx, prev_prio);
	t->policy = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), policy);
	t->cgroup = bpf_get_current_cgroup_id();
	t->h.flags = TV_F_PID | TV_F_CGROUP | TV_F_POLICY;
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	BPF_CORE_READ_STR_INTO(&t->comm, ctx, prev_comm);
	note(ctx, t);
	note_classic(ctx, x, BPF_CORE_READ(ctx, next_pid), BPF_CORE_READ(ctx, next_prio), ctx->next_comm);
	/* prev_state is already in the reported encoding; the loader knows (classic mode). */
	ev(x, TV_SWITCH, 0, BPF_CORE_READ(ctx, prev_pid), BPF_CORE_READ(ctx, next_pid),
	   (u32)BPF_CORE_READ(ctx, prev_state));
	switch_event(ctx, s, x);
	return 0;
}

static __always_inline int classic_wake(struct trace_event_raw_sched_wakeup_template *ctx, u8 kind)
{
	u32 cpu = bpf_get_smp_processor_id();
	u64 id = bpf_get_current_pid_tgid();
	s32 tid = BPF_CORE_READ(ctx, pid);
	struct waker w = {.tid = (s32)id, .cpu = cpu, .flags = irq_flags(0) | TV_F_WAKER};
	struct waker *saved = 0;
	struct record_ext *r;
	struct scratch *s;
	struct run *x;

	if (kind == TV_WAKING && want_wakeups)
		bpf_map_update_elem(&wakers, &tid, &w, BPF_ANY);
	else if (kind == TV_WAKEUP) {
		w.flags = 0;
		if ((saved = bpf_map_lookup_elem(&wakers, &tid)))
			w = *saved;
	}
	if (saved)
		bpf_map_delete_elem(&wakers, &tid);
	if (!(x = begin(&s)))
		return 0;
	note_cur_classic(ctx, x);
	note_classic(ctx, x, tid, BPF_CORE_READ(ctx, prio), ctx->comm);
	r = &x->b.r;
	ev(x, kind, w.flags, tid, BPF_CORE_READ(ctx, target_cpu), w.cpu);
	if (kind == TV_WAKEUP) {
		r->ext1 = w.flags ? w.tid : -1;
		r->ext2 = 0;
		event(ctx, s, x, sizeof(struct record_ext));
		return 0;
	}
	event(ctx, s, x, sizeof(struct record));
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
	u32 orig = BPF_CORE_READ(ctx, orig_cpu), dest = BPF_CORE_READ(ctx, dest_cpu);
	struct scratch *s;
	struct run *x;

	if (!(x = begin_if(&s, migrate_wanted(orig, dest))))
		return 0;
	note_cur_classic(ctx, x);
	/* comm is a __data_loc string since 6.10; not worth decoding here:
	 * the task is not noted then, the reader knows it from elsewhere. */
	if (bpf_core_field_exists(ctx->comm))
		note_classic(ctx, x, BPF_CORE_READ(ctx, pid), BPF_CORE_READ(ctx, prio), ctx->comm);
	ev(x, TV_MIGRATE, 0, BPF_CORE_READ(ctx, pid), orig, dest);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

SEC("tracepoint/sched/sched_process_fork")
int tp_sched_process_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	s32 child = BPF_CORE_READ(ctx, child_pid);
	struct task_record *t;
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	/* fork runs in the parent: the child's name and prio are its. */
	note_cur_classic(ctx, x);
	t = task_rec(x);
	t->tid = child;
	t->prio = BPF_CORE_READ(cur, prio);
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	note(ctx, t);
	ev(x, TV_FORK, 0, BPF_CORE_READ(ctx, parent_pid), child, (u32)-1);
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

static __always_inline int on_current(void *ctx, u8 kind)
{
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_cur_classic(ctx, x);
	ev(x, kind, 0, x->cur, 0, 0);
	event(ctx, s, x, sizeof(struct record));
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
	u64 runtime;
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	/* The task is current (comm is a __data_loc string since 6.10). */
	note_cur_classic(ctx, x);
	runtime = BPF_CORE_READ(ctx, runtime);
	ev(x, TV_RUNTIME, 0, BPF_CORE_READ(ctx, pid), (u32)runtime, (u32)(runtime >> 32));
	event(ctx, s, x, sizeof(struct record));
	return 0;
}

SEC("tracepoint/task/task_rename")
int tp_task_rename(struct trace_event_raw_task_rename *ctx)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	s32 tid = BPF_CORE_READ(ctx, pid);
	struct scratch *s;
	struct run *x;

	if (!(x = begin(&s)))
		return 0;
	note_cur_classic(ctx, x);
	note_classic(ctx, x, tid, tid == x->cur ? BPF_CORE_READ(cur, prio) : -1, ctx->newcomm);
	ev(x, TV_COMM, 0, tid, 0, 0);
	event(ctx, s, x, sizeof(struct record));
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

/* The switches in and delays of one window of top's live table: the window
 * is the time between two of top's snapshot times (agg_snap_at), the same
 * bounds as its run time, so count, sum and max are of the same delays (the
 * max of a window is never an older window's), and the switches in are
 * those the delays ended with (never fewer than the delays). */
struct agg_window {
	u64 epoch;    /* the window's start: the agg_snap_at it began at (0 before the first) */
	u64 switches; /* switches in */
	u64 delays;   /* delays measured */
	u64 sum;    /* ns */
	u64 max;    /* ns */
	u64 max_at; /* switch-in time (bpf_ktime_get_ns) that ended the max delay */
};

/* The time (bpf_ktime_get_ns) of top's next snapshot of run times, set by
 * user space before that time comes (ebpf.Top.SnapshotAt). A run that ends
 * after it adds its part after it to the task's post as well as the whole
 * run to runtime, so that a snapshot read at any time after agg_snap_at
 * can take the run time up to agg_snap_at exactly: runtime - post, plus
 * the part before agg_snap_at of a run still going (run_since). A switch
 * in at or after it counts in the window that begins at it. */
volatile u64 agg_snap_at;

/* The agg_snap_at before the current one: the start of the window a switch
 * in before agg_snap_at counts in. User space writes it before moving
 * agg_snap_at on, so a program that reads agg_snap_at and then this sees
 * the pair of one window or, between the two writes, the old agg_snap_at
 * (already past, so this is not used). */
volatile u64 agg_snap_prev;

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
	/* The delays of the current window (agg_snap_at) and of the one before it (read
	 * after user space moved on to the next window). */
	struct agg_window win, prev_win;
	u64 run_since; /* switch-in time of the run going on, 0 when not running */
	u64 post_at;   /* the agg_snap_at that post is counted after */
	u64 post;      /* ns of the runs ended since then, after post_at */
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

/* A new task's first totals: all zero. In global data, not on the stack,
 * which has room for one task_stat at most (512 bytes). */
struct task_stat agg_zero_stat;

static __always_inline struct task_stat *stat_of(struct task_struct *p)
{
	s32 tid = p->pid;
	struct task_stat *st = bpf_map_lookup_elem(&agg_stats, &tid);

	if (!st) {
		bpf_map_update_elem(&agg_stats, &tid, &agg_zero_stat, BPF_NOEXIST);
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
		if (oc->tid == ptid && oc->since && now > oc->since) {
			u64 snap = agg_snap_at;

			/* post before runtime, and run_since last: a copy read
			 * between the writes is caught by user space's re-read. */
			if (st->post_at != snap) {
				st->post_at = snap;
				st->post = 0;
			}
			if (snap && now > snap)
				st->post += now - (oc->since > snap ? oc->since : snap);
			__sync_fetch_and_add(&st->runtime, now - oc->since);
		}
		st->run_since = 0;
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
	st->run_since = now;
	/* Only this task's switch-in writes its windows, and a task is
	 * switched in on one CPU at a time. The window is chosen by time,
	 * as the run time's is: however late user space's writes land, a
	 * delay ending before the snapshot's time counts before it. */
	u64 at = agg_snap_at;
	u64 ep = now >= at ? at : agg_snap_prev;
	if (st->win.epoch != ep) {
		st->prev_win = st->win;
		st->win.epoch = ep;
		st->win.switches = 0;
		st->win.delays = 0;
		st->win.sum = 0;
		st->win.max = 0;
		st->win.max_at = 0;
	}
	st->win.switches++;
	if (ready) {
		u64 t = *ready;
		bpf_map_delete_elem(&agg_ready, &ntid);
		if (t && now >= t) {
			u64 d = now - t;
			u32 b = log2_u64(d);

			if (d > st->win.max) {
				st->win.max = d;
				st->win.max_at = now;
			}
			st->win.sum += d;
			st->win.delays++;
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
