package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sibling starts a second daemon on the same roots, with its own socket and
// checkpoint: the never-stopped reference a restarted daemon must equal.
func (e *e2e) sibling() *e2e {
	e.t.Helper()
	dir, err := os.MkdirTemp("", "lwref")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.RemoveAll(dir) })
	ref := &e2e{t: e.t, dir: dir, socket: filepath.Join(dir, "lw.sock"), claude: e.claude, codex: e.codex}
	for _, kv := range e.env {
		switch {
		case strings.HasPrefix(kv, "LOGWATCH_SOCKET="):
			kv = "LOGWATCH_SOCKET=" + ref.socket
		case strings.HasPrefix(kv, "XDG_STATE_HOME="):
			kv = "XDG_STATE_HOME=" + filepath.Join(dir, "state")
		}
		ref.env = append(ref.env, kv)
	}
	ref.start()
	return ref
}

func (e *e2e) checkpointPath() string {
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			return filepath.Join(v, "logwatch", "checkpoint.json")
		}
	}
	e.t.Fatal("no XDG_STATE_HOME")
	return ""
}

// stop ends the daemon: SIGTERM (returning how long it took to exit, which
// must be with status 0) or SIGKILL.
func (e *e2e) stop(graceful bool) time.Duration {
	e.t.Helper()
	start := time.Now()
	if !graceful {
		e.daemon.Process.Kill()
		e.daemon.Wait()
		return time.Since(start)
	}
	e.daemon.Process.Signal(syscall.SIGTERM)
	err := e.daemon.Wait()
	took := time.Since(start)
	if err != nil {
		e.t.Fatalf("SIGTERM: daemon exited with %v", err)
	}
	return took
}

// waitCheckpoint waits until the checkpoint file satisfies ok (the periodic
// checkpoint, before a kill -9).
func (e *e2e) waitCheckpoint(ok func(ck checkpointDoc) bool) {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(e.checkpointPath()); err == nil {
			var ck checkpointDoc
			if json.Unmarshal(b, &ck) == nil && ok(ck) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatal("checkpoint never caught up")
}

type checkpointDoc struct {
	Files []struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
	} `json:"files"`
	State json.RawMessage `json:"state"`
}

func (ck checkpointDoc) offset(path string) int64 {
	for _, f := range ck.Files {
		if f.Path == path {
			return f.Offset
		}
	}
	return -1
}

// view is what a session looks like in `status`, for comparing daemons.
func view(t *testing.T, st map[string]any, id string) string {
	t.Helper()
	ss, _ := st["sessions"].([]any)
	for _, s := range ss {
		m := s.(map[string]any)
		if m["session"] == id {
			return strings.Join([]string{m["state"].(string), m["reason"].(string), m["detail"].(string),
				m["source"].(string), m["rule"].(string), m["tab"].(string)}, "/")
		}
	}
	return "absent"
}

