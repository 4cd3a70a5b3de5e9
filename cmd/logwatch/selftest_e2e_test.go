package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/conformance"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// fakeClaude puts an executable named claude on a PATH dir: the fake agent
// (testdata/fakeagent) as Claude Code, with flags that make it misbehave,
// or a script.
func fakeClaude(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	if script == "" {
		t.Fatal("no script")
	}
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte("#!/bin/sh\n"+
		`if [ "$1" = --version ]; then echo "9.9.9 (Claude Code)"; exit 0; fi`+"\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSelftestMisbehavingAgent: an agent that writes no log, one whose
// interrupt writes a marker logwatch does not know, and one that hangs
// before its prompt (ignoring the hangup): the table names each failure,
// the exit status is 1, the failed scenarios' folder is kept and named,
// nothing else is left, and the release is not recorded as known-good.
func TestSelftestMisbehavingAgent(t *testing.T) {
	binaryOnly(t)
	fa := fakeAgent(t)
	agent := func(flags string) string {
		return fmt.Sprintf(`exec %s -agent claude -root "$HOME/.claude/projects" -logwatch %s -screen "? for shortcuts" %s`, fa, bin, flags)
	}
	for _, c := range []struct {
		name, script string
		// want: scenario → a piece of its row's reason.
		want map[string]string
	}{
		{"no-log", agent("-silent"), map[string]string{
			"prompt": "nothing published within 3s; want working",
			"esc":    "nothing published within 3s; want working",
			"quit":   "nothing published within 3s; want working",
		}},
		{"unknown-marker", agent("-unknown-marker"), map[string]string{
			"esc": "want ready/interrupted",
		}},
		{"hangs", "trap '' HUP INT TERM; while :; do sleep 1; done", map[string]string{
			"prompt":     "did not reach its prompt",
			"esc":        "did not reach its prompt",
			"permission": "did not reach its prompt",
			"quit":       "did not reach its prompt",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := conformance.NewSelftestRun(t, bin, fakeClaude(t, c.script))
			begin := time.Now()
			out, code := r.Run(t, "--agent", "claude", "--step-timeout", "3s")
			took := time.Since(begin)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, out)
			}
			// A bound on a hang (an agent held for its step timeouts over
			// and over), not a timing: 136 s beside a CI run and live agents.
			if took > 3*time.Minute {
				t.Errorf("took %s\n%s", took, out)
			}
			rows := tableRows(out)
			for sc, reason := range c.want {
				row, ok := rows[sc]
				if !ok || !strings.Contains(row, "FAIL") || !strings.Contains(row, reason) {
					t.Errorf("scenario %s: row %q, want FAIL naming %q\n%s", sc, row, reason, out)
				}
			}
			kept := ""
			for _, l := range strings.Split(out, "\n") {
				if i := strings.Index(l, "attach the folder "); i >= 0 {
					kept = strings.Fields(l[i+len("attach the folder "):])[0]
				}
			}
			if kept == "" || !strings.HasPrefix(kept, r.Tmp) {
				t.Fatalf("no folder to attach under %s named:\n%s", r.Tmp, out)
			}
			for sc := range c.want {
				if _, err := os.Stat(filepath.Join(kept, "claude-"+sc, "selftest.log")); err != nil {
					t.Errorf("the failed scenario %s kept no selftest.log: %v", sc, err)
				}
			}
			os.RemoveAll(kept)
			if left := r.Settled(); len(left) > 0 {
				t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
			}
			rec, err := knowngood.Read(filepath.Join(r.State, "logwatch", "known-good.json"))
			if err != nil || rec.Has("claude", "9.9.9") {
				t.Errorf("a failed release was recorded as known-good: %v %v", rec, err)
			}
		})
	}
}

// tableRows maps each scenario of the table to its row and the reason
// line under it.
func tableRows(out string) map[string]string {
	rows := map[string]string{}
	last := ""
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 4 && (f[0] == "claude" || f[0] == "codex") && !strings.HasPrefix(l, "selftest:"):
			last = f[2]
			rows[last] = l
		case len(f) > 0 && f[0] == "↳" && last != "":
			rows[last] += "\n" + l
		}
	}
	return rows
}

