package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/pipeline/replay"
	"github.com/logwatch/logwatch/relay"
)

func newReplayCmd(a *app) *cobra.Command {
	var asJSON bool
	var expect, notePath string
	cmd := &cobra.Command{
		Use:   "replay [--json] [--expect expected.jsonl [--note NOTE.json]] RECORDING...",
		Short: "Replay a recording through the real watcher, parsers and relay and print the state timeline",
		Long: `RECORDING is a file written by 'logwatch run --record', or a peer recording folder
holding events.jsonl and transcript.jsonl (shared/realworld/irrlicht-scenarios).
The log bytes are written to temporary files on the recorded schedule, hooks and
keys are injected at their recorded times, and time is virtual: the same
recording gives the same timeline, byte for byte.

--expect checks the timeline against a phase file (expected.jsonl) and exits 1
with the failing phases; --note names phases that differ by design.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ex *replay.Expectation
			if expect != "" {
				var err error
				if ex, err = replay.ReadExpectation(expect); err != nil {
					return withCode(exitUsage, err)
				}
			}
			var note replayNote
			if notePath != "" {
				b, err := os.ReadFile(notePath)
				if err == nil {
					err = json.Unmarshal(b, &note)
				}
				if err != nil {
					return withCode(exitUsage, fmt.Errorf("note %s: %w", notePath, err))
				}
			}
			failed := 0
			for _, rec := range args {
				out, err := replayOne(cmd.Context(), a, rec, ex, note)
				if err != nil {
					return withCode(exitUsage, fmt.Errorf("%s: %w", rec, err))
				}
				if asJSON {
					enc := json.NewEncoder(a.stdout)
					enc.SetIndent("", "  ")
					if err := enc.Encode(out); err != nil {
						return withCode(exitUsage, err)
					}
				} else {
					writeReplay(a, out)
				}
				failed += out.Failed
			}
			if failed > 0 {
				return withCode(exitFindings, fmt.Errorf("%d phase(s) failed", failed))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the timeline (and phases) as JSON")
	cmd.Flags().StringVar(&expect, "expect", "", "check the timeline against this expected.jsonl")
	cmd.Flags().StringVar(&notePath, "note", "", "hook fields and deliberate differences for a peer scenario (testdata/replay)")
	return cmd
}

// replayNote is a per-scenario note: hook fields a peer recording lacks, and
// phases that differ from the peer by design.
type replayNote struct {
	Hooks       replay.HookOverride `json:"hooks"`
	Differences map[string]string   `json:"differences"`
}

type replayOutput struct {
	Recording string         `json:"recording"`
	Timeline  []replay.Entry `json:"timeline"`
	Phases    []replayPhase  `json:"phases,omitempty"`
	Passed    int            `json:"passed"`
	Failed    int            `json:"failed"`
	start     time.Time
}

type replayPhase struct {
	replay.Result
	ByDesign string `json:"by_design,omitempty"`
}

func replayOne(ctx context.Context, a *app, rec string, ex *replay.Expectation, note replayNote) (replayOutput, error) {
	out := replayOutput{Recording: rec}
	var inputs []replay.Input
	cfg := relay.DefaultConfig()
	var peer *replay.Peer
	if st, err := os.Stat(rec); err == nil && st.IsDir() {
		if !replay.IsPeerRecording(rec) {
			return out, fmt.Errorf("a folder must hold events.jsonl and transcript.jsonl")
		}
		var err error
		if peer, err = replay.ReadPeer(rec, note.Hooks); err != nil {
			return out, err
		}
		inputs, out.start = peer.Inputs, peer.Start
	} else {
		lines, err := relay.ReadRecording(rec)
		if err != nil {
			return out, err
		}
		inputs, cfg = replay.FromRecording(lines)
		if len(inputs) > 0 {
			out.start = inputs[0].At
		}
	}
	tl, err := replay.Run(ctx, inputs, replay.Options{Config: cfg, Log: a.log})
	if err != nil {
		return out, err
	}
	for i := range tl {
		tl[i].Offset = tl[i].At.Sub(out.start).Milliseconds()
	}
	out.Timeline = tl
	if ex != nil {
		var events []replay.PeerEvent
		if peer != nil {
			events = peer.Events
		}
		for _, r := range replay.Check(ex, replay.Stream(tl, events), out.start) {
			p := replayPhase{Result: r}
			switch {
			case r.Pass:
				out.Passed++
			case note.Differences[r.Phase] != "":
				p.ByDesign = note.Differences[r.Phase]
			default:
				out.Failed++
			}
			out.Phases = append(out.Phases, p)
		}
	}
	return out, nil
}

func writeReplay(a *app, out replayOutput) {
	fmt.Fprintf(a.stdout, "%s\n", out.Recording)
	for _, e := range out.Timeline {
		fmt.Fprintf(a.stdout, "  +%9.3fs  %-8s  %-10s %-17s %-7s %-28s %s\n", float64(e.Offset)/1000,
			statusview.Short(e.Session, 8), e.State, e.Reason, e.Source, e.Rule, e.Detail)
	}
	if out.Phases == nil {
		return
	}
	for _, p := range out.Phases {
		switch {
		case p.Pass:
			fmt.Fprintf(a.stdout, "  PASS  %s\n", p.Phase)
		case p.ByDesign != "":
			fmt.Fprintf(a.stdout, "  DIFF  %s: %s\n        (by design: %s)\n", p.Phase, p.Reason, p.ByDesign)
		default:
			fmt.Fprintf(a.stdout, "  FAIL  %s: %s\n", p.Phase, p.Reason)
		}
	}
	fmt.Fprintf(a.stdout, "  %d/%d phases passed\n", out.Passed, len(out.Phases))
}
