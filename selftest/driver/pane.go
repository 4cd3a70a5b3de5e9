package driver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// tmuxConf is every pane's terminal: the TERM the agents expect, no status
// line, and a dead pane kept so its last screen can still be read.
const tmuxConf = `set -g default-terminal "xterm-256color"
set -g status off
set -g remain-on-exit on
set -g history-limit 20000
set -g escape-time 0
`

// PaneOptions says what runs in a pane.
type PaneOptions struct {
	Name string   // the pane's name in artifacts (default "pane")
	Argv []string // the agent's command line
	Env  []string // extra KEY=VALUE for this pane only
	// Wrap runs the agent under `logwatch wrap --tab Tab`; without it the
	// agent runs bare and no LOGWATCH_TAB is set.
	Wrap bool
	Tab  string // default "tab-" + Name
	// Cols × Rows is the terminal size (default 120 × 40).
	Cols, Rows int
}

// Pane is one terminal: its own tmux server, one window, one pane, typed
// into with send-keys as a person types.
type Pane struct {
	s    *Scenario
	Name string
	Tab  string // "" when not wrapped
	sock string
	raw  string

	mu         sync.Mutex
	lastScreen string
}

// StartPane starts the agent in a new terminal.
func (s *Scenario) StartPane(o PaneOptions) *Pane {
	s.T.Helper()
	if o.Name == "" {
		o.Name = "pane"
	}
	if o.Cols == 0 {
		o.Cols, o.Rows = 120, 40
	}
	p := &Pane{s: s, Name: o.Name, sock: filepath.Join(s.short, "tmux-"+Sanitize(o.Name)), raw: filepath.Join(s.Dir, "pane-"+Sanitize(o.Name)+".raw")}
	argv := o.Argv
	if o.Wrap {
		p.Tab = o.Tab
		if p.Tab == "" {
			p.Tab = "tab-" + o.Name
		}
		argv = append([]string{s.Bin, "wrap", "--tab", p.Tab, "--"}, argv...)
	}
	conf := filepath.Join(s.short, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o644); err != nil {
		s.T.Fatal(err)
	}
	var q []string
	for _, a := range argv {
		q = append(q, ShellQuote(a))
	}
	cmd := exec.Command("tmux", "-S", p.sock, "-f", conf, "new-session", "-d", "-s", "main",
		"-x", strconv.Itoa(o.Cols), "-y", strconv.Itoa(o.Rows), "-c", s.Work, "exec "+strings.Join(q, " "))
	cmd.Env = append(append([]string{}, s.Env...), o.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		s.T.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	s.panes = append(s.panes, p)
	p.tmux("pipe-pane", "-t", "main", "-o", "cat >> "+ShellQuote(p.raw))
	return p
}

// StartPaneReady starts a pane as StartPane does and waits until its screen
// shows ready. An agent whose first screen never comes (OpenCode 1.18.33
// drew one blank frame after its init and nothing more in 90 s, once, in a
// CI-like run with the other live suites beside it) is started again, once,
// as a person would: nothing of a session exists yet, and a hang that
// logwatch caused (wrap is the only part of it there yet) would come back.
func (s *Scenario) StartPaneReady(o PaneOptions, ready string, timeout time.Duration) *Pane {
	s.T.Helper()
	p := s.StartPane(o)
	if p.waitScreen(func(sc string) bool { return strings.Contains(sc, ready) }, timeout) {
		return p
	}
	s.T.Logf("pane %s: %q not on the screen within %s: closing it and starting the agent again", o.Name, ready, timeout)
	p.close()
	p = s.StartPane(o)
	p.WaitScreen(ready, timeout)
	return p
}

// ShellQuote quotes s for sh.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (p *Pane) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	return string(out), err
}

// Type types text literally.
func (p *Pane) Type(text string) {
	p.s.T.Helper()
	if out, err := p.tmux("send-keys", "-t", "main", "-l", text); err != nil {
		p.s.T.Fatalf("send-keys %q: %v %s", text, err, out)
	}
}

// Key sends named keys (tmux names: Enter, Escape, C-c, Down, BSpace).
func (p *Pane) Key(keys ...string) {
	p.s.T.Helper()
	if err := p.s.T.Context().Err(); err != nil {
		p.s.T.Fatalf("stopped: %v", context.Cause(p.s.T.Context()))
	}
	if out, err := p.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...); err != nil {
		p.s.T.Fatalf("send-keys %v: %v %s", keys, err, out)
	}
}

