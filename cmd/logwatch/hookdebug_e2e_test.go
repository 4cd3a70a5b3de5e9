package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/hookdebug"
	"github.com/logwatch/logwatch/relay"
)

// TestHookDropReasons: the hook client prints nothing and exits 0 whatever
// happens; with LOGWATCH_HOOK_DEBUG set, each dropped event's reason is in
// the file (no daemon; a daemon but no payload), and doctor shows the last
// ones with the fix; without it, no file is written.
func TestHookDropReasons(t *testing.T) {
	dir := t.TempDir()
	debug := filepath.Join(dir, "hook-debug.log")
	gone := filepath.Join(dir, "gone.sock")
	stdout, stderr, code := cli(t, []string{"LOGWATCH_SOCKET=" + gone}, "hook", "--agent", "Claude")
	if stdout != "" || stderr != "" || code != 0 {
		t.Fatalf("without debug: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a file written without %s: %v", hookdebug.Env, ents)
	}
	stdout, stderr, code = cli(t, []string{"LOGWATCH_SOCKET=" + gone, hookdebug.Env + "=" + debug}, "hook", "--agent", "Claude")
	if stdout != "" || stderr != "" || code != 0 {
		t.Fatalf("with debug: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A daemon that answers, and an empty stdin.
	e := startE2E(t)
	_, _, _ = cli(t, []string{"LOGWATCH_SOCKET=" + e.socket, hookdebug.Env + "=" + debug}, "hook", "--agent", "claude")
	lines, err := hookdebug.Last(debug, 10)
	if err != nil || len(lines) != 2 {
		t.Fatalf("%d lines, %v: %q", len(lines), err, lines)
	}
	if !strings.Contains(lines[0], " claude took ") || !strings.Contains(lines[0], ": no daemon: ") || !strings.Contains(lines[0], gone) {
		t.Errorf("no daemon: %q", lines[0])
	}
	if !strings.HasSuffix(lines[1], ": stdin: no payload") {
		t.Errorf("no payload: %q", lines[1])
	}
	stdout, _, _ = cli(t, []string{"LOGWATCH_SOCKET=" + gone, hookdebug.Env + "=" + debug}, "doctor")
	// doctor wraps its details at 80 columns: read them as one line.
	flat := strings.Join(strings.Fields(stdout), " ")
	if !strings.Contains(flat, "hook-drops") || !strings.Contains(flat, "stdin: no payload") || !strings.Contains(flat, "no daemon") {
		t.Errorf("doctor does not show the drops:\n%s", stdout)
	}
}

// TestHookDropsBesideSocket: without LOGWATCH_HOOK_DEBUG, an event dropped
// while the daemon's socket exists is recorded beside it, and doctor (run
// with no variable either) shows it; a drop with no socket there (a daemon
// stopped on purpose) writes nothing, and a drop older than a day is no
// longer a finding.
func TestHookDropsBesideSocket(t *testing.T) {
	e := startE2E(t)
	drops := hookdebug.Beside(e.socket)
	if _, _, code := cli(t, e.env, "hook", "--agent", "claude"); code != 0 {
		t.Fatalf("hook: exit %d", code)
	}
	lines, err := hookdebug.Last(drops, 10)
	if err != nil || len(lines) != 1 || !strings.HasSuffix(lines[0], ": stdin: no payload") {
		t.Fatalf("beside the socket: %q, %v", lines, err)
	}
	doctorSays := func() string {
		t.Helper()
		stdout, _, _ := cli(t, e.env, "doctor")
		for _, l := range strings.Split(stdout, "\n") {
			if strings.Contains(l, "hook-drops") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no hook-drops check:\n%s", stdout)
		return ""
	}
	if got := doctorSays(); !strings.Contains(got, "[warn]") || !strings.Contains(got, "dropped 1 event in the last day") {
		t.Errorf("doctor: %q", got)
	}
	old := time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339Nano) + " claude took 1ms: stdin: no payload\n"
	if err := os.WriteFile(drops, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := doctorSays(); !strings.Contains(got, "[ok]") || !strings.Contains(got, "no hook event dropped in the last day") {
		t.Errorf("doctor, a drop two days old: %q", got)
	}
	// No socket where the hook looks: nothing written there.
	gone := filepath.Join(t.TempDir(), "gone.sock")
	_, _, _ = cli(t, []string{"LOGWATCH_SOCKET=" + gone}, "hook", "--agent", "claude")
	if _, err := os.Stat(hookdebug.Beside(gone)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a drop recorded with no socket: %v", err)
	}
}

// TestHookSocket: the hook's socket is $LOGWATCH_SOCKET, else the
// configuration file's, else the default; no file, no configuration read.
func TestHookSocket(t *testing.T) {
	cfgDir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgDir)
	t.Setenv("LOGWATCH_CONFIG", "")
	t.Setenv("LOGWATCH_SOCKET", "")
	if got := hookSocket(""); got != relay.DefaultSocket() {
		t.Errorf("no file: %q, want the default %q", got, relay.DefaultSocket())
	}
	if err := os.MkdirAll(filepath.Join(cfgDir, "logwatch"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(cfgDir, "logwatch", "config.yaml")
	write(t, file, "socket: /tmp/from-file.sock\n")
	if got := hookSocket(""); got != "/tmp/from-file.sock" {
		t.Errorf("the file's: %q", got)
	}
	// Only the socket is read: other keys' errors (a value Load refuses
	// outright, a typo) leave it in use.
	write(t, file, "interrupt: {window: 5}\nsocket: /tmp/from-file.sock\nsokcet: x\n")
	if got := hookSocket(""); got != "/tmp/from-file.sock" {
		t.Errorf("the file's, beside bad keys: %q", got)
	}
	if host, err := os.Hostname(); err == nil {
		write(t, file, "socket: /tmp/from-file.sock\nhosts:\n  "+host+": {socket: /tmp/this-host.sock}\n")
		if got := hookSocket(""); got != "/tmp/this-host.sock" {
			t.Errorf("this host's: %q", got)
		}
	}
	write(t, file, "socket: [/tmp/unclosed\n")
	if got := hookSocket(""); got != relay.DefaultSocket() {
		t.Errorf("a file that does not parse: %q, want the default", got)
	}
	t.Setenv("LOGWATCH_SOCKET", "/tmp/from-env.sock")
	if got := hookSocket(""); got != "/tmp/from-env.sock" {
		t.Errorf("the environment's: %q", got)
	}
}

// TestHookDetachedLateStdin: a detached sender (pi's, omp's extension)
// writes the payload when its event loop gets to it: the hook client waits
// for it up to its cap (the event arrives), while an attached one still
// gives up after a second (the agent waits on it), naming why.
func TestHookDetachedLateStdin(t *testing.T) {
	e := startE2E(t)
	debug := filepath.Join(e.dir, "hook-debug.log")
	late := func(session string, args ...string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"hook", "--agent", "omp"}, args...)...)
		cmd.Env = append(append([]string{}, e.env...), hookdebug.Env+"="+debug)
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		_, _ = io.WriteString(w, hookJSON("SessionStart", session, "source", "startup"))
		w.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	late("late-detached", "--detached")
	e.want("late-detached", "ready", "session_start", "hook")
	late("late-attached")
	lines, err := hookdebug.Last(debug, 10)
	if err != nil || len(lines) != 1 || !strings.HasSuffix(lines[0], "stdin: no end of the payload within 1s") {
		t.Fatalf("drops %q, %v; want the attached one's, only", lines, err)
	}
}

// TestSaysNothing: the hook client keeps to itself only what the named
// agent's own dialect reads as nothing (Gemini CLI's PreCompress on every
// prompt), never a payload the daemon should judge.
func TestSaysNothing(t *testing.T) {
	for _, c := range []struct {
		agent, payload string
		want           bool
	}{
		{"gemini", `{"hook_event_name":"PreCompress","session_id":"s","trigger":"auto"}`, true},
		{"gemini", `{"hook_event_name":"AfterModel","session_id":"s"}`, true},
		{"gemini", `{"hook_event_name":"PreCompress","session_id":"s","trigger":"manual"}`, false},
		{"gemini", `{"hook_event_name":"BeforeAgent","session_id":"s"}`, false},
		{"gemini", `not json`, false},
		{"gemini", `{"session_id":"s"}`, false},
		{"copilot", `{"sessionId":"s","prompt":"hi"}`, false},
		{"claude", `{"hook_event_name":"Brand-new","session_id":"s"}`, false},
		{"", `{"hook_event_name":"PreCompress","session_id":"s","trigger":"auto"}`, false},
	} {
		if got := saysNothing(c.agent, []byte(c.payload)); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.agent, c.payload, got, c.want)
		}
	}
}

