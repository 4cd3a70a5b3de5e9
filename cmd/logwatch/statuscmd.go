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
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

func newStatusCmd(a *app) *cobra.Command {
	var asJSON, all, watch bool
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
			if watch {
				if asJSON {
					return withCode(exitUsage, errors.New("--watch and --json do not mix: `logwatch events --json` is the stream for tools"))
				}
				return a.watchStatus(all)
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				st, err := c.Status(ctx)
				if err != nil {
					return err
				}
				if st.Sessions == nil { // a daemon from before empty lists were []
					st.Sessions = []relay.Event{}
				}
				if st.Worktrees == nil {
					st.Worktrees = []relay.WorktreeState{}
				}
				if st.Roots == nil {
					st.Roots = a.roots()
				}
				if asJSON {
					enc := json.NewEncoder(a.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				statusview.WriteStatus(a.stdout, st, all, time.Now())
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include the history: sessions with no live process and no recent change")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "a live view, updated on every change (Ctrl+C ends it)")
	return cmd
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
		Color: os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb",
		Now:   time.Now,
	}, ups)
	return nil
}

func newEventsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream state changes: a snapshot of every session, then each change",
		Long: `Streams a snapshot of every session, then each change as it happens (--json:
one relay Event per line, the socket protocol's stream). When the daemon
restarts, events says so on stderr,
reconnects with backoff and goes on with a fresh snapshot. Ctrl+C ends it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ups, done, err := a.follow()
			if err != nil {
				return err
			}
			defer done()
			notice := statusview.Notice{W: a.stderr, Name: "events"}
			if err := statusview.Events(a.stdout, ups, &notice, asJSON, a.daemonRoots); err != nil {
				return withCode(exitFindings, err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}
