package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// manHeader is fixed so the pages are reproducible (SOURCE_DATE_EPOCH sets
// the date, as for any reproducible build).
var manHeader = &doc.GenManHeader{Title: "LOGWATCH", Section: "1", Source: "logwatch", Manual: "logwatch manual"}

func newManCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man [DIR]",
		Short: "Write the manual pages, generated from the commands themselves",
		Long: `Without DIR, prints logwatch(1) on stdout (man -l <(logwatch man) reads it).
With DIR, writes one page per command there (logwatch.1, logwatch-run.1, …):
for example logwatch man ~/.local/share/man/man1, then man logwatch.`,
		Args: cobra.MaximumNArgs(1),
		// The pages come from the command tree alone: no configuration.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			root.DisableAutoGenTag = true
			if len(args) == 0 {
				return doc.GenMan(root, manHeader, cmd.OutOrStdout())
			}
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return withCode(exitUsage, err)
			}
			if err := doc.GenManTree(root, manHeader, dir); err != nil {
				return withCode(exitFindings, err)
			}
			n, _ := filepath.Glob(filepath.Join(dir, "logwatch*.1"))
			fmt.Fprintf(cmd.OutOrStdout(), "%d pages written to %s\n", len(n), dir)
			return nil
		},
	}
}
