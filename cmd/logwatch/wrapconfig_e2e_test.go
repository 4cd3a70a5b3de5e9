package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ptyRun runs the binary with args in a pty, typing keys once it printed
// ready (each a key press of its own, well past the Esc timeout), and
// returns what the terminal showed and the exit status.
func ptyRun(t *testing.T, env []string, ready string, keys []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	scr := startPTY(t, cmd, 24, 100)
	f, text := scr.pty, scr.text
	defer f.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	deadline := time.After(10 * time.Second)
wait:
	for typed := len(keys) == 0; ; {
		select {
		case werr = <-exited:
			break wait
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("did not exit within 10 s:\n%q", text())
		case <-time.After(10 * time.Millisecond):
			if !typed && strings.Contains(text(), ready) {
				typed = true
				for i, k := range keys {
					if i > 0 {
						time.Sleep(200 * time.Millisecond)
					}
					if _, err := f.Write([]byte(k)); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	<-scr.read
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return text(), code
}

// TestE2EWrapBrokenConfig: a configuration that does not load must not
// stop a shell alias `claude='logwatch wrap -- claude'`: wrap says so in
// one escaped warning line, runs the command, exits with its status, and
// still reports keys to the daemon the hooks reach.
func TestE2EWrapBrokenConfig(t *testing.T) {
	e := startE2E(t)
	dir := t.TempDir()
	file := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		write(t, p, body)
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	type wrapCase struct {
		name, config, warns string
		fileSocket          bool // LOGWATCH_SOCKET unset: the socket is the file's
	}
	cases := []wrapCase{
		{"window without a unit", file("nounit.yaml", "interrupt: {window: 2}\n", 0o644), "interrupt.window", false},
		{"missing file, hostile name", filepath.Join(dir, "missing"+attackTitle+".yaml"), `missing\x1b]0;owned\a.yaml`, false},
		{"not YAML", file("bad.yaml", "interrupt: [\n", 0o644), "bad.yaml", false},
		{"two errors (one line)", file("two.yaml", `"k\e]0;owned\a": 1`+"\nmax_line_bytes: -1\n", 0o644), "max_line_bytes", false},
		{"a directory", dir, filepath.Base(dir), false},
		{"socket from a file with a bad value", file("sock.yaml", "socket: "+e.socket+"\ninterrupt: {esc_timeout: -1s}\n", 0o644), "esc_timeout", true},
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, wrapCase{"a FIFO", fifo, "a FIFO, not a regular file", false})
	if os.Geteuid() != 0 { // root reads a 0000 file
		cases = append(cases, wrapCase{"unreadable", file("locked.yaml", "socket: /x\n", 0), "locked.yaml", false})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := append(append([]string{}, e.env...), "LOGWATCH_CONFIG="+tc.config)
			if tc.fileSocket {
				env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "LOGWATCH_SOCKET=") })
			}
			before := counter(e.status(), "keys")
			// The command reads a line: the Esc before it is a key wrap
			// reports.
			screen, code := ptyRun(t, env, "hi", []string{"\x1b", "\r"},
				"wrap", "--", "sh", "-c", "echo hi; read x; exit 3")
			if code != 3 || !strings.Contains(screen, "hi\r\n") {
				t.Fatalf("wrap exited %d, want 3 after hi:\n%q", code, screen)
			}
			var warnings []string
			for _, l := range strings.Split(screen, "\n") {
				if strings.Contains(l, "logwatch wrap:") {
					warnings = append(warnings, l)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.warns) || hostile([]byte(strings.TrimSuffix(warnings[0], "\r"))) > 0 {
				t.Fatalf("want one escaped warning naming %q:\n%q", tc.warns, screen)
			}
			deadline := time.Now().Add(10 * time.Second)
			for counter(e.status(), "keys") <= before {
				if time.Now().After(deadline) {
					t.Fatalf("the Esc never reached the daemon (keys %v)", before)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestE2EHookFIFOConfig: the hook client reads the configuration for the
// socket; a LOGWATCH_CONFIG naming a FIFO blocked it (and the agent
// waiting on it) forever. It must exit 0 at once, as with any bad config.
func TestE2EHookFIFOConfig(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "hook", "--agent", "claude")
	cmd.Env = []string{"HOME=" + t.TempDir(), "LOGWATCH_CONFIG=" + fifo, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop","session_id":"f1"}`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the hook client still runs after 10 s")
	}
}
