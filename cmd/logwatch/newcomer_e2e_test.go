package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/selftest"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

// proc is a long-running CLI command (events, status --watch) whose output
// lines the test reads as they come.
type proc struct {
	t       *testing.T
	cmd     *exec.Cmd
	lines   chan string
	mu      sync.Mutex
	stderr  strings.Builder
	errRead chan struct{} // closed once stderr is read to its end
}

func startProc(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{t: t, cmd: exec.CommandContext(ctx, bin, args...), lines: make(chan string, 4096), errRead: make(chan struct{})}
	p.cmd.Env = env
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errp, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.errRead)
		b, _ := io.ReadAll(errp)
		p.mu.Lock()
		p.stderr.Write(b)
		p.mu.Unlock()
	}()
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() { cancel(); p.cmd.Wait() })
	return p
}

// waitLine returns the first line matching re.
func (p *proc) waitLine(re string) string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("%v ended before a line matching %s; stderr:\n%s", p.cmd.Args[1:], re, p.stderrText())
			}
			if rx.MatchString(l) {
				return l
			}
		case <-timeout:
			p.t.Fatalf("%v: no line matching %s within 20s", p.cmd.Args[1:], re)
		}
	}
}

// stop ends the command (SIGTERM) and returns its stderr. Both pipes are
// read to their end before Wait, which closes them: a Wait first could
// drop the last lines still in the pipe (the flake where `events` printed
// no "lost the daemon" notice).
func (p *proc) stop() string {
	p.cmd.Process.Signal(syscall.SIGTERM)
	<-p.errRead
	for range p.lines {
	}
	p.cmd.Wait()
	return p.stderrText()
}

func (p *proc) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

