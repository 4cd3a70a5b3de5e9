// Package storetest makes OpenCode databases for tests and benchmarks:
// the real one OpenCode 1.18.33 wrote (../testdata/PROVENANCE), in WAL
// mode as OpenCode keeps it, and a Writer that plays OpenCode on its
// schema. It reads its data from the source tree, and needs no testing
// package (bench/ programs use it too).
package storetest

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the driver the store reader uses
)

// RealDB writes the real 1.18.33 database (one session, two finished
// turns, 29 event rows) at path and returns a connection that goes on
// writing to it as OpenCode would (closed when the test ends, with
// testing.TB).
func RealDB(tb T, path string) *sql.DB {
	tb.Helper()
	dump, err := os.ReadFile(filepath.Join(testdata(), "opencode-1.18.33.sql"))
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: url.Values{"_pragma": {
		"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(5000)", "foreign_keys(OFF)",
	}}.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	db.SetMaxOpenConns(1)
	if c, ok := tb.(cleaner); ok {
		c.Cleanup(func() { db.Close() })
	}
	if _, err := db.Exec(string(dump)); err != nil {
		tb.Fatalf("the real dump: %v", err)
	}
	return db
}
