package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/logwatch/logwatch/internal/sshtest"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/tmux"
)

// tmuxE2E is a real tmux server on a private TMUX_TMPDIR, started with the
// daemon's environment (its run-shell jobs, the follower among them, reach
// that daemon).
type tmuxE2E struct {
	t      *testing.T
	env    []string
	socket string
	pid    int
}

func startTmux(t *testing.T, e *e2e) *tmuxE2E {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "tmux not installed")
	}
	tmp := filepath.Join(e.dir, "tt")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	x := &tmuxE2E{t: t, env: append(append([]string{}, e.env...), "TMUX_TMPDIR="+tmp, "SHELL=/bin/sh", "TERM=xterm-256color")}
	x.run("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", "100", "-y", "20")
	t.Cleanup(func() { x.run("kill-server") })
	x.socket = x.run("display-message", "-p", "#{socket_path}")
	x.pid, _ = strconv.Atoi(x.run("display-message", "-p", "#{pid}"))
	return x
}

// run runs tmux on the private server and returns its output, trimmed.
func (x *tmuxE2E) run(args ...string) string {
	x.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-u"}, args...)...)
	cmd.Env = x.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// eventually waits for f to hold; the message says what it saw last.
func (x *tmuxE2E) eventually(what string, f func() (string, bool)) {
	x.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got, ok := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("%s: still %q after 15s", what, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// attach attaches a tmux client in a pty to target until the test ends.
func (x *tmuxE2E) attach(target string) *os.File {
	x.t.Helper()
	client := exec.Command("tmux", "attach", "-t", target)
	client.Env = x.env
	ptmx, err := pty.StartWithSize(client, &pty.Winsize{Rows: 20, Cols: 100})
	if err != nil {
		x.t.Fatal(err)
	}
	go io.Copy(io.Discard, ptmx)
	x.t.Cleanup(func() { client.Process.Kill(); client.Wait(); ptmx.Close() })
	return ptmx
}

// wantDot waits for window's dot (the expanded window-status-format's
// start) and the summary.
func (x *tmuxE2E) want(window, state, summary string) {
	x.t.Helper()
	x.eventually("window "+window+" "+state, func() (string, bool) {
		got := x.run("show-options", "-wqv", "-t", window, tmux.DotOption)
		return got, got == tmux.Dot(state)
	})
	x.eventually("summary", func() (string, bool) {
		got := x.run("show-options", "-gqv", tmux.SummaryOption)
		plain := got
		for _, st := range []string{"#[fg=colour214,bold]", "#[fg=colour39]", "#[fg=colour135]", "#[fg=colour34]", "#[default]"} {
			plain = strings.ReplaceAll(plain, st, "")
		}
		return plain, plain == summary
	})
}

// TestE2ETmux: `tmux install` in a running tmux, a real wrapped pane and
// real hooks: the pane's window dot and the summary follow the session
// through ready → working → waiting → working → done → ready; the follower
// makes no wakeups while nothing changes; `next --switch` takes an attached
// client to the pane from another tmux session and acknowledges the done
// turn; uninstall takes it all back.
func TestE2ETmux(t *testing.T) {
	e := startE2E(t)
	x := startTmux(t, e)

	// A wrapped command in a pane takes the pane's tab.
	tabFile := filepath.Join(e.dir, "tab")
	x.run("new-window", "-d", "-t", "main:1", bin+` wrap -- sh -c 'echo "$LOGWATCH_TAB" > `+tabFile+`; exec sleep 100000'`)
	pane := x.run("display-message", "-p", "-t", "main:1", "#{pane_id}")
	window := x.run("display-message", "-p", "-t", "main:1", "#{window_id}")
	var tab string
	x.eventually("wrap's tab", func() (string, bool) {
		b, _ := os.ReadFile(tabFile)
		tab = strings.TrimSpace(string(b))
		return tab, tab != ""
	})
	if want := fmt.Sprintf("tmux-%d-%s", x.pid, pane); tab != want {
		t.Fatalf("wrap in pane %s: tab %q, want %q", pane, tab, want)
	}

	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 || !strings.Contains(out, "tmux: sourced") {
		t.Fatalf("install: %d\n%s%s", code, out, stderr)
	}
	if f := x.run("show-options", "-gv", "window-status-format"); !strings.HasPrefix(f, tmux.FormatPrefixes["window-status-format"]) {
		t.Fatalf("window-status-format %q lacks the dot", f)
	}
	x.eventually("follower", func() (string, bool) {
		b, _ := os.ReadFile(x.socket + ".logwatch-follow")
		return string(b), len(b) > 0
	})

	transcript := filepath.Join(e.claude, "-w-app", "s1.jsonl")
	e.hook(tab, "claude", hookJSON("SessionStart", "s1", "source", "startup", "transcript_path", transcript))
	e.want("s1", "ready", "session_start", "hook")
	x.want(window, "ready", "")
	e.hook(tab, "claude", hookJSON("UserPromptSubmit", "s1", "prompt", "fix it", "transcript_path", transcript))
	x.want(window, "working", "1 working")
	e.hook(tab, "claude", hookJSON("Notification", "s1", "notification_type", "permission_prompt", "message", "Claude needs your permission"))
	x.want(window, "waiting", "1 waiting")
	if s := x.run("display-message", "-p", "-t", window, "#{E:window-status-format}"); !strings.Contains(s, "●") {
		t.Fatalf("the window list shows %q: no dot", s)
	}
	e.hook(tab, "claude", hookJSON("PostToolUse", "s1", "tool_name", "Edit", "tool_input", `{"file_path":"/w/app/main.go"}`))
	x.want(window, "working", "1 working")
	e.hook(tab, "claude", hookJSON("Stop", "s1"))
	e.want("s1", "working", "prompt", "hook")
	e.want("s1", "waiting", "", "")
	e.want("s1", "working", "tool", "hook")
	e.want("s1", "done", "turn_end", "hook")
	x.want(window, "done", "1 done")

	// Nothing changes: the follower sleeps (no CPU tick, no context
	// switch of any of its threads).
	pidText, _ := os.ReadFile(x.socket + ".logwatch-follow")
	follower, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
	before := procWakeups(t, follower)
	time.Sleep(2 * time.Second)
	if after := procWakeups(t, follower); after != before {
		t.Fatalf("idle follower woke: %s → %s", before, after)
	}

	// Two clients attached to another tmux session; the key (prefix + N)
	// pressed in one takes that one to the done session's pane, and the
	// turn is acknowledged.
	x.run("new-session", "-d", "-s", "other")
	x.attach("other")
	x.eventually("first client attached", func() (string, bool) {
		s := x.run("list-clients", "-F", "#{client_session}")
		return s, s == "other"
	})
	firstName := x.run("list-clients", "-F", "#{client_name}")
	second := x.attach("other")
	x.eventually("second client attached", func() (string, bool) {
		s := x.run("list-clients", "-F", "#{client_session}")
		return s, s == "other\nother"
	})
	// at reports which clients show the pane: "first", "second", "both".
	at := func() (string, string) {
		s := x.run("list-clients", "-F", "#{client_name} #{client_session} #{pane_id}")
		var there []string
		for _, l := range strings.Split(s, "\n") {
			if f := strings.Fields(l); f[1] == "main" && f[2] == pane {
				if f[0] == firstName {
					there = append(there, "first")
				} else {
					there = append(there, "second")
				}
			}
		}
		return s, strings.Join(there, " ")
	}
	// The second client is the more recently active one; --client names
	// the first, which goes, alone.
	second.Write([]byte(" "))
	inside := append(append([]string{}, x.env...), fmt.Sprintf("TMUX=%s,%d,0", x.socket, x.pid))
	if out, stderr, code := cli(t, inside, "next", "--switch", "--client", firstName); code != 0 {
		t.Fatalf("next --switch: %d\n%s%s", code, out, stderr)
	}
	if s, there := at(); there != "first" {
		t.Fatalf("next --client %s: clients %q", firstName, s)
	}
	e.want("s1", "ready", "acknowledged", "api")
	x.want(window, "ready", "")
	// Done again; the key (prefix + N) pressed in the second client takes
	// that one there.
	e.hook(tab, "claude", hookJSON("UserPromptSubmit", "s1", "prompt", "more"))
	e.want("s1", "working", "prompt", "hook")
	e.hook(tab, "claude", hookJSON("Stop", "s1"))
	e.want("s1", "done", "turn_end", "hook")
	x.want(window, "done", "1 done")
	second.Write([]byte("\x02N"))
	x.eventually("the key's client at the pane", func() (string, bool) {
		s, there := at()
		return s, there == "first second"
	})
	e.want("s1", "ready", "acknowledged", "api")
	x.want(window, "ready", "")
	// The focus hooks' command prints nothing and fails quietly, whatever
	// the daemon makes of the focus op.
	if out, stderr, code := cli(t, inside, "tmux", "focus", pane); code != 0 || out != "" || stderr != "" {
		t.Fatalf("tmux focus: %d %q %q", code, out, stderr)
	}
	// Nothing left: said, exit 0.
	if out, _, code := cli(t, x.env, "next"); code != 0 || strings.TrimSpace(out) != nothingNeedsYou {
		t.Fatalf("next with nothing to do: %d %q", code, out)
	}
	if _, stderr, code := cli(t, x.env, "next", "--switch"); code != exitUsage || !strings.Contains(stderr, "needs tmux") {
		t.Fatalf("next --switch outside tmux: %d %q", code, stderr)
	}
	// A session in no pane: said, with the fix.
	e.hook("elsewhere", "claude", hookJSON("UserPromptSubmit", "s2"))
	e.want("s2", "working", "prompt", "hook")
	e.hook("elsewhere", "claude", hookJSON("Notification", "s2", "notification_type", "permission_prompt", "message", "Claude needs your permission"))
	e.want("s2", "waiting", "permission", "hook")
	if _, stderr, code := cli(t, inside, "next"); code != exitFindings || !strings.Contains(stderr, "waiting claude s2") || !strings.Contains(stderr, "logwatch wrap") {
		t.Fatalf("next to a session in no pane: %d %q", code, stderr)
	}
	// It does not keep the key from a session tmux shows: s1 done later
	// than s2 waits, the jump goes to s1's pane.
	x.run("select-window", "-t", "main:0")
	e.hook(tab, "claude", hookJSON("UserPromptSubmit", "s1", "prompt", "again"))
	e.want("s1", "working", "prompt", "hook")
	e.hook(tab, "claude", hookJSON("Stop", "s1"))
	e.want("s1", "done", "turn_end", "hook")
	if out, stderr, code := cli(t, inside, "next", "--client", firstName); code != 0 {
		t.Fatalf("next with the neediest session in no pane: %d\n%s%s", code, out, stderr)
	}
	e.want("s1", "ready", "acknowledged", "api")
	if got := x.run("display-message", "-p", "-t", "main", "#{pane_id}"); got != pane {
		t.Fatalf("main shows %s, want %s", got, pane)
	}
	if _, stderr, code := cli(t, append(append([]string{}, x.env...), "LOGWATCH_SOCKET="+filepath.Join(e.dir, "none.sock")), "next"); code != exitUsage || !strings.Contains(stderr, "logwatch run") {
		t.Fatalf("next with no daemon: %d %q", code, stderr)
	}

	if out, stderr, code := cli(t, x.env, "tmux", "uninstall"); code != 0 {
		t.Fatalf("uninstall: %d\n%s%s", code, out, stderr)
	}
	if f := x.run("show-options", "-gv", "window-status-format"); strings.Contains(f, tmux.DotOption) {
		t.Fatalf("window-status-format %q keeps the dot", f)
	}
	if h := x.run("show-hooks", "-g"); strings.Contains(h, "logwatch") {
		t.Fatalf("hooks left: %s", h)
	}
	x.eventually("follower gone", func() (string, bool) {
		err := exec.Command("kill", "-0", strconv.Itoa(follower)).Run()
		return "running", err != nil
	})
	if _, err := os.Stat(filepath.Join(e.dir, "home", ".tmux.conf")); !os.IsNotExist(err) {
		t.Fatalf("~/.tmux.conf install created is still there: %v", err)
	}
}

// procWakeups is a process's CPU ticks and context switches, all threads.
func procWakeups(t *testing.T, pid int) string {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("process %d: no tasks (%v)", pid, err)
	}
	var ticks, switches int64
	for _, task := range tasks {
		stat, err := os.ReadFile(task + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
		for _, i := range []int{11, 12} { // utime, stime
			n, _ := strconv.ParseInt(f[i], 10, 64)
			ticks += n
		}
		status, _ := os.ReadFile(task + "/status")
		for _, l := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				switches += n
			}
		}
	}
	return fmt.Sprintf("%d threads, %d ticks, %d switches", len(tasks), ticks, switches)
}

// TestTmuxInstallFiles: install keeps the user's tmux.conf byte for byte
// but for one marked line (a symlinked one edited in its target, the link
// kept), a second install changes nothing, --dry-run writes nothing, and
// uninstall gives the file back byte-identical.
func TestTmuxInstallFiles(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles", "tmux.conf")
	os.MkdirAll(filepath.Dir(dotfiles), 0o755)
	original := "set -g mouse on\r\n\nbind r source-file ~/.tmux.conf" // no final line break
	write(t, dotfiles, original)
	link := filepath.Join(home, ".tmux.conf")
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TMUX_TMPDIR=" + t.TempDir(), "TMUX="}
	ours := filepath.Join(home, ".config", "logwatch", "tmux.conf")

	out, stderr, code := cli(t, env, "tmux", "install", "--dry-run", "--bin", bin, "--key", "C-j")
	if code != 0 || !strings.Contains(out, "+source-file -q "+ours) || !strings.Contains(out, "+bind-key C-j run-shell") {
		t.Fatalf("dry-run: %d\n%s%s", code, out, stderr)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != original {
		t.Fatalf("--dry-run changed the user's file: %q", b)
	}
	if _, err := os.Stat(ours); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote %s", ours)
	}
	if _, stderr, code := cli(t, env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install: %d %s", code, stderr)
	}
	installed, _ := os.ReadFile(dotfiles)
	if !strings.HasPrefix(string(installed), original+"\n") || strings.Count(string(installed), "source-file -q") != 1 {
		t.Fatalf("installed file %q", installed)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	if out, _, code := cli(t, env, "tmux", "install", "--bin", bin); code != 0 || strings.Contains(out, "wrote") || strings.Contains(out, "added") {
		t.Fatalf("second install: %d %q", code, out)
	}
	if again, _ := os.ReadFile(dotfiles); !bytes.Equal(again, installed) {
		t.Fatalf("second install changed the file: %q", again)
	}
	if _, stderr, code := cli(t, env, "tmux", "install", "--bin", bin, "--key", "N;x"); code != exitUsage || !strings.Contains(stderr, "--key") {
		t.Fatalf("bad key: %d %s", code, stderr)
	}
	if out, _, code := cli(t, env, "tmux", "uninstall", "--dry-run"); code != 0 || !strings.Contains(out, "-source-file -q") {
		t.Fatalf("uninstall --dry-run: %d %q", code, out)
	}
	if _, stderr, code := cli(t, env, "tmux", "uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != original {
		t.Fatalf("uninstall left %q, want %q", b, original)
	}
	if _, err := os.Stat(ours); !os.IsNotExist(err) {
		t.Fatalf("uninstall left %s", ours)
	}
	if _, stderr, code := cli(t, env, "tmux", "uninstall"); code != 0 {
		t.Fatalf("second uninstall: %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(dotfiles); string(b) != original {
		t.Fatalf("second uninstall changed the file: %q", b)
	}
}

// TestE2ETmuxRemote: a remote session (the agent over ssh, in a wrapped
// tmux pane here) gets its pane's window dot like a local one, and next
// --switch goes to that pane and acknowledges its done turn on its host.
func TestE2ETmuxRemote(t *testing.T) {
	h := startRemoteHost(t)
	e := localWithRemotes(t, h, nil)
	waitRemote(e, "box", "up")
	x := startTmux(t, e)
	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install: %d\n%s%s", code, out, stderr)
	}

	sid := newUUID()
	remoteCmd := fmt.Sprintf("cd /tmp && LOGWATCH_CONFIG=%s %s --agent claude --logwatch %s --session %s --root %s",
		h.config, h.agent, h.bin, sid, h.claude)
	x.run("new-window", "-d", "-t", "main:1", bin+" wrap -- ssh -F "+h.ssh.Config+" -tt "+sshtest.Host+" '"+remoteCmd+"'")
	pane := x.run("display-message", "-p", "-t", "main:1", "#{pane_id}")
	window := x.run("display-message", "-p", "-t", "main:1", "#{window_id}")
	wantHost(e, "box", sid, "ready", "session_start", "hook")
	// The Enter typed in the pane binds the remote session to its tab.
	x.run("send-keys", "-t", pane, "-l", "port the parser")
	x.run("send-keys", "-t", pane, "Enter")
	ev := wantHost(e, "box", sid, "working", "prompt", "hook")
	if ev["tab"] == "" {
		// The remote's hook, through ssh, beat wrap's report of the Enter
		// (a CI-like run): the report binds it when it comes.
		if ev = wantHost(e, "box", sid, "working", "prompt", "hook"); ev["rule"] != "remote.bind.submit_late" {
			t.Fatalf("after an unbound turn start: %v", ev)
		}
	}
	if want := fmt.Sprintf("tmux-%d-%s", x.pid, pane); ev["tab"] != want {
		t.Fatalf("the remote session's tab %v, want %s", ev["tab"], want)
	}
	x.want(window, "working", "1 working")
	// The agent sends its hook before it writes the prompt to its
	// transcript: the turn's end goes after that line.
	transcript := filepath.Join(h.claude, "-tmp", sid+".jsonl")
	waitFor(t, "the remote agent's prompt in its transcript", func() bool {
		b, _ := os.ReadFile(transcript)
		return strings.Contains(string(b), "port the parser")
	})
	h.appendAssistantEnd(transcript, sid)
	wantHost(e, "box", sid, "done", "turn_end", "")
	x.want(window, "done", "1 done")
	// A local session of the same id, finished later: next picks the
	// older remote turn, and its ack must reach the host, not this one.
	e.hook("L1", "claude", hookJSON("UserPromptSubmit", sid))
	e.want(sid, "working", "prompt", "hook")
	e.hook("L1", "claude", hookJSON("Stop", sid))
	e.want(sid, "done", "turn_end", "hook")

	x.attach("main:0")
	x.eventually("client attached", func() (string, bool) {
		s := x.run("list-clients", "-F", "#{client_session}")
		return s, s == "main"
	})
	inside := append(append([]string{}, x.env...), fmt.Sprintf("TMUX=%s,%d,0", x.socket, x.pid))
	if out, _, code := cli(t, inside, "next", "--switch=false"); code != 0 || !strings.Contains(out, "done claude box:"+sid) {
		t.Fatalf("next: %d %q", code, out)
	}
	if out, stderr, code := cli(t, inside, "next"); code != 0 {
		t.Fatalf("next inside tmux: %d\n%s%s", code, out, stderr)
	}
	if s := x.run("list-clients", "-F", "#{pane_id}"); s != pane {
		t.Fatalf("after next the client shows %s, want %s", s, pane)
	}
	wantHost(e, "box", sid, "ready", "acknowledged", "api")
	x.want(window, "ready", "1 done")
}

// BenchmarkTmuxChangeToDot: a hook sent to a real daemon → the real
// follower (`logwatch tmux follow`) has set the pane's window dot in a real
// tmux server, seen as its "tmux options set" log line. Reports p50/p99.
func BenchmarkTmuxChangeToDot(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(b, "tmux not installed")
	}
	dir, err := os.MkdirTemp("", "lwtb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "run", "lw.sock")
	os.MkdirAll(filepath.Dir(socket), 0o700)
	env := []string{"HOME=" + filepath.Join(dir, "home"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "home", ".config"),
		"LOGWATCH_SOCKET=" + socket, "LOGWATCH_CHECKPOINT=", "TMUX_TMPDIR=" + dir, "PATH=" + os.Getenv("PATH")}
	daemon := exec.Command(bin, "run")
	daemon.Env = env
	if err := daemon.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { daemon.Process.Signal(syscall.SIGTERM); daemon.Wait() }()
	tm := func(args ...string) string {
		cmd := exec.Command("tmux", args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-s", "b", "sleep 100000")
	defer tm("kill-server")
	tmuxEnv := tm("display-message", "-p", "#{socket_path},#{pid},0")
	tab := tmux.PaneTab(tmuxEnv, tm("display-message", "-p", "#{pane_id}"))

	var c *client.Client
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if c, err = client.Dial(context.Background(), socket); err == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal(err)
		}
	}
	defer c.Close()
	follow := exec.Command(bin, "tmux", "follow", "--log-level", "debug", "--log-format", "json")
	follow.Env = append(append([]string{}, env...), "TMUX="+tmuxEnv)
	logs, _ := follow.StderrPipe()
	if err := follow.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { follow.Process.Signal(syscall.SIGTERM); follow.Wait() }()
	sets := make(chan struct{}, 16)
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "tmux options set") {
				sets <- struct{}{}
			}
		}
	}()
	hook := func(event string, kv ...string) {
		if err := c.Hook(context.Background(), "claude", tab, []byte(hookJSON(event, "b1", kv...))); err != nil {
			b.Fatal(err)
		}
	}
	hook("SessionStart", "source", "startup")
	<-sets // the first batch: the session in its snapshot or its change
	for len(sets) > 0 {
		<-sets
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if i%2 == 0 {
			hook("UserPromptSubmit", "prompt", "go")
		} else {
			hook("Notification", "notification_type", "permission_prompt", "message", "Claude needs your permission")
		}
		<-sets
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// TestTmuxUninstallStalePid: the follower's pid file outliving it (killed
// hard) may name a process that reused the pid: uninstall signals only a
// follower that holds the lock.
func TestTmuxUninstallStalePid(t *testing.T) {
	dir, err := os.MkdirTemp("", "lwts") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &e2e{t: t, dir: dir, env: []string{"HOME=" + filepath.Join(dir, "home"), "XDG_CONFIG_HOME=" + filepath.Join(dir, "home", ".config"),
		"LOGWATCH_SOCKET=" + filepath.Join(dir, "none", "lw.sock"), "PATH=" + os.Getenv("PATH")}}
	x := startTmux(t, e)
	if out, stderr, code := cli(t, x.env, "tmux", "install", "--bin", bin); code != 0 {
		t.Fatalf("install: %d\n%s%s", code, out, stderr)
	}
	lock := x.socket + ".logwatch-follow"
	var follower int
	x.eventually("follower", func() (string, bool) {
		b, _ := os.ReadFile(lock)
		follower, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return string(b), follower > 0
	})
	syscall.Kill(follower, syscall.SIGKILL)
	x.eventually("follower gone", func() (string, bool) {
		return "running", syscall.Kill(follower, 0) != nil
	})
	victim := exec.Command("sleep", "1000")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { victim.Wait(); close(exited) }()
	t.Cleanup(func() { victim.Process.Kill(); <-exited })
	write(t, lock, fmt.Sprintf("%d\n", victim.Process.Pid))
	if out, stderr, code := cli(t, x.env, "tmux", "uninstall"); code != 0 {
		t.Fatalf("uninstall: %d\n%s%s", code, out, stderr)
	}
	select {
	case <-exited:
		t.Fatal("uninstall killed the process a stale pid file named")
	case <-time.After(time.Second):
	}
}
