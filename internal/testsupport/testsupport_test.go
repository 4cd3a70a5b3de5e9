package testsupport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingUnderCI runs a test that lacks its data in a child process,
// with and without CI=true: it skips, or it fails.
func TestMissingUnderCI(t *testing.T) {
	if os.Getenv("TESTSUPPORT_CHILD") == "1" {
		Realworld(t, "no/such/folder")
		t.Fatal("Realworld returned for a missing folder")
	}
	for _, tc := range []struct {
		ci     string
		fail   bool
		output string
	}{{"", false, "SKIP"}, {"false", false, "SKIP"}, {"true", true, "CI=true"}, {"1", true, "CI=true"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissingUnderCI$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTSUPPORT_CHILD=1", "CI="+tc.ci)
		out, err := cmd.CombinedOutput()
		if (err != nil) != tc.fail || !strings.Contains(string(out), tc.output) {
			t.Errorf("CI=%q: err %v, output:\n%s", tc.ci, err, out)
		}
	}
}

func TestRealworldPresent(t *testing.T) {
	if got := Realworld(t, "."); got != "." {
		t.Fatalf("Realworld = %q", got)
	}
}

// TestReadSources: the files it must read are read (a dangling link among
// them is an error), the others are not opened.
func TestReadSources(t *testing.T) {
	for _, tc := range []struct {
		dangling  string // a link to nowhere, under this name
		withTests bool
		fails     bool
	}{
		{"a.go", false, true},
		{"go.mod", false, true},
		{"go.sum", false, true},
		{"sub/b.go", false, true},
		{"a_test.go", true, true},
		{"a_test.go", false, false},
		{"testdata/c.go", true, false},
		{".git/d.go", true, false},
		{"notes.txt", true, false},
	} {
		root := t.TempDir()
		path := filepath.Join(root, tc.dangling)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "nowhere"), path); err != nil {
			t.Fatal(err)
		}
		if err := ReadSources(root, tc.withTests); (err != nil) != tc.fails {
			t.Errorf("%s (withTests %v): err %v, want failure %v", tc.dangling, tc.withTests, err, tc.fails)
		}
	}
	if err := ReadSources("no/such/root", true); err == nil {
		t.Error("a missing root reads")
	}
}
