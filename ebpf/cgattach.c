//go:build ignore

// SPDX-License-Identifier: GPL-2.0
/* traceview: the moment a task changes cgroup. The kernel fires the
 * cgroup_attach_task tracepoint once per successful attach, after the
 * migration, with the destination cgroup, its path (relative to its
 * hierarchy's root), the task written to the tasks or cgroup.procs file
 * and whether its whole thread group moved (cgroup_attach_task(),
 * kernel/cgroup/cgroup.c v6.18: TRACE_CGROUP_PATH(attach_task, dst_cgrp,
 * leader, threadgroup); TP_PROTO in include/trace/events/cgroup.h).
 *
 * traceview record uses it for cgroup v1 cpu-controller groups, whose
 * membership the sched_switch record cannot carry (its cgroup id is the
 * task's cgroup v2 group): the tasks files, read every 100 ms, place a task
 * in a group to within the reading interval; these records place each move
 * at its nanosecond. Attaches are rare (a process start under systemd or a
 * container runtime, a manual echo), so one BPF ring buffer shared by every
 * CPU costs nothing that matters, unlike for the scheduler records (see
 * sched.c). */
#include "sched_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* include/linux/cgroup-defs.h: a hierarchy and one of its cgroups. */
struct cgroup_root {
	int hierarchy_id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct cgroup_root *root;
} __attribute__((preserve_access_index));

/* Paths longer than this are cut (path_len says so); the kernel builds the
 * path in a buffer of TRACE_CGROUP_PATH_LEN (1024) bytes. */
#define TV_CG_PATH 256

/* One attach: 280 bytes. */
struct cg_move {
	u64 ts;           /* bpf_ktime_get_ns: CLOCK_MONOTONIC, ns, as sched.c's records */
	s32 pid;          /* the task attached (its thread group's leader when threadgroup) */
	s32 tgid;         /* its process */
	s32 hierarchy;    /* the destination's hierarchy id (/proc/cgroups' second column) */
	u16 path_len;     /* bytes bpf_probe_read_kernel_str copied, its NUL included */
	u8 threadgroup;   /* 1: every thread of the process moved (a cgroup.procs write) */
	u8 pad;
	char path[TV_CG_PATH]; /* destination, relative to the hierarchy's root ("/" the root) */
};

struct cg_move *unused_cg_move __attribute__((unused));

/* Set by the loader: the one hierarchy wanted (0: all). */
const volatile s32 want_hierarchy = 0;

/* Attaches that found the ring buffer full. */
u64 moves_lost = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} moves SEC(".maps");

/* ctx[i] is the i-th argument of TP_PROTO(struct cgroup *dst_cgrp, const
 * char *path, struct task_struct *task, bool threadgroup). */
SEC("tp_btf/cgroup_attach_task")
int tp_btf_cgroup_attach_task(u64 *ctx)
{
	struct cgroup *dst = (struct cgroup *)ctx[0];
	const char *path = (const char *)ctx[1];
	struct task_struct *task = (struct task_struct *)ctx[2];
	s32 h = BPF_CORE_READ(dst, root, hierarchy_id);
	struct cg_move *m;
	long n;

	if (want_hierarchy && h != want_hierarchy)
		return 0;
	m = bpf_ringbuf_reserve(&moves, sizeof(*m), 0);
	if (!m) {
		__sync_fetch_and_add(&moves_lost, 1);
		return 0;
	}
	m->ts = bpf_ktime_get_ns();
	m->pid = BPF_CORE_READ(task, pid);
	m->tgid = BPF_CORE_READ(task, tgid);
	m->hierarchy = h;
	m->threadgroup = (bool)ctx[3];
	m->pad = 0;
	n = bpf_probe_read_kernel_str(m->path, sizeof(m->path), path);
	m->path_len = n > 0 ? (u16)n : 0;
	bpf_ringbuf_submit(m, 0);
	return 0;
}
