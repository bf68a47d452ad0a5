//go:build ignore

// SPDX-License-Identifier: GPL-2.0
/*
 * kstate.bpf.c: the kernel's EEVDF state at the wakeups and sleeps of the
 * tasks whose name starts with COMM (a -DCOMM="reqsrv" define), written
 * with bpf_printk to tracefs' trace_pipe. bench/kstate/run.sh builds and
 * loads it; docs/replay.md (WAKEUP_DEQUEUE_DELAYED, G12) gives what it
 * measured. BTF-enabled tracepoints (tp_btf) read the task_struct directly;
 * vmlinux.h comes from bpftool btf dump of the running kernel, so the
 * fields are those of the kernel it runs on (cfs_rq->nr_queued, ->next,
 * ->curr, sched_entity->vprot and ->sched_delayed: Linux 6.12 and later).
 *
 * Lines (per event, ns):
 *   W <pid> n=<next buddy: 0 none, 1 the wakee, 2 another> rc=<rq curr pid>
 *     pd=<wakee deadline - vruntime> cv=<curr vruntime - wakee's>
 *     cd=<curr deadline - wakee vruntime> cp=<curr vprot - wakee vruntime>
 *     nq=<cfs_rq nr_queued> fl=<rq curr thread flags, hex>
 *   S <pid> st=<prev_state> del=<sched_delayed> onrq=<on_rq> vlag=<vlag>
 *     nq=<nr_queued>                          (at sched_switch, prev)
 *   K <pid> b=<nr_queued at sched_waking> a=<at sched_wakeup>
 *     del=<delayed at waking> onrq=<on_rq at waking> cpu=<waking cpu>
 *     now=<wakeup cpu> rc=<rq curr pid>
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#ifndef COMM
#define COMM "reqsrv"
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, u64);
} waking SEC(".maps");

static __always_inline int match(struct task_struct *p)
{
	const char want[] = COMM;
	char c[sizeof(want)];

	bpf_probe_read_kernel_str(c, sizeof(c), p->comm);
	for (int i = 0; i < sizeof(want) - 1; i++)
		if (c[i] != want[i])
			return 0;
	return 1;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	if (!match(p))
		return 0;
	u32 pid = p->pid;
	u64 v = ((u64)p->se.cfs_rq->nr_queued << 8) | ((u64)p->se.sched_delayed << 1) | p->se.on_rq;

	v |= (u64)bpf_get_smp_processor_id() << 32;
	bpf_map_update_elem(&waking, &pid, &v, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(on_wakeup, struct task_struct *p)
{
	if (!match(p))
		return 0;
	struct sched_entity *se = &p->se;
	struct cfs_rq *cfs = se->cfs_rq;
	struct sched_entity *next = cfs->next, *curr = cfs->curr;
	struct task_struct *rc = cfs->rq->curr;
	long n = next == se ? 1 : (next ? 2 : 0);
	s64 cv = 0, cd = 0, cp = 0;

	if (curr) {
		cv = curr->vruntime - se->vruntime;
		cd = curr->deadline - se->vruntime;
		cp = curr->vprot - se->vruntime;
	}
	bpf_printk("W %d n=%ld rc=%d", p->pid, n, rc->pid);
	bpf_printk("  pd=%lld cv=%lld cd=%lld", (s64)(se->deadline - se->vruntime), cv, cd);
	bpf_printk("  cp=%lld nq=%u fl=%lx", cp, cfs->nr_queued, rc->thread_info.flags);

	u32 pid = p->pid;
	u64 *b = bpf_map_lookup_elem(&waking, &pid);
	if (b) {
		u64 v = *b;
		bpf_printk("K %d b=%llu a=%u", pid, (v >> 8) & 0xffffff, cfs->nr_queued);
		bpf_printk("  del=%llu onrq=%llu cpu=%llu", (v >> 1) & 1, v & 1, v >> 32);
		bpf_printk("  now=%u rc=%d", bpf_get_smp_processor_id(), rc->pid);
		bpf_map_delete_elem(&waking, &pid);
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next, unsigned int prev_state)
{
	if (!match(prev))
		return 0;
	struct sched_entity *se = &prev->se;

	bpf_printk("S %d st=%u del=%d", prev->pid, prev_state, se->sched_delayed);
	bpf_printk("  onrq=%d vlag=%lld nq=%u", se->on_rq, se->vlag, se->cfs_rq->nr_queued);
	return 0;
}
