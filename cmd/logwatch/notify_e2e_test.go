package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/sshtest"
)

// notifyE2E is a daemon whose one sink is a command appending each alert
// to a file.
func notifyE2E(t *testing.T, extra string) (*e2e, func() []string) {
	t.Helper()
	return notifyE2EWith(t, extra, nil)
}

// notifyE2EWith is notifyE2E, with before run ahead of the daemon's start.
func notifyE2EWith(t *testing.T, extra string, before func(*e2e)) (*e2e, func() []string) {
	t.Helper()
	e := newE2E(t, nil)
	if before != nil {
		before(e)
	}
	alerts := filepath.Join(e.dir, "alerts")
	cfg := filepath.Join(e.dir, "config.yaml")
	yaml := fmt.Sprintf(`notify:
  rate: 0s
%s  sinks:
    - type: command
      command: [sh, -c, 'echo "$LOGWATCH_EVENT $LOGWATCH_SESSION $LOGWATCH_STATE $LOGWATCH_REASON" >> %s']
      withdraw: true
`, extra, alerts)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "LOGWATCH_CONFIG="+cfg)
	e.start()
	return e, func() []string {
		b, _ := os.ReadFile(alerts)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
}

// waitAlerts waits until the alerts file holds want (one line each).
func waitAlerts(t *testing.T, read func() []string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Join(read(), "\n") == strings.Join(want, "\n") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("alerts %q, want %q", read(), want)
}

