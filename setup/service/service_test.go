package service

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with a golden file (rewritten with -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testsupport.Golden(t, path, got, *update)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestServiceFilesGolden(t *testing.T) {
	d := Def{Bin: "/usr/local/bin/logwatch", Args: []string{"run", "--config", "/home/dev/my config/lw.yaml"}, Home: "/home/dev"}
	d.GOOS = "linux"
	unit := d.Render()
	golden(t, "testdata/service/logwatch.service", unit)
	d.GOOS = "darwin"
	d.Home = "/Users/dev"
	d.Env = map[string]string{"LOGWATCH_SOCKET": "/Users/dev/.logwatch/logwatch.sock"}
	plist := d.Render()
	golden(t, "testdata/service/dev.logwatch.plist", plist)
	if d.Path() != "/Users/dev/Library/LaunchAgents/dev.logwatch.plist" {
		t.Errorf("plist path %s", d.Path())
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
	// The test binary stands for logwatch: verify wants an executable there.
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, string(systemdUnit(Def{GOOS: "linux", Bin: bin, Args: []string{"run"}})))
	out, err := exec.Command(sa, "verify", p).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
