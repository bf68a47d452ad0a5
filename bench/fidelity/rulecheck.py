#!/usr/bin/env python3
"""rulecheck: replays a recorded schedule through EEVDF's bookkeeping and asks,
at each timer wakeup of one task onto a CPU running another, whether the
kernel's wakeup-preemption rule (pick_eevdf with RUN_TO_PARITY, PLACE_LAG,
DELAY_DEQUEUE and DELAY_ZERO, kernel/sched/fair.c v6.12-v6.18) predicts what the
recording shows next: the wakee switched in within 40 us or not.

A diagnostic for replay fidelity (docs/replay.md, G8), not part of the tests:
where the rule and the recording disagree, the model's rule or its order of
operations differs from the kernel's. Every update_curr is in a perf.data as a
sched_stat_runtime event, so vruntimes follow the recording exactly; lag,
deadlines and delayed dequeues are the rule's. Each task's weight is its nice
level's (sched_prio_to_weight, kernel/sched/core.c; the nice from the prio
its sched_switch events show, 120 + nice), as calc_delta_fair scales run time
and slices by it; one runqueue level, the tracked tasks only (others are
taken to sit in other task groups), 2 CPUs, slice 1.4 ms (0.7 ms x 2, Linux
6.15+). With every task at nice 0 the counts are those of the equal-weight
version of 2026-12-03 (srv.2cpu, checked 2026-12-04).

Input: `perf script -F comm,pid,tid,cpu,time,event,trace` text (the shared
traces' NAME.script.txt). Output: counts per (enqueue case, rule's prediction,
recording's outcome, current task kind), mismatches first (--show N).

  python3 bench/fidelity/rulecheck.py ../shared/traces/srv.2cpu.script.txt \
      --tasks 29456,29457,29458,29459,29460,29461,29462 --wakee 29456 \
      --hogs 29457,29458 --kernel-order

--kernel-order requeues a delayed wakee before the running task's pending
update_curr (requeue_delayed_entity reads the stale avg_vruntime); without it
the running task is charged first, the replay's order before 2026-12-03.
srvn.1cpu (a nice-4 hog, 2026-12-04): of the generator's 1709 wakeups onto
the running hog the rule predicts a preemption for 1484, the recording shows
1674 switched in within 40 us; 203 are preempted where the rule keeps the
hog, most with the generator placed at lag 0 (its last dequeue delayed,
DELAY_ZERO) at the hog's own vruntime while the hog is still protected
(docs/replay.md, G12):

  python3 bench/fidelity/rulecheck.py ../shared/traces/srvn.1cpu.script.txt \
      --tasks 10169,10170,10171,10172,10173 --wakee 10169 --hogs 10170 --kernel-order

--picks also checks every switch whose next task is tracked against
pick_eevdf over the tracked tasks queued there (srv.2cpu, --kernel-order:
2423 of 2592 picks after a block agree, 4579 of 4758 after a preemption).
"""
import argparse
import re

ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("script")
ap.add_argument("--tasks", required=True, help="comma-separated TIDs to track (the workload)")
ap.add_argument("--wakee", type=int, default=0, help="TID whose wakeups are checked (the generator); 0: every tracked task's")
ap.add_argument("--hogs", default="", help="comma-separated TIDs counted as 'currhog' when running at the wakeup")
ap.add_argument("--kernel-order", action="store_true")
ap.add_argument("--show", type=int, default=0, help="print the first N mismatches per class")
ap.add_argument("--picks", action="store_true", help="also check each switch's pick against pick_eevdf")
args = ap.parse_args()
SLICE = 1400000
TRACK = set(int(x) for x in args.tasks.split(","))
GEN = args.wakee
STALE = args.kernel_order
HOGS = set(int(x) for x in args.hogs.split(",") if x)
ev=[]
for line in open(args.script):
    m=re.match(r'\s*(\S.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s*(.*)',line)
    if not m: continue
    comm,pid,tid,cpu,s,us,name,rest=m.groups()
    ev.append((int(s)*1000000000+int(us)*1000,int(cpu),int(tid),name[6:],rest))
class E: pass
ents={}
rqs={0:{'q':set(),'curr':None},1:{'q':set(),'curr':None}}
NICEW={-5:3121,-4:2501,-3:1991,-2:1586,-1:1277,0:1024,1:820,2:655,3:526,4:423,5:335,6:272,7:215,8:172,9:137,10:110}
PRIO={}
def w(t): return NICEW.get(PRIO.get(t,120)-120,1024)
def vs(t,x): return x*1024//w(t)
def V(rq):
    q=rq['q']
    if not q: return 0
    return sum(ents[t].v*w(t) for t in q)//sum(w(t) for t in q)