// Wait pauses for d (the scenario ends if it must stop meanwhile).
func (p *Pane) Wait(d time.Duration) { p.s.Pause(d) }

// Press sends one key and starts the key→ready clock.
func (p *Pane) Press(key string) {
	p.s.T.Helper()
	at := time.Now()
	p.Key(key)
	p.s.pressed(at)
}

// PressAgain is Press, then key again once the screen shows again: an
// agent that wants the key twice (OpenCode's "esc again"). The second
// press waits a moment: the hint can still be on the screen from an
// earlier press, and two presses 6 to 11 ms apart interrupted nothing in
// OpenCode (3 runs of 5; 110 ms apart they did).
func (p *Pane) PressAgain(key, again string, timeout time.Duration) {
	p.s.T.Helper()
	p.Press(key)
	p.WaitScreen(again, timeout)
	p.Wait(300 * time.Millisecond)
	p.Key(key)
}

// Submit types a prompt, waits until the agent shows it, and presses Enter
// (typed text and Enter in one burst would read as a paste).
func (p *Pane) Submit(text string) {
	p.s.T.Helper()
	p.Type(text)
	p.WaitScreen(text, 15*time.Second)
	p.s.Pause(150 * time.Millisecond)
	p.Key("Enter")
}

// SubmitStarved is Submit with the agent stopped from just before the
// Enter until stopped after it, as a starved process on a loaded machine
// is: the agent reads the Enter, and stamps its prompt, that much late.
func (p *Pane) SubmitStarved(text string, timeout, stopped time.Duration) {
	p.s.T.Helper()
	agent := p.AgentPID()
	p.Type(text)
	p.WaitScreen(text, timeout)
	p.s.Pause(150 * time.Millisecond)
	if err := syscall.Kill(agent, syscall.SIGSTOP); err != nil {
		p.s.T.Fatal(err)
	}
	cont := func() { _ = syscall.Kill(agent, syscall.SIGCONT) }
	p.s.T.Cleanup(cont)
	p.Key("Enter")
	p.Wait(stopped)
	cont()
}

// Choose presses key to confirm a dialog and waits until the dialog (its
// text on the screen) is gone. Under load an agent's UI can drop a key that
// arrives while it redraws; a person then presses again, and so does this,
// at most three times, logging each retry.
func (p *Pane) Choose(key, dialog string, timeout time.Duration) {
	p.s.T.Helper()
	for try := 1; ; try++ {
		p.Key(key)
		if p.waitScreen(func(sc string) bool { return !strings.Contains(sc, dialog) }, timeout/3) {
			return
		}
		if try == 3 {
			p.s.T.Fatalf("%q still on the screen after pressing %s %d times", dialog, key, try)
		}
		p.s.T.Logf("%q still on the screen %s after %s: pressing it again", dialog, timeout/3, key)
	}
}

// Screen is what the terminal shows now (tmux's own emulation).
func (p *Pane) Screen() string {
	out, err := p.tmux("capture-pane", "-p", "-t", "main")
	if err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.lastScreen
	}
	p.mu.Lock()
	p.lastScreen = out
	p.mu.Unlock()
	return out
}

// WaitScreen waits until the screen shows substr.
func (p *Pane) WaitScreen(substr string, timeout time.Duration) {
	p.s.T.Helper()
	if !p.waitScreen(func(sc string) bool { return strings.Contains(sc, substr) }, timeout) {
		p.s.T.Fatalf("%q never appeared on the screen within %s", substr, timeout)
	}
}

// WaitScreenGone waits until the screen no longer shows substr.
func (p *Pane) WaitScreenGone(substr string, timeout time.Duration) {
	p.s.T.Helper()
	if !p.waitScreen(func(sc string) bool { return !strings.Contains(sc, substr) }, timeout) {
		p.s.T.Fatalf("%q still on the screen after %s", substr, timeout)
	}
}

func (p *Pane) waitScreen(ok func(string) bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if ok(p.Screen()) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		p.s.Pause(100 * time.Millisecond)
	}
}

func (p *Pane) rawOutput() string {
	b, _ := os.ReadFile(p.raw)
	return string(b)
}

