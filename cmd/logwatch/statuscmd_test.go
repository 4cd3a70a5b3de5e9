package main

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestStatusWatchPlain follows a real daemon with stdout not a terminal: one
// plain line per change, no escape sequences.
func TestStatusWatchPlain(t *testing.T) {
	e := startE2E(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "status", "--watch")
	cmd.Env = e.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); cmd.Wait() }()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// Wait for the watcher's subscription (the e2e harness has one too).
	deadline := time.Now().Add(10 * time.Second)
	for counter(e.status(), "subscribers") < 2 {
		if time.Now().After(deadline) {
			t.Fatal("status --watch never subscribed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.hook("t1", "claude", hookJSON("PermissionRequest", "w1", "tool_name", "Bash", "tool_input", `{"command":"make deploy"}`))
	// An empty daemon: the view first says so and where it looks.
	if l := <-lines; !strings.HasPrefix(l, "No session found") {
		t.Errorf("first line %q", l)
	}
	for l := range lines {
		if strings.HasPrefix(l, "and for hook events") {
			break
		}
	}
	select {
	case l := <-lines:
		for _, s := range []string{"waiting", "claude", "w1", "t1", "/w/app", "permission", "make deploy"} {
			if !strings.Contains(l, s) {
				t.Errorf("line lacks %q: %q", s, l)
			}
		}
		if strings.Contains(l, "\x1b") {
			t.Errorf("escape sequence in plain output: %q", l)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no line for the change")
	}
}
