// Package command is the notifier's command sink: it runs the person's
// command for each alert (a sound, a chat message, anything), with the
// alert in its environment and as JSON on stdin. It never runs a shell
// unless the command itself is one; its output is discarded, and it is
// killed (with everything it started) at the call's deadline.
package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/notify"
)

// Sink runs Argv for each show (and each withdraw when Withdraw is set).
type Sink struct {
	Argv []string
	// OnWithdraw runs the command for withdrawals too (LOGWATCH_EVENT
	// says which): off, a sound command would play when a wait is answered.
	OnWithdraw bool
}

// New returns a command sink, or an error when argv names no command.
func New(argv []string, withdraw bool) (*Sink, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("command sink: command is empty")
	}
	return &Sink{Argv: argv, OnWithdraw: withdraw}, nil
}

func (s *Sink) Name() string { return "command" }

func (s *Sink) Show(ctx context.Context, a notify.Alert) error { return s.run(ctx, "show", a) }

func (s *Sink) Withdraw(ctx context.Context, a notify.Alert) error {
	if !s.OnWithdraw {
		return nil
	}
	return s.run(ctx, "withdraw", a)
}

// Payload is what the command reads on stdin.
type Payload struct {
	Event   string    `json:"event"` // show or withdraw
	Host    string    `json:"host,omitempty"`
	Session string    `json:"session"`
	Agent   string    `json:"agent"`
	Title   string    `json:"title,omitempty"`
	State   string    `json:"state"`
	Reason  string    `json:"reason"`
	Detail  string    `json:"detail,omitempty"`
	Tab     string    `json:"tab,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Since   time.Time `json:"since"`
}

// PayloadOf is the JSON a command or a json webhook gets for an event.
func PayloadOf(event string, a notify.Alert) Payload {
	return Payload{Event: event, Host: a.Host, Session: a.Session, Agent: a.Agent, Title: a.Title,
		State: a.State, Reason: a.Reason, Detail: a.Detail, Tab: a.Tab, Cwd: a.Cwd, Since: a.Since}
}

// Env is the alert as LOGWATCH_* variables.
func Env(event string, a notify.Alert) []string {
	return []string{
		"LOGWATCH_EVENT=" + event,
		"LOGWATCH_STATE=" + a.State,
		"LOGWATCH_REASON=" + a.Reason,
		"LOGWATCH_DETAIL=" + a.Detail,
		"LOGWATCH_TITLE=" + a.Title,
		"LOGWATCH_SESSION=" + a.Session,
		"LOGWATCH_HOST=" + a.Host,
		"LOGWATCH_AGENT=" + a.Agent,
		"LOGWATCH_TAB=" + a.Tab,
		"LOGWATCH_CWD=" + a.Cwd,
		"LOGWATCH_SINCE=" + a.Since.UTC().Format(time.RFC3339Nano),
	}
}

func (s *Sink) run(ctx context.Context, event string, a notify.Alert) error {
	in, err := json.Marshal(PayloadOf(event, a))
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.Argv[0], s.Argv[1:]...)
	cmd.Env = append(os.Environ(), Env(event, a)...)
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	// Its own process group, killed whole at the deadline: a script's
	// children (a player, curl) go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: killed at the deadline: %w", s.Argv[0], ctx.Err())
		}
		return fmt.Errorf("%s: %w", s.Argv[0], err)
	}
	return nil
}

// Check says whether the command can run: found on PATH (or a path that
// exists) and executable.
func Check(argv []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("command is empty")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return err
	}
	return nil
}

// Probe says whether the command can run (doctor): nothing is run.
func (s *Sink) Probe(context.Context) (string, error) { return "", Check(s.Argv) }