// TestSelftestInterrupted: Ctrl+C at the terminal (SIGINT to the whole
// foreground process group) while the scenarios run: selftest stops them,
// removes everything it made and exits 130, well before the scenarios
// would have timed out.
func TestSelftestInterrupted(t *testing.T) {
	binaryOnly(t)
	fa := fakeAgent(t)
	// The agent never shows its prompt: every scenario waits up to 2 min.
	r := conformance.NewSelftestRun(t, bin, fakeClaude(t, fmt.Sprintf(`exec %s -agent claude -root "$HOME/.claude/projects" -logwatch %s`, fa, bin)))
	cmd := r.Cmd("--agent", "claude", "--step-timeout", "60s")
	// Slots of its own: it needs two scenarios running at once, and a fake
	// agent's are light, while the live suite beside it can hold the
	// machine's slots for minutes (OpenCode's scenarios run that long).
	cmd.Env = append(cmd.Env, driver.EnvSlotsDir+"="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a terminal's job
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Wait until the scenarios' agents run in their terminals.
	deadline := time.Now().Add(60 * time.Second)
	for {
		panes, _ := filepath.Glob(filepath.Join(r.Tmp, "logwatch-selftest-*", "claude-*", "pane-main.raw"))
		if len(panes) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("the scenarios never started:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want 130\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("still running 30 s after Ctrl+C\n%s", out.String())
	}
	if !strings.Contains(out.String(), "interrupted") {
		t.Errorf("the report does not say it was interrupted:\n%s", out.String())
	}
	// The daemons, subscribers and terminals are gone, and their files.
	if left := r.Settled(); len(left) > 0 {
		t.Errorf("left behind after Ctrl+C:\n%s\n%s", strings.Join(left, "\n"), out.String())
	}
}

// TestSelftestSaysWhatItDoes: selftest's first line comes before it asks
// the agents their releases (the fake's --version waits for the test to
// have read it), each scenario says when it starts, and every agent it
// leaves out is named with the reason and what to run instead (here each
// one not on the PATH, with the command that installs it).
func TestSelftestSaysWhatItDoes(t *testing.T) {
	binaryOnly(t)
	gate := filepath.Join(t.TempDir(), "go")
	dir := fakeClaude(t, "trap '' HUP INT TERM; while :; do sleep 1; done")
	// Its --version waits for the gate (at most 20 s, selftest's own cap).
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then i=0; while [ ! -e %s ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done; echo \"9.9.9 (Claude Code)\"; exit 0; fi\ntrap '' HUP INT TERM; while :; do sleep 1; done\n", driver.ShellQuote(gate))
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := conformance.NewSelftestRun(t, bin, dir)
	cmd := r.Cmd("--step-timeout", "1s")
	cmd.Env = append(cmd.Env, driver.EnvSlotsDir+"="+t.TempDir())
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	br := bufio.NewReader(pr)
	first := make(chan string, 1)
	go func() { l, _ := br.ReadString('\n'); first <- l }()
	select {
	case l := <-first:
		if !strings.HasPrefix(l, "selftest: looking for") {
			t.Errorf("first line %q, want what it is doing", l)
		}
	case <-time.After(15 * time.Second):
		t.Errorf("no line while the agent's --version was waiting")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	_ = cmd.Wait()
	out := string(rest)
	// Every other agent logwatch reads is named: as it starts, with the
	// command that installs it, and in the report's agents table.
	for _, s := range parsers.All() {
		if s.Name == "claude" {
			continue
		}
		why := "not installed (`" + s.Bin + "` is not on the PATH): install it"
		if s.Offline == nil {
			why = s.NotOffline
		} else if _, err := lookPathIn(s.Bin, r.Path); err == nil {
			continue // installed here: it ran
		}
		if n := strings.Count(out, "selftest: not covered: "+string(s.Name)+": "+why); n != 1 {
			t.Errorf("said %d times as it starts: %s: %s\n%s", n, s.Name, why, out)
		}
		if !regexp.MustCompile(`(?m)^` + string(s.Name) + ` +` + regexp.QuoteMeta(strings.Fields(why)[0])).MatchString(out) {
			t.Errorf("%s is not in the agents table\n%s", s.Name, out)
		}
	}
	for _, sc := range []string{"prompt", "esc", "permission", "quit"} {
		started := regexp.MustCompile(`selftest: claude +9\.9\.9 +` + sc + ` +started`).FindStringIndex(out)
		ended := regexp.MustCompile(`selftest: claude +9\.9\.9 +` + sc + ` +FAIL`).FindStringIndex(out)
		if started == nil || ended == nil || started[0] > ended[0] {
			t.Errorf("scenario %s: no start line before its end line\n%s", sc, out)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(r.Tmp, "logwatch-selftest-*")) // the failures' folder
	for _, k := range kept {
		os.RemoveAll(k)
	}
	if left := r.Settled(); len(left) > 0 {
		t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
	}
}

// lookPathIn is exec.LookPath over path.
func lookPathIn(bin, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
