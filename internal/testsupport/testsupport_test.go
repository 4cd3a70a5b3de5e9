package testsupport

import (
	"os"
	"os/exec"
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