// TestHookPayloadWithoutEnd: the payload is taken once it is one whole JSON
// object, whether or not stdin ends: a process the agent spawned at the same
// moment can hold the pipe open (an omp start in CI lost its SessionStart
// so: "no end of the payload within 5s"). Written in two parts, the first
// ending inside the object, it still arrives whole.
func TestHookPayloadWithoutEnd(t *testing.T) {
	e := startE2E(t)
	debug := filepath.Join(e.dir, "hook-debug.log")
	for _, c := range []struct {
		session string
		args    []string
	}{{"open-attached", nil}, {"open-detached", []string{"--detached"}}} {
		cmd := exec.Command(bin, append([]string{"hook", "--agent", "omp"}, c.args...)...)
		cmd.Env = append(append([]string{}, e.env...), hookdebug.Env+"="+debug)
		w, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		payload := hookJSON("SessionStart", c.session, "source", "startup")
		_, _ = io.WriteString(w, payload[:len(payload)/2])
		time.Sleep(100 * time.Millisecond)
		_, _ = io.WriteString(w, payload[len(payload)/2:]+"\n")
		e.want(c.session, "ready", "session_start", "hook")
		if err := cmd.Wait(); err != nil { // stdin still open: the client ended by itself
			t.Fatal(err)
		}
		w.Close()
	}
	if lines, _ := hookdebug.Last(debug, 10); len(lines) != 0 {
		t.Fatalf("drops %q", lines)
	}
}
