// Package toyagent_test proves the agent seam: a third agent, declared in
// testdata/toy.go and nowhere else, is built into the real logwatch binary
// (go build -overlay adds the file and one blank import; no file of the
// repository changes) and then driven end to end through the CLI: verify,
// the daemon with hooks, log lines and a key, hooks install --dry-run, and
// doctor.
package toyagent_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// buildWithToy builds cmd/logwatch with the toy agent added: its package
// as parsers/toyagent/toy.go and a file of package main importing it.
func buildWithToy(t *testing.T, dir string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	pkg := filepath.Dir(here)
	root := filepath.Dir(filepath.Dir(pkg))
	reg := filepath.Join(dir, "zz_toyagent.go")
	if err := os.WriteFile(reg, []byte("package main\n\nimport _ \"github.com/logwatch/logwatch/parsers/toyagent\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(pkg, "toy.go"):                             filepath.Join(pkg, "testdata", "toy.go"),
		filepath.Join(root, "cmd", "logwatch", "zz_toyagent.go"): reg,
	}})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "logwatch")
	cmd := exec.Command("go", "build", "-overlay", ov, "-o", bin, "./cmd/logwatch")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build with the toy agent: %v\n%s", err, out)
	}
	return bin
}

type toyEnv struct {
	t        *testing.T
	bin      string
	env      []string
	home     string // TOY_HOME
	logs     string // the toy's log root
	events   chan map[string]any
	daemon   *exec.Cmd
	daemonIO bytes.Buffer
}

func newToyEnv(t *testing.T) *toyEnv {
	dir, err := os.MkdirTemp("", "lwtoy") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &toyEnv{t: t, bin: buildWithToy(t, dir), home: filepath.Join(dir, "toyhome")}
	e.logs = filepath.Join(e.home, "logs")
	e.env = []string{
		"HOME=" + filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "home", ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "home", ".state"),
		"TOY_HOME=" + e.home,
		"LOGWATCH_SOCKET=" + filepath.Join(dir, "run", "lw.sock"),
		"PATH=" + os.Getenv("PATH"),
	}
	return e
}

// run runs the binary and returns its stdout and exit code.
func (e *toyEnv) run(stdin string, args ...string) (string, int) {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = e.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String() + errb.String(), ee.ExitCode()
	case err != nil:
		e.t.Fatal(err)
	}
	return out.String(), 0
}

func (e *toyEnv) write(path string, lines ...string) {
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

// start runs the daemon and subscribes to its events.
func (e *toyEnv) start() {
	e.t.Helper()
	if err := os.MkdirAll(e.logs, 0o755); err != nil {
		e.t.Fatal(err)
	}
	e.daemon = exec.Command(e.bin, "run")
	e.daemon.Env = e.env
	e.daemon.Stdout, e.daemon.Stderr = &e.daemonIO, &e.daemonIO
	if err := e.daemon.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		e.daemon.Process.Signal(os.Interrupt)
		e.daemon.Wait()
		if e.t.Failed() {
			e.t.Logf("daemon output:\n%s", e.daemonIO.String())
		}
	})
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, code := e.run("", "status", "--json"); code == 0 {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("daemon did not answer within 20 s:\n%s", e.daemonIO.String())
		}
	}
	before := e.subscribers()
	sub := exec.Command(e.bin, "events", "--json")
	sub.Env = e.env
	out, err := sub.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := sub.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { sub.Process.Kill(); sub.Wait() })
	e.events = make(chan map[string]any, 256)
	go func() {
		defer close(e.events)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				e.events <- ev
			}
		}
	}()
	// A change published before the stream is live would come as a
	// snapshot line: wait until the daemon counts the subscriber.
	for deadline := time.Now().Add(10 * time.Second); e.subscribers() <= before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatal("subscription never became live")
		}
	}
}

