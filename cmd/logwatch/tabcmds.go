package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

func newKeyCmd(a *app) *cobra.Command {
	var tab string
	var pid int
	cmd := &cobra.Command{
		Use:   "key --tab T [--pid P] esc|ctrl-c|enter",
		Short: "Report an Esc, Ctrl+C or Enter typed into a tab (a candidate interrupt, or a submit)",
		Long: `Reports a key press already decoded by a host app that owns the pty. The daemon
never acts on a key alone: for Esc and Ctrl+C it opens a confirmation window and
changes the session to ready only if the agent's log shows its interrupt marker in
time; an Enter binds a Codex session to the tab only when its turn starts right
after it and no other tab submitted too.
--pid names the tab's child process (the agent, or a shell above it): the
daemon then binds the tab to the session of an agent running at or under it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				tab = os.Getenv("LOGWATCH_TAB")
			}
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required (or LOGWATCH_TAB)"))
			}
			key := strings.ToLower(args[0])
			if key != relay.KeyEsc && key != relay.KeyCtrlC && key != relay.KeyEnter {
				return withCode(exitUsage, fmt.Errorf("unknown key %q: want esc, ctrl-c or enter", args[0]))
			}
			if pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", pid))
			}
			at := time.Now()
			return a.call(func(ctx context.Context, c *client.Client) error { return c.KeyPid(ctx, tab, pid, key, at) })
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab the key was typed into (default $LOGWATCH_TAB)")
	cmd.Flags().IntVar(&pid, "pid", 0, "the tab's child process, if known")
	return cmd
}

func newAckCmd(a *app) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "ack --session S",
		Short: "Acknowledge a finished turn: done → ready",
		Long: `Acknowledges a finished turn (done → ready). S is a session id or any unique
prefix of one, such as the short ids status and events show; a prefix that
matches several sessions is refused with the list.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if id == "" {
				return withCode(exitUsage, errors.New("--session is required"))
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				full, err := a.resolveSession(ctx, c, id)
				if err != nil {
					return err
				}
				return c.Ack(ctx, full)
			})
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "the session: its id or any unique prefix of it (as status shows)")
	return cmd
}

func newTabClosedCmd(a *app) *cobra.Command {
	var tab string
	var pid int
	cmd := &cobra.Command{
		Use:   "tab-closed --tab T [--pid P]",
		Short: "Report a tab closed: its sessions become ended",
		Long: `Reports a tab closed: its sessions become ended. --pid names the tab's child
process, which binds the tab to its agent's session if nothing had yet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required"))
			}
			if pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", pid))
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				_, err := c.TabClosedPid(ctx, tab, pid)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab that closed")
	cmd.Flags().IntVar(&pid, "pid", 0, "the tab's child process, if known")
	return cmd
}