def elig(rq,e):
    return sum(ents[t].v*w(t) for t in rq['q']) >= e.v*sum(w(t) for t in rq['q'])
def updlag(rq,e):
    lag=V(rq)-e.v; lim=vs(e.t,max(2*SLICE,4000000))
    e.vlag=max(-lim,min(lim,lag))
def place(rq,e):
    Vv=V(rq); lag=0
    if rq['q'] and e.vlag:
        W=sum(w(t) for t in rq['q'])
        lag=e.vlag*(W+w(e.t))//W
    e.v=Vv-lag; e.dl=e.v+vs(e.t,SLICE)
def pick(rq,protect=True):
    c=rq['curr']
    q=rq['q']
    if len(q)==1: return next(iter(q))
    if c is not None and (c not in q or not elig(rq,ents[c])): c=None
    if c is not None and protect and ents[c].vprot>ents[c].v: return c
    best=None
    for t in q:
        e=ents[t]
        if t==c or not elig(rq,e): continue
        if best is None or e.dl<ents[best].dl: best=t
    if c is not None and (best is None or ents[c].dl<ents[best].dl): return c
    if best is None: return min(q,key=lambda t:ents[t].v)
    return best
def ent(t):
    if t not in ents:
        e=E(); e.t=t; e.v=0; e.dl=SLICE; e.vlag=0; e.vprot=0; e.delayed=False; e.cpu=None; e.rel=None
        ents[t]=e
    return ents[t]
