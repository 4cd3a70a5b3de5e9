package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// A host app without wrap and without hooks: `key --pid` names its tab's
// process, which binds the tab to the session Claude Code's registry names
// for a process under it; the key then confirms as key+log. kill -9 of the
// agent ends its session (process_gone); `tab-closed --pid` binds and ends
// another.
func TestRegistryPidBindingE2E(t *testing.T) {
	e := startE2E(t)
	const s1 = "5fb9e89c-5625-4458-ba8b-7d74a8860e01"
	shell, agent := agentProc(t)
	e.registryFile(agent, s1, "busy")
	log1 := filepath.Join(e.claude, "-w-app", s1+".jsonl")
	e.append(log1, `{"type":"user","sessionId":"`+s1+`","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
	e.want(s1, "working", "prompt", "log")
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
