//go:build !linux

package perfdata

import "os"

// mapSection maps nothing outside Linux: the reader reads the file.
func mapSection(*os.File, int64, int64) ([]byte, int, bool) { return nil, 0, false }

func unmapSection([]byte) {}

func dropMapped(_ []byte, from, _ int) int { return from }

func populateMapped(_ []byte, from, _ int) int { return from }
