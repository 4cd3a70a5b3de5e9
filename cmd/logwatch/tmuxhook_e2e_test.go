package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EHookTabInTmux: an agent hooked but not wrapped, in a tmux pane:
// its hook names the pane's tab, the one wrap would have given, so the
// session has its pane (the window dot, the focus, next). A hook whose
// $TMUX names a server it does not run under (inherited by a process that
// left the server's tree) names no tab, and neither does one outside tmux.
func TestE2EHookTabInTmux(t *testing.T) {
	e := startE2E(t)
	x := startTmux(t, e)
	payload := filepath.Join(e.dir, "start.json")
	write(t, payload, hookJSON("SessionStart", "tm1", "source", "startup"))
	x.run("new-window", "-d", "-t", "main:1", "sh -c '"+bin+" hook --agent claude < "+payload+"; exec sleep 100000'")
	pane := x.run("display-message", "-p", "-t", "main:1", "#{pane_id}")
	ev := e.want("tm1", "ready", "session_start", "hook")
	if want := fmt.Sprintf("tmux-%d-%s", x.pid, pane); ev["tab"] != want {
		t.Fatalf("a hook in pane %s: tab %v, want %s", pane, ev["tab"], want)
	}

	// $TMUX and $TMUX_PANE of that server, but run from outside its tree.
	cmd := exec.Command(bin, "hook", "--agent", "claude")
	cmd.Env = append(append([]string{}, e.env...), fmt.Sprintf("TMUX=%s,%d,0", x.socket, x.pid), "TMUX_PANE="+pane)
	cmd.Stdin = strings.NewReader(hookJSON("SessionStart", "tm2", "source", "startup"))
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("hook: %v %q", err, out)
	}
	if ev := e.want("tm2", "ready", "session_start", "hook"); ev["tab"] != nil && ev["tab"] != "" {
		t.Errorf("a hook outside the server's tree: tab %v, want none", ev["tab"])
	}
	e.hook("", "claude", hookJSON("SessionStart", "tm3", "source", "startup"))
	if ev := e.want("tm3", "ready", "session_start", "hook"); ev["tab"] != nil && ev["tab"] != "" {
		t.Errorf("LOGWATCH_TAB set empty: tab %v, want none", ev["tab"])
	}
}
