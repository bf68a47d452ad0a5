package trace

// TaskState is the state a task left the CPU in at a sched_switch, in the
// encoding of Linux >= 4.14 sched_switch prev_state ("sched/tracing: Use
// common task-state helpers"; include/linux/sched.h TASK_REPORT bits):
// one bit per reportable state, 0 for TASK_RUNNING, plus StatePreempted.
// Readers translate other encodings (pre-4.14 kernels, text traces) into this
// one, so consumers never see a kernel-specific value.
type TaskState uint16

// The task-state bits (include/linux/sched.h, Linux 6.x).
const (
	StateRunning         TaskState = 0      // R: runnable (yield, or preempted when StatePreempted is set)
	StateInterruptible   TaskState = 0x0001 // S: sleeping
	StateUninterruptible TaskState = 0x0002 // D: disk sleep / uninterruptible
	StateStopped         TaskState = 0x0004 // T
	StateTraced          TaskState = 0x0008 // t
	StateDead            TaskState = 0x0010 // X: EXIT_DEAD
	StateZombie          TaskState = 0x0020 // Z: EXIT_ZOMBIE
	StateParked          TaskState = 0x0040 // P: kthread parked
	StateIdle            TaskState = 0x0080 // I: TASK_IDLE kernel thread
	StatePreempted       TaskState = 0x0100 // "+": TASK_REPORT_MAX, preempted while runnable
)

// stateChars is the kernel's task_index_to_char table "RSDTtXZPI": bit i-1
// maps to stateChars[i].
const stateChars = "RSDTtXZPI"

// Runnable reports whether the task was still runnable when switched out
// (preempted or yielded): perf's 'R' state, which starts a scheduling delay
// at the switch-out itself.
func (s TaskState) Runnable() bool { return s&^StatePreempted == 0 }

// Preempted reports whether the kernel flagged the switch as a preemption.
func (s TaskState) Preempted() bool { return s&StatePreempted != 0 }

// Char returns perf's one-letter state (perf_sample__taskstate semantics):
// the letter of the lowest set state bit, 'R' when none is set.
func (s TaskState) Char() byte {
	m := s &^ StatePreempted
	if m == 0 {
		return 'R'
	}
	for i := 0; i < len(stateChars)-1; i++ {
		if m&(1<<i) != 0 {
			return stateChars[i+1]
		}
	}
	return '?'
}

// String renders the state as the kernel's sched_switch print format does:
// letters of all set bits joined by '|', "R" when none, and "R+" when
// preempted.
func (s TaskState) String() string {
	m := s &^ StatePreempted
	if m == 0 {
		if s.Preempted() {
			return "R+"
		}
		return "R"
	}
	out := make([]byte, 0, 4)
	for i := 0; i < len(stateChars)-1; i++ {
		if m&(1<<i) != 0 {
			if len(out) > 0 {
				out = append(out, '|')
			}
			out = append(out, stateChars[i+1])
		}
	}
	if m>>(len(stateChars)-1) != 0 {
		if len(out) > 0 {
			out = append(out, '|')
		}
		out = append(out, '?')
	}
	return string(out)
}