func (e *e2e) waitSubscribers(n float64) {
	e.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for counter(e.status(), "subscribers") < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("fewer than %v subscribers", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestE2EStreamsReconnect: `events` and `status --watch` outlive a daemon
// killed and restarted: each says so once on stderr, reconnects with backoff
// and resumes with a fresh snapshot.
func TestE2EStreamsReconnect(t *testing.T) {
	// No checkpoint: the restarted daemon reads the log again, so the fresh
	// snapshot has the session in it.
	cfgDir := t.TempDir()
	cfgFile := filepath.Join(cfgDir, "c.yaml")
	write(t, cfgFile, "checkpoint: \"\"\n")
	e := startE2EArgs(t, []string{"--config", cfgFile})
	transcript := filepath.Join(e.claude, "-w-app", "c1.jsonl")
	e.append(transcript, `{"type":"user","sessionId":"c1","cwd":"/w/app","version":"2.1.328","message":{"role":"user","content":"hi"}}`)
	e.want("c1", "working", "prompt", "log")

	events := startProc(t, e.env, "events", "--json")
	watch := startProc(t, e.env, "status", "--watch")
	e.waitSubscribers(3)
	events.waitLine(`"session":"c1".*"snapshot":true|"snapshot":true.*"session":"c1"`)
	watch.waitLine(`working .* c1 `)

	e.daemon.Process.Kill()
	e.daemon.Wait()
	time.Sleep(700 * time.Millisecond) // several retries fail meanwhile: still one notice
	e.start()
	e.waitSubscribers(3)
	events.waitLine(`"session":"c1".*"snapshot":true|"snapshot":true.*"session":"c1"`) // the fresh snapshot
	watch.waitLine(`working .* c1 `)
	e.hook("tab-r", "claude", hookJSON("UserPromptSubmit", "r2"))
	ev := events.waitLine(`"session":"r2"`)
	var got map[string]any
	if err := json.Unmarshal([]byte(ev), &got); err != nil || got["state"] != "working" || got["snapshot"] == true {
		t.Fatalf("after the restart: %s (%v)", ev, err)
	}
	watch.waitLine(`working .* r2 +tab-r `)

	for name, p := range map[string]*proc{"events": events, "status --watch": watch} {
		stderr := p.stop()
		if n := strings.Count(stderr, "lost the daemon"); n != 1 {
			t.Errorf("%s: %d lost-the-daemon notices, want 1:\n%s", name, n, stderr)
		}
		if n := strings.Count(stderr, "reconnected; a fresh snapshot follows"); n != 1 {
			t.Errorf("%s: %d reconnected notices, want 1:\n%s", name, n, stderr)
		}
	}
}

// TestE2ESessionPrefixes: status shows ids that ack accepts; any unique
// prefix works; an ambiguous one is refused with the matches.
func TestE2ESessionPrefixes(t *testing.T) {
	e := startE2E(t)
	ids := []string{"a1f03c9e-5b7d-4c1e-9a2f-0d6b8e4c3a21", "a1f03c9e-ffff-4c1e-9a2f-0d6b8e4c3a22", "b2c4d6e8-0000-4000-8000-000000000003"}
	for i, id := range ids {
		tab := "tab" + string(rune('1'+i))
		e.hook(tab, "claude", hookJSON("UserPromptSubmit", id))
		e.want(id, "working", "prompt", "hook")
		e.hook(tab, "claude", hookJSON("Stop", id))
		e.want(id, "done", "turn_end", "hook")
	}
	stdout, stderr, code := cli(t, e.env, "status")
	if code != 0 {
		t.Fatalf("status: %d %s", code, stderr)
	}
	for _, short := range []string{"a1f03c9e-5 ", "a1f03c9e-f ", "b2c4d6e8 "} {
		if !strings.Contains(stdout, short) {
			t.Errorf("status lacks the short id %q:\n%s", short, stdout)
		}
	}
	// The id status shows is accepted as is.
	if _, stderr, code := cli(t, e.env, "ack", "--session", "a1f03c9e-5"); code != 0 {
		t.Fatalf("ack with the shown id: %d %s", code, stderr)
	}
	e.want(ids[0], "ready", "acknowledged", "api")
	// Any unique prefix.
	if _, stderr, code := cli(t, e.env, "ack", "--session", "b2"); code != 0 {
		t.Fatalf("ack with a prefix: %d %s", code, stderr)
	}
	e.want(ids[2], "ready", "acknowledged", "api")
	// Ambiguous: exit 2, both matches listed, nothing changed.
	_, stderr, code = cli(t, e.env, "ack", "--session", "a1f0")
	if code != 2 || !strings.Contains(stderr, "ambiguous") || !strings.Contains(stderr, ids[0]) || !strings.Contains(stderr, ids[1]) {
		t.Fatalf("ambiguous prefix: %d %s", code, stderr)
	}
	e.quiet(ids[1], 300*time.Millisecond)
	// The full id always works.
	if _, stderr, code := cli(t, e.env, "ack", "--session", ids[1]); code != 0 {
		t.Fatalf("ack with the full id: %d %s", code, stderr)
	}
	e.want(ids[1], "ready", "acknowledged", "api")
}

// TestE2EEmptyAnswers: with no session, JSON has [] and the text views say
// so and name the roots logwatch looks in.
func TestE2EEmptyAnswers(t *testing.T) {
	e := startE2E(t)
	out, _, code := cli(t, e.env, "status", "--json")
	if code != 0 {
		t.Fatalf("status --json: %d", code)
	}
	var st struct {
		Sessions  []any    `json:"sessions"`
		Worktrees []any    `json:"worktrees"`
		Roots     []string `json:"roots"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Sessions == nil || st.Worktrees == nil ||
		!strings.Contains(out, `"sessions": []`) || len(st.Roots) != 7 || st.Roots[0] != e.claude {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	// Every agent's root, Claude Code's first.
	for _, want := range []string{e.codex, "/.local/share/opencode", "/.omp/agent/sessions", "/.pi/agent/sessions",
		"/.gemini/tmp", "/.copilot/session-state"} {
		if !slices.ContainsFunc(st.Roots, func(r string) bool { return strings.HasSuffix(r, want) }) {
			t.Errorf("status --json names no root %s: %q", want, st.Roots)
		}
	}
	out, _, _ = cli(t, e.env, "status")
	for _, want := range []string{"No session found", e.claude + "  (does not exist yet", e.codex, "hooks install"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "STATE") {
		t.Errorf("status prints a header over nothing:\n%s", out)
	}
	events := startProc(t, e.env, "events")
	events.waitLine("No session found")
	events.waitLine(regexp.QuoteMeta(e.claude))
	events.waitLine("Waiting for changes")
	// And the stream goes on.
	e.hook("t", "codex", hookJSON("UserPromptSubmit", "late"))
	events.waitLine(`working +late `)
}

// TestHooksInstallFromGoRun: a `go run` build asks for an install that
// works (the module is not published, so no @latest).
func TestHooksInstallFromGoRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "go-build123", "b001", "exe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmpBin := filepath.Join(dir, "logwatch")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmpBin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tmpBin, "hooks", "install", "--agent", "claude", "--dry-run")
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/nonexistent"}
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(out), "go install ./cmd/logwatch") || strings.Contains(string(out), "@latest") {
		t.Fatalf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestREADMETry follows the README's try path as a newcomer in tmux: a
// fresh home, `go install ./cmd/logwatch`, `logwatch run`, then the try
// block's command as written, in a tmux window. It types what try prints,
// in order, into the agent's pane and waits for the states try says each
// brings, as `status --json` shows them. The first real state comes within
// two minutes of go install's start; the home is byte-identical after try
// but for the daemon's own state; the private home is gone.
func TestREADMETry(t *testing.T) {
	binaryOnly(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "try: tmux not installed (`sudo apt-get install -y tmux`)")
	}
	a, _ := agents.Get("claude")
	agentBin := a.BinPath(agents.Dir())
	if _, err := os.Stat(agentBin); err != nil {
		testsupport.Missing(t, "try: claude not found at %s; install the pinned agents with `conformance/install-agents`", agentBin)
	}
	// A real agent: one of the machine's scenario slots, beside the
	// conformance suite's.
	driver.HoldSlot(t)
	cmds := readmeCommands(t, "try")
	if len(cmds) != 1 || !strings.HasPrefix(cmds[0], "logwatch try") {
		t.Fatalf("the README's try block runs %q, want one `logwatch try`", cmds)
	}
	root, home, tmp, gobin, runtimeDir, env := newcomer(t)
	env = append(env, "TERM=xterm-256color")
	for i, e := range env { // the agent installed where the person has it: on PATH
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + gobin + string(os.PathListSeparator) + filepath.Dir(agentBin) + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	sh := func(c string) *exec.Cmd {
		cmd := exec.Command("sh", "-c", "exec "+c)
		cmd.Dir, cmd.Env = root, env
		return cmd
	}
	begin := time.Now()
	if out, err := sh("go install ./cmd/logwatch").CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	daemon := sh("logwatch run")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { daemon.Process.Signal(syscall.SIGINT); daemon.Wait() })
	socket := filepath.Join(runtimeDir, "logwatch", "logwatch.sock")
	waitFor(t, "logwatch run", func() bool {
		conn, err := net.Dial("unix", socket)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
	before := treeOf(t, home)

	tsock := filepath.Join(tmp, "tmux")
	tm := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-S", tsock}, args...)...).CombinedOutput()
		return string(out)
	}
	start := exec.Command("tmux", "-S", tsock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", root,
		cmds[0]+"; echo TRY-EXIT=$?; sleep 600")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	tryOut := func() string { return tm("capture-pane", "-p", "-J", "-S", "-200", "-t", "%0") }
	waitScreen := func(what string, d time.Duration, screen func() string) string {
		t.Helper()
		deadline := time.Now().Add(d)
		for {
			s := screen()
			if strings.Contains(s, what) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %q within %s:\n%s", what, d, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	out := waitScreen("at its prompt in pane ", 3*time.Minute, tryOut)
	pane := regexp.MustCompile(`at its prompt in pane (%\d+)`).FindStringSubmatch(out)[1]
	if !strings.HasPrefix(out, "try: looking for") {
		t.Errorf("try's first line is not what it is doing:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 && !strings.Contains(l, tmp) { // a long path is on a line of its own
			t.Errorf("a line over 80 columns: %q", l)
		}
	}
	// The script as printed: "  N. TYPE" then what it shows.
	var steps []selftest.Step
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if m := regexp.MustCompile(`^  \d+\. (.+)$`).FindStringSubmatch(l); m != nil && i+1 < len(lines) {
			steps = append(steps, selftest.Step{Type: m[1], Then: strings.TrimSpace(lines[i+1])})
		}
	}
	if len(steps) != 4 {
		t.Fatalf("%d steps printed, want 4 (prompt, permission, interrupt, quit):\n%s", len(steps), out)
	}

	type state struct{ State, Reason string }
	status := func() []state {
		o, err := exec.Command(filepath.Join(gobin, "logwatch"), "status", "--json", "--socket", socket).Output()
		if err != nil {
			return nil
		}
		var st struct{ Sessions []state }
		json.Unmarshal(o, &st)
		return st.Sessions
	}
	want := func(s, reason string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			ss := status()
			if len(ss) > 1 {
				t.Fatalf("%d sessions, want try's one: %v", len(ss), ss)
			}
			if len(ss) == 1 && ss[0].State == s && (reason == "" || ss[0].Reason == reason) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s/%s within 60s: %v\n%s", s, reason, ss, tm("capture-pane", "-p", "-t", pane))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	typeLine := func(s string) {
		tm("send-keys", "-t", pane, "-l", s)
		time.Sleep(300 * time.Millisecond)
		tm("send-keys", "-t", pane, "Enter")
	}
	screen := func() string { return tm("capture-pane", "-p", "-t", pane) }
	for i, st := range steps {
		t.Logf("step %d: type %q: %s", i+1, st.Type, st.Then)
		typeLine(st.Type)
		switch {
		case strings.HasPrefix(st.Then, "working, then done"):
			want("working", "")
			if i == 0 {
				t.Logf("first real state %s after go install's start", time.Since(begin).Round(time.Second))
				if took := time.Since(begin); took > 2*time.Minute {
					t.Errorf("first real state %s after go install's start, want within 2 min", took)
				}
			}
			want("done", "turn_end")
		case strings.Contains(st.Then, "waiting (permission)"):
			want("waiting", "permission")
			key := regexp.MustCompile(`(\w+) approves`).FindStringSubmatch(st.Then)
			if key == nil {
				t.Fatalf("step %d does not say how to approve: %q", i+1, st.Then)
			}
			waitScreen("Do you want to proceed?", 30*time.Second, screen)
			// As a person does, pressed again when a redraw dropped it.
			for try := 0; try < 3 && strings.Contains(screen(), "Do you want to proceed?"); try++ {
				tm("send-keys", "-t", pane, key[1])
				for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && strings.Contains(screen(), "Do you want to proceed?"); {
					time.Sleep(100 * time.Millisecond)
				}
			}
			want("done", "turn_end")
		case strings.Contains(st.Then, "Esc while it streams: ready (interrupted)"):
			want("working", "")
			waitScreen(fakemodel.AnthSlowScreen, 30*time.Second, screen)
			tm("send-keys", "-t", pane, "Escape")
			want("ready", "interrupted")
		case st.Then == "ended":
			want("ended", "")
		default:
			t.Fatalf("step %d says %q, which this test does not follow", i+1, st.Then)
		}
	}
	out = waitScreen("TRY-EXIT=", time.Minute, tryOut)
	if !strings.Contains(out, "TRY-EXIT=0") || !strings.Contains(out, "try: removed the private home") {
		t.Errorf("try did not end cleanly:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(runtimeDir, "logwatch", "try", "claude")); !os.IsNotExist(err) {
		t.Errorf("the private home is still there: %v", err)
	}
	after := treeOf(t, home)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("try changed %s in the home", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("try added %s to the home", p)
		}
	}
}

// treeOf is every file and directory under root but the daemon's own
// state dir (its checkpoint) and the dirs above it, each with its mode and content's digest.
func treeOf(t *testing.T, root string) map[string]string {
	t.Helper()
	own := filepath.Join(root, ".local", "state", "logwatch")
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == own {
			return filepath.SkipDir
		}
		if p != root && strings.HasPrefix(own, p+string(filepath.Separator)) {
			return nil // the daemon makes its state dir when it first writes there
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(b))
		}
		out[p] = fi.Mode().String() + " " + sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTryInterrupted: Ctrl+C in try's pane while the agent runs beside it
// closes the agent's pane, removes the private home only once the agent is
// gone (hung up, it still writes its session), stops the daemon try
// started, and exits 130.
func TestTryInterrupted(t *testing.T) {
	binaryOnly(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "try: tmux not installed (`sudo apt-get install -y tmux`)")
	}
	a, _ := agents.Get("claude")
	agentBin := a.BinPath(agents.Dir())
	if _, err := os.Stat(agentBin); err != nil {
		testsupport.Missing(t, "try: claude not found at %s; install the pinned agents with `conformance/install-agents`", agentBin)
	}
	// A real agent: one of the machine's scenario slots, beside the
	// conformance suite's.
	driver.HoldSlot(t)
	tmp, err := os.MkdirTemp("", "lwti") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	home, runtimeDir := filepath.Join(tmp, "home"), filepath.Join(tmp, "run")
	mkdirs(t, home, runtimeDir)
	env := []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtimeDir, "TERM=xterm-256color",
		"PATH=" + filepath.Dir(agentBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	tsock := filepath.Join(tmp, "tmux")
	tm := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-S", tsock}, args...)...).CombinedOutput()
		return string(out)
	}
	start := exec.Command("tmux", "-S", tsock, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50",
		bin+" try; echo TRY-EXIT=$?; sleep 600")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { tm("kill-server") })
	wait := func(what string) string {
		t.Helper()
		for end := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			out := tm("capture-pane", "-p", "-J", "-S", "-200", "-t", "%0")
			if strings.Contains(out, what) {
				return out
			}
			if time.Now().After(end) {
				t.Fatalf("no %q:\n%s", what, out)
			}
		}
	}
	wait("at its prompt in pane ")
	if !strings.Contains(tm("capture-pane", "-p", "-J", "-S", "-200", "-t", "%0"), "no daemon was running: started one for this session") {
		t.Errorf("try does not say it started a daemon")
	}
	tm("send-keys", "-t", "%0", "C-c")
	out := wait("TRY-EXIT=")
	if !strings.Contains(out, "TRY-EXIT=130") || !strings.Contains(out, "stopped the daemon it started") {
		t.Errorf("after Ctrl+C:\n%s", out)
	}
	if ents, err := os.ReadDir(filepath.Join(runtimeDir, "logwatch", "try")); err != nil || len(ents) != 0 {
		t.Errorf("the private home is still there: %v %v", ents, err)
	}
	if panes := strings.Fields(tm("list-panes", "-a", "-F", "#{pane_id}")); len(panes) != 1 {
		t.Errorf("panes left: %v", panes)
	}
}

// TestTryHere: outside tmux, try runs the agent in its own terminal under
// wrap, reporting to the running daemon (it starts none): the prompt typed
// there is done in status, quitting is ended, ends try and removes the
// private home. For Claude Code and for pi, which try drives as any agent
// with a parsers.Offline (its start, its quit). (Esc is TestREADMETry's: a
// lone ESC byte written to this bare pty, which answers no terminal query,
// did not stop Claude Code.)
func TestTryHere(t *testing.T) {
	binaryOnly(t)
	for _, name := range []string{"claude", "pi"} {
		t.Run(name, func(t *testing.T) { tryHere(t, name) })
	}
}

func tryHere(t *testing.T, name string) {
	a, _ := agents.Get(name)
	agentBin := a.BinPath(agents.Dir())
	if _, err := os.Stat(agentBin); err != nil {
		testsupport.Missing(t, "try: %s not found at %s; install the pinned agents with `conformance/install-agents`", name, agentBin)
	}
	off := parsers.Lookup(parsers.Agent(name)).Offline
	// A real agent: one of the machine's scenario slots, beside the
	// conformance suite's.
	driver.HoldSlot(t)
	runtimeDir := t.TempDir()
	e := startE2E(t, "XDG_RUNTIME_DIR="+runtimeDir)
	cmd := exec.Command(bin, "try", "--agent", name)
	cmd.Env = append(append([]string{}, e.env...), "TERM=xterm-256color")
	for i, kv := range cmd.Env {
		if strings.HasPrefix(kv, "PATH=") {
			cmd.Env[i] = "PATH=" + filepath.Dir(agentBin) + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	scr := startPTY(t, cmd, 40, 120)
	defer scr.close()
	waitText := func(what string) {
		t.Helper()
		for end := time.Now().Add(2 * time.Minute); !strings.Contains(driver.StripANSI(scr.text()), what); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("no %q on the terminal:\n%s", what, driver.StripANSI(scr.text()))
			}
		}
	}
	want := func(state, reason string) {
		t.Helper()
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			out, _, _ := cli(t, e.env, "status", "--json")
			var st struct {
				Sessions []struct{ State, Reason string }
			}
			json.Unmarshal([]byte(out), &st)
			if len(st.Sessions) == 1 && st.Sessions[0].State == state && (reason == "" || st.Sessions[0].Reason == reason) {
				return
			}
			if time.Now().After(end) {
				cmd.Process.Kill()
				t.Fatalf("no %s/%s: %s\n%s", state, reason, out, driver.StripANSI(scr.text()))
			}
		}
	}
	waitText("Watch it from another terminal")
	if strings.Contains(scr.text(), "started one") {
		t.Errorf("try started a daemon beside the running one:\n%s", scr.text())
	}
	if err := off.Start(ptyTerm{scr}, true, 2*time.Minute); err != nil { // the agent at its prompt
		t.Fatal(err)
	}
	typeIn := func(s string) {
		scr.pty.WriteString(s)
		time.Sleep(300 * time.Millisecond)
		scr.pty.WriteString("\r")
	}
	typeIn("hello")
	want("done", "turn_end")
	typeIn(off.Quit)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("try: %v", err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("try still runs a minute after %s:\n%s", off.Quit, driver.StripANSI(scr.text()))
	}
	want("ended", "")
	waitText("removed the private home")
	if ents, _ := os.ReadDir(filepath.Join(runtimeDir, "logwatch", "try")); len(ents) != 0 {
		t.Errorf("the private home is still there: %v", ents)
	}
}

// ptyTerm is the try's terminal as an Offline's Start sees it: everything
// written so far, and the keys it presses (the few tmux names Starts use).
type ptyTerm struct{ scr *ptyScreen }

func (p ptyTerm) Screen() string { return driver.StripANSI(p.scr.text()) }

func (p ptyTerm) Key(keys ...string) {
	for _, k := range keys {
		b, ok := map[string]string{"Enter": "\r", "Escape": "\x1b", "Up": "\x1b[A", "Down": "\x1b[B"}[k]
		if !ok {
			b = k
		}
		p.scr.pty.WriteString(b)
	}
}

func (p ptyTerm) Wait(d time.Duration) { time.Sleep(d) }
