package perfettopb

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/traceview/traceview/trace"
)

// trackDescriptor reads a TrackDescriptor: a thread track whose
// description is a cgroup label (cgroupLabel: "cgroup=" and the path, or
// "cgroup=id N"), as Write writes one per task whose cgroup the source
// knew, notes the thread's cgroup (applyCgroups). Other tracks are not
// read.
func (rd *Reader) trackDescriptor(b []byte, off int64) error {
	var desc string
	tid := int64(-1)
	err := fields(b, off, func(num protowire.Number, typ protowire.Type, _ uint64, v []byte) error {
		switch {
		case num == fTrackDescription && typ == protowire.BytesType:
			desc = string(v)
		case num == fTrackThread && typ == protowire.BytesType:
			return fields(v, off, func(num protowire.Number, typ protowire.Type, x uint64, _ []byte) error {
				if num == fThreadDescTid && typ == protowire.VarintType {
					tid = int64(int32(x))
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	label, ok := strings.CutPrefix(desc, "cgroup=")
	if !ok || tid <= 0 || label == "" {
		return nil
	}
	if rd.taskCgroup == nil {
		rd.taskCgroup = map[trace.TID]string{}
	}
	rd.taskCgroup[trace.TID(tid)] = label
	return nil
}

// pathIDBase is where the ids applyCgroups gives paths begin: above
// kernfs node ids of any real hierarchy's groups an unresolved "id N"
// label may carry, and below the cgroup v1 bit (trace.V1CgroupIDBit, bit
// 63).
const pathIDBase = 1 << 48

// applyCgroups gives the tasks the cgroups their thread tracks name
// (trackDescriptor): each path an id of its own (Meta.Cgroups, in path
// order from pathIDBase; the root "/" 1), an unresolved "id N" its N unnamed, on each sched_switch
// of the task switched out (trace.Event.Cgroup: the group as of its
// switch-out). Write keeps one cgroup per task, the latest its source
// showed, and no group settings or cpu.stat: a task that moved reads as
// in its last group throughout (new-user pass 85 F2: read back, every task
// was in "(no cgroup recorded)").
func (rd *Reader) applyCgroups() {
	if len(rd.taskCgroup) == 0 {
		return
	}
	ids := map[string]uint64{}
	paths := slices.Sorted(maps.Values(rd.taskCgroup))
	for _, p := range paths {
		if _, ok := ids[p]; ok {
			continue
		}
		if n, ok := strings.CutPrefix(p, "id "); ok {
			if id, err := strconv.ParseUint(n, 10, 64); err == nil && id > 0 {
				ids[p] = id
			}
			continue
		}
		ids[p] = pathIDBase + uint64(len(rd.meta.Cgroups))
		if p == "/" {
			ids[p] = 1 // (cgroup v2's root, kernfs node 1, as the other readers name it)
		}
		if rd.meta.Cgroups == nil {
			rd.meta.Cgroups = map[uint64]string{}
		}
		rd.meta.Cgroups[ids[p]] = p
	}
	for i := range rd.events {
		if e := &rd.events[i]; e.Kind == trace.KindSwitch && e.TID > 0 && e.Cgroup == 0 {
			if p, ok := rd.taskCgroup[e.TID]; ok {
				e.Cgroup = ids[p]
			}
		}
	}
}
