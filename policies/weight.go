package policies

import (
	"math/bits"

	"github.com/traceview/traceview/trace"
)

// NiceZeroWeight is NICE_0_LOAD after scale_load_down (kernel/sched/sched.h).
const NiceZeroWeight = 1024

// WeightIdle is WEIGHT_IDLEPRIO, the weight of a SCHED_IDLE task
// (kernel/sched/sched.h).
const WeightIdle = 3

// Weight returns the load weight of a nice level (clamped to -20..19),
// from sched_prio_to_weight in kernel/sched/core.c (trace.NiceWeight).
func Weight(nice int) int64 { return trace.NiceWeight(nice) }

// CalcDelta returns delta × NICE_0_LOAD / weight in ns, the kernel's
// calc_delta_fair (kernel/sched/fair.c, __calc_delta): the virtual time a
// task of the given weight accrues for delta ns of run time. Like the
// kernel it multiplies by the 32-bit fixed-point inverse 2^32/weight
// (__update_inv_weight) instead of dividing, and returns delta unchanged for
// weight 1024. Negative delta gives a negative result.
func CalcDelta(delta, weight int64) int64 {
	if weight == NiceZeroWeight || delta == 0 {
		return delta
	}
	if weight <= 0 {
		weight = 1
	}
	neg := delta < 0
	if neg {
		delta = -delta
	}
	inv := uint64(1<<32) / uint64(weight)
	hi, lo := bits.Mul64(uint64(delta), inv*NiceZeroWeight)
	r := int64(hi<<32 | lo>>32)
	if neg {
		return -r
	}
	return r
}
