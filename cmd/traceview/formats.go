package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/trace"
)

func init() {
	addCommand(func() *cobra.Command {
		return &cobra.Command{
			Use:   "formats",
			Short: "List the trace formats traceview reads",
			Long:  helpText("formats"),
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "FORMAT\tDESCRIPTION")
				for _, f := range trace.Formats() {
					fmt.Fprintf(tw, "%s\t%s\n", f.Name, f.Description)
				}
				return tw.Flush()
			},
		}
	})
}
