package store

// The driver: modernc.org/sqlite (SQLite's C translated to Go), chosen by
// measurement over github.com/ncruces/go-sqlite3 v0.37.0 (SQLite's Wasm
// build translated to Go by wasm2go; also pure Go, no cgo, no wazero at
// run time). On the 2-core test machine (BenchmarkOpen, BenchmarkChanges,
// BenchmarkCurrent over 1 250 sessions and 82 000 event rows) both were
// as fast as each other within the machine's noise, but ncruces added
// 10.3 MB to a binary against modernc's 7.0 MB and held 2.9 MB of
// anonymous memory after Current against modernc's 1.0 MB (each ncruces
// connection owns a Wasm linear memory). modernc also locks the way
// OpenCode's own SQLite does (os_unix.c's POSIX locks; ncruces uses OFD
// locks, which Linux makes conflict with them, but it is one more thing
// to trust). zombiezen.com/go/sqlite wraps modernc: the same engine
// behind another API, nothing to gain for a reader.

import (
	"errors"
	"strings"

	sqlite "modernc.org/sqlite"
)

const driverName = "sqlite"

// SQLite's primary result codes.
const (
	codeBusy     = 5
	codeLocked   = 6
	codeIOErr    = 10
	codeCorrupt  = 11
	codeCantOpen = 14
	codeProtocol = 15
	codeEmpty    = 16
	codeNotADB   = 26
)

// sqliteCode is the primary result code of a driver error.
func sqliteCode(err error) (int, bool) {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code() & 0xff, true
	}
	return 0, false
}

// noSuch reports SQLite's "no such table/column" (a plain SQLITE_ERROR).
func noSuch(err error) bool {
	s := err.Error()
	return strings.Contains(s, "no such table") || strings.Contains(s, "no such column")
}
