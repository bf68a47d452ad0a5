// Package tidmap maps thread IDs to values with a slice lookup: the hot
// loops of the schedule reconstruction and the latency report look a task up
// several times per event, and a slice index costs a fraction of a map's
// hashing.
package tidmap

// MaxDense bounds the keys kept in the dense slice: the kernel's
// PID_MAX_LIMIT, 4M (include/linux/threads.h), so that every real TID is
// dense; larger or negative keys (a damaged trace) go to a map.
const MaxDense = 1 << 22

// Map maps keys (a TID type) to values; the zero value of V means absent.
// The zero Map is empty and ready to use. Memory is 8 bytes (a pointer V) per
// key up to the largest key set, grown by doubling.
type Map[K ~int32, V comparable] struct {
	dense  []V
	sparse map[K]V
}

// Get returns the value of k, or the zero V.
func (m *Map[K, V]) Get(k K) V {
	if k >= 0 && int(k) < len(m.dense) {
		return m.dense[k]
	}
	return m.sparse[k]
}

// Set makes v the value of k.
func (m *Map[K, V]) Set(k K, v V) {
	if k >= 0 && k < MaxDense {
		if int(k) >= len(m.dense) {
			n := max(2*len(m.dense), int(k)+1024)
			n = min(n, MaxDense)
			m.dense = append(m.dense, make([]V, n-len(m.dense))...)
		}
		m.dense[k] = v
		return
	}
	if m.sparse == nil {
		m.sparse = map[K]V{}
	}
	m.sparse[k] = v
}
