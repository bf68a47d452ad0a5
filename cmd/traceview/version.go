package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() {
	addCommand(func() *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print traceview's version, VCS revision and commit time",
			Long:  helpText("version"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := fmt.Fprint(cmd.OutOrStdout(), versionText(debug.ReadBuildInfo()))
				return err
			},
		}
	})
}

// versionText renders build info (ok false: none recorded) for `traceview
// version` and `--version`: the first line "traceview VERSION (REVISION,
// COMMIT TIME)", then one field a line.
func versionText(bi *debug.BuildInfo, ok bool) string {
	version, module, goVersion := "(devel)", "github.com/traceview/traceview", runtime.Version()
	var rev, at string
	dirty := false
	if ok && bi != nil {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.Main.Path != "" {
			module = bi.Main.Path
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	short := "no VCS revision recorded: go run, go test, -buildvcs=false or a git worktree"
	if rev != "" {
		short = rev[:min(12, len(rev))]
		if dirty {
			short += "+dirty"
		}
		if at != "" {
			short += ", " + at
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "traceview %s (%s)\n", version, short)
	fmt.Fprintf(&b, "  module:      %s %s\n", module, version)
	if rev != "" {
		fmt.Fprintf(&b, "  revision:    %s", rev)
		if dirty {
			b.WriteString(" (uncommitted changes)")
		}
		b.WriteByte('\n')
	}
	if at != "" {
		fmt.Fprintf(&b, "  commit time: %s\n", at)
	}
	fmt.Fprintf(&b, "  go:          %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
