package tmux

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoPane says a session is in no tmux pane logwatch knows: its tab is
// not one `logwatch wrap` derived from a pane.
var ErrNoPane = errors.New("the session is in no tmux pane (run the agent as `logwatch wrap -- AGENT` in tmux)")

// Show takes a tmux client to pane: the pane's window and pane first,
// then the client (client "" is tmux's own choice: the one that ran the
// command inside tmux, else the most recently active), so a pane in another
// tmux session is reached too.
func (s Server) Show(ctx context.Context, pane, client string) error {
	sw := []string{"switch-client", "-t", pane}
	if client != "" {
		sw = []string{"switch-client", "-c", client, "-t", pane}
	}
	if _, err := s.Run(ctx, []string{"select-window", "-t", pane}, []string{"select-pane", "-t", pane}, sw); err != nil {
		return fmt.Errorf("switch to %s: %w", pane, err)
	}
	return nil
}

// Jump takes the most recently active client of the tmux server a tab
// belongs to to the tab's pane, from outside that server (the daemon, when
// the person clicks a session's alert). The tab names the server by its
// pid; its socket is found from the process itself.
func Jump(ctx context.Context, tab string) error {
	pid, pane, ok := ParseTab(tab)
	if !ok {
		return ErrNoPane
	}
	socket, err := SocketOf(pid)
	if err != nil {
		return fmt.Errorf("tab %s: %w", tab, err)
	}
	return Server{Socket: socket}.Show(ctx, pane, "")
}
