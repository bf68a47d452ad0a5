package trace

import (
	"maps"
	"slices"
	"sync"
)

// seriesCgroups gives the cgroup ids of the parts of one recording (Concat)
// one numbering, by path. Each file of a record --rotate series, and each
// ring dump, has a cgroup table of its own (Meta.Cgroups): traceview record
// gave the cgroup v1 cpu groups ids (V1CgroupIDBit with a number) in the
// order each file met them, so one id named /a in one file and /q in the
// next, and the parts read as one put one group's tasks under the other's
// name (new-user pass 52 F2: a hog of /nu52b under /nu52q, which then
// used 0.45 CPUs under a quota of 0.3). A cgroup v2 id is the kernel's
// (the directory's kernfs node id) and stable while the group lives, but
// a group removed and made again under its path between two files has a
// new one. So a path keeps the id it got first, in the parts' order; a
// part's id that the parts before it gave another path gets a new one
// (fresh); the events' ids (Event.Cgroup) are rewritten to match (id).
type seriesCgroups struct {
	// out is the Concat's Meta, whose Cgroups is the merged id -> path
	// table (nil until a part names a cgroup), guarded by its CgroupsMu
	// when set (a part's table grows while it is read); byPath is the id
	// each path got first.
	out    *Meta
	byPath map[string]uint64
	// taken: every id of every part's table as the parts were opened, and
	// every id handed out since (a fresh id is none of them).
	taken map[uint64]bool
	// ids maps, per part, its ids to the merged ones.
	ids []map[uint64]uint64
	// unnamed are the merged ids given to cgroup v1 ids that their part's
	// table lacks (see id): groups of that part alone, which no path of
	// another part may join.
	unnamed map[uint64]bool
}

// newSeriesCgroups numbers the cgroups of metas, the parts' descriptions
// in the order they are read, as the parts were opened, into out.Cgroups.
func newSeriesCgroups(out *Meta, metas []*Meta) *seriesCgroups {
	s := &seriesCgroups{out: out, byPath: map[string]uint64{}, taken: map[uint64]bool{}, ids: make([]map[uint64]uint64, len(metas)), unnamed: map[uint64]bool{}}
	for k := range metas {
		s.ids[k] = map[uint64]uint64{}
	}
	for _, m := range metas {
		if m == nil {
			continue
		}
		if m.CgroupsMu != nil && out.CgroupsMu == nil {
			out.CgroupsMu = &sync.RWMutex{}
		}
		for id := range s.snapshot(m) {
			s.taken[id] = true
		}
	}
	for k, m := range metas {
		s.addPart(k, m)
	}
	return s
}

// snapshot returns a copy of m's cgroup table, read under its CgroupsMu.
func (s *seriesCgroups) snapshot(m *Meta) map[uint64]string {
	if m.CgroupsMu != nil {
		m.CgroupsMu.RLock()
		defer m.CgroupsMu.RUnlock()
	}
	return maps.Clone(m.Cgroups)
}

// addPart numbers the ids of part k's table that are not yet numbered, in
// increasing order (the same merged ids on every read).
func (s *seriesCgroups) addPart(k int, m *Meta) {
	if m == nil {
		return
	}
	t := s.snapshot(m)
	for _, id := range slices.Sorted(maps.Keys(t)) {
		if _, ok := s.ids[k][id]; !ok {
			s.name(k, id, t[id])
		}
	}
}

// name returns the merged id of part k's id, which names path there: the
// id path got first, else id itself when no earlier part named another
// path with it, else a fresh id.
func (s *seriesCgroups) name(k int, id uint64, path string) uint64 {
	to, ok := s.byPath[path]
	if !ok {
		to = id
		if p, named := s.out.Cgroups[id]; named && p != path || s.unnamed[id] {
			to = s.fresh(id)
		}
		if mu := s.out.CgroupsMu; mu != nil {
			mu.Lock()
			defer mu.Unlock()
		}
		if s.out.Cgroups == nil {
			s.out.Cgroups = map[uint64]string{}
		}
		s.out.Cgroups[to], s.byPath[path] = path, to
	}
	s.taken[to] = true
	s.ids[k][id] = to
	return to
}

// fresh returns an id that no part's table holds and that was not handed
// out: for a cgroup v1 id (V1CgroupIDBit), the next number up; for another
// (a cgroup v2 id), counting down from just below AutogroupIDBit, which a
// kernfs node id does not reach (the kernel counts them up from 1).
func (s *seriesCgroups) fresh(id uint64) uint64 {
	if id&V1CgroupIDBit != 0 {
		for id++; s.taken[id] || id == 0; id++ {
			if id == 0 {
				id = V1CgroupIDBit // (past the last number)
			}
		}
		return id
	}
	id = AutogroupIDBit - 1
	for s.taken[id] {
		id--
	}
	return id
}

// id returns the merged id of id, an event's cgroup id (Event.Cgroup) in
// part k described by m. An id the part's table lacks is looked up again
// (a table that grows while it is read: Meta.CgroupsMu); still unnamed, a
// cgroup v2 id stays as it is (the kernel's, which another part may name),
// and a cgroup v1 id (the part's own number) too, unless another part
// names it or has it unnamed: then it gets a fresh id, the same for the
// rest of the part, that no table names ("cgroup id N").
func (s *seriesCgroups) id(k int, m *Meta, id uint64) uint64 {
	if id == 0 {
		return 0
	}
	if to, ok := s.ids[k][id]; ok {
		return to
	}
	if m != nil {
		if p, ok := m.CgroupPath(id); ok {
			return s.name(k, id, p)
		}
	}
	to := id
	if id&V1CgroupIDBit != 0 {
		if _, named := s.out.Cgroups[id]; named || s.unnamed[id] {
			to = s.fresh(id)
		}
		s.unnamed[to] = true
	}
	s.taken[to] = true
	s.ids[k][id] = to
	return to
}
