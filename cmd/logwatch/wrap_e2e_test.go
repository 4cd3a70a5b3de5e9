package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The wrap end-to-end suite: a real daemon (startE2E), a fake agent that
// behaves like Claude Code or Codex at the pty and in its logs, run under
// `logwatch wrap` in a real pty the test types into. Assertions are on the
// published changes and the daemon's counters, never on timings: changes
// are awaited with generous timeouts, "no change" is checked past the 2 s
// confirmation window plus a margin.

// pastWindow is the default confirmation window plus a margin.
const pastWindow = 3 * time.Second

var (
	fakeAgentOnce sync.Once
	fakeAgentBin  string
	fakeAgentErr  error
)

// fakeAgent builds testdata/fakeagent next to the logwatch binary, once.
func fakeAgent(t *testing.T) string {
	t.Helper()
	fakeAgentOnce.Do(func() {
		fakeAgentBin = filepath.Join(filepath.Dir(bin), "fakeagent")
		out, err := exec.Command("go", "build", "-o", fakeAgentBin, "./testdata/fakeagent").CombinedOutput()
		if err != nil {
			fakeAgentErr = errors.New(string(out))
		}
	})
	if fakeAgentErr != nil {
		t.Fatalf("building the fake agent: %v", fakeAgentErr)
	}
	return fakeAgentBin
}

// wrapped is `logwatch wrap -- fakeagent …` running in a pty: the test is the
// user's terminal.
type wrapped struct {
	*ptyScreen
	t       *testing.T
	session string
	root    string // the agent's log root
	cmd     *exec.Cmd
	exited  chan struct{}
	code    int
}

// startWrapped runs the fake agent (claude or codex) under wrap with env
// (the daemon's, or one without a daemon) and waits until it is ready.
func startWrapped(t *testing.T, env []string, agent, root string, args ...string) *wrapped {
	t.Helper()
	w := &wrapped{t: t, session: newUUID(), root: root}
	argv := append([]string{"wrap", "--", fakeAgent(t), "--agent", agent, "--logwatch", bin,
		"--session", w.session, "--root", root}, args...)
	w.cmd = exec.Command(bin, argv...)
	w.cmd.Env = env
	w.cmd.Dir = t.TempDir()
	w.run(24, 100)
	w.waitText("ready\r\n")
	return w
}

// run starts w.cmd in a pty of rows×cols, and kills it (if need be) when
// the test ends, showing the screen if the test failed.
func (w *wrapped) run(rows, cols uint16) {
	t := w.t
	w.exited = make(chan struct{})
	w.ptyScreen = startPTY(t, w.cmd, rows, cols)
	go func() {
		err := w.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			w.code = ee.ExitCode()
		}
		close(w.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-w.exited:
		default:
			w.cmd.Process.Kill()
			<-w.exited
		}
		w.close()
		if t.Failed() {
			t.Logf("screen:\n%q", w.text())
		}
	})
}

// waitText waits until s is on the screen n times (once if n is omitted).
func (w *wrapped) waitText(s string, n ...int) {
	w.t.Helper()
	want := 1
	if len(n) > 0 {
		want = n[0]
	}
	deadline := time.After(10 * time.Second)
	for strings.Count(w.text(), s) < want {
		select {
		case <-w.grew:
		case <-deadline:
			w.t.Fatalf("%q never appeared %d times on the screen", s, want)
		}
	}
}

// typ writes s to the terminal as one chunk, as a terminal writes one key.
func (w *wrapped) typ(s string) {
	w.t.Helper()
	if _, err := w.pty.Write([]byte(s)); err != nil {
		w.t.Fatal(err)
	}
}

// prompt submits a prompt and waits until the agent has taken it.
func (w *wrapped) prompt(text string) {
	w.t.Helper()
	w.typ(text)
	w.waitText(text)
	w.typ("\r")
	w.waitText("prompt: " + text + "\r\n")
}