started=set()
stats={}
pending={}
consumed=set()
for i,(ts,cpu,tid,name,rest) in enumerate(ev):
    if name=='sched_stat_runtime' and i in consumed: continue
    if name=='sched_stat_runtime':
        m=re.search(r'pid=(\d+) runtime=(\d+)',rest); p=int(m.group(1)); r=int(m.group(2))
        if p in TRACK and p in ents and ents[p].cpu is not None:
            e=ents[p]; e.v+=vs(p,r)
            if e.v>=e.dl: e.dl=e.v+vs(p,SLICE); e.vprot=0
    elif name=='sched_switch':
        for mm in re.finditer(r':(\d+) \[(\d+)\]',rest): PRIO[int(mm.group(1))]=int(mm.group(2))
        for mm in re.finditer(r'(?:prev|next)_pid=(\d+) (?:prev|next)_prio=(\d+)',rest): PRIO[int(mm.group(1))]=int(mm.group(2))
        m=re.search(r'(\S+):(\d+) \[\d+\] (\S+) ==> (.*):(\d+) \[',rest)
        if m:
            prev=int(m.group(2)); st=m.group(3); nxt=int(m.group(5))
        else:
            prev=int(re.search(r'prev_pid=(\d+)',rest).group(1)); st=re.search(r'prev_state=(\S+)',rest).group(1); nxt=int(re.search(r'next_pid=(\d+)',rest).group(1))
        rq=rqs[cpu]
        if prev in TRACK and prev in rq['q']:
            e=ents[prev]
            if st not in ('R','R+'):
                if not elig(rq,e): e.delayed=True
                else:
                    updlag(rq,e); rq['q'].discard(prev); e.cpu=None
            rq['curr']=None
        # kernel pick: drop delayed picks
        for _ in range(10):
            if not rq['q']: break
            pk=pick(rq)
            if ents[pk].delayed:
                e=ents[pk]; updlag(rq,e); rq['q'].discard(pk); e.delayed=False; e.cpu=None
                if e.vlag>0: e.vlag=0
            else: break
        if args.picks and nxt in TRACK and nxt in rq['q'] and len(rq['q']) >= 2:
            # The kernel's pick at this switch, with prev still current when
            # it was preempted (pick_task_fair runs before put_prev_entity);
            # delayed entities picked first are dequeued and the pick redone.
            rq['curr'] = prev if (prev in rq['q'] and st in ('R','R+')) else None
            pk = pick(rq)
            rq['curr'] = None
            k = ('pick', 'preempted' if st in ('R','R+') else 'blocked', 'match' if pk == nxt else 'differ')
            stats[k] = stats.get(k, 0) + 1
            if pk != nxt and stats[k] <= args.show:
                print('PICK', ts, cpu, 'prev', prev, st, 'next', nxt, 'rule', pk, ' '.join('%d:v-V=%d,dl-V=%d,el=%d,d=%d' % (t, ents[t].v-V(rq), ents[t].dl-V(rq), elig(rq, ents[t]), ents[t].delayed) for t in sorted(rq['q'])))
        if nxt in TRACK:
            e=ent(nxt)
            if nxt not in rq['q']:
                # unseen runnable task: enqueue
                place(rq,e); rq['q'].add(nxt); e.cpu=cpu
            rq['curr']=nxt; e.vprot=e.dl
    elif name=='sched_migrate_task':
        m=re.search(r'pid=(\d+) .*orig_cpu=(\d+) dest_cpu=(\d+)',rest); p=int(m.group(1)); a=int(m.group(2)); b=int(m.group(3))
        if p in TRACK and p in ents:
            e=ents[p]
            if e.cpu==a and p in rqs[a]['q']:
                rq=rqs[a]
                if e.delayed:
                    updlag(rq,e); rq['q'].discard(p); e.delayed=False
                    if e.vlag>0: e.vlag=0
                    e.cpu=None
                else:
                    updlag(rq,e); e.rel=e.dl-e.v; rq['q'].discard(p)
                    if rq['curr']==p: rq['curr']=None
                    place(rqs[b],e); e.dl=e.v+e.rel; rqs[b]['q'].add(p); e.cpu=b
            pending[p]=b
    elif name=='sched_waking':
        m=re.search(r'pid=(\d+) .*target_cpu=(\d+)',rest); p=int(m.group(1)); tc=int(m.group(2))
        if p not in TRACK: continue
        e=ent(p)
        # real target: a migrate event for p right after?
        tgt=tc
        for j in range(i+1,min(i+6,len(ev))):
            if ev[j][3]=='sched_migrate_task' and ('pid=%d '%p) in ev[j][4]:
                tgt=int(re.search(r'dest_cpu=(\d+)',ev[j][4]).group(1)); break
        rq=rqs[tgt]
        c0=rq['curr']
        if e.delayed and e.cpu==tgt and STALE:
            e.delayed=False
            updlag(rq,e)
            if e.vlag>0:
                rq['q'].discard(p); e.vlag=0; place(rq,e); rq['q'].add(p)
            e.delayed='done'
        if c0 is not None:
            for j in range(i+1,min(i+8,len(ev))):
                if ev[j][3]=='sched_stat_runtime' and ('pid=%d '%c0) in ev[j][4] and j not in consumed and ev[j][0]-ts<5000:
                    r=int(re.search(r'runtime=(\d+)',ev[j][4]).group(1)); ce=ents[c0]; ce.v+=vs(c0,r)
                    if ce.v>=ce.dl: ce.dl=ce.v+vs(c0,SLICE); ce.vprot=0
                    consumed.add(j); break
        case=None
        if e.delayed=='done':
            e.delayed=False; case='requeue'
        elif e.delayed and e.cpu==tgt:
            e.delayed=False
            updlag(rq,e)
            if e.vlag>0:
                rq['q'].discard(p); e.vlag=0; place(rq,e); rq['q'].add(p)
            case='requeue'
        elif e.cpu is not None and p in rqs[e.cpu]['q']:
            if e.delayed:  # delayed elsewhere -> dequeue then enqueue
                r0=rqs[e.cpu]; updlag(r0,e); r0['q'].discard(p); e.delayed=False
                if e.vlag>0: e.vlag=0
                place(rq,e); rq['q'].add(p); e.cpu=tgt; case='delayed-migr'
            else:
                continue  # already queued (self wake while running)
        else:
            place(rq,e); rq['q'].add(p); e.cpu=tgt; case='place'
        c=rq['curr']
        if (GEN and p!=GEN) or c is None or c==p or c not in TRACK: continue
        pred = pick(rq)==p
        # actual: next switch on tgt within 40us is to p?
        act=False
        for j in range(i+1,len(ev)):
            t2,c2,_,n2,r2=ev[j]
            if t2-ts>40000: break
            if c2==tgt and n2=='sched_switch':
                act = (' ==> ' in r2 and ((':%d ['%p) in r2.split(' ==> ')[1] or ('next_pid=%d '%p) in r2.split(' ==> ')[1]+' ')); break
        k=(case, 'pred' if pred else 'nopred', 'act' if act else 'noact', 'currhog' if c in HOGS else 'currother')
        stats[k]=stats.get(k,0)+1
        if pred!=act and stats[k]<=args.show:
            print('MISMATCH',ts,tgt,case,'pred',pred,'act',act,'curr',c,'gen v-V',e.v-V(rq),'vlag',e.vlag,'dl-V',e.dl-V(rq),'curr v-V',ents[c].v-V(rq),'curr dl-V',ents[c].dl-V(rq),'prot',ents[c].vprot>ents[c].v,'nq',len(rq['q']))
for k,v in sorted(stats.items()): print(k,v)
