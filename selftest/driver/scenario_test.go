package driver

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
)

var (
	binOnce sync.Once
	bin     string
	binErr  error
)

// logwatchBin builds the real logwatch binary once, into a folder TestMain
// removes.
func logwatchBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binErr = testsupport.ReadSources("../..", false); binErr != nil {
			return
		}
		bin = filepath.Join(binDir, "logwatch")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/logwatch/logwatch/cmd/logwatch").CombinedOutput()
		if err != nil {
			binErr = errors.New("go build logwatch: " + err.Error() + "\n" + string(out))
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

var binDir string

func TestMain(m *testing.M) {
	var err error
	if binDir, err = os.MkdirTemp("", "lwdriver-bin"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[2J\x1b[1;1Hhello\r\n":            "hello\n",
		"\x1b]0;title\x07text":                 "text",
		"\x1b[38;2;1;2;3mred\x1b[0m \x1b[?25l": "red ",
		"a\x1b=b\x1b>c":                        "abc",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStepMatch(t *testing.T) {
	e := Event{Session: "s1", State: "waiting", Reason: "permission", Source: "hook", Tab: "t", Detail: "Bash: ls"}
	cases := []struct {
		st   Step
		want bool
	}{
		{Step{State: "waiting", Reason: "permission", Source: "hook", Tab: "t", Detail: "Bash: ls"}, true},
		{Step{State: "waiting", Reason: "permission", Source: "hook", Tab: "t", Detail: Any}, true},
		{Step{State: "waiting", Reason: "permission", Source: "hook", Tab: "t"}, false}, // "" is empty, not any
		{Step{State: "waiting", Reason: "permission", Source: "log", Tab: "t", Detail: "Bash: ls"}, false},
		{Step{State: "waiting", Reason: "permission", Source: "hook", Tab: "t", Detail: "Bash: ls", Session: "s2"}, false},
	}
	for i, c := range cases {
		if got := c.st.Match(e, "s1"); got != c.want {
			t.Errorf("case %d: match = %v, want %v", i, got, c.want)
		}
	}
}

// TestHarnessTimeline drives the harness's own daemon and subscription with
// the real hook client, no agent needed: the published changes arrive in
// order, with their tab, and Keys/Hooks read the daemon's recording.
func TestHarnessTimeline(t *testing.T) {
	s := New(t, Options{Bin: logwatchBin(t), Agent: "none"})
	hook := func(payload string) {
		t.Helper()
		cmd := exec.Command(s.Bin, "hook", "--agent", "claude")
		cmd.Env = append(append([]string{}, s.Env...), "LOGWATCH_TAB=tab-x")
		cmd.Stdin = strings.NewReader(payload)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("hook: %v %q", err, out)
		}
	}
	hook(`{"hook_event_name":"SessionStart","session_id":"s1","cwd":"/w","source":"startup"}`)
	hook(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/w","prompt":"hi"}`)
	s.Timeline.Expect(10*time.Second,
		Step{State: "ready", Reason: "session_start", Source: "hook", Tab: "tab-x"},
		Step{State: "working", Reason: "prompt", Source: "hook", Tab: "tab-x"})
	if s.Timeline.Session() != "s1" {
		t.Errorf("session %q", s.Timeline.Session())
	}
	if out, err := s.Logwatch("key", "--tab", "tab-x", "esc"); err != nil {
		t.Fatalf("key: %v %s", err, out)
	}
	s.WaitKeys(1, 10*time.Second)
	if n := len(s.WaitHook("UserPromptSubmit", 1, 10*time.Second)); n != 1 {
		t.Errorf("%d UserPromptSubmit hooks recorded", n)
	}
	// A key with no interrupt marker in the log changes nothing.
	s.Timeline.Quiet(2500 * time.Millisecond)
}

func TestZombieStatus(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   int
	}{{"exit 0", 0}, {"exit 3", 3}, {"kill -9 $$", 137}} {
		cmd := exec.Command("sh", "-c", tc.script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		code, ok := zombieStatus(cmd.Process.Pid)
		for !ok && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			code, ok = zombieStatus(cmd.Process.Pid)
		}
		cmd.Wait()
		if !ok || code != tc.want {
			t.Errorf("%s: zombieStatus = %d, %v; want %d", tc.script, code, ok, tc.want)
		}
	}
	if _, ok := zombieStatus(os.Getpid()); ok {
		t.Error("a running process reads as a zombie")
	}
}

// TestStartPaneReady: a program whose first screen never comes (the first
// start hangs) is closed, its process gone, and started once more; the
// second start's screen is the pane's.
func TestStartPaneReady(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "tmux not installed")
	}
	s := New(t, Options{Bin: logwatchBin(t), Agent: "none"})
	marker := filepath.Join(t.TempDir(), "started")
	hung := filepath.Join(t.TempDir(), "hung.pid")
	script := `if [ -e ` + marker + ` ]; then echo READY; else touch ` + marker + `; echo $$ > ` + hung + `; fi; exec sleep 1000`
	p := s.StartPaneReady(PaneOptions{Name: "again", Argv: []string{"sh", "-c", script}}, "READY", 3*time.Second)
	if !strings.Contains(p.Screen(), "READY") {
		t.Fatalf("screen %q", p.Screen())
	}
	b, err := os.ReadFile(hung)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the hung first start (pid %d) still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
