package proctree

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
)

func needProcs(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no process table on " + runtime.GOOS)
	}
}

func TestDescends(t *testing.T) {
	needProcs(t)
	sh, child := testsupport.ShellWithChild(t)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	self, shell := os.Getpid(), sh.Process.Pid

	for _, c := range []struct {
		name        string
		q, p        int
		want, known bool
	}{
		{"a process is its own", child, child, true, true},
		{"the shell's child descends from the shell", child, shell, true, true},
		{"and from us, its grandparent", child, self, true, true},
		{"and from init", child, 1, true, true},
		{"a parent does not descend from its child", shell, child, false, true},
		{"a sibling's child does not descend from the sibling", child, other.Process.Pid, false, true},
		{"we do not descend from our child", self, shell, false, true},
		{"no such process: unknown", 1 << 30, self, false, false},
		{"pid 0 is nobody's", 0, self, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, known := Descends(c.q, c.p)
			if got != c.want || known != c.known {
				t.Errorf("Descends(%d, %d) = %v, %v; want %v, %v", c.q, c.p, got, known, c.want, c.known)
			}
		})
	}
}

func TestDescendsAfterParentExit(t *testing.T) {
	needProcs(t)
	// The shell exits at once, leaving its child reparented (to init or a
	// subreaper): the child no longer descends from the shell's pid.
	sh := exec.Command("sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!")
	out, err := sh.Output()
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	defer syscall.Kill(child, syscall.SIGKILL)
	if got, known := Descends(child, sh.Process.Pid); got || !known {
		t.Errorf("Descends(orphan, exited parent) = %v, %v; want false, true", got, known)
	}
}

func TestStartTimeTellsAReusedPid(t *testing.T) {
	needProcs(t)
	_, child := testsupport.ShellWithChild(t)
	start, err := StartTime(child)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := StartTime(child); again != start {
		t.Errorf("start time changed: %d then %d", start, again)
	}
	self, _ := StartTime(os.Getpid())
	if start < self {
		t.Errorf("child started at %d, before us (%d)", start, self)
	}
	if !Alive(child, start) || !Alive(child, 0) {
		t.Errorf("Alive(child) = false while it runs")
	}
	if Alive(child, start+1) {
		t.Errorf("Alive with another start time = true; a reused pid must count as gone")
	}
}

func TestAliveGoneAndZombie(t *testing.T) {
	needProcs(t)
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pid := c.Process.Pid
	start, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	c.Process.Kill()
	// Not reaped yet: a zombie, which has exited all the same.
	for i := 0; i < 200 && Alive(pid, start); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if Alive(pid, start) {
		t.Errorf("a killed, unreaped process is alive")
	}
	c.Wait()
	if Alive(pid, start) {
		t.Errorf("a reaped process is alive")
	}
	if _, err := StartTime(pid); err == nil {
		t.Errorf("StartTime of a reaped process: no error")
	}
}

// Started is the wall-clock start: a process started now says now, and
// this test process says before it.
func TestStarted(t *testing.T) {
	needProcs(t)
	before := time.Now().Add(-time.Second) // the tick and the boot time's whole seconds
	sh, _ := testsupport.ShellWithChild(t)
	after := time.Now().Add(time.Second)
	got, err := Started(sh.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if got.Before(before) || got.After(after) {
		t.Fatalf("started %v, want within [%v, %v]", got, before, after)
	}
	self, err := Started(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !self.Before(got.Add(time.Second)) {
		t.Fatalf("this process started %v, after its child %v", self, got)
	}
	if _, err := Started(-1); err == nil {
		t.Fatal("a bad pid has a start")
	}
}
