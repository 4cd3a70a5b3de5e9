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

func TestIsCodexServer(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{"/h/.codex/packages/app-server-daemon/releases/0.169.0/bin/codex", "app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"}, true},
		{[]string{"codex", "app-server", "daemon", "pid-update-loop"}, false}, // its updater runs no hooks
		{[]string{"codex", "app-server", "--listen", "stdio://"}, false},      // a private server (--no-daemon, an IDE)
		{[]string{"codex", "-a", "on-request"}, false},                        // the TUI
		{nil, false},
	} {
		if got := isCodexServer(c.argv); got != c.want {
			t.Errorf("isCodexServer(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
}

// A hook run under Codex's shared server (here a shell whose arguments are
// the server's) names no tab, even when the tab's owner is its ancestor;
// the same hook under a plain shell keeps it.
func TestTabFromEnvUnderSharedServer(t *testing.T) {
	if os.Getenv("PROXYTEST_TABHELPER") == "1" {
		os.Stdout.WriteString("tab=" + TabFromEnv() + "\n")
		os.Exit(0)
	}
	if runtime.GOOS != "linux" {
		t.Skip("process arguments are read from /proc")
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"under the shared server", []string{"app-server", "--listen", "unix://", "--managed-daemon"}, "tab="},
		{"under a plain shell", []string{"plain"}, "tab=T"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// "; :" keeps the shell from exec'ing the helper: it stays its parent.
			cmd := exec.Command("sh", append([]string{"-c", `"$PROXYTEST_BIN" -test.run='^TestTabFromEnvUnderSharedServer$'; :`, "sh"}, c.args...)...)
			cmd.Env = append(os.Environ(), "PROXYTEST_TABHELPER=1", "PROXYTEST_BIN="+os.Args[0], TabEnv+"=T", TabPIDEnv+"="+strconv.Itoa(os.Getpid()))
			out, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(out)); got != c.want {
				t.Errorf("%s, want %s", got, c.want)
			}
		})
	}
}
