package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/session"
)

// e2e is a real `logwatch run` on temp roots and a temp socket, with a real
// `logwatch events --json` subscription.
type e2e struct {
	t      *testing.T
	dir    string
	env    []string
	socket string
	claude string // Claude projects root
	codex  string // Codex sessions root
	daemon *exec.Cmd
	args   []string // extra arguments to `run`
	nofile int      // when set, the daemon runs under `ulimit -n nofile`
	events chan map[string]any
}

func startE2E(t *testing.T, extraEnv ...string) *e2e {
	t.Helper()
	return startE2EArgs(t, nil, extraEnv...)
}

// startE2EArgs starts the daemon with extra `run` arguments.
func startE2EArgs(t *testing.T, args []string, extraEnv ...string) *e2e {
	t.Helper()
	e := newE2E(t, args, extraEnv...)
	e.start()
	return e
}

// newE2E prepares a daemon's directories and environment; start runs it.
func newE2E(t *testing.T, args []string, extraEnv ...string) *e2e {
	t.Helper()
	dir, err := os.MkdirTemp("", "lwe2e") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &e2e{t: t, dir: dir, args: args, socket: filepath.Join(dir, "run", "lw.sock"),
		claude: filepath.Join(dir, "home", ".claude", "projects"), codex: filepath.Join(dir, "home", ".codex", "sessions")}
	e.env = append([]string{
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "home", ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "home", ".state"),
		"LOGWATCH_SOCKET=" + e.socket,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS=" + e.claude,
		"LOGWATCH_AGENTS_CODEX_ROOTS=" + e.codex,
		"LOGWATCH_TURN_QUIET=1s",
		"LOGWATCH_LOG_LEVEL=debug",
		"PATH=" + os.Getenv("PATH"),
	}, extraEnv...)
	return e
}

func (e *e2e) start() {
	e.t.Helper()
	argv := append([]string{bin, "run"}, e.args...)
	if e.nofile > 0 {
		argv = append([]string{"bash", "-c", fmt.Sprintf(`ulimit -n %d && exec "$@"`, e.nofile), "bash"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = e.env
	logf, err := os.Create(filepath.Join(e.dir, fmt.Sprintf("daemon-%d.log", time.Now().UnixNano())))
	if err != nil {
		e.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.daemon = cmd
	e.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		logf.Close()
		if e.t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			e.t.Logf("daemon log:\n%s", b)
		}
	})
	e.waitSocket()
	e.subscribe()
}

func (e *e2e) waitSocket() {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("unix", e.socket); err == nil {
			c.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatal("daemon socket never answered")
}

func (e *e2e) subscribe() {
	e.t.Helper()
	// Ours is live when the daemon counts one more subscriber than now
	// (a stream from before a restart may be there too).
	before := counter(e.status(), "subscribers")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "events", "--json")
	cmd.Env = e.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	events := make(chan map[string]any, 1024)
	e.events = events // a restart replaces the field; this reader keeps its own channel
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
		close(events)
	}()
	e.t.Cleanup(func() { cancel(); cmd.Wait() })
	// Changes published before the stream is live would arrive as snapshot
	// lines; wait until the daemon counts the subscriber.
	deadline := time.Now().Add(10 * time.Second)
	for counter(e.status(), "subscribers") <= before {
		if time.Now().After(deadline) {
			e.t.Fatal("subscription never became live")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hook runs the real hook client with payload on stdin.
func (e *e2e) hook(tab, agent, payload string) {
	e.t.Helper()
	args := []string{"hook"}
	if agent != "" {
		args = append(args, "--agent", agent)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append([]string{}, e.env...), "LOGWATCH_TAB="+tab)
	cmd.Stdin = strings.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		e.t.Fatalf("hook client: err %v, output %q", err, out)
	}
}

// append writes lines to a log file, creating its directories.
func (e *e2e) append(path string, lines ...string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			e.t.Fatal(err)
		}
	}
}

// want waits for the next change of session (skipping snapshots and other
// sessions) and checks its state, reason and source.
func (e *e2e) want(session, state, reason, source string) map[string]any {
	e.t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-e.events:
			if !ok {
				e.t.Fatal("event stream ended")
			}
			if ev["snapshot"] == true || ev["session"] != session || retitled(ev) {
				continue
			}
			if ev["state"] != state || (reason != "" && ev["reason"] != reason) || (source != "" && ev["source"] != source) {
				e.t.Fatalf("%s: got %v/%v/%v (rule %v), want %s/%s/%s", session, ev["state"], ev["reason"], ev["source"], ev["rule"], state, reason, source)
			}
			return ev
		case <-timeout:
			e.t.Fatalf("%s: no change to %s within 15s", session, state)
		}
	}
}

