package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

// socketPath is the configured socket or the default one.
func (a *app) socketPath() string {
	if a.cfg.Socket != "" {
		return a.cfg.Socket
	}
	return relay.DefaultSocket()
}

// dial connects to the daemon; a missing daemon is a usage-class error with
// a hint.
func (a *app) dial(ctx context.Context) (*client.Client, error) {
	c, err := client.Dial(ctx, a.socketPath())
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%w\n(start it with `logwatch run`, or check --socket / LOGWATCH_SOCKET)", err))
	}
	return c, nil
}

// call runs f against the daemon with a short timeout.
func (a *app) call(f func(ctx context.Context, c *client.Client) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := f(ctx, c); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return withCode(exitFindings, err)
	}
	return nil
}

// subscribe opens a change stream that ends on SIGINT/SIGTERM; done
// releases it.
func (a *app) subscribe() (<-chan relay.Event, func() error, func(), error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := a.dial(dctx)
	cancel()
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	evs, wait, err := c.Subscribe(ctx)
	if err != nil {
		c.Close()
		stop()
		return nil, nil, nil, withCode(exitFindings, err)
	}
	return evs, wait, func() { c.Close(); stop() }, nil
}

func newKeyCmd(a *app) *cobra.Command {
	var tab string
	cmd := &cobra.Command{
		Use:   "key --tab T esc|ctrl-c",
		Short: "Report an Esc or Ctrl+C typed into a tab (a candidate interrupt)",
		Long: `Reports a key press already decoded by a host app that owns the pty. The daemon
never acts on a key alone: it opens a confirmation window and changes the
session to ready only if the agent's log shows its interrupt marker in time.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				tab = os.Getenv("LOGWATCH_TAB")
			}
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required (or LOGWATCH_TAB)"))
			}
			key := strings.ToLower(args[0])
			if key != relay.KeyEsc && key != relay.KeyCtrlC {
				return withCode(exitUsage, fmt.Errorf("unknown key %q: want esc or ctrl-c", args[0]))
			}
			at := time.Now()
			return a.call(func(ctx context.Context, c *client.Client) error { return c.Key(ctx, tab, key, at) })
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab the key was typed into (default $LOGWATCH_TAB)")
	return cmd
}

func newAckCmd(a *app) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "ack --session S",
		Short: "Acknowledge a finished turn: done → ready",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if id == "" {
				return withCode(exitUsage, errors.New("--session is required"))
			}
			return a.call(func(ctx context.Context, c *client.Client) error { return c.Ack(ctx, id) })
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "the session (conversation id)")
	return cmd
}

func newTabClosedCmd(a *app) *cobra.Command {
	var tab string
	cmd := &cobra.Command{
		Use:   "tab-closed --tab T",
		Short: "Report a tab closed: its sessions become ended",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required"))
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				_, err := c.TabClosed(ctx, tab)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab that closed")
	return cmd
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON, all, watch bool
	cmd := &cobra.Command{
		Use:   "status [--json] [--all] [--watch]",
		Short: "Show every session's state and the daemon's counters",
		Long: `Shows every session's state and the daemon's counters. --watch keeps a live view
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
				if asJSON {
					enc := json.NewEncoder(a.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				writeStatus(a.stdout, st, all, time.Now())
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include sessions idle for more than a day")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "a live view, updated on every change (Ctrl+C ends it)")
	return cmd
}

// writeStatus prints sessions, most urgent first, then the counters.
func writeStatus(w io.Writer, st relay.Status, all bool, now time.Time) {
	sessions := st.Sessions
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Since.After(sessions[j].Since) })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tAGENT\tSESSION\tTAB\tWHERE\tREASON\tDETAIL\tAGE")
	hidden := 0
	for _, s := range sessions {
		age := now.Sub(s.Since)
		if !all && age > 24*time.Hour {
			hidden++
			continue
		}
		where := s.Worktree
		if where == "" {
			where = s.Cwd
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.State, s.Agent, short(s.Session, 8), orDash(s.Tab),
			orDash(where), orDash(s.Reason), orDash(short(s.Detail, 40)), age.Round(time.Second))
	}
	tw.Flush()
	if hidden > 0 {
		fmt.Fprintf(w, "(%d sessions idle for more than a day not shown; --all shows them)\n", hidden)
	}
	c := st.Counters
	fmt.Fprintf(w, "\nhooks %d received, %d dropped, %d unknown; lines %d, %d malformed, %d oversized\n",
		c.HooksReceived, c.HooksDropped, c.HooksUnknown, c.Lines, c.Malformed, c.Oversized)
	fmt.Fprintf(w, "keys %d: %d interrupt candidates, %d confirmed, %d unconfirmed; %d bad requests\n",
		c.Keys, c.InterruptCandidates, c.InterruptsConfirmed, c.InterruptsUnconfirmed, c.BadRequests)
	if c.HTTPRefused > 0 || c.TranscriptsRefused > 0 {
		fmt.Fprintf(w, "refused: %d http requests (foreign Host or Origin, no secret, not JSON), %d transcript paths outside the log roots\n",
			c.HTTPRefused, c.TranscriptsRefused)
	}
}

func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newEventsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream state changes: a snapshot of every session, then each change",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			evs, wait, done, err := a.subscribe()
			if err != nil {
				return err
			}
			defer done()
			enc := json.NewEncoder(a.stdout)
			for ev := range evs {
				if asJSON {
					if err := enc.Encode(ev); err != nil {
						return withCode(exitFindings, err)
					}
					continue
				}
				tag := ""
				if ev.Snapshot {
					tag = " (snapshot)"
				}
				fmt.Fprintf(a.stdout, "%s %-10s %s %s %s %s [%s %s]%s\n", ev.Since.Format("15:04:05.000"), ev.State,
					short(ev.Session, 8), ev.Agent, ev.Reason, short(ev.Detail, 60), ev.Source, ev.Rule, tag)
			}
			if err := wait(); err != nil {
				return withCode(exitFindings, err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}
