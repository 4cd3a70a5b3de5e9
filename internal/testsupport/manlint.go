package testsupport

import (
	"os/exec"
	"testing"
)

// LintMan has groff (or, where it is the one installed, mandoc) read each
// man page with every warning on, and fails t on any warning; a machine
// with neither is Missing.
func LintMan(t testing.TB, pages []string) {
	t.Helper()
	if len(pages) == 0 {
		t.Fatal("LintMan: no pages")
	}
	tool, err := exec.LookPath("groff")
	args := []string{"-man", "-Tutf8", "-ww", "-z"}
	if err != nil {
		tool, err = exec.LookPath("mandoc")
		args = []string{"-T", "lint", "-W", "warning"}
	}
	if err != nil {
		Missing(t, "neither groff nor mandoc is installed (`sudo apt-get install -y groff`)")
	}
	for _, p := range pages {
		out, err := exec.Command(tool, append(args, p)...).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s %s: %v\n%s", tool, p, err, out)
		}
	}
}