// retitled reports whether ev only gives its session a new title: want
// and quiet are about states.
func retitled(ev map[string]any) bool {
	rule, _ := ev["rule"].(string)
	return session.Change{Rule: rule}.Retitled()
}

// quiet asserts that no change for session arrives within d.
func (e *e2e) quiet(session string, d time.Duration) {
	e.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case ev := <-e.events:
			if ev["session"] == session && ev["snapshot"] != true && !retitled(ev) {
				e.t.Fatalf("%s: unexpected change %v/%v (rule %v)", session, ev["state"], ev["reason"], ev["rule"])
			}
		case <-timeout:
			return
		}
	}
}

func (e *e2e) status() map[string]any {
	e.t.Helper()
	cmd := exec.Command(bin, "status", "--json")
	cmd.Env = e.env
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("status: %v", err)
	}
	var st map[string]any
	if err := json.Unmarshal(out, &st); err != nil {
		e.t.Fatal(err)
	}
	return st
}

func counter(st map[string]any, name string) float64 {
	c, _ := st["counters"].(map[string]any)
	n, _ := c[name].(float64)
	return n
}

func hookJSON(event, session string, kv ...string) string {
	m := map[string]any{"hook_event_name": event, "session_id": session, "cwd": "/w/app"}
	for i := 0; i+1 < len(kv); i += 2 {
		var v any = kv[i+1]
		if strings.HasPrefix(kv[i+1], "{") || strings.HasPrefix(kv[i+1], "[") {
			var raw json.RawMessage = []byte(kv[i+1])
			v = raw
		}
		m[kv[i]] = v
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestE2EHooksAndLogs(t *testing.T) {
	e := startE2E(t)
	transcript := filepath.Join(e.claude, "-w-app", "s1.jsonl")

	// A turn through hooks, with the log following along.
	e.hook("tab1", "claude", hookJSON("SessionStart", "s1", "source", "startup", "transcript_path", transcript))
	e.want("s1", "ready", "session_start", "hook")
	e.hook("tab1", "claude", hookJSON("UserPromptSubmit", "s1", "prompt", "fix it", "transcript_path", transcript))
	e.want("s1", "working", "prompt", "hook")
	e.append(transcript, `{"type":"user","sessionId":"s1","cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"fix it"}}`)
	e.hook("tab1", "claude", hookJSON("PreToolUse", "s1", "tool_name", "Edit", "tool_input", `{"file_path":"/w/app/main.go"}`))
	if ev := e.want("s1", "working", "tool", "hook"); ev["detail"] != "main.go" {
		t.Fatalf("detail %v", ev["detail"])
	}
	// A stray non-UTF-8 byte in a command loses nothing but that byte.
	e.hook("tab1", "claude", strings.Replace(hookJSON("PreToolUse", "s1", "tool_name", "Bash", "tool_input", `{"command":"grep -r caf@ ."}`), "@", "\xe9", 1))
	if ev := e.want("s1", "working", "tool", "hook"); ev["detail"] != "grep -r caf\uFFFD ." {
		t.Fatalf("detail %q", ev["detail"])
	}
	// Subagent payloads never move the session or its detail.
	e.hook("tab1", "claude", hookJSON("SubagentStart", "s1", "agent_id", "a1"))
	e.hook("tab1", "claude", hookJSON("PreToolUse", "s1", "agent_id", "a1", "tool_name", "Bash", "tool_input", `{"command":"ls"}`))
	// Stop with a running subagent stays working; the last SubagentStop ends it.
	e.hook("tab1", "claude", hookJSON("Stop", "s1"))
	e.want("s1", "working", "subagents_pending", "hook")
	e.hook("tab1", "claude", hookJSON("SubagentStop", "s1", "agent_id", "a1"))
	e.want("s1", "done", "turn_end", "hook")
	// A late SubagentStop, an idle reminder and a nested agent on the tab
	// change nothing.
	e.hook("tab1", "claude", hookJSON("SubagentStop", "s1", "agent_id", "a9"))
	e.hook("tab1", "claude", hookJSON("Notification", "s1", "notification_type", "idle_prompt", "message", "waiting for input"))
	e.hook("tab1", "claude", hookJSON("UserPromptSubmit", "nested"))
	e.quiet("s1", 300*time.Millisecond)
	if st := e.status(); counter(st, "hooks_dropped") != 1 {
		t.Fatalf("nested hook not dropped: %v", st["counters"])
	}

	// PreCompact, then the log's compaction line: outside a turn → done.
	e.hook("tab1", "claude", hookJSON("PreCompact", "s1", "trigger", "manual"))
	e.want("s1", "compacting", "compaction", "hook")
	e.append(transcript, `{"type":"system","subtype":"compact_boundary","sessionId":"s1","compactMetadata":{"trigger":"manual"}}`)
	e.want("s1", "done", "compaction", "log")
	// Inside a turn → working.
	e.hook("tab1", "claude", hookJSON("UserPromptSubmit", "s1"))
	e.want("s1", "working", "prompt", "hook")
	e.append(transcript, `{"type":"user","sessionId":"s1","message":{"role":"user","content":"summarize and go on"}}`)
	e.hook("tab1", "claude", hookJSON("PreCompact", "s1", "trigger", "auto"))
	e.want("s1", "compacting", "compaction", "hook")
	e.append(transcript, `{"type":"system","subtype":"compact_boundary","sessionId":"s1","compactMetadata":{"trigger":"auto"}}`)
	e.want("s1", "working", "compaction", "log")

	// The log's interrupt marker ends the turn without any hook.
	e.append(transcript, `{"type":"user","sessionId":"s1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	e.want("s1", "ready", "interrupted", "log")

	// ack and tab-closed.
	e.hook("tab1", "claude", hookJSON("UserPromptSubmit", "s1"))
	e.want("s1", "working", "prompt", "hook")
	e.hook("tab1", "claude", hookJSON("Stop", "s1"))
	e.want("s1", "done", "turn_end", "hook")
	if stdout, stderr, code := cli(t, e.env, "ack", "--session", "s1"); code != 0 || stdout != "acknowledged s1: done → ready\n" {
		t.Fatalf("ack: %d %q %s", code, stdout, stderr)
	}
	e.want("s1", "ready", "acknowledged", "api")
	if stdout, _, code := cli(t, e.env, "ack", "--session", "s1"); code != 0 || !strings.Contains(stdout, "s1 is ready: nothing to acknowledge") {
		t.Fatalf("ack again: %d %q", code, stdout)
	}
	if _, stderr, code := cli(t, e.env, "tab-closed", "--tab", "tab1"); code != 0 {
		t.Fatalf("tab-closed: %d %s", code, stderr)
	}
	e.want("s1", "ended", "tab_closed", "api")
	if _, stderr, code := cli(t, e.env, "ack", "--session", "nobody"); code != 1 || !strings.Contains(stderr, "unknown session") {
		t.Fatalf("ack unknown: %d %s", code, stderr)
	}
}

// TestE2ELogsOnly: sessions without hooks, in roots that do not exist when
// the daemon starts, are found and driven by their logs alone.
func TestE2ELogsOnly(t *testing.T) {
	e := startE2E(t)
	// Claude: a root created after start, a turn, quiet after end_turn.
	claudeLog := filepath.Join(e.claude, "-w-app", "c1.jsonl")
	e.append(claudeLog, `{"type":"user","sessionId":"c1","cwd":"/w/app","version":"2.1.258","message":{"role":"user","content":"hi"}}`)
	e.want("c1", "working", "prompt", "log")
	e.append(claudeLog, `{"type":"assistant","sessionId":"c1","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"hello"}]}}`)
	e.want("c1", "done", "turn_end", "log") // LOGWATCH_TURN_QUIET=1s: an SDK session has no turn_duration

	// Codex: tomorrow's date folder, created with the file in one go.
	day := time.Now().AddDate(0, 0, 1)
	codexLog := filepath.Join(e.codex, day.Format("2006"), day.Format("01"), day.Format("02"),
		"rollout-"+day.Format("2006-01-02T15-04-05")+"-019e0000-0000-7000-8000-0000000000c1.jsonl")
	e.append(codexLog,
		`{"timestamp":"2026-05-16T20:53:47.000Z","type":"session_meta","payload":{"id":"019e0000-0000-7000-8000-0000000000c1","cwd":"/w/app","cli_version":"0.130.0"}}`,
		`{"timestamp":"2026-05-16T20:53:48.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}`)
	id := "019e0000-0000-7000-8000-0000000000c1"
	e.want(id, "ready", "session_start", "log") // a new log is a new session, announced at once
	e.want(id, "working", "prompt", "log")
	e.append(codexLog,
		`{"timestamp":"2026-05-16T20:54:07.894Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"}]}}`,
		`{"timestamp":"2026-05-16T20:54:07.895Z","type":"event_msg","payload":{"type":"turn_aborted","turn_id":"u1","reason":"interrupted"}}`)
	e.want(id, "ready", "interrupted", "log")
}

// TestE2EStaleSocket: a daemon killed with SIGKILL leaves its socket; the
// next one replaces it. A second daemon on a live socket is refused.
func TestE2EStaleSocket(t *testing.T) {
	e := startE2E(t)
	cmd := exec.Command(bin, "run")
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), "already serving") {
		t.Fatalf("second daemon: exit %d, %s", code, out)
	}
	st, err := os.Stat(e.socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", st, err)
	}
	if d, _ := os.Stat(filepath.Dir(e.socket)); d.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir mode %v", d.Mode().Perm())
	}
	e.daemon.Process.Kill()
	e.daemon.Wait()
	if _, err := os.Stat(e.socket); err != nil {
		t.Fatal("SIGKILL left no socket to test with")
	}
	e.start()
	e.hook("t", "codex", hookJSON("UserPromptSubmit", "after-restart"))
	e.want("after-restart", "working", "prompt", "hook")
}

// TestE2EHookClientNeverBlocks: with no daemon, or a daemon that accepts
// and never answers, the hook client exits 0 and prints nothing (the
// extensions' --detached client too, after its longer bound).
func TestE2EHookClientNeverBlocks(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lwhk")
	defer os.RemoveAll(dir)
	hung := filepath.Join(dir, "hung.sock")
	ln, err := net.Listen("unix", hung)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accept, read nothing, answer nothing
		}
	}()
	for _, socket := range []string{filepath.Join(dir, "absent.sock"), hung} {
		for _, args := range [][]string{{"hook"}, {"hook", "--agent", "codex"}, {"hook", "--bogus-flag"}, {"hook", "--agent", "omp", "--detached"}} {
			cmd := exec.Command(bin, args...)
			cmd.Env = []string{"LOGWATCH_SOCKET=" + socket, "HOME=" + dir, "LOGWATCH_INTERRUPT_WINDOW=bad"}
			cmd.Stdin = strings.NewReader(hookJSON("Stop", "s"))
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) != 0 {
				t.Errorf("%s %v: err %v, output %q", filepath.Base(socket), args, err, out)
			}
		}
	}
	// Garbage on stdin with a live daemon: still exit 0, silently.
	e := startE2E(t)
	cmd := exec.Command(bin, "hook")
	cmd.Env = e.env
	cmd.Stdin = strings.NewReader("this is not json")
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("garbage payload: %v %q", err, out)
	}
	if st := e.status(); len(st["sessions"].([]any)) != 0 {
		t.Fatalf("garbage created a session: %v", st["sessions"])
	}
}

