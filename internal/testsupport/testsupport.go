// Package testsupport holds what the project's tests share about their
// environment: on a developer's machine a missing tool or data folder skips
// the tests that need it; on CI (CI=true) it fails them, so nothing is
// skipped silently where it must run.
package testsupport

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/logwatch/logwatch/internal/udiff"
)

// CI reports whether the tests run on CI: $CI set to a true value.
func CI() bool {
	ok, _ := strconv.ParseBool(os.Getenv("CI"))
	return ok
}

// Stopper is what Missing needs of a test: testing.TB, or a benchmark
// program's stand-in for one.
type Stopper interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
}

// Missing stops a test that lacks something it needs: a skip, or a
// failure under CI=true.
func Missing(t Stopper, format string, args ...any) {
	t.Helper()
	if CI() {
		t.Fatalf("CI=true, and this test cannot run: "+format, args...)
	}
	t.Skipf(format, args...)
}

// Realworld returns rel, the shared real-world samples folder as reached
// from the test's package directory (e.g. "../../shared/realworld"), after
// checking it exists; Missing otherwise.
func Realworld(t testing.TB, rel string) string {
	t.Helper()
	if _, err := os.Stat(rel); err != nil {
		Missing(t, "real-world samples not present (a sibling of the checkout): %v", err)
	}
	return rel
}

// Golden compares got with the golden file at path, printing a unified diff
// when they differ; with update it rewrites the file instead.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		var d bytes.Buffer
		udiff.Write(&d, path, "got", want, got)
		t.Errorf("%s differs:\n%s", path, d.String())
	}
}
