//go:build !darwin

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/desktoptest"
	"github.com/logwatch/logwatch/tmux"
)

// desktopConfig turns the desktop sink on, with finished turns alerting
// too and no rate limit between one session's alerts (h-notify's notify
// section; the sink finds the bus by DBUS_SESSION_BUS_ADDRESS).
const desktopConfig = `notify:
  done: true
  rate: 0s
  sinks:
    - type: desktop
`

// startDesktopE2E starts a private notification stack and the daemon
// with the desktop sink on it.
func startDesktopE2E(t *testing.T) (*desktoptest.Server, *e2e) {
	t.Helper()
	srv := desktoptest.Start(t)
	e := newE2E(t, nil, "DBUS_SESSION_BUS_ADDRESS="+srv.Address, "DISPLAY="+srv.Display)
	cfg := filepath.Join(e.dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(desktopConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "LOGWATCH_CONFIG="+cfg)
	e.start()
	return srv, e
}

// TestE2EDesktopNotifications: the real daemon, driven by real hook
// payloads and a log line, alerts through a real notification server
// (dunst on a private session bus): a wait appears with its reason and the
// session's name, a finished turn replaces it, moving on closes it; ready,
// an interrupted turn, a Stop with a subagent running and a subagent's own
// end never alert; the finished turn alerts once the last subagent ended.
//
// Every step is checked by the order of what the bus saw: the notifier
// hands a sink its actions in order, so an alert a step should not have
// made would come before the next one a later step makes.
func TestE2EDesktopNotifications(t *testing.T) {
	srv, e := startDesktopE2E(t)
	transcript := filepath.Join(e.claude, "-w-app", "s1.jsonl")
	tp := []string{"transcript_path", transcript}
	hook := func(event string, kv ...string) {
		t.Helper()
		e.hook("tab1", "claude", hookJSON(event, "s1", append(kv, tp...)...))
	}
	const wait = 15 * time.Second
	seen := 0 // bus events checked so far
	// next waits for the bus's next call to the server, Notify (with the
	// id its reply gave) or CloseNotification, and returns it; the server's
	// replies and signals are skipped (whether dunst signals a replaced
	// alert closed is its own affair; what is shown is checked by count).
	next := func(what string) desktoptest.Event {
		t.Helper()
		var got desktoptest.Event
		srv.WaitFor(wait, what, func(ev []desktoptest.Event) bool {
			for ; seen < len(ev); seen++ {
				if m := ev[seen].Member; m != "Notify" && m != "CloseNotification" {
					continue
				}
				if ev[seen].Member == "Notify" && ev[seen].ID == 0 {
					return false // its id comes with the reply
				}
				got = ev[seen]
				seen++
				return true
			}
			return false
		})
		return got
	}
	// name is what the alert calls the session: its title, else its agent
	// and project folder.
	name := func(ev map[string]any) string {
		if title, _ := ev["title"].(string); title != "" {
			return title
		}
		return "claude · app"
	}

	// Ready and a turn's work: nothing.
	hook("SessionStart", "source", "startup")
	e.want("s1", "ready", "session_start", "hook")
	hook("UserPromptSubmit", "prompt", "clean the build")
	e.want("s1", "working", "prompt", "hook")
	e.append(transcript, `{"type":"user","sessionId":"s1","cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"clean the build"}}`)

	// A wait: the first alert, critical, with the reason and the name.
	start := time.Now()
	hook("Notification", "notification_type", "permission_prompt", "message", "Claude needs your permission to use Bash")
	ev := e.want("s1", "waiting", "permission", "hook")
	first := next("the wait's alert")
	t.Logf("hook sent → Notify on the bus: %v", first.At.Sub(start))
	if first.Member != "Notify" || first.ReplacesID != 0 || first.Summary != name(ev)+" — needs your permission" ||
		!strings.Contains(first.Body, "Claude needs your permission to use Bash") || first.Urgency != 2 {
		t.Fatalf("the wait's alert (the first message on the bus):\n%s", desktoptest.Format([]desktoptest.Event{first}))
	}
	srv.WaitDisplayed(1, wait)

	// Answered: the tool runs, the alert is closed.
	hook("PostToolUse", "tool_name", "Bash", "tool_input", `{"command":"rm -rf build"}`)
	e.want("s1", "working", "tool", "hook")
	if c := next("the answered wait's alert closed"); c.Member != "CloseNotification" || c.ID != first.ID {
		t.Fatalf("after the answer the bus saw %s, want CloseNotification %d", desktoptest.Format([]desktoptest.Event{c}), first.ID)
	}
	srv.WaitDisplayed(0, wait)

	// Another wait, then the turn ends: the finished turn replaces it.
	hook("Notification", "notification_type", "permission_prompt", "message", "Claude needs your permission to use Write")
	e.want("s1", "waiting", "permission", "hook")
	second := next("the second wait's alert")
	if second.Member != "Notify" || second.ReplacesID != 0 || !strings.Contains(second.Body, "Write") {
		t.Fatalf("the second wait's alert:\n%s", desktoptest.Format([]desktoptest.Event{second}))
	}
	hook("Stop")
	ev = e.want("s1", "done", "turn_end", "hook")
	done := next("the finished turn's alert")
	if done.Member != "Notify" || done.ReplacesID != second.ID || done.ID != second.ID ||
		done.Summary != name(ev)+" — done" || done.Urgency != 0 {
		t.Fatalf("the finished turn does not replace the wait's alert %d:\n%s", second.ID, desktoptest.Format([]desktoptest.Event{done}))
	}
	srv.WaitDisplayed(1, wait)

	// Acknowledged: closed.
	if _, stderr, code := cli(t, e.env, "ack", "--session", "s1"); code != 0 {
		t.Fatalf("ack: %d %s", code, stderr)
	}
	e.want("s1", "ready", "acknowledged", "api")
	if c := next("the acknowledged turn's alert closed"); c.Member != "CloseNotification" || c.ID != second.ID {
		t.Fatalf("after the ack the bus saw %s, want CloseNotification %d", desktoptest.Format([]desktoptest.Event{c}), second.ID)
	}
	srv.WaitDisplayed(0, wait)

	// An interrupted turn (the log's marker): ready, no alert.
	hook("UserPromptSubmit", "prompt", "and the docs")
	e.want("s1", "working", "prompt", "hook")
	e.append(transcript, `{"type":"user","sessionId":"s1","message":{"role":"user","content":"and the docs"}}`,
		`{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	e.want("s1", "ready", "interrupted", "log")

	// A turn with a subagent: its Stop while the subagent runs, and the
	// subagent's own tools, alert nothing; the last SubagentStop ends the
	// turn, which alerts once.
	hook("UserPromptSubmit", "prompt", "review it")
	e.want("s1", "working", "prompt", "hook")
	hook("SubagentStart", "agent_id", "a1")
	hook("PreToolUse", "agent_id", "a1", "tool_name", "Bash", "tool_input", `{"command":"ls"}`)
	hook("Stop")
	e.want("s1", "working", "subagents_pending", "hook")
	hook("SubagentStop", "agent_id", "a1")
	e.want("s1", "done", "turn_end", "hook")
	last := next("the alert after the last subagent")
	if last.Member != "Notify" || !strings.HasSuffix(last.Summary, " — done") {
		t.Fatalf("the first message after the ack's close is not the subagent turn's done alert (so ready, the interrupt or the early Stop alerted):\n%s",
			desktoptest.Format([]desktoptest.Event{last}))
	}
	// A subagent ending late changes nothing; the session ending closes the
	// alert, and that is the next message.
	hook("SubagentStop", "agent_id", "a9")
	hook("SessionEnd", "reason", "exit")
	e.want("s1", "ended", "", "")
	if c := next("the ended session's alert closed"); c.Member != "CloseNotification" || c.ID != last.ID {
		t.Fatalf("after the end the bus saw %s, want CloseNotification %d", desktoptest.Format([]desktoptest.Event{c}), last.ID)
	}
	srv.WaitDisplayed(0, wait)

	notifies := slices.DeleteFunc(srv.Events(), func(ev desktoptest.Event) bool { return ev.Member != "Notify" })
	if len(notifies) != 4 {
		t.Errorf("%d alerts, want 4 (two waits, two finished turns):\n%s", len(notifies), desktoptest.Format(srv.Events()))
	}
}

// TestE2EDesktopClick: a click on a session's alert (dunst's default
// action, as dunstctl performs it) takes the person's tmux client to the
// pane `logwatch wrap` runs the session in, found from outside tmux by the
// daemon; a clicked wait stays waiting, a clicked finished turn is seen
// (acknowledged, its alert withdrawn). A session in no pane is clicked to
// no effect but the acknowledgement.
func TestE2EDesktopClick(t *testing.T) {
	srv, e := startDesktopE2E(t)
	x := startTmux(t, e)
	x.run("new-window", "-d", "-t", "main:1")
	pane := x.run("display-message", "-p", "-t", "main:1", "#{pane_id}")
	tab := tmux.ServerTab(x.pid, pane)
	x.attach("main:0")
	shows := func() (string, bool) {
		s := x.run("list-clients", "-F", "#{pane_id}")
		return s, s == pane
	}
	x.eventually("client attached", func() (string, bool) {
		s := x.run("list-clients", "-F", "#{client_session}")
		return s, s == "main"
	})
	if s, at := shows(); at {
		t.Fatalf("the client starts at the session's pane: %q", s)
	}
	const wait = 15 * time.Second
	clicks := 0
	click := func() {
		t.Helper()
		srv.WaitDisplayed(1, wait)
		srv.Dunstctl("action", "0")
		clicks++
		srv.WaitFor(wait, "the click", func(ev []desktoptest.Event) bool {
			n := 0
			for _, e := range ev {
				if e.Member == "ActionInvoked" {
					n++
				}
			}
			return n == clicks
		})
	}

	e.hook(tab, "claude", hookJSON("SessionStart", "s1", "source", "startup"))
	e.want("s1", "ready", "session_start", "hook")
	e.hook(tab, "claude", hookJSON("UserPromptSubmit", "s1", "prompt", "fix it"))
	e.want("s1", "working", "prompt", "hook")
	e.hook(tab, "claude", hookJSON("Notification", "s1", "notification_type", "permission_prompt", "message", "Claude needs your permission"))
	e.want("s1", "waiting", "permission", "hook")
	click()
	x.eventually("the client at the waiting session's pane", shows)
	e.quiet("s1", time.Second) // a clicked wait still waits

	x.run("select-window", "-t", "main:0")
	e.hook(tab, "claude", hookJSON("Stop", "s1"))
	e.want("s1", "done", "turn_end", "hook")
	click()
	x.eventually("the client at the finished session's pane", shows)
	e.want("s1", "ready", "acknowledged", "api")
	srv.WaitDisplayed(0, wait)

	// In no pane: acknowledged all the same, and the client stays.
	x.run("select-window", "-t", "main:0")
	e.hook("elsewhere", "claude", hookJSON("UserPromptSubmit", "s2", "prompt", "more"))
	e.want("s2", "working", "prompt", "hook")
	e.hook("elsewhere", "claude", hookJSON("Stop", "s2"))
	e.want("s2", "done", "turn_end", "hook")
	click()
	e.want("s2", "ready", "acknowledged", "api")
	if s, at := shows(); at {
		t.Fatalf("a session in no pane took the client to %q", s)
	}
}

// TestDoctorDesktopSink: doctor probes a configured desktop sink as the
// daemon builds it, on a real notification server, and names the server;
// with no session bus it fails the check with the fix.
func TestDoctorDesktopSink(t *testing.T) {
	srv := desktoptest.Start(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(desktopConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	out, stderr, _ := cli(t, []string{"LOGWATCH_CONFIG=" + cfg, "DBUS_SESSION_BUS_ADDRESS=" + srv.Address, "NO_COLOR=1"}, "doctor")
	if !strings.Contains(out, "sinks[0] desktop: dunst") || !strings.Contains(out, ": works") {
		t.Fatalf("doctor with dunst on the bus:\n%s%s", out, stderr)
	}
	out, stderr, code := cli(t, []string{"LOGWATCH_CONFIG=" + cfg, "DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=" + t.TempDir(), "NO_COLOR=1"}, "doctor")
	if code == 0 || !strings.Contains(out, "sinks[0] desktop:") || !strings.Contains(out, "DBUS_SESSION_BUS_ADDRESS") {
		t.Fatalf("doctor with no bus (exit %d):\n%s%s", code, out, stderr)
	}
}
