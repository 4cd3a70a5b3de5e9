package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// statusOptions is the view `logwatch status` was asked for.
type statusOptions struct {
	JSON, All, Watch bool
}

// newStatusCmd parses and checks the flags; runF (nil: statusRun) gets
// them.
func newStatusCmd(a *app, runF func(*statusOptions) error) *cobra.Command {
	opts := &statusOptions{}
	cmd := &cobra.Command{
		Use:   "status [--json] [--all] [--watch]",
		Short: "Show every session's state and the daemon's counters",
		Long: `Shows the sessions that have a live process (Claude Code's registry says
which) or changed in the last 10 minutes, or, where nothing tells the
process, have not ended and changed within a day; --all shows every one.
Then the daemon's counters. --watch keeps a live view
instead: sessions grouped by worktree, most urgent first, redrawn in place as
changes arrive (plain lines, one per change, when stdout is not a terminal;
NO_COLOR turns colours off).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Watch && opts.JSON {
				return withCode(exitUsage, errors.New("--watch and --json do not mix: `logwatch events --json` is the stream for tools"))
			}
			if runF != nil {
				return runF(opts)
			}
			return a.statusRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the status as JSON")
	cmd.Flags().BoolVar(&opts.All, "all", false, "include the history: sessions with no live process and no recent change")
	cmd.Flags().BoolVarP(&opts.Watch, "watch", "w", false, "a live view, updated on every change (Ctrl+C ends it)")
	return cmd
}

func (a *app) statusRun(opts *statusOptions) error {
	if opts.Watch {
		return a.watchStatus(opts.All)
	}
	var st wire.Status
	err := a.callStatus(func(ctx context.Context, c *client.Client) error {
		var err error
		st, err = c.Status(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if st.Sessions == nil { // a daemon from before empty lists were []
		st.Sessions = []wire.Event{}
	}
	if st.Worktrees == nil {
		st.Worktrees = []wire.WorktreeState{}
	}
	if st.Roots == nil {
		st.Roots = a.roots()
	}
	if opts.JSON {
		enc := json.NewEncoder(termsafe.JSON(a.stdout))
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	statusview.WriteStatus(a.stdout, st, opts.All, time.Now(), statusview.ColorOn(a.stdout))
	return nil
}

// watchStatus follows the change stream: on a terminal a view redrawn in
// place, elsewhere one plain line per change. A lost daemon is said once on
// stderr (and in the view); the stream resumes with a fresh snapshot.
func (a *app) watchStatus(all bool) error {
	ups, done, err := a.follow()
	if err != nil {
		return err
	}
	defer done()
	m := statusview.NewWatch(all, a.stderr, a.daemonRoots)
	f, isFile := a.stdout.(*os.File)
	if !isFile || !isatty.IsTerminal(f.Fd()) {
		m.Plain(a.stdout, ups)
		return nil
	}
	m.Terminal(statusview.Screen{
		Out: a.stdout,
		Width: func() int {
			width, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return width
		},
		Color: statusview.ColorAllowed(),
		Now:   time.Now,
	}, ups)
	return nil
}

// eventsOptions is the stream `logwatch events` was asked for.
type eventsOptions struct {
	JSON bool
}

// newEventsCmd parses the flags; runF (nil: eventsRun) gets them.
func newEventsCmd(a *app, runF func(*eventsOptions) error) *cobra.Command {
	opts := &eventsOptions{}
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream state changes: a snapshot of every session, then each change",
		Long: `Streams a snapshot of every session, then each change as it happens (--json:
one relay Event per line, the socket protocol's stream). When the daemon
restarts, events says so on stderr,
reconnects with backoff and goes on with a fresh snapshot. Ctrl+C ends it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return a.eventsRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "one JSON object per line")
	return cmd
}

func (a *app) eventsRun(opts *eventsOptions) error {
	ups, done, err := a.follow()
	if err != nil {
		return err
	}
	defer done()
	notice := statusview.Notice{W: a.stderr, Name: "events"}
	if err := statusview.Events(a.stdout, ups, &notice, opts.JSON, a.daemonRoots); err != nil {
		return withCode(exitFindings, err)
	}
	return nil
}
