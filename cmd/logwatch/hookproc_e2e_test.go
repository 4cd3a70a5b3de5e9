package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/tmux"
)

// namedAgent runs a shell under an agent's name (shellNamed: its comm is
// the agent's) that runs hook, then sleeps as an agent at its prompt
// would. It is killed, with what it started, when the test ends.
func namedAgent(t *testing.T, e *e2e, name, hook string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(shellNamed(t, e, name), "-c", hook+"; sleep 100000")
	cmd.Env = append(append([]string{}, e.env...), "LW="+bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

// shellNamed is a path that runs sh under name: a symlink, as the kernel
// names a process by the path it ran.
func shellNamed(t *testing.T, e *e2e, name string) string {
	t.Helper()
	dir := filepath.Join(e.dir, "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err != nil {
		if err := os.Symlink(sh, path); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// sessionOf is a session's row in status.
func (e *e2e) sessionOf(id string) map[string]any {
	e.t.Helper()
	for _, s := range e.status()["sessions"].([]any) {
		if m := s.(map[string]any); m["session"] == id {
			return m
		}
	}
	e.t.Fatalf("status has no session %s", id)
	return nil
}

// TestE2EHookProcess: an agent outside `logwatch wrap` whose hooks run
// the real hook client, named by its agent's rule (Claude Code's through
// its sh -c, pi's spawned by the agent itself): the session carries the
// agent's pid, and the agent's kill -9 ends it, process_gone. A process
// the rule does not name (an agent under another name) gives none, and
// its kill ends nothing.
func TestE2EHookProcess(t *testing.T) {
	e := startE2E(t)
	for _, c := range []struct {
		name, agent, hook string
		named             bool
	}{
		{"claude", "claude", `printf '%s' "$P" | sh -c "$LW hook --agent claude; true"`, true},
		{"pi", "pi", `printf '%s' "$P" | "$LW" hook --agent pi --detached`, true},
		{"claude-beta", "claude", `printf '%s' "$P" | sh -c "$LW hook --agent claude; true"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := "s-" + c.name
			hook := strings.ReplaceAll(c.hook, `"$P"`, "'"+hookJSON("SessionStart", id, "source", "startup")+"'")
			agent := namedAgent(t, e, c.name, hook)
			e.want(id, "ready", "session_start", "hook")
			row := e.sessionOf(id)
			if !c.named {
				if row["pid"] != nil {
					t.Fatalf("%s: pid %v, want none", c.name, row["pid"])
				}
				syscall.Kill(agent.Process.Pid, syscall.SIGKILL)
				e.quiet(id, 2500*time.Millisecond)
				return
			}
			if pid, _ := row["pid"].(float64); int(pid) != agent.Process.Pid || row["live"] != true {
				t.Fatalf("%s: pid %v live %v, want %d live", c.name, row["pid"], row["live"], agent.Process.Pid)
			}
			syscall.Kill(agent.Process.Pid, syscall.SIGKILL)
			e.want(id, "ended", "process_gone", "hook")
		})
	}
}

// TestE2ETmuxHookProcess: an agent in a tmux pane without wrap, found
// through the process its hook named: its window shows the session's dot,
// which goes with the agent's kill -9.
func TestE2ETmuxHookProcess(t *testing.T) {
	e := startE2E(t)
	x := startTmux(t, e)
	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install: %d\n%s%s", code, out, stderr)
	}
	x.eventually("follower", func() (string, bool) {
		b, _ := os.ReadFile(x.socket + ".logwatch-follow")
		return string(b), len(b) > 0
	})
	payload := hookJSON("SessionStart", "s-pane", "source", "startup")
	x.run("new-window", "-d", "-t", "main:1", shellNamed(t, e, "pi")+` -c '`+
		`printf "%s" "$0" | `+bin+` hook --agent pi --detached; sleep 100000' '`+payload+`'`)
	window := x.run("display-message", "-p", "-t", "main:1", "#{window_id}")
	x.run("set-option", "-w", "-t", window, "remain-on-exit", "on") // the window outlives its agent
	agent := x.run("display-message", "-p", "-t", "main:1", "#{pane_pid}")
	e.want("s-pane", "ready", "session_start", "hook")
	x.want(window, "ready", "")
	if err := exec.Command("kill", "-9", agent).Run(); err != nil {
		t.Fatal(err)
	}
	e.want("s-pane", "ended", "process_gone", "hook")
	x.eventually("the dot gone", func() (string, bool) {
		got := x.run("show-options", "-wqv", "-t", window, tmux.DotOption)
		return got, got == ""
	})
}
