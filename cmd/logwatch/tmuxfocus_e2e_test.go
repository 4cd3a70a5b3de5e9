package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2ETmuxFocus: the follower holds the focus of the pane an attached
// client shows (a real tmux server, the installed hooks, the real
// follower and daemon, a command sink writing the alerts to a file): a
// wait in that pane raises no alert for as long as it is shown (and its
// terminal has focus, when tmux knows: focus-events); after a
// switch to another window a new wait in it alerts; entering a pane
// acknowledges its finished turn (and not a live agent's, nor one that
// finishes in a pane already shown); the follower killed -9, its focus is
// forgotten.
func TestE2ETmuxFocus(t *testing.T) {
	e, alerts := notifyE2E(t, "")
	x := startTmux(t, e)
	x.run("new-window", "-d", "-t", "main:1", "sleep 100000")
	x.run("new-window", "-d", "-t", "main:2", "sleep 100000")
	x.run("new-window", "-d", "-t", "main:3", "sleep 100000")
	tab := func(window string) string {
		return fmt.Sprintf("tmux-%d-%s", x.pid, x.run("display-message", "-p", "-t", "main:"+window, "#{pane_id}"))
	}
	t0, t1, t2, t3 := tab("0"), tab("1"), tab("2"), tab("3")
	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install: %d\n%s%s", code, out, stderr)
	}
	var follower int
	started := func(not int) {
		t.Helper()
		x.eventually("follower", func() (string, bool) {
			b, _ := os.ReadFile(x.socket + ".logwatch-follow")
			follower, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return string(b), follower > 0 && follower != not
		})
	}
	started(0)
	// Installed again (an upgrade): the running follower makes way for the
	// installed binary's.
	first := follower
	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install again: %d\n%s%s", code, out, stderr)
	}
	started(first)
	if syscall.Kill(first, 0) == nil {
		t.Fatalf("the first follower (%d) runs on beside %d", first, follower)
	}
	wait := func(tab, id string) {
		t.Helper()
		e.hook(tab, "claude", hookJSON("PermissionRequest", id, "tool_name", "Bash", "tool_input", `{"command":"make"}`))
		e.want(id, "waiting", "permission", "hook")
	}
	answer := func(tab, id string) {
		t.Helper()
		e.hook(tab, "claude", hookJSON("PostToolUse", id, "tool_name", "Bash", "tool_input", `{"command":"make"}`))
		e.want(id, "working", "tool", "hook")
	}
	for _, s := range []struct{ tab, id string }{{t0, "a"}, {t1, "b"}, {t2, "fin"}, {t3, "busy"}} {
		e.hook(s.tab, "claude", hookJSON("UserPromptSubmit", s.id))
		e.want(s.id, "working", "prompt", "hook")
	}
	// No client yet: a wait in main:0 alerts.
	wait(t0, "a")
	waitAlerts(t, alerts, "show_a_waiting_permission")

	// A client attaches, showing main:0: its focus withdraws that alert,
	// and the next wait there raises none.
	term := x.attach("main")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission")
	answer(t0, "a")
	wait(t0, "a")
	// The terminal loses focus (install turned focus-events on: tmux
	// knows): the pane is no longer in front of anyone, the follower lets
	// its focus go, and a wait there alerts; the terminal's focus back
	// withdraws it.
	if v := x.run("show-options", "-gv", "focus-events"); v != "on" {
		t.Fatalf("focus-events %q after install", v)
	}
	held := sockets(t, follower)
	answer(t0, "a")
	term.Write([]byte("\x1b[O"))
	x.eventually("the focus let go", func() (string, bool) {
		n := sockets(t, follower)
		return fmt.Sprintf("%d sockets, had %d", n, held), n == held-1
	})
	wait(t0, "a")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission")
	term.Write([]byte("\x1b[I"))
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission",
		"withdraw_a_waiting_permission")
	answer(t0, "a")
	wait(t0, "a")
	// b's wait in main:1, unseen, alerts; the client going there withdraws
	// it (the focus moved), and a's next wait in main:0 alerts.
	wait(t1, "b")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_b_waiting_permission")
	x.run("select-window", "-t", "main:1")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_b_waiting_permission",
		"withdraw_b_waiting_permission")
	answer(t0, "a")
	wait(t0, "a")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_b_waiting_permission",
		"withdraw_b_waiting_permission", "show_a_waiting_permission")
	answer(t0, "a")
	answer(t1, "b")

	// fin's turn finishes in main:2 while the client shows main:1: it is
	// what next offers. Entering main:3 leaves busy working there;
	// entering main:2 acknowledges fin.
	e.hook(t2, "claude", hookJSON("Stop", "fin"))
	e.want("fin", "done", "turn_end", "hook")
	if out, _, code := cli(t, x.env, "next"); code != 0 || !strings.Contains(out, "done claude fin") {
		t.Fatalf("next before entering: %d %q", code, out)
	}
	// Through the hooks an earlier release installed (`tmux focus PANE`,
	// run by run-shell), which wake the follower.
	for _, h := range []string{"after-select-window", "session-window-changed"} {
		x.run("set-hook", "-g", h+"[73]", "run-shell -b '"+bin+" tmux focus #{pane_id}'")
	}
	x.run("select-window", "-t", "main:3")
	x.run("select-window", "-t", "main:2")
	e.want("fin", "ready", "acknowledged", "api")
	if out, _, code := cli(t, x.env, "next"); code != 0 || strings.TrimSpace(out) != nothingNeedsYou {
		t.Fatalf("next after entering: %d %q", code, out)
	}
	if busy := sessionOf(e.status(), "busy"); busy["state"] != "working" {
		t.Fatalf("busy after its pane was entered: %v", busy)
	}
	// fin's next turn finishes in the pane shown: not acknowledged (only
	// coming to a pane counts); a wake that changes nothing acks nothing.
	e.hook(t2, "claude", hookJSON("UserPromptSubmit", "fin"))
	e.want("fin", "working", "prompt", "hook")
	e.hook(t2, "claude", hookJSON("Stop", "fin"))
	e.want("fin", "done", "turn_end", "hook")
	x.run("select-window", "-t", "main:2")
	if out, stderr, code := cli(t, append(append([]string{}, x.env...), fmt.Sprintf("TMUX=%s,%d,0", x.socket, x.pid)), "tmux", "focus", "%0"); code != 0 || out != "" || stderr != "" {
		t.Fatalf("tmux focus: %d %q %q", code, out, stderr)
	}
	e.quiet("fin", time.Second) // time for an ack, were there one
	e.hook(t2, "claude", hookJSON("UserPromptSubmit", "fin"))
	e.want("fin", "working", "prompt", "hook")

	// The follower idle: no CPU tick, no context switch.
	x.want(x.run("display-message", "-p", "-t", "main:2", "#{window_id}"), "working", "4 working") // the last change taken
	// Nor the tmux client it keeps waiting.
	var children []string // of every thread: any may have started it
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", follower))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		children = append(children, strings.Fields(string(b))...)
	}
	if len(children) != 1 {
		t.Fatalf("the follower's children %v, want its one waiting tmux client", children)
	}
	waiter, _ := strconv.Atoi(children[0])
	before, beforeWaiter := procWakeups(t, follower), procWakeups(t, waiter)
	time.Sleep(2 * time.Second)
	if after := procWakeups(t, follower); after != before {
		t.Fatalf("idle follower woke: %s → %s", before, after)
	}
	if after := procWakeups(t, waiter); after != beforeWaiter {
		t.Fatalf("its waiting tmux client woke: %s → %s", beforeWaiter, after)
	}
	// Killed -9: its focus goes with its connection, and a wait in the
	// pane still shown alerts.
	syscall.Kill(follower, syscall.SIGKILL)
	x.eventually("follower gone", func() (string, bool) {
		return "running", syscall.Kill(follower, 0) != nil
	})
	wait(t2, "fin")
	waitAlerts(t, alerts, "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_a_waiting_permission", "withdraw_a_waiting_permission", "show_b_waiting_permission",
		"withdraw_b_waiting_permission", "show_a_waiting_permission", "withdraw_a_working_tool", "show_fin_waiting_permission")
}

// sessionOf is a session's entry in a status answer, nil if absent.
func sessionOf(st map[string]any, id string) map[string]any {
	list, _ := st["sessions"].([]any)
	for _, s := range list {
		if m, ok := s.(map[string]any); ok && m["session"] == id {
			return m
		}
	}
	return nil
}

// sockets counts a process's open sockets.
func sockets(t *testing.T, pid int) int {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}
