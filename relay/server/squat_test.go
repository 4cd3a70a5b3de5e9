package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/secret"
	"github.com/logwatch/logwatch/relay/server"
)

// squatterUID is the other user: nobody.
const squatterUID = 65534

// TestSquatterHelper is the squatter, run by TestSocketSquatted as another
// uid: it creates the socket directory first (open to all, as an attacker
// would), listens in it, and reports each connection's bytes on stdout.
func TestSquatterHelper(t *testing.T) {
	dir := os.Getenv("LW_SQUAT_DIR")
	if dir == "" {
		t.Skip("only run as TestSocketSquatted's child")
	}
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
		// A fake daemon: whatever comes in is captured, a fake status
		// goes out.
		c.Write([]byte(`{"ok":true,"status":{"sessions":[{"session":"fake","state":"done"}]}}` + "\n"))
		n, _ := io.Copy(io.Discard, c)
		fmt.Println("conn", n)
		c.Close()
	}
}

// startSquatter runs the squatter as squatterUID; it returns once the
// socket listens, and a reader of its reports.
func startSquatter(t *testing.T, dir string) *bufio.Scanner {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("needs root to run a child as another uid (a real second user); run the tests as root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The other user must be able to run the test binary.
	exe := filepath.Join(filepath.Dir(dir), "squatter.test")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(exe, b, 0o755))
	cmd := exec.Command(exe, "-test.run=^TestSquatterHelper$", "-test.v=false")
	cmd.Env = []string{"LW_SQUAT_DIR=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: squatterUID, Gid: squatterUID}}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	must(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() || sc.Text() != fmt.Sprint("ready ", squatterUID) {
		t.Fatalf("squatter did not start: %q", sc.Text())
	}
	return sc
}

// TestSocketSquatted: with XDG_RUNTIME_DIR unset, another user created
// $TMPDIR/logwatch-<uid>/ first and serves a socket in it. The daemon
// refuses the directory, naming it and its owner; the client refuses the
// server's uid before it sends a byte.
func TestSocketSquatted(t *testing.T) {
	base, err := os.MkdirTemp("", "lwsq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o1777) // a shared temp dir, like /tmp
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", base)
	socket := relay.DefaultSocket()
	dir := filepath.Dir(socket)
	if dir != filepath.Join(base, fmt.Sprintf("logwatch-%d", os.Getuid())) {
		t.Fatalf("default socket %s", socket)
	}
	reports := startSquatter(t, dir)

	_, err = server.Listen(socket)
	if !errors.Is(err, secret.ErrNotPrivate) || !strings.Contains(err.Error(), dir+" is owned by uid 65534") {
		t.Fatalf("daemon on a squatted directory: %v", err)
	}
	t.Logf("daemon refused: %v", err)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err == nil {
		c.Status(ctx)
		c.Close()
	}
	if !errors.Is(err, client.ErrForeignServer) || !strings.Contains(err.Error(), "uid 65534") {
		t.Fatalf("client to a foreign server: %v", err)
	}
	t.Logf("client refused: %v", err)
	if !reports.Scan() || reports.Text() != "conn 0" {
		t.Fatalf("the squatter received something: %q", reports.Text())
	}
}

// TestSocketDirOwnedByUs: our own private directory is used as is.
func TestSocketDirOwnedByUs(t *testing.T) {
	base, err := os.MkdirTemp("", "lwsq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", base)
	ln, err := server.Listen(relay.DefaultSocket())
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
}
