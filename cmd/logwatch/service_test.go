package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/setup/service"
)

func TestServiceCLI(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	stdout, stderr, code := cli(t, env, "service", "install", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: %d %s", code, stderr)
	}
	if os.Getenv("GOOS") == "" && strings.Contains(stdout, "systemd") {
		for _, s := range []string{"ExecStart=" + bin + " run\n", "Restart=on-failure", "WantedBy=default.target"} {
			if !strings.Contains(stdout, s) {
				t.Errorf("unit lacks %q:\n%s", s, stdout)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "systemd")); err == nil {
		t.Error("--dry-run wrote a file")
	}

	stdout, stderr, code = cli(t, env, "service", "install", "--no-enable")
	if code != 0 || !strings.Contains(stdout, "to start it now and at every login, run:") {
		t.Fatalf("install --no-enable: %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = cli(t, env, "service", "status")
	if code != 1 || !strings.Contains(stdout, "installed (") {
		t.Errorf("status after install: %d %s", code, stdout)
	}
	if service.ManagerUp("linux") {
		// Never disable a developer's real service from a test.
		return
	}
	// No user manager answers here: install says so, and how a box reached
	// only by ssh gets one.
	stdout, _, code = cli(t, env, "service", "install")
	if _, err := exec.LookPath("systemctl"); err == nil && os.Getenv("GOOS") == "" {
		if code != 0 || !strings.Contains(stdout, "no systemd user manager answers") || !strings.Contains(stdout, "loginctl enable-linger") {
			t.Errorf("install without a user manager: %d\n%s", code, stdout)
		}
	} else if code != 0 || !strings.Contains(stdout, "nothing runs it") && !strings.Contains(stdout, "launchctl") {
		t.Errorf("install without systemd: %d\n%s", code, stdout)
	}
	stdout, _, code = cli(t, env, "service", "uninstall")
	if code != 0 || !strings.Contains(stdout, "removed ") {
		t.Errorf("uninstall: %d %s", code, stdout)
	}
	stdout, _, code = cli(t, env, "service", "status")
	if code != 1 || !strings.Contains(stdout, "not installed") {
		t.Errorf("status after uninstall: %d %s", code, stdout)
	}
}
