package testsupport

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
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
	return sh, child
}
