//go:build tools

// Package deps pins the third-party modules the project builds on, so that
// `go mod tidy` keeps them while their first users are being written.
package deps

import (
	_ "github.com/cilium/ebpf"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/pprof/profile"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/rogpeppe/go-internal/txtar"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/stat"
	_ "gonum.org/v1/plot"
)
