package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/testsupport"
)

// agentProc is a stand-in agent: a shell (what a host app starts in its
// tab) running a sleeping child (the agent, which writes the registry file).
func agentProc(t *testing.T) (shell, agent int) {
	t.Helper()
	sh, agent := testsupport.ShellWithChild(t)
	return sh.Process.Pid, agent
}

// registryFile writes ~/.claude/sessions/<pid>.json as Claude Code 2.1.328 does.
func (e *e2e) registryFile(pid int, session, status string) {
	e.t.Helper()
	start, err := proctree.StartTime(pid)
	if err != nil {
		e.t.Fatal(err)
	}
	dir := filepath.Join(e.dir, "home", ".claude", "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/w/app","startedAt":1,"procStart":"%d","version":"2.1.328","kind":"interactive","entrypoint":"cli","status":%q,"updatedAt":2,"statusUpdatedAt":2}`,
		pid, session, start, status)
	if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)+".json"), []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// registeredTurn writes the registry file of agent for session s, then its
// transcript's first prompt, and waits for it to be working; it returns
// the transcript.
func (e *e2e) registeredTurn(agent int, s string) string {
	e.t.Helper()
	e.registryFile(agent, s, "busy")
	log := filepath.Join(e.claude, "-w-app", s+".jsonl")
	e.append(log, `{"type":"user","sessionId":"`+s+`","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
	e.want(s, "working", "prompt", "log")
	return log
}

// waitPid polls status until session s names process pid.
func (e *e2e) waitPid(s string, pid int) {
	e.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ss, _ := e.status()["sessions"].([]any)
		for _, x := range ss {
			if m := x.(map[string]any); m["session"] == s && m["pid"] == float64(pid) {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: status never named process %d", s, pid)
		}
	}
}

// A host app without wrap and without hooks: `key --pid` names its tab's
// process, which binds the tab to the session Claude Code's registry names
// for a process under it; the key then confirms as key+log. kill -9 of the
// agent ends its session (process_gone); `tab-closed --pid` binds and ends
// another.
func TestRegistryPidBindingE2E(t *testing.T) {
	e := startE2E(t)
	const s1 = "5fb9e89c-5625-4458-ba8b-7d74a8860e01"
	shell, agent := agentProc(t)
	log1 := e.registeredTurn(agent, s1)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("logwatch %v: %v %s", args, err, out)
		}
	}
	run("key", "--tab", "T1", "--pid", strconv.Itoa(shell), "esc")
	e.append(log1, `{"type":"user","sessionId":"`+s1+`","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	if ev := e.want(s1, "ready", "interrupted", "key+log"); ev["tab"] != "T1" || ev["pid"] != float64(agent) || ev["live"] != true {
		t.Fatalf("interrupt %v: want tab T1, pid %d, live", ev, agent)
	}
	syscall.Kill(agent, syscall.SIGKILL)
	if ev := e.want(s1, "ended", "process_gone", "registry"); ev["live"] == true {
		t.Fatalf("ended %v: still live", ev)
	}

	const s2 = "5fb9e89c-5625-4458-ba8b-7d74a8860e02"
	shell2, agent2 := agentProc(t)
	e.registryFile(agent2, s2, "idle")
	log2 := filepath.Join(e.claude, "-w-app", s2+".jsonl")
	e.append(log2, `{"type":"user","sessionId":"`+s2+`","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
	e.want(s2, "working", "prompt", "log")
	run("tab-closed", "--tab", "T2", "--pid", strconv.Itoa(shell2))
	if ev := e.want(s2, "ended", "tab_closed", "api"); ev["tab"] != "T2" {
		t.Fatalf("ended %v: want tab T2", ev)
	}
	e.quiet(s1, 500*time.Millisecond)
}

// The sessions directory removed (a cleanup script) or moved away, with
// agents running: no session ends, `live` stays true, and the directory
// coming back changes nothing; the agent's exit still ends its session.
func TestRegistryDirectoryRemovedE2E(t *testing.T) {
	e := startE2E(t)
	const s1 = "5fb9e89c-5625-4458-ba8b-7d74a8860e11"
	_, agent := agentProc(t)
	e.registeredTurn(agent, s1)
	sessions := filepath.Join(e.dir, "home", ".claude", "sessions")
	if err := os.RemoveAll(sessions); err != nil {
		t.Fatal(err)
	}
	e.quiet(s1, 1500*time.Millisecond)
	if v := view(t, e.status(), s1); v != "working/prompt//log/log.turn_start/" {
		t.Fatalf("after the directory went: %s", v)
	}
	e.registryFile(agent, s1, "busy")
	e.quiet(s1, 500*time.Millisecond)
	syscall.Kill(agent, syscall.SIGKILL)
	e.want(s1, "ended", "process_gone", "registry")
}

// An agent that exits while the daemon is down (its registry file removed
// on the way out) is ended by the restarted daemon, not left working.
func TestRegistryExitWhileDownE2E(t *testing.T) {
	e := startE2E(t)
	const s1 = "5fb9e89c-5625-4458-ba8b-7d74a8860e12"
	_, agent := agentProc(t)
	e.registeredTurn(agent, s1)
	// The registry's reader and the logs' are separate: the link must be
	// in the daemon before its final checkpoint can keep it.
	e.waitPid(s1, agent)
	e.stop(true)
	if err := os.Remove(filepath.Join(e.dir, "home", ".claude", "sessions", strconv.Itoa(agent)+".json")); err != nil {
		t.Fatal(err)
	}
	syscall.Kill(agent, syscall.SIGKILL)
	for i := 0; i < 400 && proctree.Alive(agent, 0); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	e.start()
	// Settled before the socket serves: the snapshot shows it.
	e.waitView(s1, "ended/session_end//registry/registry.removed/")
}

// A tab's process is never one every tab shares: pid 1 or an ancestor of
// the daemon is refused with an error, and binds nothing.
func TestTabSharedAncestorRefusedE2E(t *testing.T) {
	e := startE2E(t)
	for _, pid := range []int{1, os.Getpid()} { // the test runs the daemon
		cmd := exec.Command(bin, "key", "--tab", "T", "--pid", strconv.Itoa(pid), "esc")
		cmd.Env = e.env
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "ancestor") && !strings.Contains(string(out), "not a tab's process") {
			t.Fatalf("key --pid %d: %v %s, want refused", pid, err, out)
		}
	}
}
