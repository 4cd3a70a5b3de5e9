package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/selftest/driver"
)

// TestTryKilledReclaimed: a `logwatch try` killed with -9 in a shell leaves
// its private home and its agent running. The next try of that agent is
// refused while the agent runs (two tries would share one home), naming
// it; once the agent is gone, the next try removes the home, says so, and
// goes on to run the agent.
func TestTryKilledReclaimed(t *testing.T) {
	binaryOnly(t)
	const name = "pi"
	a, _ := agents.Get(name)
	agentBin := a.BinPath(agents.Dir())
	if _, err := os.Stat(agentBin); err != nil {
		testsupport.Missing(t, "try: %s not found at %s; install the pinned agents with `conformance/install-agents`", name, agentBin)
	}
	// A real agent: one of the machine's scenario slots, beside the
	// conformance suite's.
	driver.HoldSlot(t)
	runtimeDir := t.TempDir()
	e := startE2E(t, "XDG_RUNTIME_DIR="+runtimeDir)
	env := append(append([]string{}, e.env...), "TERM=xterm-256color")
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + filepath.Dir(agentBin) + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	root := filepath.Join(runtimeDir, "logwatch", "try", name)
	waitText := func(scr *ptyScreen, what string) {
		t.Helper()
		for end := time.Now().Add(time.Minute); !strings.Contains(driver.StripANSI(scr.text()), what); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("no %q on the terminal:\n%s", what, driver.StripANSI(scr.text()))
			}
		}
	}

	// A shell runs try, as in a person's terminal: killing try hangs up
	// nothing, and its agent runs on.
	sh := exec.Command("sh", "-c", `"$0" try --agent `+name+`; echo TRY-EXIT=$?; exec sleep 600`, bin)
	sh.Env = env
	first := startPTY(t, sh, 40, 120)
	defer func() { sh.Process.Kill(); first.close(); sh.Wait() }()
	waitText(first, "Watch it from another terminal")
	// The record names try, then the agent once started.
	var owners [][2]uint64
	for end := time.Now().Add(30 * time.Second); len(owners) < 2; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(root, "owner"))
		owners = nil
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 {
				pid, _ := strconv.ParseUint(f[0], 10, 64)
				start, _ := strconv.ParseUint(f[1], 10, 64)
				owners = append(owners, [2]uint64{pid, start})
			}
		}
		if time.Now().After(end) {
			t.Fatalf("the owner record: %q", b)
		}
	}
	tryPid, agentPid := int(owners[0][0]), int(owners[1][0])
	if err := syscall.Kill(tryPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitText(first, "TRY-EXIT=137")
	if !proctree.Alive(agentPid, owners[1][1]) {
		t.Fatalf("the agent (pid %d) ended with try: nothing to show a live owner", agentPid)
	}

	out, stderr, code := cli(t, env, "try", "--agent", name)
	if code == 0 || !strings.Contains(stderr, root+" is in use: another try of pi runs (pid "+strconv.Itoa(agentPid)+")") {
		t.Fatalf("a try while the killed one's agent runs: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "home")); err != nil {
		t.Fatalf("the refused try touched the home: %v", err)
	}

	// The terminal closed: the agent hangs up.
	first.close()
	for end := time.Now().Add(30 * time.Second); proctree.Alive(agentPid, owners[1][1]); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the agent (pid %d) runs on after its terminal closed", agentPid)
		}
	}

	again := exec.Command(bin, "try", "--agent", name)
	again.Env = env
	scr := startPTY(t, again, 40, 120)
	defer scr.close()
	waitText(scr, "try: an earlier try of pi (pid "+strconv.Itoa(tryPid)+") is gone: removed the private home it left")
	waitText(scr, "Watch it from another terminal")
	// It runs the agent in a home of its own, and removes it as it ends.
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(root, "owner"))
		if strings.HasPrefix(string(b), strconv.Itoa(again.Process.Pid)+" ") && strings.Count(string(b), "\n") == 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the owner record: %q", b)
		}
	}
	again.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- again.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		again.Process.Kill()
		t.Fatalf("try runs on a minute after SIGTERM:\n%s", driver.StripANSI(scr.text()))
	}
	if _, err := os.Lstat(root); err == nil {
		t.Errorf("the private home is still there after the try ended:\n%s", driver.StripANSI(scr.text()))
	}
}
