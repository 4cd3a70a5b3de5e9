package statusview

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// hostileEvent carries, in every field a view prints, what a terminal
// would obey: OSC 52 and OSC 0, a screen clear, C1 CSI, a bidi override, a
// stray byte, a tab and a newline.
func hostileEvent(now time.Time) wire.Event {
	const x = "\x1b]52;c;aGk=\x07\x1b]0;t\x07\x1b[2J\u009b2J\u202e\x9b\t\nfake line"
	return wire.Event{Session: "s" + x, Agent: "claude" + x, Tab: "t" + x, Worktree: "/w/" + x, Cwd: "/c/" + x,
		State: "working", Reason: "tool" + x, Detail: "echo " + x, Title: "fix " + x, Source: "hook" + x, Rule: "r" + x, Since: now.Add(-time.Second)}
}

// controls counts the runes in s a terminal would obey or reorder, but the
// newlines that end the printer's own lines.
func controls(s string) int {
	n := 0
	for i, r := range s {
		if r == utf8.RuneError && len(s[i:]) > 0 {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				n++
			}
		}
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			n++
		}
	}
	return n
}

// TestPrintersEscapeData: every text printer shows the hostile fields
// escaped, on the line they belong to; the live view keeps to its width.
func TestPrintersEscapeData(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ev := hostileEvent(now)
	stream := func() <-chan client.Update {
		ups := make(chan client.Update, 3)
		ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 1}
		ups <- client.Update{Kind: client.UpdateEvent, Event: ev}
		ups <- client.Update{Kind: client.UpdateLost, Err: errors.New("read /run/\x1b]0;x\x07.sock: EOF")}
		close(ups)
		return ups
	}
	var notices strings.Builder
	for _, tc := range []struct {
		name  string
		print func(w *bytes.Buffer)
		lines int // lines the printer writes
	}{
		{"status", func(w *bytes.Buffer) {
			WriteStatus(w, wire.Status{Sessions: []wire.Event{ev}}, true, now, false)
		}, 5},
		{"status, a remote's", func(w *bytes.Buffer) {
			r := ev
			r.Host, r.Stale = "box"+"\x1b]0;t\x07", true
			WriteStatus(w, wire.Status{Sessions: []wire.Event{r}, Remotes: []wire.RemoteState{{Name: "box\x1b]0;t\x07", Dest: "d\x1b[2J",
				State: "unusable", Since: now, Error: "sh: \x1b]52;c;aGk=\x07: not found", Fix: "install\nlogwatch"}}}, true, now, false)
		}, 8},
		{"status, no session", func(w *bytes.Buffer) {
			WriteStatus(w, wire.Status{Roots: []string{"/r/\x1b]0;t\x07\n"}}, true, now, false)
		}, 5},
		{"events", func(w *bytes.Buffer) {
			Events(w, stream(), &Notice{W: &notices, Name: "events"}, false, nil)
		}, 1},
		{"status --watch, plain", func(w *bytes.Buffer) {
			NewWatch(true, &notices, nil).Plain(w, stream())
		}, 1},
		{"status --watch, view", func(w *bytes.Buffer) {
			Render(w, []wire.Event{ev}, now, 80, false, Notes{Note: "(lost the daemon: \x1b]0;t\x07; reconnecting)"})
		}, 5},
		{"status --watch, empty view", func(w *bytes.Buffer) {
			Render(w, nil, now, 80, false, Notes{Roots: []string{"/r/\x1b]0;t\x07\u202e"}})
		}, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			tc.print(&b)
			out := b.String()
			if n := controls(out); n > 0 {
				t.Errorf("%d control characters reach the terminal:\n%q", n, out)
			}
			if n := strings.Count(out, "\n"); n != tc.lines {
				t.Errorf("%d lines, want %d:\n%s", n, tc.lines, out)
			}
			if !strings.Contains(out, `\x1b]0;t\a`) {
				t.Errorf("the escape is not shown:\n%s", out)
			}
			if strings.HasPrefix(tc.name, "status --watch, view") {
				for _, line := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(line); n > 80 {
						t.Errorf("line of %d columns: %q", n, line)
					}
				}
			}
		})
	}
	if n := controls(notices.String()); n > 0 || !strings.Contains(notices.String(), `\x1b]0;x\a.sock`) {
		t.Errorf("notices: %d control characters:\n%q", n, notices.String())
	}
}

// TestPrintersShowTitle: every text printer shows a session's title, a
// title that holds OSC 52 with the escape shown, never obeyed.
func TestPrintersShowTitle(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ev := wire.Event{Session: "s1", Agent: "claude", Cwd: "/w", State: "done", Reason: "turn_end",
		Title: "fix \x1b]52;c;aGk=\x07", Since: now.Add(-time.Second)}
	stream := func() <-chan client.Update {
		ups := make(chan client.Update, 2)
		ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 1}
		ups <- client.Update{Kind: client.UpdateEvent, Event: ev}
		close(ups)
		return ups
	}
	var notices strings.Builder
	for name, print := range map[string]func(w *bytes.Buffer){
		"status":                func(w *bytes.Buffer) { WriteStatus(w, wire.Status{Sessions: []wire.Event{ev}}, true, now, false) },
		"events":                func(w *bytes.Buffer) { Events(w, stream(), &Notice{W: &notices, Name: "events"}, false, nil) },
		"status --watch, plain": func(w *bytes.Buffer) { NewWatch(true, &notices, nil).Plain(w, stream()) },
		"status --watch, view":  func(w *bytes.Buffer) { Render(w, []wire.Event{ev}, now, 80, false, Notes{}) },
	} {
		var b bytes.Buffer
		print(&b)
		if out := b.String(); !strings.Contains(out, `fix \x1b]52`) || controls(out) > 0 {
			t.Errorf("%s: the title is not shown escaped:\n%q", name, out)
		}
	}
}
