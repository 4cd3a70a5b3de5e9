package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/manpage"
)

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
			date, err := manDate()
			if err != nil {
				return withCode(exitUsage, err)
			}
			h := manpage.Header{Section: "1", Date: date, Source: "logwatch", Manual: "logwatch manual"}
			if len(args) == 0 {
				return manpage.Write(cmd.OutOrStdout(), root, h)
			}
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return withCode(exitUsage, err)
			}
			n, err := manpage.Tree(root, h, dir)
			if err != nil {
				return withCode(exitFindings, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d pages written to %s\n", n, dir)
			return nil
		},
	}
}

// manDate is the pages' date, reproducible: SOURCE_DATE_EPOCH, as for any
// reproducible build, else the commit the binary was built from, else now.
func manDate() (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339, readBuildVersion().Time); err == nil {
		return t.UTC(), nil
	}
	return time.Now().UTC(), nil
}