// exit waits for wrap to exit and returns its status.
func (w *wrapped) exit() int {
	w.t.Helper()
	select {
	case <-w.exited:
		return w.code
	case <-time.After(10 * time.Second):
		w.t.Fatal("wrap did not exit")
		return -1
	}
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// wrapDaemon is a daemon for one scenario, checkpoint under its temp dir.
func wrapDaemon(t *testing.T) *e2e {
	t.Helper()
	return startE2E(t, "LOGWATCH_CHECKPOINT="+filepath.Join(t.TempDir(), "checkpoint.json"))
}

// begin starts the agent under wrap and takes it to working through a
// prompt, checking the changes the hooks publish on the way.
func begin(t *testing.T, e *e2e, agent string, args ...string) *wrapped {
	t.Helper()
	root := e.claude
	if agent == "codex" {
		root = e.codex
	}
	w := startWrapped(t, e.env, agent, root, args...)
	// Codex's session_meta line may announce the session before the hook,
	// which then shows it in its tab (hook.tab).
	if ev := e.want(w.session, "ready", "session_start", ""); ev["source"] == "log" {
		if ev := e.want(w.session, "ready", "session_start", "log"); ev["rule"] != "hook.tab" || ev["tab"] == "" {
			t.Fatalf("the hook's start of a session its log announced: %v", ev)
		}
	}
	w.prompt("refactor the parser")
	e.want(w.session, "working", "prompt", "hook")
	return w
}

func counters(t *testing.T, e *e2e, names ...string) string {
	t.Helper()
	st := e.status()
	var parts []string
	for _, n := range names {
		parts = append(parts, n+"="+strconv.Itoa(int(counter(st, n))))
	}
	return strings.Join(parts, " ")
}

func TestWrapE2E(t *testing.T) {
	fakeAgent(t)

	// A key the agent's log confirms: ready, interrupted, key+log. Kitty
	// and legacy encodings, both agents, a fast and a late marker.
	confirmed := []struct {
		name, agent, delay string
		keys               []string // one write each
	}{
		{"claude kitty Esc 50ms", "claude", "50ms", []string{"\x1b[27u"}},
		{"codex kitty Ctrl+C with release 50ms", "codex", "50ms", []string{"\x1b[99;5u", "\x1b[99;5:3u"}},
		{"claude legacy Ctrl+C 1.8s", "claude", "1.8s", []string{"\x03"}},
		{"codex legacy Esc 1.8s", "codex", "1.8s", []string{"\x1b"}},
	}
	for _, tc := range confirmed {
		t.Run("confirmed/"+tc.name, func(t *testing.T) {
			t.Parallel()
			e := wrapDaemon(t)
			w := begin(t, e, tc.agent, "--delay", tc.delay)
			for _, k := range tc.keys {
				w.typ(k)
			}
			w.waitText("interrupting\r\n")
			e.want(w.session, "ready", "interrupted", "key+log")
			if got := counters(t, e, "keys", "interrupt_candidates", "interrupts_confirmed"); got != "keys=1 interrupt_candidates=1 interrupts_confirmed=1" {
				t.Errorf("counters: %s", got)
			}
			// The agent goes on as usual, and its exit is wrap's.
			w.prompt("now the lexer")
			e.want(w.session, "working", "prompt", "hook")
			if tc.agent == "claude" {
				w.typ("/exit\r")
				if code := w.exit(); code != 0 {
					t.Errorf("wrap exited %d, want 0", code)
				}
				e.want(w.session, "ended", "", "hook") // SessionEnd
			} else {
				w.typ("/crash\r") // no hook: the tab's close ends the session
				if code := w.exit(); code != 1 {
					t.Errorf("wrap exited %d, want the agent's 1", code)
				}
				e.want(w.session, "ended", "tab_closed", "api")
			}
		})
	}

	// The agent interrupts but writes no marker (a log format logwatch does
	// not know): the key alone changes nothing.
	t.Run("unconfirmed/claude", func(t *testing.T) {
		t.Parallel()
		e := wrapDaemon(t)
		w := begin(t, e, "claude", "--marker=false")
		w.typ("\x1b[27u")
		w.waitText("interrupted\r\n")
		e.quiet(w.session, pastWindow)
		if got := counters(t, e, "interrupt_candidates", "interrupts_unconfirmed", "interrupts_confirmed"); got != "interrupt_candidates=1 interrupts_unconfirmed=1 interrupts_confirmed=0" {
			t.Errorf("counters: %s", got)
		}
	})
	t.Run("unconfirmed/codex", func(t *testing.T) {
		t.Parallel()
		e := wrapDaemon(t)
		w := begin(t, e, "codex", "--marker=false")
		w.typ("\x03")
		w.waitText("interrupted\r\n")
		e.quiet(w.session, pastWindow)
		if got := counters(t, e, "interrupt_candidates", "interrupts_unconfirmed"); got != "interrupt_candidates=1 interrupts_unconfirmed=1" {
			t.Errorf("counters: %s", got)
		}
	})

	// Esc that only closes the slash-command overlay: a candidate for the
	// relay, which cannot know, but no line and no change. A later Esc that
	// interrupts is confirmed as usual.
	t.Run("overlay Esc/claude", func(t *testing.T) {
		t.Parallel()
		e := wrapDaemon(t)
		w := begin(t, e, "claude")
		w.typ("/mod")
		w.waitText("/mod")
		w.typ("\x1b[27u")
		w.waitText("overlay closed\r\n")
		e.quiet(w.session, pastWindow)
		if got := counters(t, e, "interrupt_candidates", "interrupts_unconfirmed"); got != "interrupt_candidates=1 interrupts_unconfirmed=1" {
			t.Errorf("counters: %s", got)
		}
		w.typ("\x1b[27u")
		e.want(w.session, "ready", "interrupted", "key+log")
	})

	// Arrows and a bracketed paste holding 03 and 1b are not keys: the one
	// Esc typed after them is the only key the daemon hears of.
	t.Run("arrows and paste/codex", func(t *testing.T) {
		t.Parallel()
		e := wrapDaemon(t)
		w := begin(t, e, "codex")
		for _, s := range []string{"\x1b[A", "\x1b[B", "\x1bOD", "\x1b[1;5C", "\x1b[200~kill -INT \x03 then \x1b and more\x1b[201~"} {
			w.typ(s)
		}
		w.waitText("and more") // the paste is in the composer
		w.typ("\x1b[27u")
		e.want(w.session, "ready", "interrupted", "key+log")
		if got := counters(t, e, "keys", "interrupt_candidates"); got != "keys=1 interrupt_candidates=1" {
			t.Errorf("counters: %s (arrows or pasted bytes were reported as keys)", got)
		}
	})

	// No daemon: the agent works as usual through wrap, and nothing of
	// logwatch shows on the terminal.
	t.Run("daemon absent/claude", func(t *testing.T) {
		t.Parallel()
		dir, err := os.MkdirTemp("", "lwwrap")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		home := filepath.Join(dir, "home")
		env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"),
			"LOGWATCH_SOCKET=" + filepath.Join(dir, "none.sock")}
		root := filepath.Join(home, ".claude", "projects")
		w := startWrapped(t, env, "claude", root)
		w.prompt("hello")
		w.typ("\x1b[27u")
		w.waitText("interrupted\r\n")
		w.typ("/exit\r")
		if code := w.exit(); code != 0 {
			t.Errorf("wrap exited %d, want 0", code)
		}
		if s := strings.ToLower(w.text()); strings.Contains(s, "logwatch") || strings.Contains(s, "daemon") {
			t.Errorf("logwatch wrote to the terminal: %q", s)
		}
		logs, _ := filepath.Glob(filepath.Join(root, "*", w.session+".jsonl"))
		if len(logs) != 1 {
			t.Fatalf("transcript not written: %v", logs)
		}
		b, _ := os.ReadFile(logs[0])
		if !strings.Contains(string(b), "[Request interrupted by user]") {
			t.Errorf("the agent did not interrupt: %s", b)
		}
	})
}
