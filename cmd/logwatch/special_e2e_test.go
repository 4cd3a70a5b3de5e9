package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// releaseFIFOs opens each path for writing without blocking: a daemon
// stuck opening one for reading (the bug) goes on, so a failing test ends
// rather than hangs. Registered after the daemon starts, it runs before the
// daemon's own clean-up.
func releaseFIFOs(t *testing.T, paths ...string) {
	t.Cleanup(func() {
		for _, p := range paths {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
	})
}

// stopPromptly sends SIGTERM and fails unless the daemon exits 0 within
// 10 s (it stops in milliseconds; a goroutine stuck in open(2) kept it
// running for ever).
func (e *e2e) stopPromptly(fifos ...string) {
	e.t.Helper()
	sent := time.Now()
	e.daemon.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- e.daemon.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			e.t.Fatalf("daemon: %v", err)
		}
		e.t.Logf("stopped %v after SIGTERM", time.Since(sent).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		for _, p := range fifos {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
		<-done
		e.t.Fatal("SIGTERM did not stop the daemon within 10 s")
	}
}

// sessionField polls status until session has field set to want.
func (e *e2e) sessionField(session, field string, want any) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last any
	for time.Now().Before(deadline) {
		for _, s := range e.status()["sessions"].([]any) {
			if m := s.(map[string]any); m["session"] == session {
				if last = m[field]; last == want {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("%s: %s is %v, want %v", session, field, last, want)
}

// TestE2ERegistryFIFO: a FIFO named <pid>.json created in Claude Code's
// registry directory while the daemon runs is refused, not opened: a
// registry file written after it is still read (its session gets its pid)
// and SIGTERM stops the daemon at once.
func TestE2ERegistryFIFO(t *testing.T) {
	e := newE2E(t, nil)
	sessions := filepath.Join(e.dir, "home", ".claude", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	e.start()
	fifo := filepath.Join(sessions, "424242.json")
	releaseFIFOs(t, fifo)
	session := func(id string) int {
		t.Helper()
		_, agent := agentProc(t)
		e.append(filepath.Join(e.claude, "-w-app", id+".jsonl"),
			`{"type":"user","sessionId":"`+id+`","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
		e.want(id, "working", "prompt", "log")
		e.registryFile(agent, id, "busy")
		e.sessionField(id, "pid", float64(agent))
		return agent
	}
	// The registry is being watched once the first file is read: the
	// FIFO then arrives as an event, as it would from another process.
	session("5fb9e89c-5625-4458-ba8b-7d74a8860f01")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	session("5fb9e89c-5625-4458-ba8b-7d74a8860f02")
	e.stopPromptly(fifo)
	logs, _ := filepath.Glob(filepath.Join(e.dir, "daemon-*.log"))
	if b, _ := os.ReadFile(logs[0]); !bytes.Contains(b, []byte(fifo+" is a FIFO, not a regular file")) {
		t.Errorf("the refusal is not logged:\n%s", b)
	}
}

// TestE2ETranscriptFIFO: a FIFO renamed over a live transcript mid-turn is
// refused (its reader waits for the next change): other sessions still
// update, and SIGTERM stops the daemon at once.
func TestE2ETranscriptFIFO(t *testing.T) {
	e := startE2E(t)
	proj := filepath.Join(e.claude, "-w-app")
	prompt := func(id string) string {
		return `{"type":"user","sessionId":"` + id + `","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`
	}
	victim, other := filepath.Join(proj, "v1.jsonl"), filepath.Join(proj, "o1.jsonl")
	e.append(victim, prompt("v1"))
	e.want("v1", "working", "prompt", "log")
	e.append(other, prompt("o1"))
	e.want("o1", "working", "prompt", "log")

	fifo := filepath.Join(proj, "v1.tmp")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	releaseFIFOs(t, victim)
	if err := os.Rename(fifo, victim); err != nil {
		t.Fatal(err)
	}
	// The victim's reader is kicked by the rename (and by this Poke-like
	// hook naming it), finds the FIFO and must not block there.
	e.hook("T", "claude", hookJSON("PreToolUse", "v1", "tool_name", "Bash", "tool_input", `{"command":"ls"}`, "transcript_path", victim))
	e.want("v1", "working", "tool", "hook")
	e.append(other, `{"type":"system","subtype":"turn_duration","sessionId":"o1","durationMs":5}`)
	e.want("o1", "done", "turn_end", "log")
	e.stopPromptly(victim)
}

// TestE2ECheckpointNotRegular: a checkpoint path that is a FIFO, a symlink
// to one or to /dev/zero, or a character device stops `run` at once with
// exit 2 and an error naming the path and what it is; the path is left as
// it was (the device is not replaced by a file).
func TestE2ECheckpointNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	releaseFIFOs(t, fifo)
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := map[string]string{
		"a FIFO":     fifo,
		"a symlink ": link("to-fifo", fifo),
		"a symlink":  link("to-zero", "/dev/zero"),
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		paths["a character device"] = filepath.Join(dir, "null")
	} else {
		t.Logf("no char device (mknod: %v): that case is skipped", err)
	}
	for kind, path := range paths {
		kind = strings.TrimSpace(kind)
		t.Run(filepath.Base(path), func(t *testing.T) {
			e := newE2E(t, nil, "LOGWATCH_CHECKPOINT="+path)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			// Bounded memory whatever happens: /dev/zero read whole grew the
			// daemon by gigabytes a second.
			cmd := exec.Command("bash", "-c", `ulimit -v 4194304 && exec "$@"`, "bash", bin, "run")
			cmd.Env = e.env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Signal(syscall.SIGTERM)
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill()
					<-done
				}
				t.Errorf("run did not refuse %s within 10 s", path)
			}
			msg := fmt.Sprintf("checkpoint %s is %s, not a regular file", path, kind)
			if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(out.String(), msg) {
				t.Errorf("exit %d, output %q; want 2 and %q", code, out.String(), msg)
			}
			after, err := os.Lstat(path)
			if err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Errorf("%s changed: %v → %v (%v)", path, before.Mode(), after.Mode(), err)
			}
		})
	}
}

// TestE2ERootSymlinkLoop: a log root that is a symlink loop (a → b, b → a)
// no longer keeps the daemon from starting: it is skipped with a warning
// and the other root's sessions are served.
func TestE2ERootSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	e := newE2E(t, nil)
	// In a file: a list from the environment is taken as one path.
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("agents:\n  claude:\n    roots: [%q, %q]\n", a, e.claude)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"LOGWATCH_CONFIG=" + conf}
	for _, kv := range e.env {
		if !strings.HasPrefix(kv, "LOGWATCH_AGENTS_CLAUDE_ROOTS=") {
			env = append(env, kv)
		}
	}
	e.env = env
	e.start()
	e.append(filepath.Join(e.claude, "-w-app", "r1.jsonl"),
		`{"type":"user","sessionId":"r1","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
	e.want("r1", "working", "prompt", "log")
	logs, _ := filepath.Glob(filepath.Join(e.dir, "daemon-*.log"))
	if out, _ := os.ReadFile(logs[0]); !bytes.Contains(out, []byte(a)) || !bytes.Contains(out, []byte("too many levels of symbolic links")) {
		t.Errorf("no warning naming the loop:\n%s", out)
	}
}

// TestE2EInvalidUTF8SessionAck: a transcript whose name is not valid UTF-8
// is published under the %XX-escaped id, which `logwatch ack` names over
// the real socket.
func TestE2EInvalidUTF8SessionAck(t *testing.T) {
	e := startE2E(t)
	proj := filepath.Join(e.claude, "-w-app")
	for i, name := range []string{"\xff\xfe", "\xfe\xff"} {
		id := []string{"%FF%FE", "%FE%FF"}[i]
		log := filepath.Join(proj, name+".jsonl")
		e.append(log, `{"type":"user","sessionId":"x","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"go"}}`)
		e.want(id, "working", "prompt", "log")
		e.append(log, `{"type":"system","subtype":"turn_duration","sessionId":"x","durationMs":5}`)
		e.want(id, "done", "turn_end", "log")
	}
	if _, stderr, code := cli(t, e.env, "ack", "--session", "%FF%FE"); code != 0 {
		t.Fatalf("ack: %d %s", code, stderr)
	}
	e.want("%FF%FE", "ready", "acknowledged", "api")
	e.sessionField("%FE%FF", "state", "done") // the other name's session is its own
}

// boundedCLI runs the real binary and fails unless it exits within 10 s
// (a FIFO opened for reading waits for a writer for ever).
func boundedCLI(t *testing.T, env []string, fifos []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		for _, p := range fifos {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
		cmd.Process.Kill()
		<-done
		t.Fatalf("logwatch %v did not return within 10 s", args)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// TestE2EVerifyAndHooksFIFO: a FIFO named *.jsonl in a directory given to
// verify is reported unreadable (exit 2) while the other logs are read,
// and a FIFO (or its .expect.json sidecar) is never waited on; a FIFO as
// the settings file of `hooks install` is refused by name and left as it
// is.
func TestE2EVerifyAndHooksFIFO(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), `{"type":"user","sessionId":"a","message":{"content":"hi"}}`+"\n")
	fifo, sidecar := filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "a.expect.json")
	for _, p := range []string{fifo, sidecar} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, code := boundedCLI(t, nil, []string{fifo, sidecar}, "verify", "--json", dir)
	if code != 2 || !strings.Contains(out, fifo+" is a FIFO, not a regular file") || !strings.Contains(out, `"session_id":"a"`) {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, sidecar+" is a FIFO") {
		t.Errorf("the sidecar FIFO is not reported:\n%s", out)
	}

	settings := filepath.Join(dir, "settings.json")
	if err := syscall.Mkfifo(settings, 0o600); err != nil {
		t.Fatal(err)
	}
	out, code = boundedCLI(t, nil, []string{settings}, "hooks", "install", "--agent", "claude", "--file", settings)
	if code == 0 || !strings.Contains(out, settings+" is a FIFO, not a regular file") {
		t.Fatalf("hooks install: exit %d\n%s", code, out)
	}
	if fi, err := os.Lstat(settings); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
}
