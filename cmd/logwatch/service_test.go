package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestServiceFilesGolden(t *testing.T) {
	d := serviceDef{bin: "/usr/local/bin/logwatch", args: []string{"run", "--config", "/home/dev/my config/lw.yaml"}, home: "/home/dev"}
	d.goos = "linux"
	unit := d.render()
	golden(t, "testdata/service/logwatch.service", unit)
	d.goos = "darwin"
	d.home = "/Users/dev"
	d.env = map[string]string{"LOGWATCH_SOCKET": "/Users/dev/.logwatch/logwatch.sock"}
	plist := d.render()
	golden(t, "testdata/service/dev.logwatch.plist", plist)
	if d.path() != "/Users/dev/Library/LaunchAgents/dev.logwatch.plist" {
		t.Errorf("plist path %s", d.path())
	}

	// The plist is well-formed XML (plutil checks more, where it exists).
	dec := xml.NewDecoder(bytes.NewReader(plist))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("plist is not XML: %v", err)
		}
	}
	if plutil, err := exec.LookPath("plutil"); err == nil {
		p := filepath.Join(t.TempDir(), "dev.logwatch.plist")
		write(t, p, string(plist))
		if out, err := exec.Command(plutil, "-lint", p).CombinedOutput(); err != nil {
			t.Errorf("plutil -lint: %v\n%s", err, out)
		}
	}
}

// TestServiceUnitVerifies has systemd check the unit it would install,
// pointing at the real binary (verify also checks the ExecStart path).
func TestServiceUnitVerifies(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not available")
	}
	p := filepath.Join(t.TempDir(), "logwatch.service")
	write(t, p, string(systemdUnit(serviceDef{goos: "linux", bin: bin, args: []string{"run"}})))
	out, err := exec.Command(sa, "verify", p).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

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
	if serviceManagerUp("linux") {
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
