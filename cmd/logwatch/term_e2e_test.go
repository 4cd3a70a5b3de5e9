package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/pipeline/replay"
)

// What a model can make an agent run, as a terminal would obey it: a
// clipboard write (OSC 52), a window title, a cleared screen, the same in
// 8-bit C1 form, a bidi override and a newline that would start a fake line.
const (
	attackOSC52 = "\x1b]52;c;ZWNobyBvd25lZA==\x07"
	attackTitle = "\x1b]0;owned\x07"
	attackClear = "\x1b[2J"
	attackC1    = "\u009b2J\u009d0;t\u009c"
	attackBidi  = "\u202e"
	attackLine  = "\nfake line"
)

// hostile counts what in b a terminal would obey or show as something
// else: control bytes but the newline, C1 controls, bidi controls and
// bytes that are not UTF-8.
func hostile(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			n++
		case r < 0x20 && r != '\n', r == 0x7f, r >= 0x80 && r <= 0x9f:
			n++
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			n++
		}
		b = b[size:]
	}
	return n
}

// TestE2ETerminalEscapes: a session whose id, cwd, tab and command carry
// escape sequences is shown by status, events, status --watch (to a pipe
// and to a terminal) and the ambiguous-prefix error without one byte of
// them reaching the terminal; --json keeps the exact strings.
func TestE2ETerminalEscapes(t *testing.T) {
	e := startE2E(t)
	session := "s" + attackTitle + "1"
	tab := "t" + attackClear + attackBidi
	cwd := "/w/" + attackOSC52 + "app"
	command := "echo " + attackOSC52 + attackClear + attackC1 + attackLine
	e.hook(tab, "claude", hookJSON("UserPromptSubmit", session, "cwd", cwd))
	e.want(session, "working", "prompt", "hook")
	e.hook(tab, "claude", hookJSON("PreToolUse", session, "cwd", cwd, "tool_name", "Bash",
		"tool_input", `{"command":`+jsonString(command)+`}`))
	e.want(session, "working", "tool", "hook")
	// A second id with the same prefix, for the ambiguous-prefix error.
	e.hook("t2", "claude", hookJSON("UserPromptSubmit", session+"2"))
	e.want(session+"2", "working", "prompt", "hook")

	// --json: the exact strings.
	out, stderr, code := cli(t, e.env, "status", "--json")
	if code != 0 {
		t.Fatalf("status --json: %d %s", code, stderr)
	}
	var st struct {
		Sessions []struct{ Session, Tab, Cwd, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range st.Sessions {
		if s.Session == session {
			found = true
			if s.Tab != tab || s.Cwd != cwd || !strings.Contains(s.Detail, command) {
				t.Errorf("status --json changed the strings: %+v", s)
			}
		}
	}
	if !found {
		t.Fatalf("status --json lacks the session:\n%s", out)
	}
	// ... and sends none of them raw: JSON escapes the C0 controls, and
	// the C1 and bidi ones too (\u009b), so the text shown is inert.
	if n := hostile([]byte(out)); n > 0 {
		t.Errorf("status --json: %d control bytes reach the terminal raw", n)
	}

	check := func(what string, b []byte) {
		t.Helper()
		if n := hostile(b); n > 0 {
			t.Errorf("%s: %d control bytes from the data reach the terminal:\n%s", what, n, strings.ReplaceAll(fmt.Sprintf("%q", b), `\r\n`, "\n"))
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "fake line") {
				t.Errorf("%s: the command's newline started a line of its own:\n%q", what, b)
			}
		}
	}

	out, stderr, code = cli(t, e.env, "status")
	if code != 0 {
		t.Fatalf("status: %d %s", code, stderr)
	}
	check("status", []byte(out))
	if !strings.Contains(out, `echo \x1b]52;c;`) {
		t.Errorf("status does not show the escape it neutralised:\n%s", out)
	}

	for _, args := range [][]string{{"events"}, {"status", "--watch"}} {
		check(strings.Join(args, " "), []byte(linesUntil(t, startProc(t, e.env, args...), "echo", " t2 ")))
	}

	_, stderr, code = cli(t, e.env, "ack", "--session", "s")
	if code != 2 || !strings.Contains(stderr, "ambiguous") {
		t.Fatalf("ack with an ambiguous prefix: %d %s", code, stderr)
	}
	check("ack's error", []byte(stderr))

	// doctor and verify quote what the logs hold: a version, a line type,
	// a cwd, a file name.
	hostileLog := []string{
		`{"type":"user","sessionId":"d1","cwd":` + jsonString(cwd) + `,"version":` + jsonString("2.1.0"+attackTitle) +
			`,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`,
		`{"type":` + jsonString("x"+attackOSC52+attackC1) + `,"sessionId":"d1"}`,
	}
	e.append(filepath.Join(e.claude, "-w", "d1.jsonl"), hostileLog...)
	out, stderr, code = cli(t, e.env, "doctor")
	if code > 1 || !strings.Contains(out, `x\x1b]52;c;`) {
		t.Errorf("doctor: %d %s\n%s", code, stderr, out)
	}
	check("doctor", []byte(out))
	named := filepath.Join(t.TempDir(), "v"+attackTitle+".jsonl")
	write(t, named, strings.Join(hostileLog, "\n")+"\n")
	out, stderr, code = cli(t, e.env, "verify", named)
	if code != 0 || !strings.Contains(out, `v\x1b]0;owned\a.jsonl`) {
		t.Errorf("verify: %d %s\n%s", code, stderr, out)
	}
	check("verify", []byte(out))

	// On a terminal: the only sequences are the view's own.
	screen := watchOnTerminal(t, e.env, "t2")
	ours := regexp.MustCompile(`^\x1b\[(\?25[lh]|H|2J|K|J|[0-9]*m)$`)
	for _, seq := range regexp.MustCompile(`\x1b(\[[0-9;?]*[ -/]*[@-~]|.?)`).FindAllString(screen, -1) {
		if !ours.MatchString(seq) {
			t.Errorf("status --watch on a terminal: %q is not the view's own", seq)
		}
	}
	if n := strings.Count(screen, "\x1b[2J"); n != 1 {
		t.Errorf("status --watch on a terminal: %d screen clears, want the view's one", n)
	}
	// Without the view's own sequences and line ends (its \r\n, which the
	// pty makes \r\r\n), nothing else is left.
	rest := regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`).ReplaceAllString(screen, "")
	rest = strings.NewReplacer("\r\r\n", "\n", "\r\n", "\n").Replace(rest)
	check("status --watch on a terminal", []byte(rest))
}

// linesUntil reads p's lines until each of subs has been on one, stops p
// and returns all it printed.
func linesUntil(t *testing.T, p *proc, subs ...string) string {
	t.Helper()
	var b strings.Builder
	timeout := time.After(20 * time.Second)
	for len(subs) > 0 {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("%v ended before lines with %q:\n%s", p.cmd.Args[1:], subs, b.String())
			}
			b.WriteString(l + "\n")
			subs = slices.DeleteFunc(subs, func(s string) bool { return strings.Contains(l, s) })
		case <-timeout:
			t.Fatalf("%v: no lines with %q within 20s:\n%s", p.cmd.Args[1:], subs, b.String())
		}
	}
	p.stop()
	return b.String()
}

// watchOnTerminal runs `status --watch` in a pty until the screen shows
// want, and returns everything it wrote.
func watchOnTerminal(t *testing.T, env []string, want string) string {
	t.Helper()
	cmd := exec.Command(bin, "status", "--watch")
	cmd.Env = append(append([]string{}, env...), "TERM=xterm-256color")
	scr := startPTY(t, cmd, 40, 160)
	defer scr.pty.Close()
	text := scr.text
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(text(), want) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("status --watch never showed %q:\n%q", want, text())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	<-scr.read
	return text()
}

// TestReplayTextEscapes: the replay timeline quotes the recording's ids,
// commands and phase names escaped, one line each.
func TestReplayTextEscapes(t *testing.T) {
	var out bytes.Buffer
	a := &app{stdout: &out}
	x := attackOSC52 + attackC1 + attackBidi + attackLine
	writeReplay(a, replay.Report{
		Recording: "rec" + attackTitle,
		Timeline:  []replay.Entry{{Session: "s" + x, State: "working", Reason: "tool", Detail: "echo " + x, Source: "hook", Rule: "r" + x}},
		Phases: []replay.Checked{{Result: replay.Result{Phase: "p" + x, Reason: "why" + x}, ByDesign: "b" + x},
			{Result: replay.Result{Phase: "q" + x, Reason: "why" + x}}},
	})
	if n := hostile(out.Bytes()); n > 0 {
		t.Errorf("%d control bytes reach the terminal:\n%q", n, out.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 6 || !strings.Contains(out.String(), `echo \x1b]52;c;`) {
		t.Errorf("%d lines (want 6), escapes shown or not:\n%s", n, out.String())
	}
}

// TestHooksDiffEscapes: `hooks install --scope project --dry-run` in a
// cloned repository prints a diff quoting its settings file: a comment
// holding escape sequences reaches the terminal escaped.
func TestHooksDiffEscapes(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, ".claude", "settings.json"), "{\n  // "+attackOSC52+attackC1+attackBidi+" note\n  \"model\": \"x\"\n}\n")
	cmd := exec.Command(bin, "hooks", "install", "--agent", "claude", "--scope", "project", "--dry-run")
	cmd.Dir = repo
	cmd.Env = []string{"HOME=" + repo, "XDG_CONFIG_HOME=" + filepath.Join(repo, ".config"), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hooks install --dry-run: %v", err)
	}
	if n := hostile(out); n > 0 || !strings.Contains(string(out), `// \x1b]52;c;`) {
		t.Errorf("%d control bytes reach the terminal:\n%s", n, out)
	}
}
