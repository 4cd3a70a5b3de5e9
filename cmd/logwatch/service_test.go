package main

import (
	"os"
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
	stdout, _, code = cli(t, env, "service", "uninstall")
	if code != 0 || !strings.Contains(stdout, "removed ") {
		t.Errorf("uninstall: %d %s", code, stdout)
	}
	stdout, _, code = cli(t, env, "service", "status")
	if code != 1 || !strings.Contains(stdout, "not installed") {
		t.Errorf("status after uninstall: %d %s", code, stdout)
	}
}
