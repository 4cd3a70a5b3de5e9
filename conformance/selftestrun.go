package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/selftest/driver"
)

// SelftestRun is one `logwatch selftest` run of the real binary Bin: its
// own TMPDIR (Tmp, so that what it leaves behind is seen), state dir (State:
// its known-good record) and PATH (Path). The CLI's tests and the pinned
// agents' selftest (conformance/selftest) share it.
type SelftestRun struct {
	Bin, Tmp, State, Path string
}

// NewSelftestRun prepares a run of bin with pathDirs ahead of the PATH.
func NewSelftestRun(t *testing.T, bin string, pathDirs ...string) *SelftestRun {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "selftest: tmux not installed (`sudo apt-get install -y tmux`)")
	}
	// Short: the scenarios' unix sockets live under TMPDIR.
	tmp, err := os.MkdirTemp("", "lwst")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	return &SelftestRun{Bin: bin, Tmp: tmp, State: t.TempDir(),
		Path: strings.Join(append(pathDirs, os.Getenv("PATH")), string(os.PathListSeparator))}
}

// Cmd is `logwatch selftest ARGS…` in the run's environment.
func (r *SelftestRun) Cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(r.Bin, append([]string{"selftest"}, args...)...)
	// The scenarios share the machine's slots with the conformance suite
	// that go test runs beside this test.
	cmd.Env = []string{"HOME=" + r.State, "PATH=" + r.Path, "TMPDIR=" + r.Tmp, "XDG_STATE_HOME=" + r.State,
		driver.EnvSlots + "=" + strconv.Itoa(driver.DefaultSlots()),
		"XDG_CONFIG_HOME=" + filepath.Join(r.State, ".config"), "USER=selftest"}
	return cmd
}

// Run runs Cmd(args…) to its end: its output (stdout and stderr) and exit code.
func (r *SelftestRun) Run(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := r.Cmd(args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), code
}

// Leftovers lists what a run left: processes whose command line or
// environment names its TMPDIR, and files in it.
func (r *SelftestRun) Leftovers() []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmdline, _ := os.ReadFile(p + "/cmdline")
		environ, _ := os.ReadFile(p + "/environ")
		if bytes.Contains(cmdline, []byte(r.Tmp)) || bytes.Contains(environ, []byte("TMPDIR="+r.Tmp)) {
			out = append(out, fmt.Sprintf("process %s: %s", filepath.Base(p), strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	ents, _ := os.ReadDir(r.Tmp)
	for _, e := range ents {
		out = append(out, "file "+filepath.Join(r.Tmp, e.Name()))
	}
	return out
}

// Settled is Leftovers once they had 3 s to go (a process killed is
// reaped by its new parent).
func (r *SelftestRun) Settled() []string {
	var left []string
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if left = r.Leftovers(); len(left) == 0 {
			break
		}
	}
	return left
}
