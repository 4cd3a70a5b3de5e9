//go:build linux

package tmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// TestJump: a tab of a real tmux server's pane (on a socket with a space
// in its path, not tmux's default) is reached from outside it: the server
// found from its pid, its session taken to the pane's window and pane. A
// tab that is no pane's, or a pid that is not a tmux server, is refused.
func TestJump(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "tmux not installed")
	}
	dir := filepath.Join(t.TempDir(), "a dir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := Server{Socket: filepath.Join(dir, "sock")}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run := func(cmds ...[]string) string {
		t.Helper()
		out, err := srv.Run(ctx, cmds...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	run([]string{"-f", "/dev/null", "new-session", "-d", "-s", "main"}, []string{"new-window", "-d", "-t", "main:1"}, []string{"split-window", "-d", "-t", "main:1"})
	t.Cleanup(func() { _, _ = srv.Run(context.Background(), []string{"kill-server"}) })
	pid, _ := strconv.Atoi(run([]string{"display-message", "-p", "#{pid}"}))
	target := run([]string{"display-message", "-p", "-t", "main:1.1", "#{pane_id}"})
	if got := run([]string{"display-message", "-p", "-t", "main", "#{window_index}.#{pane_index}"}); got != "0.0" {
		t.Fatalf("the session starts at %s", got)
	}

	if sock, err := SocketOf(pid); err != nil || sock != srv.Socket {
		t.Fatalf("SocketOf(%d) = %q, %v; want %q", pid, sock, err, srv.Socket)
	}
	if err := Jump(ctx, ServerTab(pid, target)); err != nil {
		// No client is attached: switch-client fails after the window
		// and pane were selected.
		if !strings.Contains(err.Error(), "no current client") {
			t.Fatal(err)
		}
	}
	if got := run([]string{"display-message", "-p", "-t", "main", "#{pane_id}"}); got != target {
		t.Fatalf("after the jump the session shows %s, want %s", got, target)
	}

	if err := Jump(ctx, "T1"); err != ErrNoPane {
		t.Errorf("a tab of no pane: %v", err)
	}
	if err := Jump(ctx, ServerTab(os.Getpid(), "%1")); err == nil || !strings.Contains(err.Error(), "not a tmux server") {
		t.Errorf("the test's own pid as a tmux server: %v", err)
	}
}

func TestCutFields(t *testing.T) {
	for _, tc := range []struct{ line, fields, rest string }{
		{"0000: 00000002 00000000 00010000 0001 01 24735 /tmp/a b/sock", "0000:|00000002|00000000|00010000|0001|01|24735", "/tmp/a b/sock"},
		{"0000: 00000003 00000000 00000000 0001 03 24740", "0000:|00000003|00000000|00000000|0001|03|24740", ""},
		{"  x  y", "x|y", ""},
	} {
		fields, rest := cutFields(tc.line, 7)
		if strings.Join(fields, "|") != tc.fields || rest != tc.rest {
			t.Errorf("cutFields(%q) = %q, %q", tc.line, fields, rest)
		}
	}
}
