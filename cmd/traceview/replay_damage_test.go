package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayDamagedPerfData is the CLI regression test for two files of
// the damage sweep (bench/damage on testdata/traces/per-process.data):
// bit 53 of a sample time set (offset 99446: replay ran past 60 s) and an
// 8-byte overwrite giving a sched_switch CPU -150994944 (offset 234915:
// index out of range in extractor.switchEv). Each now replays (exit 0,
// the model and the prediction on stdout) and says on stderr what it
// dropped (the CPU now by the perf.data reader, against the header's CPU
// count, before replay's own check).
func TestReplayDamagedPerfData(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/traces/per-process.data")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		damage  func(b []byte)
		warning string
	}{
		{"time bit 53", func(b []byte) { b[99446] ^= 0x20 },
			"warning: perf.data: CPU 0: sched_switch at 9007886.809572669 s lies outside the recording's sample times (687.550136366 s to 687.562824612 s, from the header): damaged, dropped\n"},
		{"negative CPU", func(b []byte) { copy(b[234915:], []byte{0xf7, 0xb2, 0x97, 0xc3, 0x8e, 0xd0, 0x0a, 0xb4}) },
			"warning: perf.data: record of type 9 at offset 234872 on CPU -150994944, but the recording's machine has 2 CPUs (header nrcpus): damaged, skipped\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := damagedCopy(t, orig, "damaged.perf.data", c.damage)
			out, errs, code := runCLI(t, "replay", "-v", "--policy", "eevdf", "-i", path)
			c.warning = strings.Replace(c.warning, "perf.data: ", path+": ", 1) // named as given
			if code != 0 || !strings.Contains(out, "policy eevdf on 2 CPUs: makespan") || !strings.Contains(errs, c.warning) {
				t.Errorf("-v: exit %d, stdout %q, stderr %q; want exit 0, a prediction and %q", code, out, errs, c.warning)
			}
			// Without -v: the trace's scope first and in full (recorded
			// per process: what the numbers leave out), then the damage,
			// the one warning left, in full too.
			_, errs, code = runCLI(t, "replay", "--policy", "eevdf", "-i", path)
			scope := "warning: " + path + ": recorded per process (-p) ("
			if code != 0 || !strings.HasPrefix(errs, scope) || !strings.Contains(errs, c.warning) {
				t.Errorf("exit %d, stderr %q; want exit 0 and stderr starting with %q and holding %q", code, errs, scope, c.warning)
			}
		})
	}
}

// TestReplayDamagedFirstBlock: quota-siblings.tv holds its 2277 events in
// one compressed block (the frame at offset 1572); a flipped bit at offset
// 5000 fails the block's checksum, so no sched_switch can be read. replay
// says the file is damaged, as latency does, not that the trace was
// recorded without sched_switch events (its old message sent the user to
// re-record with perf sched record).
func TestReplayDamagedFirstBlock(t *testing.T) {
	b, err := os.ReadFile("../../testdata/traces/quota-siblings.tv")
	if err != nil {
		t.Fatal(err)
	}
	path := damagedCopy(t, b, "damaged.tv", func(b []byte) { b[5000] ^= 0x10 })
	_, errs, code := runCLI(t, "replay", "--policy", "eevdf", "-i", path)
	want := "replay: " + path + ": the file is cut short or damaged before any sched_switch event could be read (the warning above says where)"
	if code != 1 || !strings.Contains(errs, "damaged (checksum mismatch)") || !strings.HasSuffix(strings.TrimSpace(errs), want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1, the block's warning and the last line %q", code, errs, want)
	}
}

// damagedCopy writes a copy of orig, changed by damage, as name in a
// temporary directory of t and returns its path.
func damagedCopy(t *testing.T, orig []byte, name string, damage func(b []byte)) string {
	t.Helper()
	b := append([]byte(nil), orig...)
	damage(b)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
