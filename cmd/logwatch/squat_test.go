package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// squatterMain is another user who got to $TMPDIR/logwatch-<uid>/ first: it
// makes the directory open to all, serves a socket there, answers a fake
// status and reports on stdout how many bytes each connection sent.
func squatterMain(dir string) {
	syscall.Umask(0)
	if err := os.Mkdir(dir, 0o777); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "logwatch.sock"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("ready", os.Getuid())
	for {
		c, err := ln.Accept()
		if err != nil {
			os.Exit(0)
		}
		c.Write([]byte(`{"ok":true,"status":{"sessions":[{"session":"fake","state":"done"}]}}` + "\n"))
		n, _ := io.Copy(io.Discard, c)
		fmt.Println("conn", n)
		c.Close()
	}
}

// TestSquattedSocketDir: XDG_RUNTIME_DIR unset, and nobody (uid 65534, a
// real second user) created the socket directory first with a socket of
// its own. `logwatch run` refuses with exit 2 naming the directory and its
// owner; the hook client and `status` send it nothing.
func TestSquattedSocketDir(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run the squatter as another uid (a real second user); run the tests as root")
	}
	base, err := os.MkdirTemp("", "lwsq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o1777)
	dir := filepath.Join(base, fmt.Sprintf("logwatch-%d", os.Getuid()))
	self, _ := os.Executable()
	exe := filepath.Join(base, "squatter.test")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	sq := exec.Command(exe)
	sq.Env = []string{"LW_SQUAT_DIR=" + dir}
	sq.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, _ := sq.StdoutPipe()
	sq.Stderr = os.Stderr
	if err := sq.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Process.Kill(); sq.Wait() })
	reports := bufio.NewScanner(out)
	if !reports.Scan() || reports.Text() != "ready 65534" {
		t.Fatalf("squatter: %q", reports.Text())
	}

	env := []string{"TMPDIR=" + base, "XDG_RUNTIME_DIR=", "LOGWATCH_CHECKPOINT=", "LOGWATCH_AGENTS_CLAUDE_ROOTS=" + filepath.Join(base, "none"),
		"LOGWATCH_AGENTS_CODEX_ROOTS=" + filepath.Join(base, "none")}
	_, stderr, code := cli(t, env, "run")
	if code != 2 || !strings.Contains(stderr, dir+" is owned by uid 65534") {
		t.Fatalf("run on a squatted directory: exit %d: %s", code, stderr)
	}
	t.Logf("run: exit %d: %s", code, strings.TrimSpace(stderr))

	hook := exec.Command(bin, "hook", "--agent", "claude")
	hook.Env = append([]string{"HOME=" + base, "PATH=" + os.Getenv("PATH")}, env...)
	hook.Stdin = strings.NewReader(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"my secret prompt"}`)
	if o, err := hook.CombinedOutput(); err != nil || len(o) > 0 {
		t.Fatalf("hook client: %v %q", err, o)
	}
	if !reports.Scan() || reports.Text() != "conn 0" {
		t.Fatalf("the squatter got the hook: %q", reports.Text())
	}

	_, stderr, code = cli(t, env, "status")
	if code == 0 || !strings.Contains(stderr, "served by uid 65534") {
		t.Fatalf("status from a squatter: exit %d: %s", code, stderr)
	}
	if !reports.Scan() || reports.Text() != "conn 0" {
		t.Fatalf("the squatter got the status request: %q", reports.Text())
	}
}
