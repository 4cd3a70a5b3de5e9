// Package tmux puts the sessions' states where tmux users already look: a
// dot per window in the window list, a summary in the status line, and a
// jump to the session that needs the person most (docs/tmux.md). The pure
// part (Board: which dot, which summary, which session next) is apart from
// the edges that run tmux and follow the daemon.
package tmux

import (
	"fmt"
	"strconv"
	"strings"
)

// tabPrefix starts the tab ids `logwatch wrap` derives from a tmux pane.
const tabPrefix = "tmux-"

// PaneTab is the tab id of pane (as $TMUX_PANE names it: "%3") of the tmux
// server $TMUX names ("socket,pid,session"): stable for the pane's life and
// unique across servers, so the follower finds the pane from the tab alone.
// It is "" outside tmux.
func PaneTab(tmuxEnv, pane string) string {
	parts := strings.Split(tmuxEnv, ",")
	if len(parts) < 2 || !strings.HasPrefix(pane, "%") {
		return ""
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return ""
	}
	if _, err := strconv.Atoi(pane[1:]); err != nil {
		return ""
	}
	return ServerTab(pid, pane)
}

// ServerTab is the tab of pane ("%3") of the tmux server whose pid is pid.
func ServerTab(pid int, pane string) string { return fmt.Sprintf("%s%d-%s", tabPrefix, pid, pane) }

// ParseTab returns the server pid and pane of a tab PaneTab made; ok is
// false for any other tab.
func ParseTab(tab string) (serverPid int, pane string, ok bool) {
	rest, found := strings.CutPrefix(tab, tabPrefix)
	if !found {
		return 0, "", false
	}
	p, pane, found := strings.Cut(rest, "-")
	if !found || !strings.HasPrefix(pane, "%") {
		return 0, "", false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	if _, err := strconv.Atoi(pane[1:]); err != nil {
		return 0, "", false
	}
	return pid, pane, true
}

// ServerPid is the pid of the tmux server $TMUX names, 0 if it names none.
func ServerPid(tmuxEnv string) int {
	parts := strings.Split(tmuxEnv, ",")
	if len(parts) < 2 {
		return 0
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// SocketPath is the socket of the tmux server $TMUX names.
func SocketPath(tmuxEnv string) string {
	s, _, _ := strings.Cut(tmuxEnv, ",")
	return s
}
