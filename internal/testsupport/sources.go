package testsupport

import (
	"os"
	"path/filepath"
	"strings"
)

// ReadSources reads every Go file under root (with withTests, the _test.go
// files too), go.mod and go.sum, skipping testdata and dot folders. A test
// that looks at the source tree through a child process (`go build`, `go
// list`) is invisible to go test's result cache, but a file the test
// process itself reads is part of the cache key: after any change to the
// code the test runs again instead of reporting a stale "(cached)".
func ReadSources(root string, withTests bool) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		test := strings.HasSuffix(name, "_test.go")
		if name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go") && (withTests || !test) {
			_, err := os.ReadFile(path)
			return err
		}
		return nil
	})
}
