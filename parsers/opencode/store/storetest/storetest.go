// Package storetest makes OpenCode databases for tests and benchmarks:
// the real one OpenCode 1.18.33 wrote (../testdata/PROVENANCE), in WAL
// mode as OpenCode keeps it, and a Writer that plays OpenCode on its
// schema. It reads its data from the source tree, and needs no testing
// package (bench/ programs use it too).
package storetest

import (
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the driver the store reader uses
)

// RealDB writes the real 1.18.33 database (one session, two finished
// turns, 29 event rows) at path and returns the Writer that goes on
// writing to it as OpenCode would (closed when the test ends, with
// testing.TB).
func RealDB(tb T, path string) *Writer {
	tb.Helper()
	dump, err := os.ReadFile(filepath.Join(testdata(), "opencode-1.18.33.sql"))
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	w := OpenWriter(tb, path)
	w.Exec(`PRAGMA foreign_keys = OFF`) // the dump's tables come in name order
	w.Exec(string(dump))
	return w
}
