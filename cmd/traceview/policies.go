package main

// The policies command: every replay policy with its parameters, defaults,
// sources and era presets.

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/policies"
)

func init() {
	addCommand(newPoliciesCmd)
}

func newPoliciesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "policies [NAME]",
		Short: "List the replay policies, their parameters, defaults and sources",
		Long:  helpText("policies"),
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			var names []string
			found := false
			for _, in := range policies.List() {
				names = append(names, in.Name)
				if len(args) == 1 && in.Name != args[0] {
					continue
				}
				found = true
				writePolicy(w, in)
			}
			if !found {
				return usageErrorf("policies: no policy %q (want one of %s)", args[0], strings.Join(names, ", "))
			}
			return nil
		},
	}
}

// writePolicy prints one policy for 'traceview policies': its summary and
// source, each parameter (name, kind, default) with its doc and source
// wrapped below it, and its era presets.
func writePolicy(w io.Writer, in policies.Info) {
	fmt.Fprintf(w, "%s: %s\n", in.Name, wrap(in.Summary, 100, "  "))
	fmt.Fprintf(w, "  source: %s\n", wrap(in.Source, 100, "    "))
	for _, p := range in.Params {
		def := p.Default
		if def == "" {
			def = "(computed)"
		}
		fmt.Fprintf(w, "  %s  %s  default %s\n      %s\n      [%s]\n", p.Name, p.Kind, def, wrap(p.Doc, 100, "      "), wrap(p.Source, 100, "       "))
	}
	for _, e := range policies.Eras(in.Name) {
		fmt.Fprintf(w, "  era=%s (HZ %d): %s\n    sets: %s\n    [%s]\n", e.Name, e.HZ, wrap(e.Summary, 100, "    "),
			wrap(policies.Spec{Info: in, Values: e.Values}.String(), 100, "    "), wrap(e.Source, 100, "     "))
	}
}

// wrap breaks s into lines of at most width characters at spaces (a
// longer word stays whole), joining them with a newline and indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(word) > width {
				b.WriteString("\n" + indent)
				n = len(indent)
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}