// subscribers is the daemon's count of event subscribers.
func (e *toyEnv) subscribers() float64 {
	e.t.Helper()
	out, code := e.run("", "status", "--json")
	var st struct{ Counters map[string]any }
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		e.t.Fatalf("status exit %d: %s", code, out)
	}
	n, _ := st.Counters["subscribers"].(float64)
	return n
}

// want waits for session's next change to state, skipping the changes on
// the way there, and returns it.
func (e *toyEnv) want(session, state string) map[string]any {
	e.t.Helper()
	timeout := time.After(15 * time.Second)
	var seen []string
	for {
		select {
		case ev, ok := <-e.events:
			if !ok {
				e.t.Fatal("event stream ended")
			}
			if ev["snapshot"] == true || ev["session"] != session {
				continue
			}
			if ev["state"] == state {
				return ev
			}
			seen = append(seen, ev["state"].(string)+"/"+ev["reason"].(string))
		case <-timeout:
			e.t.Fatalf("%s: no change to %s within 15s (saw %v)", session, state, seen)
		}
	}
}

func (e *toyEnv) hook(tab, payload string) {
	e.t.Helper()
	cmd := exec.Command(e.bin, "hook", "--agent", "toy")
	cmd.Env = append(append([]string{}, e.env...), "LOGWATCH_TAB="+tab)
	cmd.Stdin = strings.NewReader(payload)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		e.t.Fatalf("hook client: err %v, output %q", err, out)
	}
}

func TestToyAgentEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	e := newToyEnv(t)

	t.Run("verify", func(t *testing.T) {
		e.t = t
		dir := t.TempDir()
		e.write(filepath.Join(dir, "toy-v1.jsonl"),
			`{"toy":"meta","sid":"v1","cwd":"/w/toy","version":"1.0.0","ts":"2026-12-01T10:00:00Z"}`,
			`{"toy":"prompt","ts":"2026-12-01T10:00:01Z"}`,
			`{"toy":"tool","name":"Bash","input":{"command":"make test","description":"d"}}`,
			`{"toy":"sparkle"}`,
			`{"toy":"done"}`)
		e.write(filepath.Join(dir, "toy-v1.expect.json"),
			`{"agent":"toy","session_id":"v1","cwd":"/w/toy","agent_version":"1.0.0","turns":1,"final_state":"done","final_reason":"turn_end"}`)
		out, code := e.run("", "verify", dir)
		if code != 0 || !strings.Contains(out, "toy-v1.jsonl") {
			t.Fatalf("verify exit %d:\n%s", code, out)
		}
		out, _ = e.run("", "verify", "--json", filepath.Join(dir, "toy-v1.jsonl"))
		if !strings.Contains(out, `"toy/sparkle"`) {
			t.Errorf("verify --json does not count the unknown toy line:\n%s", out)
		}
	})

	t.Run("daemon", func(t *testing.T) {
		e.t = t
		e.start()
		hook := func(event, session string, kv ...string) string {
			m := map[string]any{"hook_event_name": event, "session_id": session, "cwd": "/w/toy"}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i]] = kv[i+1]
			}
			if event == "PreToolUse" {
				m["tool_input"] = map[string]string{"command": "make test"}
			}
			b, _ := json.Marshal(m)
			return string(b)
		}
		// Hooks, with the tab they ran in.
		e.hook("tabA", hook("SessionStart", "t1", "source", "startup"))
		if ev := e.want("t1", "ready"); ev["agent"] != "toy" || ev["tab"] != "tabA" {
			t.Fatalf("session start: %v", ev)
		}
		e.hook("tabA", hook("UserPromptSubmit", "t1", "prompt", "hi"))
		e.want("t1", "working")
		e.hook("tabA", hook("PreToolUse", "t1", "tool_name", "Bash"))
		if ev := e.want("t1", "working"); ev["reason"] != "tool" || !strings.Contains(ev["detail"].(string), "make test") {
			t.Fatalf("tool: %v", ev)
		}
		// Esc in the tab, confirmed by the toy's interrupt marker in its log.
		t1 := filepath.Join(e.logs, "toy-t1.jsonl")
		e.write(t1, `{"toy":"meta","sid":"t1","cwd":"/w/toy","version":"1.0.0"}`, `{"toy":"prompt"}`)
		if _, code := e.run("", "key", "--tab", "tabA", "esc"); code != 0 {
			t.Fatal("key esc failed")
		}
		e.write(t1, `{"toy":"aborted"}`)
		if ev := e.want("t1", "ready"); ev["reason"] != "interrupted" || ev["source"] != "key+log" {
			t.Fatalf("interrupt: %v", ev)
		}
		// A log alone: the watcher finds the toy's file by its layout.
		t2 := filepath.Join(e.logs, "toy-t2.jsonl")
		e.write(t2, `{"toy":"meta","sid":"t2","cwd":"/w/toy","version":"1.0.0"}`, `{"toy":"prompt"}`)
		if ev := e.want("t2", "working"); ev["agent"] != "toy" || ev["source"] != "log" {
			t.Fatalf("log turn start: %v", ev)
		}
		e.write(t2, `{"toy":"say"}`, `{"toy":"done"}`)
		e.want("t2", "done")
		e.hook("tabA", hook("SessionEnd", "t1", "reason", "exit"))
		e.want("t1", "ended")

		out, _ := e.run("", "status", "--json", "--all")
		var st struct {
			Sessions []struct{ Session, Agent, State string }
			Roots    []string
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status: %v\n%s", err, out)
		}
		got := map[string]string{}
		for _, s := range st.Sessions {
			got[s.Session] = s.Agent + "/" + s.State
		}
		if got["t1"] != "toy/ended" || got["t2"] != "toy/done" {
			t.Errorf("status sessions %v", got)
		}
		if !strings.Contains(strings.Join(st.Roots, " "), e.logs) {
			t.Errorf("status roots %v lack the toy's %s", st.Roots, e.logs)
		}
	})

	t.Run("hooks install --dry-run", func(t *testing.T) {
		e.t = t
		out, code := e.run("", "hooks", "install", "--agent", "toy", "--dry-run")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		for _, want := range []string{filepath.Join(e.home, "hooks.json"), "hook --agent toy", "SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"} {
			if !strings.Contains(out, want) {
				t.Errorf("dry run lacks %q:\n%s", want, out)
			}
		}
		if _, err := os.Stat(filepath.Join(e.home, "hooks.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a dry run wrote the hooks file: %v", err)
		}
	})

	t.Run("doctor", func(t *testing.T) {
		e.t = t
		check := func() (string, []string) {
			out, _ := e.run("", "doctor", "--json")
			var d struct {
				Checks []struct {
					Check, Status, Summary string
					Details                []string
				}
			}
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("doctor --json: %v\n%s", err, out)
			}
			var formats []string
			status := ""
			for _, c := range d.Checks {
				switch c.Check {
				case "toy hooks":
					status = c.Status + ": " + c.Summary + " " + strings.Join(c.Details, "; ")
				case "formats":
					formats = c.Details
				}
			}
			return status, formats
		}
		e.write(filepath.Join(e.logs, "toy-d1.jsonl"), `{"toy":"meta","sid":"d1","version":"1.0.0"}`)
		status, formats := check()
		if !strings.HasPrefix(status, "fail: not installed in "+filepath.Join(e.home, "hooks.json")) {
			t.Errorf("toy hooks before install: %q", status)
		}
		if !strings.Contains(strings.Join(formats, "\n"), "toy: versions 1.0.0") {
			t.Errorf("formats do not name the toy's versions: %v", formats)
		}
		if out, code := e.run("", "hooks", "install", "--agent", "toy", "--bin", e.bin); code != 0 || !strings.Contains(out, "restart it") {
			t.Fatalf("install exit %d:\n%s", code, out)
		}
		if status, _ = check(); !strings.HasPrefix(status, "ok: installed") || !strings.Contains(status, "the toy reads its hooks at start") {
			t.Errorf("toy hooks after install: %q", status)
		}
	})
}
