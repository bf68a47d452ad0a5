package perfdata

// advisor makes the madvise calls of a mapped data section, mapping pages
// ahead of the reader (populateMapped) and releasing them behind it
// (dropMapped), on its own goroutine: about 30 ms a run on the bench file of
// docs/latency.md that the reader, the slower of the two goroutines of a
// report, no longer spends. The pages it maps are a stride ahead of the
// reader, so they are mapped before the reader gets there.
type advisor struct {
	m    []byte
	reqs chan advice
	done chan struct{}
}

// advice asks for the pages of [drop, dropTo) to be released and those of
// [pop, popTo) to be mapped (offsets into the mapping; empty ranges are
// skipped).
type advice struct{ drop, dropTo, pop, popTo int }

func newAdvisor(m []byte) *advisor {
	a := &advisor{m: m, reqs: make(chan advice, 4), done: make(chan struct{})}
	go a.run()
	return a
}

func (a *advisor) run() {
	defer close(a.done)
	for q := range a.reqs {
		dropMapped(a.m, q.drop, q.dropTo)
		populateMapped(a.m, q.pop, q.popTo)
	}
}

// stop waits for the calls asked for, so that the mapping may go.
func (a *advisor) stop() {
	if a != nil {
		close(a.reqs)
		<-a.done
	}
}
