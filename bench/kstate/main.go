// Command kstate loads a BPF object of tp_btf programs (kstate.bpf.c,
// built by run.sh), attaches every program in it, and detaches them after
// the given number of seconds. Their bpf_printk lines go to tracefs'
// trace_pipe, which run.sh collects. It needs root and a kernel with BTF.
//
// Usage: go run ./bench/kstate OBJECT SECONDS
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: kstate OBJECT SECONDS")
		os.Exit(2)
	}
	secs, err := strconv.Atoi(os.Args[2])
	if err != nil || secs <= 0 {
		fmt.Fprintf(os.Stderr, "kstate: %q: want a whole number of seconds above 0\n", os.Args[2])
		os.Exit(2)
	}
	coll, err := ebpf.LoadCollection(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "kstate: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	defer coll.Close()
	var links []link.Link
	for name, p := range coll.Programs {
		l, err := link.AttachTracing(link.TracingOptions{Program: p})
		if err != nil {
			fmt.Fprintf(os.Stderr, "kstate: attach %s: %v\n", name, err)
			os.Exit(1)
		}
		links = append(links, l)
	}
	fmt.Fprintf(os.Stderr, "kstate: %d programs attached for %d s\n", len(links), secs)
	time.Sleep(time.Duration(secs) * time.Second)
	for _, l := range links {
		l.Close()
	}
}
