package main

import (
	"errors"
	"io/fs"
	"os"
)

// outputFile is a file a command writes (-o, -w). On failure the command
// calls discard, which removes the path only when this run created it and
// it is still a regular file: a path that existed before (a device such as
// /dev/full, a symlink, a fifo, or a file the user keeps) is never removed.
type outputFile struct {
	*os.File
	path    string
	created bool // the path did not exist before this run
	closed  bool
	cerr    error
}

// createOutput opens path for writing, truncating an existing file (as
// os.Create does), and remembers whether this call created it.
func createOutput(path string) (*outputFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	}
	if err != nil {
		return nil, err
	}
	return &outputFile{File: f, path: path, created: created}, nil
}

// Close closes the file once and returns the first close error on every
// call.
func (o *outputFile) Close() error {
	if !o.closed {
		o.closed = true
		o.cerr = o.File.Close()
	}
	return o.cerr
}

// discard closes the file after a failure and removes it if this run
// created it and it is a regular file (not replaced meanwhile by something
// else).
func (o *outputFile) discard() {
	o.Close()
	if !o.created {
		return
	}
	if st, err := os.Lstat(o.path); err == nil && st.Mode().IsRegular() {
		os.Remove(o.path)
	}
}

// refuseOverInput is the check every command that writes a file (-o, -w)
// makes before opening it: out must not be one of the traces it reads
// (same device and inode, os.SameFile, so another path to the same file, a
// hard link or a symlink, is caught too). Opening it for writing would
// truncate the trace before it is read. "-" and a path that does not exist
// yet never match. The error is a usage error (exit 2) naming the flag.
func refuseOverInput(cmd, flag, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	b, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if a, err := os.Stat(in); err == nil && os.SameFile(a, b) {
			return usageErrorf("%s: %s %s is the trace being read (%s): write to another file", cmd, flag, out, in)
		}
	}
	return nil
}
