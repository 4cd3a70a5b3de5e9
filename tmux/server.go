package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Server runs commands on one tmux server.
type Server struct {
	Bin    string // the tmux binary ("" for "tmux" on PATH)
	Socket string // the server's socket path ("" for tmux's default)
}

// ErrNoServer says the tmux server is not running (any more).
var ErrNoServer = errors.New("tmux server not running")

// Run runs one tmux invocation; cmds are tmux commands, joined with ";" so
// the server runs them all from one connection. It returns stdout.
func (s Server) Run(ctx context.Context, cmds ...[]string) ([]byte, error) {
	cmd := s.command(ctx, cmds...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := s.check(cmd.Run(), errb.String(), cmds[0]...); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// command is the tmux invocation running cmds.
func (s Server) command(ctx context.Context, cmds ...[]string) *exec.Cmd {
	bin := s.Bin
	if bin == "" {
		bin = "tmux"
	}
	var args []string
	if s.Socket != "" {
		args = append(args, "-S", s.Socket)
	}
	for i, c := range cmds {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, c...)
	}
	return exec.CommandContext(ctx, bin, args...)
}

// check turns an invocation's error and stderr into ErrNoServer or an
// error naming its first command.
func (s Server) check(err error, stderr string, first ...string) error {
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr)
	if strings.HasPrefix(msg, "no server running") || strings.HasPrefix(msg, "error connecting") ||
		strings.HasPrefix(msg, "server exited") || strings.HasPrefix(msg, "lost server") {
		return fmt.Errorf("%w (%s)", ErrNoServer, msg)
	}
	if msg == "" {
		return fmt.Errorf("tmux %s: %w", strings.Join(first, " "), err)
	}
	return fmt.Errorf("tmux %s: %s: %w", strings.Join(first, " "), msg, err)
}

// PaneInfo is one tmux pane: its id ("%3"), window ("@1"), session ("$0")
// and process.
type PaneInfo struct {
	ID, Window, Session string
	Pid                 int
}

// Panes lists every pane of the server.
func (s Server) Panes(ctx context.Context) ([]PaneInfo, error) {
	out, err := s.Run(ctx, []string{"list-panes", "-a", "-F", "#{pane_id} #{window_id} #{session_id} #{pane_pid}"})
	if err != nil {
		return nil, err
	}
	var panes []PaneInfo
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) == 4 {
			pid, _ := strconv.Atoi(f[3])
			panes = append(panes, PaneInfo{ID: f[0], Window: f[1], Session: f[2], Pid: pid})
		}
	}
	return panes, nil
}
