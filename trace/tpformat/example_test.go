package tpformat_test

import (
	"encoding/binary"
	"fmt"

	"github.com/traceview/traceview/trace/tpformat"
)

// Parse a format description and read one field of a payload by name.
func ExampleParse() {
	f, err := tpformat.Parse([]byte(`name: sched_wakeup
ID: 376
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:int target_cpu;	offset:32;	size:4;	signed:1;

print fmt: "comm=%s pid=%d prio=%d target_cpu=%03d", REC->comm, REC->pid, REC->prio, REC->target_cpu
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	raw := make([]byte, 36)
	copy(raw[8:], "sched-pipe")
	binary.LittleEndian.PutUint32(raw[24:], 14566)
	pid, _ := f.Field("pid")
	comm, _ := f.Field("comm")
	fmt.Println(f.Name, f.ID, comm.String(raw, binary.LittleEndian), pid.Int(raw, binary.LittleEndian))
	// Output: sched_wakeup 376 sched-pipe 14566
}
