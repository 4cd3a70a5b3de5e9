package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// keyOptions is the key press `logwatch key` reports.
type keyOptions struct {
	Tab string
	Pid int    // the tab's child process; 0 when unknown
	Key string // wire.KeyEsc, wire.KeyCtrlC or wire.KeyEnter
	At  time.Time
}

// newKeyCmd parses and checks the flags; runF (nil: keyRun) gets them.
func newKeyCmd(a *app, runF func(*keyOptions) error) *cobra.Command {
	opts := &keyOptions{}
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
			if opts.Tab == "" {
				opts.Tab = os.Getenv("LOGWATCH_TAB")
			}
			if opts.Tab == "" {
				return withCode(exitUsage, errors.New("--tab is required (or LOGWATCH_TAB)"))
			}
			opts.Key = strings.ToLower(args[0])
			if opts.Key != wire.KeyEsc && opts.Key != wire.KeyCtrlC && opts.Key != wire.KeyEnter {
				return withCode(exitUsage, fmt.Errorf("unknown key %q: want esc, ctrl-c or enter", args[0]))
			}
			if opts.Pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", opts.Pid))
			}
			opts.At = time.Now()
			if runF != nil {
				return runF(opts)
			}
			return a.keyRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Tab, "tab", "", "the tab the key was typed into (default $LOGWATCH_TAB)")
	cmd.Flags().IntVar(&opts.Pid, "pid", 0, "the tab's child process, if known")
	return cmd
}

func (a *app) keyRun(opts *keyOptions) error {
	return a.call(func(ctx context.Context, c *client.Client) error {
		return c.KeyPid(ctx, opts.Tab, opts.Pid, opts.Key, opts.At)
	})
}

// ackOptions is the session `logwatch ack` acknowledges.
type ackOptions struct {
	Session string // an id or a unique prefix of one
}

// newAckCmd parses and checks the flags; runF (nil: ackRun) gets them.
func newAckCmd(a *app, runF func(*ackOptions) error) *cobra.Command {
	opts := &ackOptions{}
	cmd := &cobra.Command{
		Use:   "ack --session S",
		Short: "Acknowledge a finished turn: done → ready",
		Long: `Acknowledges a finished turn (done → ready). S is a session id or any unique
prefix of one, such as the short ids status and events show; a prefix that
matches several sessions is refused with the list.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Session == "" {
				return withCode(exitUsage, errors.New("--session is required"))
			}
			if runF != nil {
				return runF(opts)
			}
			return a.ackRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session: its id or any unique prefix of it (as status shows)")
	return cmd
}

func (a *app) ackRun(opts *ackOptions) error {
	return a.call(func(ctx context.Context, c *client.Client) error {
		s, err := a.resolveSession(ctx, c, opts.Session)
		if err != nil {
			return err
		}
		if err := c.Ack(ctx, s.Session); err != nil {
			return err
		}
		// Say what it did: a silent success reads as nothing happened.
		id := termsafe.Line(s.Session)
		if s.State == "done" {
			fmt.Fprintf(a.stdout, "acknowledged %s: done → ready\n", id)
		} else {
			fmt.Fprintf(a.stdout, "%s is %s: nothing to acknowledge (ack turns done into ready)\n", id, termsafe.Line(s.State))
		}
		return nil
	})
}

// tabClosedOptions is the tab `logwatch tab-closed` reports closed.
type tabClosedOptions struct {
	Tab string
	Pid int // the tab's child process; 0 when unknown
}

// newTabClosedCmd parses and checks the flags; runF (nil: tabClosedRun)
// gets them.
func newTabClosedCmd(a *app, runF func(*tabClosedOptions) error) *cobra.Command {
	opts := &tabClosedOptions{}
	cmd := &cobra.Command{
		Use:   "tab-closed --tab T [--pid P]",
		Short: "Report a tab closed: its sessions become ended",
		Long: `Reports a tab closed: its sessions become ended. --pid names the tab's child
process, which binds the tab to its agent's session if nothing had yet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Tab == "" {
				return withCode(exitUsage, errors.New("--tab is required"))
			}
			if opts.Pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", opts.Pid))
			}
			if runF != nil {
				return runF(opts)
			}
			return a.tabClosedRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Tab, "tab", "", "the tab that closed")
	cmd.Flags().IntVar(&opts.Pid, "pid", 0, "the tab's child process, if known")
	return cmd
}

func (a *app) tabClosedRun(opts *tabClosedOptions) error {
	return a.call(func(ctx context.Context, c *client.Client) error {
		_, err := c.TabClosedPid(ctx, opts.Tab, opts.Pid)
		return err
	})
}
