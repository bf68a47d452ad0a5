package replay

// guessRoot picks the traced command when the trace does not name it (no
// recorder fork, no command line, e.g. trace-cmd extract or raw ftrace): the
// task forked inside the trace, by a task that was not itself forked inside
// it, whose process tree used the most CPU time.
func (x *extractor) guessRoot() {
	m := x.m
	cpu := make([]int64, len(m.Tasks))
	for i := len(m.Tasks) - 1; i >= 0; i-- { // children follow parents
		for _, b := range m.Tasks[i].Bursts {
			cpu[i] += b.Len
		}
		if p := m.Tasks[i].Parent; p >= 0 {
			cpu[p] += cpu[i]
		}
	}
	best := -1
	for i := range m.Tasks {
		tk := &m.Tasks[i]
		if tk.Init != InitForked || tk.Parent < 0 || m.Tasks[tk.Parent].Init == InitForked {
			continue
		}
		if best < 0 || cpu[i] > cpu[best] {
			best = i
		}
	}
	if best >= 0 {
		m.WorkloadRoot = m.Tasks[best].TID
		m.Tasks[best].Workload = true
	}
}
