package proxy

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestTabFromEnv(t *testing.T) {
	// A process that is not our ancestor: a child of ours.
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	readable := runtime.GOOS == "linux" || runtime.GOOS == "darwin"

	for _, c := range []struct {
		name, tab, owner, want string
	}{
		{"no owner (a host app sets the tab)", "T", "", "T"},
		{"the owner is this process", "T", strconv.Itoa(os.Getpid()), "T"},
		{"the owner is an ancestor (wrap above the agent above the hook)", "T", strconv.Itoa(os.Getppid()), "T"},
		{"the owner is not an ancestor (a stale tab)", "T", strconv.Itoa(other.Process.Pid), map[bool]string{true: "", false: "T"}[readable]},
		{"an owner that is not a pid", "T", "x", "T"},
		{"no tab", "", strconv.Itoa(other.Process.Pid), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(TabEnv, c.tab)
			t.Setenv(TabPIDEnv, c.owner)
			if got := TabFromEnv(); got != c.want {
				t.Errorf("TabFromEnv() = %q, want %q", got, c.want)
			}
		})
	}
}

func TestWithTabSetsOwner(t *testing.T) {
	env := withTab([]string{"A=1", TabEnv + "=old", TabPIDEnv + "=1"}, "T")
	want := []string{"A=1", TabEnv + "=T", TabPIDEnv + "=" + strconv.Itoa(os.Getpid())}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("withTab = %q, want %q", env, want)
	}
}
