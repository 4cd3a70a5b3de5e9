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
		for _, p := range a.Packages {
			if !strings.HasSuffix(p, "@"+a.Version) {
				t.Errorf("%s: package %q is not pinned to %s", a.Name, p, a.Version)
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

func TestFind(t *testing.T) {
	a, _ := Get("claude")
	t.Setenv(EnvDir, "")
	if _, err := a.Find(); err == nil || !strings.Contains(err.Error(), EnvDir) {
		t.Fatalf("unset dir: err = %v", err)
	}
	t.Setenv(EnvDir, t.TempDir())
	if _, err := a.Find(); err == nil || !strings.Contains(err.Error(), "2.1.") {
		t.Fatalf("empty dir: err = %v", err)
	}
}
