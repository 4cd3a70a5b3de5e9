package testsupport

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ShellWithChild starts `sh -c 'sleep 60 & wait'`, as a tab's shell runs
// its agent, and returns the shell and its sleeping child (the caller's
// grandchild). Both are killed when t ends.
func ShellWithChild(t testing.TB) (sh *exec.Cmd, child int) {
	t.Helper()
	sh = exec.Command("sh", "-c", "sleep 60 & echo $!; wait")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if child > 0 {
			syscall.Kill(child, syscall.SIGKILL)
		}
		sh.Process.Kill()
		sh.Wait()
	})
	buf := make([]byte, 32)
	n, err := out.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	if child, err = strconv.Atoi(strings.TrimSpace(string(buf[:n]))); err != nil {
		t.Fatal(err)
	}
	// The shell echoes the pid as it forks: the child may still be a copy
	// of sh, not yet sleep (a race test saw its comm "sh"). Once exec'd,
	// its name, arguments and start time are the ones callers look at.
	for end := time.Now().Add(10 * time.Second); procFS(); time.Sleep(time.Millisecond) { // a bound on a hang
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", child)); strings.TrimSpace(string(comm)) == "sleep" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("child %d never became sleep", child)
		}
	}
	return sh, child
}

// procFS reports whether this system has Linux's /proc.
func procFS() bool {
	_, err := os.Stat("/proc/self/comm")
	return err == nil
}