// PID is the pane's process: `logwatch wrap` when wrapped, else the agent.
func (p *Pane) PID() int {
	p.s.T.Helper()
	out, err := p.tmux("display-message", "-p", "-t", "main", "#{pane_pid}")
	if err != nil {
		p.s.T.Fatalf("pane pid: %v %s", err, out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		p.s.T.Fatalf("pane pid %q", out)
	}
	return pid
}

// AgentPID is the agent's process (wrap's child when wrapped).
func (p *Pane) AgentPID() int {
	p.s.T.Helper()
	pid := p.PID()
	if p.Tab == "" {
		return pid
	}
	// Any of wrap's threads may have forked the agent.
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var f []string
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		f = append(f, strings.Fields(string(b))...)
	}
	if len(f) == 0 {
		p.s.T.Fatal("wrap has no child")
	}
	c, _ := strconv.Atoi(f[0])
	return c
}

// Dead says whether the pane's process has exited, and its status.
func (p *Pane) Dead() (bool, int) {
	out, err := p.tmux("display-message", "-p", "-t", "main", "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}")
	if err != nil {
		return true, -1 // the server is gone with its last pane
	}
	f := strings.Split(strings.TrimSpace(out), ":")
	if len(f) < 3 || f[0] != "1" {
		return false, 0
	}
	if f[1] != "" {
		code, _ := strconv.Atoi(f[1])
		return true, code
	}
	if f[2] != "" {
		sig, _ := strconv.Atoi(f[2])
		return true, 128 + sig
	}
	return false, 0 // dead, but tmux has not recorded how yet
}

// WaitExit waits for the pane's process to exit and returns its status.
func (p *Pane) WaitExit(timeout time.Duration) int {
	p.s.T.Helper()
	pid := p.PID()
	deadline := time.Now().Add(timeout)
	for {
		p.Screen()
		if dead, code := p.Dead(); dead {
			return code
		}
		// A loaded tmux server can take seconds to reap the pane's
		// process; a zombie has exited, and its status is in /proc.
		if code, ok := zombieStatus(pid); ok {
			return code
		}
		if time.Now().After(deadline) {
			p.s.T.Fatalf("pane %s did not exit within %s; its processes:\n%s", p.Name, timeout, ProcessTree(pid))
		}
		p.s.Pause(100 * time.Millisecond)
	}
}

// zombieStatus returns the exit status (as a shell reports it) of a process
// that has exited but is not reaped yet.
func zombieStatus(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:]) // f[0] is field 3, the state
	if len(f) < 50 || f[0] != "Z" {
		return 0, false
	}
	ws, err := strconv.Atoi(f[49]) // field 52, exit_code, as waitpid reports it
	if err != nil {
		return 0, false
	}
	if sig := ws & 0x7f; sig != 0 {
		return 128 + sig, true
	}
	return (ws >> 8) & 0xff, true
}

// ProcessTree lists pid and its descendants: state, what each waits in,
// and its command line.
func ProcessTree(root int) string {
	children := childrenByParent()
	var b strings.Builder
	var walk func(pid, depth int)
	walk = func(pid, depth int) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		state := "?"
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) {
			state = string(st[i+2])
		}
		wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", pid))
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		fmt.Fprintf(&b, "%s%d %s %s %s\n", strings.Repeat("  ", depth), pid, state, wchan, strings.ReplaceAll(string(cmd), "\x00", " "))
		for _, c := range children[pid] {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return b.String()
}

// childrenByParent maps every process to its children.
func childrenByParent() map[int][]int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	children := map[int][]int{}
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b)[i+1:])
		pid, _ := strconv.Atoi(strings.Fields(string(b))[0])
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], pid)
		}
	}
	return children
}

// descendants are pid and every process under it.
func descendants(pid int) []int {
	children := childrenByParent()
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// Close closes the pane as a terminal app closes a tab: the pty goes away
// and the processes in it get SIGHUP.
func (p *Pane) Close() {
	p.s.T.Helper()
	p.Screen()
	if out, err := p.tmux("kill-pane", "-t", "main"); err != nil {
		p.s.T.Fatalf("closing the pane: %v %s", err, out)
	}
}

// close ends the pane's terminal, and then whatever of its processes
// outlived the hangup (an agent that hangs with SIGHUP ignored), with
// their process groups (what they started in turn).
func (p *Pane) close() {
	p.Screen()
	groups := map[int]bool{}
	if out, err := p.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(out)); err == nil {
			for _, d := range descendants(pid) {
				if g, err := syscall.Getpgid(d); err == nil && g != syscall.Getpgrp() {
					groups[g] = true
				}
			}
		}
	}
	p.tmux("kill-server")
	deadline := time.Now().Add(2 * time.Second)
	for g := range groups {
		for syscall.Kill(-g, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
}

// alive reports whether pid runs (a zombie has exited).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}