func TestE2EStatusText(t *testing.T) {
	e := startE2E(t)
	e.hook("t7", "codex", hookJSON("PermissionRequest", "x7", "tool_name", "Bash", "tool_input", `{"command":"make deploy"}`))
	e.want("x7", "waiting", "permission", "hook")
	stdout, stderr, code := cli(t, e.env, "status")
	if code != 0 {
		t.Fatalf("status: %d %s", code, stderr)
	}
	for _, s := range []string{"waiting", "codex", "x7", "t7", "permission", "Bash: make deploy", "hooks 1 received", "subscribers 1/64"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("status lacks %q:\n%s", s, stdout)
		}
	}
	// No daemon: a clear error, exit 2.
	_, stderr, code = cli(t, []string{"LOGWATCH_SOCKET=" + filepath.Join(e.dir, "none.sock")}, "status")
	if code != 2 || !strings.Contains(stderr, "logwatch: the daemon is not running") || strings.Contains(stderr, "logwatch: logwatch") {
		t.Fatalf("no daemon: %d %s", code, stderr)
	}
}

// TestE2ERealAgentFixes replays, through the real daemon, hook client and
// files, what Claude Code 2.1.328 and Codex 0.169 did that made the dot lie
// (issue 10): each must now publish exactly the right changes.
func TestE2ERealAgentFixes(t *testing.T) {
	e := startE2E(t)
	proj := filepath.Join(e.claude, "-home-dev-work")

	// Claude: the generic permission Notification after PermissionRequest
	// publishes nothing; SessionEnd, the metadata Claude flushes after it,
	// then the tab closing: ended once.
	echo := `{"command":"echo hi > f.txt","description":"Write hi to f.txt"}`
	e.hook("s2b", "claude", hookJSON("UserPromptSubmit", "c2", "prompt", "TOOL please run it"))
	e.want("c2", "working", "prompt", "hook")
	e.hook("s2b", "claude", hookJSON("PermissionRequest", "c2", "tool_name", "Bash", "tool_input", echo))
	if ev := e.want("c2", "waiting", "permission", "hook"); ev["detail"] != "Bash: echo hi > f.txt" {
		t.Fatalf("waiting detail %v", ev["detail"])
	}
	e.hook("s2b", "claude", hookJSON("Notification", "c2", "notification_type", "permission_prompt", "message", "Claude needs your permission"))
	e.hook("s2b", "claude", hookJSON("PostToolUse", "c2", "tool_name", "Bash", "tool_input", echo))
	e.want("c2", "working", "tool", "hook")
	e.hook("s2b", "claude", hookJSON("Stop", "c2"))
	e.want("c2", "done", "turn_end", "hook")
	e.hook("s2b", "claude", hookJSON("SessionEnd", "c2", "reason", "prompt_input_exit"))
	e.want("c2", "ended", "session_end", "hook")
	e.append(filepath.Join(proj, "c2.jsonl"), `{"type":"cost-state","sessionId":"c2","totalCostUSD":0.0008}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{},"isSnapshotUpdate":false}`)
	if _, stderr, code := cli(t, e.env, "tab-closed", "--tab", "s2b"); code != 0 {
		t.Fatalf("tab-closed: %d %s", code, stderr)
	}
	e.quiet("c2", 700*time.Millisecond)

	// Claude without hooks, a background subagent: the second turn_duration
	// leaves pendingBackgroundAgentCount out, which means none pending.
	c8 := filepath.Join(proj, "c8.jsonl")
	e.append(c8, `{"type":"user","sessionId":"c8","cwd":"/home/dev/work","version":"2.1.328","message":{"role":"user","content":"AGENT please delegate"}}`)
	e.want("c8", "working", "prompt", "log")
	e.append(c8, `{"type":"system","subtype":"turn_duration","sessionId":"c8","durationMs":818,"pendingBackgroundAgentCount":1}`)
	e.want("c8", "working", "subagents_pending", "log")
	e.append(c8, `{"type":"user","sessionId":"c8","origin":{"kind":"task-notification"},"message":{"role":"user","content":"<task-notification>\n<status>completed</status>\n</task-notification>"}}`)
	e.want("c8", "working", "prompt", "log")
	e.append(c8, `{"type":"system","subtype":"turn_duration","sessionId":"c8","durationMs":161,"messageCount":9}`)
	e.want("c8", "done", "turn_end", "log")

	// Codex 0.169: a rollout holding only session_meta is no row; the first
	// prompt writes task_started before SessionStart fires, which must not
	// flap the turn back to ready.
	day := time.Now()
	dir := filepath.Join(e.codex, day.Format("2006"), day.Format("01"), day.Format("02"))
	meta := func(id string) string {
		return `{"timestamp":"2026-12-01T06:57:40.151Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/home/dev/work","cli_version":"0.169.0"}}`
	}
	phantom := "01a23064-0000-7000-8000-00000000dead"
	e.append(filepath.Join(dir, "rollout-2026-12-01T06-57-31-"+phantom+".jsonl"), meta(phantom))
	x := "01a23064-f24f-74c0-8657-6ca6791bc246"
	rollout := filepath.Join(dir, "rollout-2026-12-01T06-57-31-"+x+".jsonl")
	e.append(rollout, meta(x), `{"timestamp":"2026-12-01T06:57:40.152Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`)
	e.want(x, "working", "prompt", "log")
	e.hook("A1", "codex", hookJSON("SessionStart", x, "source", "startup"))
	// The hook names the tab the log could not: the same state, in A1.
	if ev := e.want(x, "working", "prompt", "log"); ev["rule"] != "hook.tab" || ev["tab"] != "A1" {
		t.Fatalf("the hook's tab: %v", ev)
	}
	e.hook("A1", "codex", hookJSON("UserPromptSubmit", x, "turn_id", "t1", "prompt", "say hello"))
	e.quiet(x, 500*time.Millisecond)
	e.hook("A1", "codex", hookJSON("Stop", x, "turn_id", "t1"))
	e.want(x, "done", "turn_end", "hook")
	e.hook("A1", "codex", hookJSON("SessionEnd", x, "reason", "exit"))
	e.want(x, "ended", "session_end", "hook")
	if _, stderr, code := cli(t, e.env, "tab-closed", "--tab", "A1"); code != 0 {
		t.Fatalf("tab-closed: %d %s", code, stderr)
	}
	e.quiet(x, 300*time.Millisecond)
	for _, s := range e.status()["sessions"].([]any) {
		if s.(map[string]any)["session"] == phantom {
			t.Fatalf("the phantom rollout is a row: %v", s)
		}
	}
	e.quiet(phantom, 200*time.Millisecond)
}