// TestE2ENotifyRestartNoSecondAlert (issue 33 item 2): a wait alerts once
// through a command sink; the daemon restarted in the middle of it (SIGTERM
// and kill -9) restores the wait and does not alert again; the answer
// withdraws it, and the next wait alerts.
func TestE2ENotifyRestartNoSecondAlert(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		t.Run(map[bool]string{true: "sigterm", false: "kill-9"}[graceful], func(t *testing.T) {
			e, alerts := notifyE2E(t, "")
			e.hook("tw", "claude", hookJSON("UserPromptSubmit", "waiter"))
			e.hook("tw", "claude", hookJSON("PermissionRequest", "waiter", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
			e.want("waiter", "working", "prompt", "hook")
			e.want("waiter", "waiting", "permission", "hook")
			waitAlerts(t, alerts, "show_waiter_waiting_permission")
			if !graceful {
				e.waitCheckpoint(func(ck checkpointDoc) bool { return strings.Contains(string(ck.State), "permission_request") })
			}
			e.stop(graceful)
			e.start()
			e.waitView("waiter", "waiting/permission/Bash: make/hook/hook.permission_request/tw")
			// Time for a second alert to show, were there one.
			time.Sleep(time.Second)
			waitAlerts(t, alerts, "show_waiter_waiting_permission")
			e.hook("tw", "claude", hookJSON("PostToolUse", "waiter", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
			e.want("waiter", "working", "tool", "hook")
			waitAlerts(t, alerts, "show_waiter_waiting_permission", "withdraw_waiter_working_tool")
			e.hook("tw", "claude", hookJSON("PermissionRequest", "waiter", "tool_name", "Bash", "tool_input", `{"command":"make install"}`))
			e.want("waiter", "waiting", "permission", "hook")
			waitAlerts(t, alerts, "show_waiter_waiting_permission", "withdraw_waiter_working_tool", "show_waiter_waiting_permission")
		})
	}
}

// TestE2ENotifyHistoryQuiet: a first start (no marks) reads a real Copilot
// CLI log that ends hours ago in a permission request (the capture cut
// there): the session shows waiting, as history, and nothing alerts; its
// next wait, as it happens, does.
func TestE2ENotifyHistoryQuiet(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join("..", "..", "parsers", "copilot", "testdata", "captures", "approval-hooks-esc-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(capture), "\n")
	cut := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, `{"type":"permission.requested"`) })
	if cut < 0 {
		t.Fatal("the capture has no permission.requested")
	}
	const sid = "122cd9e5-e696-46bb-b751-a92d7fc045b1"
	e, alerts := notifyE2EWith(t, "", func(e *e2e) {
		log := filepath.Join(e.dir, "home", ".copilot", "session-state", sid, "events.jsonl")
		os.MkdirAll(filepath.Dir(log), 0o700)
		write(t, log, strings.Join(lines[:cut+1], ""))
	})
	e.waitView(sid, "waiting/permission/bash: touch approved.txt/log/log.wait/")
	e.hook("tw", "claude", hookJSON("UserPromptSubmit", "now"))
	e.want("now", "working", "prompt", "hook")
	e.hook("tw", "claude", hookJSON("PermissionRequest", "now", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
	e.want("now", "waiting", "permission", "hook")
	// The wait as it happens alerts; the one read from history did not.
	waitAlerts(t, alerts, "show_now_waiting_permission")
}

// TestE2ENotifyDoneOptIn: a finished turn alerts only with done: true, an
// interrupted one never.
func TestE2ENotifyDoneOptIn(t *testing.T) {
	e, alerts := notifyE2E(t, "  done: true\n")
	e.hook("t1", "claude", hookJSON("UserPromptSubmit", "s1"))
	e.hook("t1", "claude", hookJSON("Stop", "s1"))
	e.want("s1", "working", "prompt", "hook")
	e.want("s1", "done", "turn_end", "hook")
	waitAlerts(t, alerts, "show_s1_done_turn_end")
	e.hook("t1", "claude", hookJSON("UserPromptSubmit", "s1"))
	e.want("s1", "working", "prompt", "hook")
	waitAlerts(t, alerts, "show_s1_done_turn_end", "withdraw_s1_working_prompt")

	off, offAlerts := notifyE2E(t, "")
	off.hook("t1", "claude", hookJSON("UserPromptSubmit", "s2"))
	off.hook("t1", "claude", hookJSON("Stop", "s2"))
	off.want("s2", "working", "prompt", "hook")
	off.want("s2", "done", "turn_end", "hook")
	time.Sleep(500 * time.Millisecond)
	if got := offAlerts(); len(got) != 0 {
		t.Fatalf("done alerted without done: true: %q", got)
	}
}

// TestE2ENotifyFocusQuiet: a wait in the tab a client says is focused does
// not alert; the same wait elsewhere does.
func TestE2ENotifyFocusQuiet(t *testing.T) {
	e, alerts := notifyE2E(t, "")
	c := dialRaw(t, e.socket)
	if got := c.send(`{"op":"focus","tab":"tf"}`); !strings.Contains(got, `"ok":true`) {
		t.Fatalf("focus: %s", got)
	}
	e.hook("tf", "claude", hookJSON("UserPromptSubmit", "seen"))
	e.hook("tf", "claude", hookJSON("PermissionRequest", "seen", "tool_name", "Bash", "tool_input", `{"command":"ls"}`))
	e.want("seen", "working", "prompt", "hook")
	e.want("seen", "waiting", "permission", "hook")
	e.hook("tx", "claude", hookJSON("UserPromptSubmit", "other"))
	e.hook("tx", "claude", hookJSON("PermissionRequest", "other", "tool_name", "Bash", "tool_input", `{"command":"ls"}`))
	e.want("other", "working", "prompt", "hook")
	e.want("other", "waiting", "permission", "hook")
	waitAlerts(t, alerts, "show_other_waiting_permission")
}

// rawConn is one socket connection kept open (a focus holds while it is).
type rawConn struct {
	t  *testing.T
	c  net.Conn
	rd *bufio.Reader
}

func dialRaw(t *testing.T, socket string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, rd: bufio.NewReader(c)}
}

func (r *rawConn) send(line string) string {
	r.t.Helper()
	r.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(r.c, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
	got, err := r.rd.ReadString('\n')
	if err != nil {
		r.t.Fatal(err)
	}
	return got
}

// TestE2ENotifyThousandSessions (issue 33 item 2): a thousand sessions
// waiting at once through the real daemon with a command sink (a process
// per alert): every hook is still answered promptly (figure reported, the
// bound generous: a shared machine), no session alerts twice, and waiting
// again inside the rate alerts nobody.
func TestE2ENotifyThousandSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand sessions")
	}
	e, alerts := notifyE2E(t, "")
	c := dialRaw(t, e.socket)
	hook := func(payload string) time.Duration {
		start := time.Now()
		got := c.send(`{"op":"hook","agent":"claude","payload":` + payload + `}`)
		d := time.Since(start)
		if !strings.Contains(got, `"ok":true`) {
			t.Fatalf("hook: %s", got)
		}
		return d
	}
	var lat []time.Duration
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("k%04d", i)
		lat = append(lat, hook(hookJSON("UserPromptSubmit", id)))
		lat = append(lat, hook(hookJSON("PermissionRequest", id, "tool_name", "Bash", "tool_input", `{"command":"ls"}`)))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
	t.Logf("2000 hooks while alerting: p50 %v, p99 %v, max %v", p50, p99, lat[len(lat)-1])
	if p99 > 100*time.Millisecond {
		t.Fatalf("hook p99 %v while the notifier works", p99)
	}
	// Each session at most once; the queue's bound drops the rest.
	seen := map[string]bool{}
	settle := func() []string {
		var last []string
		for stable := 0; stable < 5; {
			time.Sleep(200 * time.Millisecond)
			got := alerts()
			if len(got) == len(last) {
				stable++
			} else {
				stable = 0
			}
			last = got
		}
		return last
	}
	first := settle()
	for _, l := range first {
		if seen[l] {
			t.Fatalf("alerted twice: %s", l)
		}
		seen[l] = true
	}
	t.Logf("%d of 1000 waits alerted (the rest dropped at the queue's bound)", len(first))
	if len(first) == 0 {
		t.Fatal("no alert at all")
	}
}

// TestE2ENotifyRemote (issue 33 item 4): a remote host's session alerts
// here like a local one, with its host, and is withdrawn when it moves on
// there.
func TestE2ENotifyRemote(t *testing.T) {
	h := startRemoteHost(t)
	alerts := filepath.Join(t.TempDir(), "alerts")
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	write(t, cfg, fmt.Sprintf(`remotes:
  - {name: box, dest: %s, command: %q, ssh: ["-F", %q]}
notify:
  sinks:
    - type: command
      command: [sh, -c, 'echo "$LOGWATCH_EVENT $LOGWATCH_HOST $LOGWATCH_SESSION $LOGWATCH_STATE" >> %s']
      withdraw: true
`, sshtest.Host, h.command(), h.ssh.Config, alerts))
	e := startE2EArgs(t, nil, "LOGWATCH_CONFIG="+cfg)
	waitRemote(e, "box", "up")
	hookThere := func(payload string) {
		cmd := h.ssh.Command([]string{"LOGWATCH_CONFIG=" + h.config, "LOGWATCH_TAB=rt"}, h.bin, "hook", "--agent", "claude")
		cmd.Stdin = strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hook there: %v %s", err, out)
		}
	}
	read := func() []string {
		b, _ := os.ReadFile(alerts)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(b)), " ", "_"))
	}
	hookThere(hookJSON("UserPromptSubmit", "rs1"))
	wantHost(e, "box", "rs1", "working", "prompt", "hook")
	hookThere(hookJSON("PermissionRequest", "rs1", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
	wantHost(e, "box", "rs1", "waiting", "permission", "hook")
	waitAlerts(t, read, "show_box_rs1_waiting")
	hookThere(hookJSON("PostToolUse", "rs1", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
	wantHost(e, "box", "rs1", "working", "tool", "hook")
	waitAlerts(t, read, "show_box_rs1_waiting", "withdraw_box_rs1_working")
}

// TestE2ENotifyFailuresShown: sinks that fail while the daemon runs (a
// command exiting 1; a webhook answering 500, then 403 on the retry) are
// counted in status, text and JSON, with their last error, and doctor
// warns with that error and the fix, though both probe fine. The topic in
// the webhook's URL is its password: never printed.
func TestE2ENotifyFailuresShown(t *testing.T) {
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			return // doctor's probe: the server answers
		}
		if posts.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusForbidden)
	}))
	defer srv.Close()
	const topic = "lw-secret-topic-7f3a"
	e := newE2E(t, nil)
	cfg := filepath.Join(e.dir, "config.yaml")
	yaml := fmt.Sprintf(`notify:
  rate: 0s
  sinks:
    - type: command
      command: [sh, -c, 'exit 1']
    - type: webhook
      url: %s/%s
`, srv.URL, topic)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "LOGWATCH_CONFIG="+cfg, "NO_COLOR=1")
	e.start()
	e.hook("tw", "claude", hookJSON("UserPromptSubmit", "waiter"))
	e.hook("tw", "claude", hookJSON("PermissionRequest", "waiter", "tool_name", "Bash", "tool_input", `{"command":"make"}`))
	e.want("waiter", "working", "prompt", "hook")
	e.want("waiter", "waiting", "permission", "hook")

	type sink struct {
		Name          string
		Shown, Failed int64
		LastError     string     `json:"last_error"`
		LastErrorAt   *time.Time `json:"last_error_at"`
	}
	var sinks []sink
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, _ := json.Marshal(e.status()["notify"])
		sinks = nil
		if err := json.Unmarshal(b, &sinks); err != nil {
			t.Fatalf("status notify %s: %v", b, err)
		}
		if len(sinks) == 2 && sinks[0].Failed == 1 && sinks[1].Failed == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status notify %s", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if sinks[0].Name != "command" || sinks[0].Shown != 0 || !strings.Contains(sinks[0].LastError, "exit status 1") || sinks[0].LastErrorAt == nil ||
		sinks[1].Name != "webhook" || sinks[1].Shown != 0 || !strings.Contains(sinks[1].LastError, "403") || sinks[1].LastErrorAt == nil {
		t.Fatalf("sinks %+v", sinks)
	}
	if n := posts.Load(); n != 2 {
		t.Fatalf("the webhook got %d posts, want the 500 and its retry", n)
	}

	out, stderr, code := cli(t, e.env, "status")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, "notify command: 0 shown, 0 withdrawn, 1 failed; last error") ||
		!strings.Contains(flat, "sh: exit status 1") || !strings.Contains(flat, "notify webhook: 0 shown, 0 withdrawn, 1 failed; last error") ||
		!strings.Contains(flat, "403 Forbidden") {
		t.Fatalf("status: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}

	doc, stderr, code := cli(t, e.env, "doctor")
	flat = strings.Join(strings.Fields(doc), " ")
	if code != exitFindings || !strings.Contains(flat, "[warn] notify 2 of 2 notification sinks work, but 2 failed in the running daemon") {
		t.Fatalf("doctor: exit %d\n%s\n%s", code, doc, stderr)
	}
	for _, want := range []string{"the daemon's command sink since it started: 0 shown, 1 failed", "sh: exit status 1",
		"the daemon's webhook sink since it started: 0 shown, 1 failed", "403 Forbidden", "exits 0 within notify.timeout", "check the URL answers"} {
		if !strings.Contains(flat, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doc)
		}
	}
	js, _, _ := cli(t, e.env, "status", "--json")
	for _, o := range []string{out, doc, stderr, js, e.logText()} {
		if strings.Contains(o, topic) {
			t.Errorf("the topic was printed:\n%s", o)
		}
	}
}
