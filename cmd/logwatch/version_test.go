package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
)

// goVersionM is what `go version -m` reads from a binary: Go's own view of
// the build information the version command reports.
func goVersionM(t *testing.T, path string) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			m["version"] = f[2]
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs."):
			k, v, _ := strings.Cut(f[1], "=")
			m[k] = v
		}
	}
	return m
}

func versionOf(t *testing.T, path string) (text string, v buildVersion) {
	t.Helper()
	for _, args := range [][]string{{"version", "--json"}, {"version"}, {"--version"}} {
		cmd := exec.Command(path, args...)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		switch args[0] {
		case "version":
			if len(args) == 2 {
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatalf("version --json: %v\n%s", err, out)
				}
			} else {
				text = string(out)
			}
		default:
			if string(out) != text {
				t.Errorf("--version differs from version:\n%s\n%s", out, text)
			}
		}
	}
	return text, v
}

// TestVersionCLI: the version command reports exactly what Go embedded in
// the binary, and the agent releases the conformance suite pins.
func TestVersionCLI(t *testing.T) {
	text, v := versionOf(t, bin)
	m := goVersionM(t, bin)
	if v.Version != m["version"] || v.Revision != m["vcs.revision"] || v.Dirty != (m["vcs.modified"] == "true") {
		t.Errorf("version %+v, go version -m says %v", v, m)
	}
	if v.Module != "github.com/logwatch/logwatch" || v.Protocol != 1 || !strings.HasPrefix(v.Go, "go1.") {
		t.Errorf("version %+v", v)
	}
	pinned := agents.Pinned()
	if len(v.Agents) != len(pinned) || len(pinned) == 0 {
		t.Fatalf("agents %v, pinned %v", v.Agents, pinned)
	}
	for i, a := range pinned {
		if v.Agents[i].Name != a.Name || v.Agents[i].Version != a.Version {
			t.Errorf("agent %d: %+v, pinned %s %s", i, v.Agents[i], a.Name, a.Version)
		}
		if !strings.Contains(text, a.Name+" "+a.Version) {
			t.Errorf("text lacks %s %s:\n%s", a.Name, a.Version, text)
		}
	}
	if !strings.HasPrefix(text, "logwatch version "+v.Version+"\n") || !strings.Contains(text, "go install ./cmd/logwatch") {
		t.Errorf("text:\n%s", text)
	}
	// A broken configuration does not hide the build.
	if out, stderr, code := cli(t, []string{"LOGWATCH_INTERRUPT_WINDOW=soon"}, "version"); code != 0 || out != text {
		t.Errorf("version with a bad config: %d %s%s", code, out, stderr)
	}
}

// TestVersionFromClone: built in a git clone with an uncommitted change,
// the binary names the clone's revision and says the tree was dirty.
func TestVersionFromClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testsupport.Missing(t, "git not installed")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout (a source archive): nothing to stamp")
	}
	dir := t.TempDir()
	clone := filepath.Join(dir, "src")
	if out, err := exec.Command("git", "clone", "-q", strings.TrimSpace(string(top)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(clone, "uncommitted.txt"), "a change\n")
	built := filepath.Join(dir, "logwatch")
	cmd := exec.Command("go", "build", "-buildvcs=true", "-o", built, "./cmd/logwatch")
	cmd.Dir = clone
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text, v := versionOf(t, built)
	if v.Revision != strings.TrimSpace(string(head)) || !v.Dirty || !strings.HasSuffix(v.Version, "+dirty") {
		t.Fatalf("version %+v, want revision %s and dirty", v, head)
	}
	if !strings.Contains(text, v.Revision+" (dirty") {
		t.Errorf("text:\n%s", text)
	}
}