// waitView polls status until session id shows want.
func (e *e2e) waitView(id, want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = view(e.t, e.status(), id); got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("%s: status shows %s, want %s", id, got, want)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestE2ERestartMidTurnLongOutput (issue 12 item 5): a session in the middle
// of a turn whose last line is a 300 KB tool result comes back exactly as a
// daemon that never stopped shows it, after SIGTERM and after kill -9 (the
// turn's start lies outside the 256 KiB start-up window). Lines written
// while the daemon is down are folded in too.
func TestE2ERestartMidTurnLongOutput(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		name := map[bool]string{true: "sigterm", false: "kill-9"}[graceful]
		t.Run(name, func(t *testing.T) {
			e := startE2E(t)
			ref := e.sibling()
			tr := filepath.Join(e.claude, "-w-app", "m1.jsonl")
			e.append(tr,
				`{"type":"user","sessionId":"m1","cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"run the tests"}}`,
				`{"type":"assistant","sessionId":"m1","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"go test ./..."}}]}}`,
				`{"type":"user","sessionId":"m1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+strings.Repeat("ok  pkg 0.1s ", 300_000/13)+`"}]}}`)
			want := "working/tool/go test ./.../log/log.tool/"
			ref.waitView("m1", want)
			e.waitView("m1", want)
			size := fileSize(t, tr)
			if !graceful {
				e.waitCheckpoint(func(ck checkpointDoc) bool { return ck.offset(tr) == size })
			}
			took := e.stop(graceful)
			if graceful {
				t.Logf("SIGTERM to exit: %v", took)
			}
			e.start()
			if got, ref := view(t, e.status(), "m1"), view(t, ref.status(), "m1"); got != ref {
				t.Fatalf("after restart: %s, never-stopped daemon: %s", got, ref)
			}

			// Down again; the turn goes on and ends meanwhile.
			e.stop(graceful)
			e.append(tr,
				`{"type":"assistant","sessionId":"m1","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/app/x.go"}}]}}`,
				`{"type":"user","sessionId":"m1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"`+strings.Repeat("x", 300_000)+`"}]}}`,
				`{"type":"assistant","sessionId":"m1","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"all green"}]}}`,
				`{"type":"system","subtype":"turn_duration","sessionId":"m1","durationMs":5000}`)
			ref.waitView("m1", "done/turn_end//log/log.turn_end/")
			e.start()
			if got, ref := view(t, e.status(), "m1"), view(t, ref.status(), "m1"); got != ref {
				t.Fatalf("after lines written while down: %s, never-stopped daemon: %s", got, ref)
			}
		})
	}
}

// TestE2ERestartKeepsHookState (issue 12 items 7, 8): what only hooks and
// API calls said survives a restart: acknowledged stays acknowledged,
// waiting stays waiting, a tab stays bound to its conversation. SIGTERM
// exits promptly with the checkpoint written.
func TestE2ERestartKeepsHookState(t *testing.T) {
	for _, graceful := range []bool{true, false} {
		name := map[bool]string{true: "sigterm", false: "kill-9"}[graceful]
		t.Run(name, func(t *testing.T) {
			e := startE2E(t)
			e.hook("ta", "claude", hookJSON("UserPromptSubmit", "acked"))
			e.hook("ta", "claude", hookJSON("Stop", "acked"))
			e.want("acked", "working", "prompt", "hook")
			e.want("acked", "done", "turn_end", "hook")
			if _, stderr, code := cli(t, e.env, "ack", "--session", "acked"); code != 0 {
				t.Fatalf("ack: %d %s", code, stderr)
			}
			e.hook("tw", "claude", hookJSON("UserPromptSubmit", "waiter"))
			e.hook("tw", "claude", hookJSON("PermissionRequest", "waiter", "tool_name", "Bash", "tool_input", `{"command":"rm -rf build"}`))
			e.waitView("acked", "ready/acknowledged//api/api.ack/ta")
			e.waitView("waiter", "waiting/permission/Bash: rm -rf build/hook/hook.permission_request/tw")
			if !graceful {
				e.waitCheckpoint(func(ck checkpointDoc) bool {
					return strings.Contains(string(ck.State), "acknowledged") && strings.Contains(string(ck.State), "permission_request")
				})
			}
			before := time.Now()
			took := e.stop(graceful)
			if graceful {
				t.Logf("SIGTERM to exit: %v", took)
				if took > 5*time.Second {
					t.Fatalf("SIGTERM took %v to stop the daemon", took)
				}
				if fi, err := os.Stat(e.checkpointPath()); err != nil || fi.ModTime().Before(before.Add(-time.Second)) {
					t.Fatalf("no checkpoint written at SIGTERM: %v", err)
				}
			}
			e.start()
			st := e.status()
			if got := view(t, st, "acked"); got != "ready/acknowledged//api/api.ack/ta" {
				t.Errorf("acked after restart: %s", got)
			}
			if got := view(t, st, "waiter"); got != "waiting/permission/Bash: rm -rf build/hook/hook.permission_request/tw" {
				t.Errorf("waiter after restart: %s", got)
			}
			// The tab is still bound: a nested agent's hook on it is dropped.
			e.hook("tw", "claude", hookJSON("UserPromptSubmit", "nested"))
			if st := e.status(); counter(st, "hooks_dropped") != 1 || view(t, st, "nested") != "absent" {
				t.Errorf("tab binding lost: dropped %v, nested %s", counter(st, "hooks_dropped"), view(t, st, "nested"))
			}
			if _, stderr, code := cli(t, e.env, "tab-closed", "--tab", "tw"); code != 0 {
				t.Fatalf("tab-closed: %d %s", code, stderr)
			}
			// The ended change named the tab; the closed tab then leaves the
			// session (a resumed conversation is not shown in it).
			e.waitView("waiter", "ended/tab_closed//api/api.tab_closed/")
		})
	}
}

// TestE2EStopPromptly (issue 12 item 8): SIGTERM in the middle of a start-up
// read of 200 files of 300 KB, under heavy writes and hooks, with idle
// connections, a subscriber and a held HTTP connection, stops the daemon promptly with its checkpoint (and
// state) written. The bound is generous; the figure is reported.
func TestE2EStopPromptly(t *testing.T) {
	port := freePort(t)
	e := newE2E(t, nil, "LOGWATCH_HTTP=127.0.0.1:"+strconv.Itoa(port), "LOGWATCH_LOG_LEVEL=info")
	line := `{"type":"assistant","sessionId":"%s","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"` + strings.Repeat("x", 1000) + `"}}]}}`
	for i := 0; i < 200; i++ {
		id := fmt.Sprintf("b%03d", i)
		var b strings.Builder
		for b.Len() < 300_000 {
			b.WriteString(fmt.Sprintf(line, id) + "\n")
		}
		p := filepath.Join(e.claude, "-w-b", id+".jsonl")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(b.String()), 0o644)
	}
	var worst time.Duration
	for round := 0; round < 3; round++ {
		e.start()
		idle := hold("unix", e.socket, 50)
		httpc := hold("tcp", "127.0.0.1:"+strconv.Itoa(port), 1)
		// Heavy writes to ten logs and a stream of hooks while it stops.
		stopLoad := make(chan struct{})
		loadDone := make(chan struct{})
		go func() {
			defer close(loadDone)
			for n := 0; ; n++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				id := fmt.Sprintf("b%03d", n%10)
				f, err := os.OpenFile(filepath.Join(e.claude, "-w-b", id+".jsonl"), os.O_APPEND|os.O_WRONLY, 0o644)
				if err == nil {
					f.WriteString(fmt.Sprintf(line, id) + "\n")
					f.Close()
				}
				if n%50 == 0 {
					go exec.Command(bin, "hook", "--agent", "claude").Run()
				}
			}
		}()
		time.Sleep(200 * time.Millisecond)
		before := time.Now()
		took := e.stop(true)
		close(stopLoad)
		<-loadDone
		closeAll(idle)
		closeAll(httpc)
		worst = max(worst, took)
		b, err := os.ReadFile(e.checkpointPath())
		var ck checkpointDoc
		if err != nil || json.Unmarshal(b, &ck) != nil || len(ck.State) == 0 {
			t.Fatalf("round %d: no checkpoint with state after SIGTERM: %v", round, err)
		}
		if fi, _ := os.Stat(e.checkpointPath()); fi.ModTime().Before(before.Add(-time.Second)) {
			t.Fatalf("round %d: checkpoint not written at SIGTERM", round)
		}
		t.Logf("round %d: SIGTERM to exit %v, checkpoint holds %d files", round, took.Round(time.Millisecond), len(ck.Files))
	}
	if worst > 5*time.Second {
		t.Fatalf("SIGTERM took up to %v", worst)
	}
}
