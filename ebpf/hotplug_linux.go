//go:build linux

package ebpf

import (
	"fmt"
	"os"
	"slices"

	"github.com/traceview/traceview/internal/cpulist"
	"github.com/traceview/traceview/trace"
)

// hotplug follows CPU hotplug while the capture runs. When a CPU goes
// offline the kernel takes its per-CPU perf events out of their context
// (perf_event_exit_cpu, kernel/events/core.c, Linux 6.18, run at the
// CPUHP_AP_PERF_ONLINE teardown on the dying CPU), and they stay out when
// the CPU comes back: bpf_perf_event_output fails on that CPU from then
// on, and a capture recorded nothing more of it with no loss counted,
// whose files then said the CPU was recorded, idle or running one task
// (new-user pass 44 F1: a hog pinned to the CPU after it came back was in
// no file). So the drain reads the online CPUs (at most every
// hotplugEvery): a CPU that had a ring and is seen offline gets a loss of
// unknown size (a KindLost of Count 0, placed at its next record, else at
// the capture's end, so the loss window runs from its last event: the
// schedule counts that time unobserved, not busy), and when it is seen
// online again its ring is opened anew; a CPU offline when the capture
// began gets a ring when it comes online. A CPU that goes offline and
// comes back between two reads is not seen: its ring stays silent.
type hotplug struct {
	gone   map[int]bool // CPUs with a ring that were seen offline
	last   int64        // CLOCK_MONOTONIC ns of the last read
	failed bool         // the online list could not be read: not followed
}

// hotplugEvery is how often (ns) the drain reads the online CPUs: a read
// of /sys/devices/system/cpu/online costs a few µs; taking a CPU offline
// takes tens of ms (its hotplug steps, then stop_machine).
const hotplugEvery = 20_000_000

// checkHotplug reads the online CPUs at time now (CLOCK_MONOTONIC ns) and
// acts on the changes since the last read: a loss queued in b for each
// CPU gone, a ring opened for each CPU back or new (appended to
// c.rings.rings for a new one: the caller's per-ring slices grow with
// it). It reports the rings added.
func (c *Capture) checkHotplug(b *batch, now int64) (added int, err error) {
	h := &c.hp
	if h.failed || now-h.last < hotplugEvery {
		return 0, nil
	}
	h.last = now
	raw, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		h.failed = true
		return 0, nil
	}
	list, err := cpulist.Parse(string(raw))
	if err != nil {
		h.failed = true
		return 0, nil
	}
	online := map[int]bool{}
	for _, cpu := range list {
		online[cpu] = true
	}
	ringOf := map[int]int{}
	for i, r := range c.rings.rings {
		ringOf[r.cpu] = i
	}
	for cpu := range ringOf {
		if !online[cpu] && !h.gone[cpu] {
			c.mu.Lock()
			if h.gone == nil {
				h.gone = map[int]bool{}
			}
			h.gone[cpu] = true
			c.mu.Unlock()
			c.addLost(b, cpu, 0)
			c.hotplugWarning("cpu-offline", fmt.Sprintf("capture: CPU %d went offline during the capture (seen at %s s): its events from its last one before are missing (an unobserved window on that CPU), and until it came back", cpu, trace.FormatSeconds(now, 6)))
		}
	}
	for _, cpu := range list {
		i, had := ringOf[cpu]
		if had && !h.gone[cpu] || cpu >= c.nCPU {
			continue
		}
		r, err := c.rings.open(cpu)
		if err != nil {
			return added, fmt.Errorf("CPU %d back online: %w", cpu, err)
		}
		if r == nil {
			continue // offline again already
		}
		if had {
			// Read to its end by the pass before: nothing more comes.
			c.rings.rings[i].close()
			c.rings.rings[i] = r
			c.mu.Lock()
			delete(h.gone, cpu)
			c.mu.Unlock()
			c.hotplugWarning("cpu-online", fmt.Sprintf("capture: CPU %d came back online during the capture (seen at %s s): its perf buffer was opened again, and it is recorded from then on", cpu, trace.FormatSeconds(now, 6)))
			continue
		}
		c.rings.rings = append(c.rings.rings, r)
		added++
		c.hotplugWarning("cpu-online", fmt.Sprintf("capture: CPU %d came online during the capture (seen at %s s): it is recorded from then on", cpu, trace.FormatSeconds(now, 6)))
	}
	return added, nil
}

// hotplugWarning adds a capture warning of key (the first message kept,
// the rest counted).
func (c *Capture) hotplugWarning(key, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.warnings {
		if c.warnings[i].Key == key {
			c.warnings[i].Count++
			return
		}
	}
	c.warnings = append(c.warnings, trace.Warning{Key: key, Count: 1, Message: msg})
}

// OfflineCPUs returns the CPUs that had a ring and were seen offline, not
// back yet (checkHotplug), sorted.
func (c *Capture) OfflineCPUs() []trace.CPU {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []trace.CPU
	for cpu := range c.hp.gone {
		out = append(out, trace.CPU(cpu))
	}
	slices.Sort(out)
	return out
}
