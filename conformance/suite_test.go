package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance/agents"
)

func TestMain(m *testing.M) { Main(m) }

func TestFindAgent(t *testing.T) {
	dir := t.TempDir()
	if _, _, msg := findAgent("claude", dir); !strings.Contains(msg, InstallCommand) || !strings.Contains(msg, "2.1.") {
		t.Errorf("missing agent: %q does not name the install command and version", msg)
	}
	if _, _, msg := findAgent("nope", dir); !strings.Contains(msg, "not pinned") {
		t.Errorf("unpinned agent: %q", msg)
	}
	a, _ := agents.Get("claude")
	bin := a.BinPath(dir)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if _, p, msg := findAgent("claude", dir); msg != "" || p != bin {
		t.Errorf("installed agent: path %q, msg %q", p, msg)
	}
}

func TestAgentsDir(t *testing.T) {
	t.Setenv(agents.EnvDir, "/x/agents")
	if d := AgentsDir(); d != "/x/agents" {
		t.Errorf("AgentsDir with %s set = %q", agents.EnvDir, d)
	}
	t.Setenv(agents.EnvDir, "")
	t.Setenv("HOME", "/home/u")
	if d := AgentsDir(); d != "/home/u/.cache/logwatch/agents" {
		t.Errorf("default AgentsDir = %q", d)
	}
}
