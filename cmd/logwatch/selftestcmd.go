package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/selftest"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// exitInterrupted is a run stopped by Ctrl+C, as a shell reports SIGINT.
const exitInterrupted = 130

func newSelftestCmd(a *app) *cobra.Command {
	var (
		names    []string
		asJSON   bool
		step     time.Duration
		parallel int
	)
	cmd := &cobra.Command{
		Use:   "selftest [--agent NAME]... [--json]",
		Short: "Run the agents installed here through logwatch's core scenarios, offline",
		Long: `Runs each agent installed on this machine (its executable on the PATH, at whatever
release it is) through the core scenarios: a prompt (working, then done), Esc
while the answer streams (ready, interrupted), a permission prompt (waiting,
then done; n/a for an agent that asks none, as pi), and quitting (ended,
once). The report names every agent logwatch reads: one not installed with
the command that installs it, one selftest cannot drive with what to run
instead. Each scenario runs in a private temporary home, against a local fake
model server, under a private daemon, with logwatch's hooks installed there:
it never reads or writes your home, settings, logs or credentials, and
nothing leaves the machine. Everything it made is removed at the end, also on
Ctrl+C; a failed scenario's folder is kept for a report.

A release that passes every scenario is recorded as known-good for this
machine, and doctor stops warning about it. It needs tmux.

Exit status: 0 when every scenario passed, 1 when one failed, 2 when it could
not run (no agent, no tmux), 130 on Ctrl+C.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bin, err := os.Executable()
			if err != nil {
				return withCode(exitUsage, fmt.Errorf("selftest: the logwatch binary: %w", err))
			}
			if b, err := filepath.EvalSymlinks(bin); err == nil {
				bin = b
			}
			// Ctrl+C stops the scenarios and cleans up; the daemons and
			// terminals they run are out of the terminal's reach.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			progress := a.stderr
			if !asJSON {
				progress = a.stdout
			}
			// A line at once: asking each agent its release takes seconds.
			fmt.Fprintln(progress, "selftest: looking for tmux and the agents, asking each its release")
			path := os.Getenv("PATH")
			if err := selftest.Requirements(path); err != nil {
				return withCode(exitUsage, err)
			}
			gaps := selftest.NotCovered(names, path)
			for _, g := range gaps {
				fmt.Fprintf(progress, "selftest: not covered: %s: %s\n", g.Agent, g)
			}
			agents, err := selftest.Find(ctx, names, path)
			if err != nil {
				return withCode(exitUsage, err)
			}
			for _, in := range agents {
				fmt.Fprintf(progress, "selftest: %s %s (%s)\n", in.Agent, in.Version, in.Path)
			}
			rep, err := selftest.Run(ctx, selftest.Options{Bin: bin, Path: path, Step: step, Parallel: parallel,
				KnownGood: knowngood.Path(), Progress: progress}, agents)
			if rep != nil {
				rep.NotCovered = gaps
				if asJSON {
					if jerr := rep.WriteJSON(a.stdout); jerr != nil && err == nil {
						err = jerr
					}
				} else {
					fmt.Fprintln(a.stdout)
					rep.WriteText(a.stdout)
				}
			}
			switch {
			case err != nil:
				return withCode(exitFindings, err)
			case rep.Interrupted:
				return withCode(exitInterrupted, nil)
			case !rep.Passed():
				return withCode(exitFindings, nil)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&names, "agent", nil, "run only this agent (repeat, or a comma list); default every installed one")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON (progress lines go to stderr)")
	f.DurationVar(&step, "step-timeout", 30*time.Second, "how long each expected change may take (an agent's first screen three times that)")
	f.IntVar(&parallel, "parallel", 4, "scenarios run at once")
	return cmd
}
