package testsched

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Chromium finds Debian's chromium, for the tests that render the HTML
// report in a headless browser. Without it the test skips, unless
// TRACEVIEW_REQUIRE_BROWSER=1 (CI), where it fails.
func Chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("TRACEVIEW_REQUIRE_BROWSER") == "1" {
		t.Fatal("chromium not found and TRACEVIEW_REQUIRE_BROWSER=1 (apt-get install chromium)")
	}
	t.Skip("chromium not installed (apt-get install chromium; TRACEVIEW_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// RunChromium runs headless chromium bin (Chromium) with args (such as
// --dump-dom URL), in a profile of its own, for at most 2 minutes, and
// returns its stdout and stderr (the console log).
func RunChromium(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, e.String())
	}
	return o.String(), e.String()
}

// CheckConsole fails on console errors Chromium logged (lines like
// "CONSOLE(...)" or "Uncaught").
func CheckConsole(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") || strings.Contains(line, "Failed to load resource") {
			t.Errorf("browser console: %s", line)
		}
	}
}
