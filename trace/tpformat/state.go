package tpformat

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traceview/traceview/trace"
)

// StateDecoder translates a kernel's raw sched_switch prev_state into
// trace.TaskState. It is derived from the print fmt of the sched_switch
// format, which spells out how that kernel prints the state:
//
//   - Linux >= 4.14 (commit "sched/tracing: Use common task-state helpers"):
//     `prev_state & (TASK_REPORT_MAX-1) ? __print_flags(..., {0x01,"S"}, ...,
//     {0x80,"I"}) : "R"` and `prev_state & TASK_REPORT_MAX ? "+" : ""` with
//     TASK_REPORT_MAX = 0x100;
//   - older kernels print the raw task state with their own letter table (for
//     example 4.9: {16,"Z"}, {32,"X"}, {64,"x"}, ..., {1024,"N"}) and flag a
//     preemption with TASK_STATE_MAX (1024, 2048 or 4096 by version).
//
// Letters map onto trace.TaskState by meaning (S, D, T, t, X, Z, P, I; the
// pre-4.14 "x" TASK_DEAD maps to StateDead); letters that are only modifiers
// (K wakekill, W waking, N noload) are dropped.
type StateDecoder struct {
	flags   []stateFlag
	Preempt uint64 // the raw bit that means "preempted"; 0 when the kernel prints none
	Mask    uint64 // the raw bits holding state letters
	// Derived is false when the print fmt could not be read and the Linux
	// >= 4.14 encoding is assumed.
	Derived bool
	last    uint64
	lastOut trace.TaskState
}

type stateFlag struct {
	raw uint64
	st  trace.TaskState
}

// letterState maps a state letter of the kernel's print fmt to TaskState.
var letterState = map[string]trace.TaskState{
	"S": trace.StateInterruptible,
	"D": trace.StateUninterruptible,
	"T": trace.StateStopped,
	"t": trace.StateTraced,
	"X": trace.StateDead,
	"x": trace.StateDead,
	"Z": trace.StateZombie,
	"P": trace.StateParked,
	"I": trace.StateIdle,
}

// ModernStateDecoder returns the decoder of the Linux >= 4.14 encoding, which
// is trace.TaskState's own.
func ModernStateDecoder() *StateDecoder {
	d := &StateDecoder{Preempt: uint64(trace.StatePreempted), Mask: uint64(trace.StatePreempted - 1)}
	for i := 0; i < 8; i++ {
		d.flags = append(d.flags, stateFlag{1 << i, trace.TaskState(1 << i)})
	}
	return d
}

// NewStateDecoder derives the prev_state encoding from a sched_switch print
// fmt. When the print fmt does not use __print_flags on prev_state it returns
// ModernStateDecoder with Derived false.
func NewStateDecoder(printFmt string) *StateDecoder {
	d, err := parseStatePrint(printFmt)
	if err != nil {
		return ModernStateDecoder()
	}
	d.Derived = true
	return d
}

// Decode translates a raw prev_state value.
func (d *StateDecoder) Decode(raw uint64) trace.TaskState {
	if raw == d.last {
		return d.lastOut
	}
	var st trace.TaskState
	if raw&d.Preempt != 0 && d.Preempt != 0 {
		st |= trace.StatePreempted
	}
	m := raw & d.Mask
	for _, f := range d.flags {
		if m&f.raw != 0 {
			st |= f.st
		}
	}
	d.last, d.lastOut = raw, st
	return st
}

func parseStatePrint(pf string) (*StateDecoder, error) {
	args := splitArgs(pf)
	d := &StateDecoder{last: 0}
	found := false
	for _, a := range args {
		if i := strings.Index(a, "__print_flags("); i >= 0 && strings.Contains(a, "prev_state") {
			inner, ok := parenBody(a[i+len("__print_flags"):])
			if !ok {
				return nil, fmt.Errorf("unbalanced __print_flags")
			}
			parts := splitTop(inner)
			if len(parts) < 3 {
				return nil, fmt.Errorf("short __print_flags")
			}
			if m, ok := maskOf(parts[0]); ok {
				d.Mask = m
			} else {
				d.Mask = ^uint64(0)
			}
			for _, p := range parts[2:] {
				p = strings.TrimSpace(p)
				if !strings.HasPrefix(p, "{") || !strings.HasSuffix(p, "}") {
					continue
				}
				kv := splitTop(p[1 : len(p)-1])
				if len(kv) != 2 {
					continue
				}
				v, err := evalConst(kv[0])
				if err != nil {
					return nil, err
				}
				letter, err := strconv.Unquote(strings.TrimSpace(kv[1]))
				if err != nil {
					return nil, err
				}
				if st, ok := letterState[letter]; ok {
					d.flags = append(d.flags, stateFlag{uint64(v), st})
				}
			}
			found = true
			continue
		}
		// The preemption marker: `REC->prev_state & EXPR ? "+" : ""`.
		if q := strings.Index(a, "?"); q >= 0 && strings.Contains(a, "prev_state") &&
			strings.Contains(a[q:], `"+"`) {
			if m, ok := maskOf(a[:q]); ok {
				d.Preempt = m
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("no __print_flags on prev_state")
	}
	return d, nil
}

// maskOf evaluates "REC->prev_state & EXPR" to EXPR.
func maskOf(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	i := strings.Index(s, "prev_state")
	if i < 0 {
		return 0, false
	}
	rest := strings.TrimSpace(s[i+len("prev_state"):])
	if !strings.HasPrefix(rest, "&") {
		return 0, false
	}
	v, err := evalConst(rest[1:])
	if err != nil {
		return 0, false
	}
	return uint64(v), true
}

// splitArgs returns the arguments after the quoted format string of a print
// fmt, split at top-level commas.
func splitArgs(pf string) []string {
	pf = strings.TrimSpace(pf)
	if strings.HasPrefix(pf, `"`) {
		i := 1
		for i < len(pf) && pf[i] != '"' {
			if pf[i] == '\\' {
				i++
			}
			i++
		}
		if i < len(pf) {
			pf = pf[i+1:]
		}
		pf = strings.TrimPrefix(strings.TrimSpace(pf), ",")
	}
	return splitTop(pf)
}

// walkTop calls f for every byte of s outside double-quoted strings, with
// the bracket depth before that byte; f returns false to stop.
func walkTop(s string, f func(i, depth int) bool) {
	depth, inq := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inq {
			if c == '\\' {
				i++
			} else if c == '"' {
				inq = false
			}
			continue
		}
		if c == '"' {
			inq = true
			continue
		}
		if !f(i, depth) {
			return
		}
		switch c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		}
	}
}

// splitTop splits s at commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	start := 0
	walkTop(s, func(i, depth int) bool {
		if s[i] == ',' && depth == 0 {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
		return true
	})
	return append(out, strings.TrimSpace(s[start:]))
}

// parenBody returns the text inside the parenthesis that starts s.
func parenBody(s string) (body string, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "(") {
		return "", false
	}
	walkTop(s, func(i, depth int) bool {
		if s[i] == ')' && depth == 1 {
			body, ok = s[1:i], true
			return false
		}
		return true
	})
	return body, ok
}
