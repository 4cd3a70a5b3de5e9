package statusview

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/relay/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// watchSessions covers every state, grouping by worktree and by cwd, a
// detail too long for the line, a path too long for the header, titles
// beside details and alone (one carrying OSC 52).
func watchSessions(now time.Time) []wire.Event {
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	return []wire.Event{
		{Session: "a1f03c9e-5b7d-4c1e-9a2f-0d6b8e4c3a21", Agent: "claude", Tab: "wrap-3f9a0c1d2e4b5a69", Worktree: "/home/dev/src/app", Cwd: "/home/dev/src/app", State: "working", Reason: "tool", Detail: "go test ./... -run TestEverything -count=1 -race -timeout 10m", Title: "Make the relay tests pass under -race", Since: ago(12 * time.Second)},
		{Session: "019e0f3d-12a4-7b90-8c61-3e2f9d0a7b54", Agent: "codex", Tab: "T2", Worktree: "/home/dev/src/app", Cwd: "/home/dev/src/app/web", State: "waiting", Reason: "permission", Detail: "Bash: rm -rf build", Title: "clean the build", Since: ago(3 * time.Minute)},
		{Session: "a3", Agent: "claude", Worktree: "/home/dev/src/app", Cwd: "/home/dev/src/app", State: "ended", Reason: "session_end", Since: ago(5 * time.Hour)},
		{Session: "b1", Agent: "claude", Cwd: "/tmp/scratch", State: "done", Reason: "turn_end", Title: "Explain \x1b]52;c;aGk=\x07 the clipboard", Since: ago(40 * time.Second)},
		{Session: "019e1a2b-77c0-7d21-9f3e-5a0c4b2d1e6f", Agent: "codex", Worktree: "/home/dev/src/infra", State: "compacting", Reason: "compaction", Since: ago(2 * time.Second)},
		{Session: "r1", Agent: "codex", Host: "devbox", Worktree: "/srv/app", Cwd: "/srv/app", State: "working", Reason: "prompt", Stale: true, StaleReason: "ssh devbox: connection reset", Since: ago(90 * time.Second)},
		{Session: "d1", Agent: "claude", Cwd: "/home/dev/very/long/path/to/a/project/that/does/not/fit/in/eighty/columns/at/all/really", State: "ready", Reason: "interrupted", Since: ago(50 * time.Hour)},
	}
}

func TestRenderSessionsGolden(t *testing.T) {
	now := time.Date(2026, 3, 4, 10, 20, 30, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		color bool
		width int // 120: room for a title beside a detail
	}{{"watch-80.golden", false, 80}, {"watch-80-color.golden", true, 80}, {"watch-120.golden", false, 120}} {
		var b bytes.Buffer
		Render(&b, watchSessions(now), now, tc.width, tc.color, Notes{})
		testsupport.Golden(t, "testdata/"+tc.name, b.Bytes(), *update)
		if !tc.color {
			for _, line := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > tc.width {
					t.Errorf("line of %d columns: %q", n, line)
				}
			}
		}
		if tc.color != strings.Contains(b.String(), "\x1b[") {
			t.Errorf("%s: colour codes present = %v", tc.name, !tc.color)
		}
	}
	// No session: the view says so and names the roots it looks in.
	var b bytes.Buffer
	Render(&b, nil, now, 80, false, Notes{Roots: []string{"/nonexistent/claude/projects"}, Note: "(lost the daemon: EOF; reconnecting)"})
	for _, want := range []string{"No session found", "/nonexistent/claude/projects  (does not exist yet", "lost the daemon"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("empty view lacks %q:\n%s", want, b.String())
		}
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("empty view: line of %d columns: %q", n, line)
		}
	}
}
