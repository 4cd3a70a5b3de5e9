package agents

import (
	"regexp"
	"strings"
	"testing"
)

func TestPinnedFile(t *testing.T) {
	semver := regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	seen := map[string]bool{}
	for _, a := range Pinned() {
		if seen[a.Name] {
			t.Errorf("%s pinned twice", a.Name)
		}
		seen[a.Name] = true
		if !semver.MatchString(a.Version) {
			t.Errorf("%s: version %q is not x.y.z", a.Name, a.Version)
		}
		if a.Bin == "" || len(a.Packages) == 0 {
			t.Errorf("%s: bin and packages are required", a.Name)
		}
		// The agent's own package at its version; what it runs on (omp:
		// bun) at an exact release of its own.
		for i, p := range a.Packages {
			if i == 0 && !strings.HasSuffix(p, "@"+a.Version) {
				t.Errorf("%s: package %q is not pinned to %s", a.Name, p, a.Version)
			}
			if _, v, _ := strings.Cut(p[1:], "@"); !semver.MatchString(v) {
				t.Errorf("%s: package %q is not pinned to a release", a.Name, p)
			}
		}
	}
	for _, name := range []string{"claude", "codex"} {
		if !seen[name] || KnownGood(name) == "" {
			t.Errorf("%s is not pinned", name)
		}
	}
	if KnownGood("nope") != "" {
		t.Error("an unpinned agent has a known-good version")
	}
}

func TestBinPath(t *testing.T) {
	a, _ := Get("claude")
	if got, want := a.BinPath("/opt/agents"), "/opt/agents/node_modules/.bin/claude"; got != want {
		t.Fatalf("BinPath = %s, want %s", got, want)
	}
}

// TestInstall: the install command names the agent's pinned package first,
// then what it runs on.
func TestInstall(t *testing.T) {
	if got := (Agent{Packages: []string{"@oh-my-pi/pi-coding-agent@18.2.3", "bun@1.4.5"}}).Install(); got != "npm install -g @oh-my-pi/pi-coding-agent@18.2.3 bun@1.4.5" {
		t.Errorf("got %q", got)
	}
}
