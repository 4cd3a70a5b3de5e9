package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/pipeline/verify"
)

func newVerifyCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify [--json] PATH...",
		Short: "Run the parsers over agent logs and report what they infer",
		Long: `Reads each PATH (a log file, or a directory searched recursively for *.jsonl),
detects the agent from the content, and reports per file: identity, line counts
(malformed, oversized, partial tail), turns, interrupts, compactions and the
final state with the end of the file taken as quiet.

A sidecar NAME.expect.json next to NAME.jsonl (any subset of the report's
fields) is compared with the report; every mismatch is listed.

Exit status: 0 when every file was read, 1 when an expectation did not hold,
2 on a usage error or an unreadable path.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
				// verify makes little garbage (a few strings per line of
				// evidence) and holds its read buffers: collect only near
				// a limit that room for the longest lines keeps clear of
				// what it holds. A collection per 40 MB of garbage was 7%
				// of verify's instructions, for 2 MiB less peak memory.
				debug.SetGCPercent(-1)
				debug.SetMemoryLimit(64<<20 + 4*int64(a.cfg.MaxLineBytes))
			}
			rep, err := verify.Run(args, verify.Options{MaxLineBytes: a.cfg.MaxLineBytes})
			if asJSON {
				// Compact: the report is for tools (and jq -C makes it readable).
				enc := json.NewEncoder(termsafe.JSON(a.stdout))
				if werr := enc.Encode(rep); werr != nil {
					return withCode(exitUsage, werr)
				}
			} else {
				// File names, ids and cwds come from the logs: escaped.
				rep.WriteText(termsafe.Writer{W: a.stdout})
			}
			switch {
			case err != nil: // unreadable paths (verify.ErrUnreadable)
				return withCode(exitUsage, err)
			case rep.Totals.Mismatches > 0:
				return withCode(exitFindings, fmt.Errorf("%d expectation(s) not met", rep.Totals.Mismatches))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document instead of text")
	cmd.Flags().Int("max-line-bytes", 0, "skip lines longer than this (default from config: 32 MiB)")
	return cmd
}
