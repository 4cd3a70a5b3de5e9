package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/wire"
	"github.com/logwatch/logwatch/tmux"
)

// nothingNeedsYou is what next says when no session waits and no turn is
// unacknowledged: not an error (the key was pressed, the answer is no).
const nothingNeedsYou = "nothing needs you"

func newNextCmd(a *app) *cobra.Command {
	var switchTo, asJSON bool
	var tmuxClient string
	cmd := &cobra.Command{
		Use:   "next [--switch] [--json]",
		Short: "The session that needs you most: the longest waiting, else the oldest finished turn",
		Long: `Prints the session that needs you most, local or remote: the one waiting longest
for you, else the oldest finished turn you have not seen (done). With --switch
(the default inside tmux) it switches tmux to that session's pane instead, and
a finished turn it jumps to is acknowledged (done → ready). When nothing needs
you it says so and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("switch") {
				switchTo = os.Getenv("TMUX") != "" && !asJSON
			}
			return a.next(switchTo, asJSON, tmuxClient)
		},
	}
	cmd.Flags().BoolVar(&switchTo, "switch", false, "switch tmux to the session's pane (default inside tmux) and acknowledge a finished turn")
	cmd.Flags().StringVar(&tmuxClient, "client", "", "the tmux client to switch (the key binding passes its own; default: tmux's current client)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the session's event as JSON (null when nothing needs you)")
	return cmd
}

func (a *app) next(switchTo, asJSON bool, tmuxClient string) error {
	env := os.Getenv("TMUX")
	if switchTo && env == "" {
		return withCode(exitUsage, errors.New("--switch needs tmux: run it inside tmux, or drop --switch to print the session"))
	}
	var st wire.Status
	err := a.callStatus(func(ctx context.Context, c *client.Client) (err error) {
		st, err = c.Status(ctx)
		return err
	})
	if err != nil {
		return err
	}
	server := tmux.Server{Socket: tmux.SocketPath(env)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ev, ok := tmux.Next(st.Sessions, time.Now())
	if !switchTo {
		switch {
		case asJSON:
			var v any
			if ok {
				v = ev
			}
			b, _ := json.Marshal(v)
			fmt.Fprintln(a.stdout, string(b))
		case ok:
			fmt.Fprintln(a.stdout, termsafe.Line(describe(ev)))
		default:
			fmt.Fprintln(a.stdout, nothingNeedsYou)
		}
		return nil
	}
	if !ok {
		msg := []string{"display-message", "logwatch: " + nothingNeedsYou}
		if tmuxClient != "" {
			msg = []string{"display-message", "-c", tmuxClient, "logwatch: " + nothingNeedsYou}
		}
		server.Run(ctx, msg)
		return nil
	}
	// The jump goes to the neediest session tmux can show: one elsewhere
	// (another terminal) must not keep the key from the rest.
	panes, err := server.Panes(ctx)
	if err != nil {
		return withCode(exitUsage, err)
	}
	paneOf := tmux.ServerPane(tmux.ServerPid(env), panes, proctree.Parent)
	var shown []wire.Event
	for _, s := range st.Sessions {
		if paneOf(s) != "" {
			shown = append(shown, s)
		}
	}
	first := ev
	if ev, ok = tmux.Next(shown, time.Now()); !ok {
		return withCode(exitFindings, fmt.Errorf("%s is in no pane of this tmux server (tab %q): run the agent as `logwatch wrap -- AGENT` in a tmux pane",
			termsafe.Line(describe(first)), first.Tab))
	}
	if err := server.Show(ctx, paneOf(ev), tmuxClient); err != nil {
		return withCode(exitUsage, err)
	}
	if ev.State == string(session.Done) {
		// Jumping to a finished turn is seeing it (SPEC §13).
		return a.ackTurn(context.Background(), ev)
	}
	return nil
}

// ackTurn acknowledges a session's finished turn through the daemon (the
// ack op, on its host for a remote session): next's jump and the tmux
// follower's entering a pane.
func (a *app) ackTurn(ctx context.Context, ev wire.Event) error {
	ctx, cancel := context.WithTimeout(ctx, callCap)
	defer cancel()
	return a.callCtx(ctx, answerTimeout, func(ctx context.Context, c *client.Client) error {
		_, err := c.Do(ctx, wire.Request{Op: wire.OpAck, Session: ev.Session, Host: ev.Host})
		return err
	})
}

// describe is one line about a session: where, what, which state.
func describe(ev wire.Event) string {
	id := ev.Session
	if ev.Host != "" {
		id = ev.Host + ":" + id
	}
	s := fmt.Sprintf("%s %s %s", ev.State, ev.Agent, id)
	if ev.Title != "" {
		s += fmt.Sprintf(" %q", ev.Title)
	}
	if ev.Tab != "" {
		s += " tab " + ev.Tab
	}
	if ev.Cwd != "" {
		s += " in " + ev.Cwd
	}
	return s
}
