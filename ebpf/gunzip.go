package ebpf

import (
	"bytes"
	"compress/gzip"
	"io"
)

// gunzip returns the decompressed b, or nil.
func gunzip(b []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	out, _ := io.ReadAll(io.LimitReader(zr, 64<<20))
	return out
}
