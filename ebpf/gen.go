package ebpf

// Regenerating needs clang (>= 14) and libbpf's headers (Debian: clang
// libbpf-dev); the generated files are committed, so building does not.
//go:generate go tool bpf2go -tags linux -target bpfel -cflags "-O2 -g -Wall -Werror" -type record -type record_ext -type task_record -type task_stat sched sched.c -- -I/usr/include
//go:generate go tool bpf2go -tags linux -target bpfel -cflags "-O2 -g -Wall -Werror" -type cg_move cgattach cgattach.c -- -I/usr/include
