package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/pipeline/replay"
)

func newReplayCmd(a *app) *cobra.Command {
	var asJSON, check bool
	var expect, notePath string
	cmd := &cobra.Command{
		Use:   "replay [--json] [--check] [--expect expected.jsonl [--note NOTE.json]] RECORDING...",
		Short: "Replay a recording through the real watcher, parsers and relay and print the state timeline",
		Long: `RECORDING is a file written by 'logwatch run --record', or a peer recording folder
holding events.jsonl and transcript.jsonl (shared/realworld/irrlicht-scenarios).
The log bytes are written to temporary files on the recorded schedule, hooks and
keys are injected at their recorded times, and time is virtual: the same
recording gives the same timeline, byte for byte.

--expect checks the timeline against a phase file (expected.jsonl) and exits 1
with the failing phases; --note names phases that differ by design.

--check compares the replayed changes (seq, session, agent, tab, state,
reason, source, rule, detail) with those the recording says the daemon
published, and exits 1 with the first that differs.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ex *replay.Expectation
			if expect != "" {
				var err error
				if ex, err = replay.ReadExpectation(expect); err != nil {
					return withCode(exitUsage, err)
				}
			}
			var note replay.Note
			if notePath != "" {
				var err error
				if note, err = replay.ReadNote(notePath); err != nil {
					return withCode(exitUsage, err)
				}
			}
			failed, diverged := 0, 0
			for _, rec := range args {
				out, err := replay.File(cmd.Context(), rec, ex, note, replayLog(a))
				if err != nil {
					return withCode(exitUsage, fmt.Errorf("%s: %w", rec, err))
				}
				if check {
					if err := out.Check(); errors.Is(err, replay.ErrPeerCheck) {
						return withCode(exitUsage, fmt.Errorf("%s: --check: %w", rec, err))
					} else if err != nil {
						diverged++
					}
				}
				if asJSON {
					enc := json.NewEncoder(termsafe.JSON(a.stdout))
					enc.SetIndent("", "  ")
					if err := enc.Encode(out); err != nil {
						return withCode(exitUsage, err)
					}
				} else {
					writeReplay(a, out)
					if check {
						writeCheck(a, out)
					}
				}
				failed += out.Failed
			}
			if diverged > 0 {
				return withCode(exitFindings, fmt.Errorf("%d recording(s) replay to other changes than they recorded", diverged))
			}
			if failed > 0 {
				return withCode(exitFindings, fmt.Errorf("%d phase(s) failed", failed))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the timeline (and phases) as JSON")
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 unless the replay publishes the changes the recording holds")
	cmd.Flags().StringVar(&expect, "expect", "", "check the timeline against this expected.jsonl")
	cmd.Flags().StringVar(&notePath, "note", "", "hook fields and deliberate differences for a peer scenario (testdata/replay)")
	return cmd
}

// writeReplay prints the timeline; what the recording holds (ids, paths,
// commands, phase names) is escaped for the terminal.
func writeReplay(a *app, out replay.Report) {
	l := termsafe.Line
	fmt.Fprintf(a.stdout, "%s\n", l(out.Recording))
	for _, e := range out.Timeline {
		fmt.Fprintf(a.stdout, "  +%9.3fs  %-8s  %-10s %-17s %-7s %-28s %s\n", float64(e.Offset)/1000,
			statusview.Short(l(e.Session), 8), l(e.State), l(e.Reason), l(e.Source), l(e.Rule), l(e.Detail))
	}
	if out.Phases == nil {
		return
	}
	for _, p := range out.Phases {
		switch {
		case p.Pass:
			fmt.Fprintf(a.stdout, "  PASS  %s\n", l(p.Phase))
		case p.ByDesign != "":
			fmt.Fprintf(a.stdout, "  DIFF  %s: %s\n        (by design: %s)\n", l(p.Phase), l(p.Reason), l(p.ByDesign))
		default:
			fmt.Fprintf(a.stdout, "  FAIL  %s: %s\n", l(p.Phase), l(p.Reason))
		}
	}
	fmt.Fprintf(a.stdout, "  %d/%d phases passed\n", out.Passed, len(out.Phases))
}

// writeCheck prints the outcome of --check.
func writeCheck(a *app, out replay.Report) {
	if out.Diverged == nil {
		fmt.Fprintf(a.stdout, "  SAME  the replay published the %d recorded changes\n", len(out.Recorded))
		return
	}
	fmt.Fprintf(a.stdout, "  DIFF  %s\n", termsafe.Text(out.Diverged.Error()))
}

// replayLog is the replayed daemon's logger: its start-up notes ("state
// restored") are not the timeline's, so below a warning only when asked for
// (--log-level), and on the console's text lines, never a JSON line among
// the text.
func replayLog(a *app) zerolog.Logger {
	l := a.cfg.Log
	if l.Level == "" || l.Level == "info" {
		l.Level = "warn"
	}
	if l.Format == "auto" || l.Format == "" {
		l.Format = "console"
	}
	return newLogger(a.stderr, l)
}
