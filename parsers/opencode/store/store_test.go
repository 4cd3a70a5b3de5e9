package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
)

func open(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// allRows is the event table as the writer sees it, in rowid order.
func allRows(t *testing.T, w *storetest.Writer) []Row {
	t.Helper()
	q, err := w.DB.Query(`SELECT rowid, aggregate_id, seq, type, data FROM event ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	var out []Row
	for q.Next() {
		var r Row
		if err := q.Scan(&r.RowID, &r.Session, &r.Seq, &r.Type, &r.Data); err != nil {
			t.Fatal(err)
		}
		r.Size = int64(len(r.Data))
		out = append(out, r)
	}
	return out
}

// key is what must match between a Row and the writer's row.
func key(r Row) string {
	return fmt.Sprintf("%d %s %d %s %d %s", r.RowID, r.Session, r.Seq, r.Type, r.Size, r.Data)
}

// current collects what Current gives, oldest first, and checks that each
// session comes in one call, newest first, its rows oldest first.
func current(t *testing.T, d *DB, since time.Time, perSession int) ([]Row, int64, error) {
	t.Helper()
	var all []Row
	seen := map[string]bool{}
	cursor, err := d.Current(since, perSession, func(rows []Row) error {
		if seen[rows[0].Session] {
			t.Errorf("session %s given twice", rows[0].Session)
		}
		seen[rows[0].Session] = true
		for i, r := range rows {
			if r.Session != rows[0].Session || i > 0 && r.Seq <= rows[i-1].Seq {
				t.Errorf("one call's rows: %s after %s", key(r), key(rows[max(i-1, 0)]))
			}
		}
		all = append(all, rows...)
		return nil
	})
	sort.Slice(all, func(i, j int) bool { return all[i].RowID < all[j].RowID })
	return all, cursor, err
}

func TestChangesFeed(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	a := w.Session("")
	b := w.Session("")
	w.Turn(a, 2, 1)
	c := w.Session(a)
	w.Turn(b, 1, 0)
	w.Turn(c, 2, 2)
	w.Turn(a, 1, 0)
	want := allRows(t, w)

	d := open(t, w.Path)
	all, err := d.Changes(0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(want) {
		t.Fatalf("Changes(0) = %d rows, the table has %d", len(all), len(want))
	}
	sessions := map[string]bool{}
	for i, r := range all {
		if key(r) != key(want[i]) {
			t.Fatalf("row %d = %s, want %s", i, key(r), key(want[i]))
		}
		sessions[r.Session] = true
		if wantParent := map[bool]string{true: a, false: ""}[r.Session == c]; r.Parent != wantParent {
			t.Errorf("row %d of %s: Parent %q, want %q", r.RowID, r.Session, r.Parent, wantParent)
		}
	}
	if len(sessions) != 3 {
		t.Errorf("rows of %d sessions, want 3", len(sessions))
	}

	// Resuming after each page gives the same rows, max at a time.
	for _, max := range []int{1, 7, len(want)} {
		var got []Row
		cursor := int64(0)
		for {
			page, err := d.Changes(cursor, max)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > max {
				t.Fatalf("max %d: a page of %d", max, len(page))
			}
			if len(page) == 0 {
				break
			}
			got = append(got, page...)
			cursor = page[len(page)-1].RowID
		}
		if len(got) != len(want) {
			t.Fatalf("max %d: %d rows, want %d", max, len(got), len(want))
		}
		for i := range got {
			if key(got[i]) != key(want[i]) {
				t.Fatalf("max %d: row %d = %s, want %s", max, i, key(got[i]), key(want[i]))
			}
		}
	}

	// New rows, of a new session too, come after the cursor.
	cursor := all[len(all)-1].RowID
	e := w.Session(c)
	w.Turn(e, 1, 0)
	more, err := d.Changes(cursor, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want = allRows(t, w)[len(all):]
	if len(more) != len(want) || more[0].RowID != cursor+1 {
		t.Fatalf("after %d: %d rows from %d, want %d", cursor, len(more), more[0].RowID, len(want))
	}
	for _, r := range more {
		if r.Session != e || r.Parent != c {
			t.Errorf("row %d: session %s parent %q, want %s parent %s", r.RowID, r.Session, r.Parent, e, c)
		}
	}
	if rows, err := d.Changes(more[len(more)-1].RowID, 10); err != nil || len(rows) != 0 {
		t.Errorf("at the end: %d rows, %v", len(rows), err)
	}
}

// TestChangesWithin: a read gives at most maxBytes of lines, read in full;
// the row that would pass it ends the read unread, with the size to make
// room for; data over MaxData counts its envelope alone (issue 32: 150
// rows of 3.9 MiB in one commit were read in one call).
func TestChangesWithin(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	s := w.Session("")
	d := open(t, w.Path)
	cursor, err := d.Current(time.Time{}, 1, func([]Row) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{100 << 10, 3 << 20, MaxData + 1, 1 << 10}
	w.Tx(func(tx *sql.Tx) {
		for _, n := range sizes {
			w.Event(tx, s, "message.part.updated.1", `{"pad":"`+strings.Repeat("x", n-10)+`"}`)
		}
	})
	lineOf := func(i int) int64 {
		if sizes[i] > MaxData {
			return LineEnvelope
		}
		return int64(sizes[i]) + LineEnvelope
	}
	type want struct {
		read   int   // rows read in full
		unread int64 // the unread row's Size; 0: none
	}
	for _, tt := range []struct {
		from     int // rows of the commit before the cursor
		maxBytes int64
		want     want
	}{
		{0, 1 << 20, want{1, lineOf(1)}},                  // the 3 MiB row does not fit
		{1, lineOf(1), want{1, lineOf(2)}},                // alone with room for it; nothing left
		{1, lineOf(1) + LineEnvelope, want{2, lineOf(3)}}, // the row over MaxData is not read
		{2, 1 << 20, want{2, 0}},
		{0, 1, want{0, lineOf(0)}}, // not even the first fits
		{0, math.MaxInt64, want{4, 0}},
	} {
		rows, err := d.ChangesWithin(cursor+int64(tt.from), 100, tt.maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		var got want
		var held int64
		for i, r := range rows {
			if r.Session != s || r.RowID != cursor+int64(tt.from+i)+1 {
				t.Fatalf("from %d within %d: row %d is %d of %s", tt.from, tt.maxBytes, i, r.RowID, r.Session)
			}
			if r.Unread {
				if i != len(rows)-1 || r.Data != nil {
					t.Fatalf("from %d within %d: unread row %d of %d, data %d", tt.from, tt.maxBytes, i, len(rows), len(r.Data))
				}
				got.unread = r.Size
				continue
			}
			got.read++
			held += int64(len(r.Line()))
			if sizes[tt.from+i] <= MaxData && len(r.Data) != sizes[tt.from+i] {
				t.Fatalf("from %d: row %d has %d bytes of data, want %d", tt.from, i, len(r.Data), sizes[tt.from+i])
			}
		}
		if got != tt.want || held > tt.maxBytes {
			t.Errorf("from %d within %d: %+v, lines of %d bytes; want %+v", tt.from, tt.maxBytes, got, held, tt.want)
		}
	}
}

// TestReaderNeverBlocksWriter: OpenCode's writes, with its 5 s
// busy_timeout, never fail while the reader reads as fast as it can.
func TestReaderNeverBlocksWriter(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	s := w.Session("")
	w.Turn(s, 1, 0)
	d := open(t, w.Path)

	const writes = 1000
	done := make(chan error, 1)
	go func() {
		for i := 0; i < writes; i++ {
			tx, err := w.DB.Begin()
			if err != nil {
				done <- err
				return
			}
			seq := int64(1000 + i)
			if _, err := tx.Exec(`INSERT INTO event(id, aggregate_id, seq, type, data) VALUES(?, ?, ?, 'message.part.updated.1', '{"part":{}}')`, fmt.Sprintf("evt_w%06d", i), s, seq); err != nil {
				tx.Rollback()
				done <- err
				return
			}
			if _, err := tx.Exec(`UPDATE session SET time_updated = ? WHERE id = ?`, seq, s); err != nil {
				tx.Rollback()
				done <- err
				return
			}
			if err := tx.Commit(); err != nil {
				done <- err
				return
			}
			if i%50 == 0 { // OpenCode's checkpoints, which a reader must not stop
				if _, err := w.DB.Exec(`PRAGMA wal_checkpoint(PASSIVE)`); err != nil {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	var cursor int64
	reads := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("the writer failed while the reader read: %v", err)
			}
			finished = true
		default:
		}
		rows, err := d.Changes(cursor, 20)
		if err != nil {
			t.Fatalf("reader: %v", err)
		}
		if len(rows) > 0 {
			cursor = rows[len(rows)-1].RowID
		}
		if _, _, err := current(t, d, time.Time{}, 50); err != nil {
			t.Fatalf("reader: %v", err)
		}
		reads++
	}
	rows, err := d.Changes(cursor, 2*writes)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) > 0 {
		cursor = rows[len(rows)-1].RowID
	}
	if n := len(allRows(t, w)); cursor != int64(n) {
		t.Errorf("the reader ends at %d, the table has %d rows", cursor, n)
	}
	t.Logf("%d reads beside %d writes", reads, writes)
}

type fileState struct {
	data  []byte
	mtime time.Time
}

func snapshot(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{b, fi.ModTime()}
}

// TestReaderNeverCheckpoints: a read session and Close leave the database
// and its WAL byte for byte, and -wal and -shm in place, with OpenCode
// running and after it has gone (its -wal left behind, as it leaves it).
func TestReaderNeverCheckpoints(t *testing.T) {
	dir := t.TempDir()
	w := storetest.NewWriter(t, filepath.Join(dir, "opencode.db"))
	// Checkpoint the schema into the db, then leave turns in the WAL only.
	w.Exec(`PRAGMA wal_autocheckpoint = 0`)
	w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	s := w.Session("")
	w.Turn(s, 2, 1)
	w.Turn(w.Session(s), 1, 0)

	gone := filepath.Join(dir, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(w.Path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(gone, "opencode.db"+suffix), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, path := range map[string]string{"running": w.Path, "gone": filepath.Join(gone, "opencode.db")} {
		t.Run(name, func(t *testing.T) {
			db, wal := snapshot(t, path), snapshot(t, path+"-wal")
			if len(wal.data) == 0 {
				t.Fatal("the WAL is empty: nothing to protect")
			}
			time.Sleep(20 * time.Millisecond) // so that a write would show in mtime
			d, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := d.Changes(0, 1000)
			if err != nil || len(rows) == 0 {
				t.Fatalf("Changes: %d rows, %v", len(rows), err)
			}
			if _, _, err := current(t, d, time.Time{}, 1000); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Schema(); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				suffix string
				before fileState
			}{{"", db}, {"-wal", wal}} {
				after := snapshot(t, path+c.suffix)
				if !bytes.Equal(after.data, c.before.data) || !after.mtime.Equal(c.before.mtime) {
					t.Errorf("%s changed: %d bytes at %v, was %d at %v", filepath.Base(path+c.suffix), len(after.data), after.mtime, len(c.before.data), c.before.mtime)
				}
			}
			if _, err := os.Stat(path + "-shm"); err != nil {
				t.Errorf("-shm after Close: %v", err)
			}
		})
	}
}

// TestWALReset: OpenCode's checkpoint(TRUNCATE) restarts the WAL; the feed
// goes on after the cursor.
func TestWALReset(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	s := w.Session("")
	w.Turn(s, 2, 1)
	d := open(t, w.Path)
	rows, err := d.Changes(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	cursor := rows[len(rows)-1].RowID
	w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if fi, err := os.Stat(w.Path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the WAL was not reset: %v %v", fi, err)
	}
	w.Turn(s, 1, 0)
	more, err := d.Changes(cursor, 1000)
	if err != nil {
		t.Fatal(err)
	}
	want := allRows(t, w)[len(rows):]
	if len(more) != len(want) || more[0].RowID != cursor+1 {
		t.Fatalf("after the reset: %d rows, want %d from %d", len(more), len(want), cursor+1)
	}
}

// TestVacuum: a VACUUM keeps the feed, or, if it renumbered the rows, says
// so (ErrReset); it never hands back wrong rows. Deleted and reinserted
// rows under the cursor are ErrReset; Current starts again.
func TestVacuum(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	a, b := w.Session(""), w.Session("")
	w.Turn(a, 2, 1)
	w.Turn(b, 2, 1)
	d := open(t, w.Path)
	rows, err := d.Changes(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	cursor := rows[len(rows)-1].RowID

	w.Exec(`VACUUM`)
	w.Turn(a, 1, 0)
	more, err := d.Changes(cursor, 1000)
	if err != nil {
		t.Fatalf("after a VACUUM: %v", err)
	}
	want := allRows(t, w)[len(rows):]
	for i := range want {
		if i >= len(more) || key(more[i]) != key(want[i]) {
			t.Fatalf("after a VACUUM: %d rows, want %d", len(more), len(want))
		}
	}
	cursor = more[len(more)-1].RowID

	// Rows deleted and VACUUMed: renumbered or not, never wrong.
	w.Exec(`DELETE FROM event WHERE aggregate_id = ?`, b)
	w.Exec(`VACUUM`)
	w.Turn(a, 1, 0)
	after, err := d.Changes(cursor, 1000)
	switch {
	case errors.Is(err, ErrReset):
	case err != nil:
		t.Fatal(err)
	default:
		all := allRows(t, w)
		var newer []Row
		for _, r := range all {
			if r.RowID > cursor {
				newer = append(newer, r)
			}
		}
		if len(after) != len(newer) || len(after) == 0 || key(after[0]) != key(newer[0]) {
			t.Fatalf("after delete+VACUUM: %d rows, want %d", len(after), len(newer))
		}
		cursor = after[len(after)-1].RowID
		t.Logf("VACUUM kept the rowids")
	}

	// The same rowids, other rows: ErrReset.
	w.Exec(`DELETE FROM event`)
	w.ForgetSequences()
	w.Exec(`DELETE FROM event_sequence`)
	for rows := allRows(t, w); len(rows) == 0 || rows[len(rows)-1].RowID < cursor; rows = allRows(t, w) {
		w.Turn(a, 1, 0)
	}
	if _, err := d.Changes(cursor, 10); !errors.Is(err, ErrReset) {
		t.Fatalf("rows replaced under the cursor: %v, want ErrReset", err)
	}
	cur, c2, err := current(t, d, time.Time{}, 1000)
	if err != nil || len(cur) == 0 {
		t.Fatalf("Current after a reset: %d rows, %v", len(cur), err)
	}
	if _, err := d.Changes(c2, 10); err != nil {
		t.Fatal(err)
	}
	// A cursor past the end of a fresh reader's feed: ErrReset.
	d2 := open(t, w.Path)
	if _, err := d2.Changes(c2+1000, 10); !errors.Is(err, ErrReset) {
		t.Fatalf("a cursor past the end: %v, want ErrReset", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	w := storetest.NewWriter(t, real)
	w.Turn(w.Session(""), 1, 0)
	w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	whole, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	overwritten := slices.Clone(whole)
	for i := 4096; i < len(overwritten); i++ {
		overwritten[i] = byte(i * 7)
	}
	schemaWith := func(ddl string) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			w := storetest.OpenWriter(t, path)
			w.Exec(ddl)
			w.DB.Close()
		}
	}
	bytesOf := func(b []byte) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want error // nil: opens
		says string
	}{
		{"extra columns and tables", schemaWith(storetest.Schema(t) + `ALTER TABLE event ADD COLUMN origin TEXT; ALTER TABLE session ADD COLUMN color TEXT; CREATE TABLE future(x);`), nil, ""},
		{"no session table", schemaWith(`CREATE TABLE event(id TEXT PRIMARY KEY, aggregate_id TEXT, seq INT, type TEXT, data TEXT);`), ErrSchema, "no table session"},
		{"no event.type", schemaWith(`CREATE TABLE event(id TEXT PRIMARY KEY, aggregate_id TEXT, seq INT, data TEXT); CREATE TABLE session(id TEXT PRIMARY KEY, parent_id TEXT, time_updated INT);`), ErrSchema, "no column event.type"},
		{"event without rowid", schemaWith(`CREATE TABLE event(id TEXT PRIMARY KEY, aggregate_id TEXT, seq INT, type TEXT, data TEXT) WITHOUT ROWID; CREATE TABLE session(id TEXT PRIMARY KEY, parent_id TEXT, time_updated INT);`), ErrSchema, "rowid"},
		// SQLite's new file is empty until its first commit: being created.
		{"zero-length", bytesOf(nil), ErrBusy, "being created"},
		// SQLite's locks never show a reader a page half written: a file
		// that is not a database, or whose pages are cut short or
		// overwritten, is damaged (issue 32: it was "busy" for ever).
		{"not a database", bytesOf([]byte("{\"hello\": \"this is JSON, not SQLite\"}\n")), ErrDamaged, "not a database"},
		{"garbage over the header", bytesOf(append([]byte("this is not SQLite's header, it is garbage over it, a hundred bytes of it at least, and more"), whole[94:]...)), ErrDamaged, "not a database"},
		{"header only", bytesOf(whole[:100]), ErrDamaged, "malformed"},
		{"first page only", bytesOf(whole[:4096]), ErrDamaged, "malformed"},
		{"half its pages", bytesOf(whole[:len(whole)/2]), ErrDamaged, "malformed"},
		{"pages overwritten", bytesOf(overwritten), ErrDamaged, "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "opencode.db")
			tt.make(t, path)
			d, err := Open(path)
			if d != nil {
				// Whatever opened must read or fail cleanly.
				_, _ = d.Changes(0, 100)
				_, _, _ = current(t, d, time.Time{}, 100)
				d.Close()
			}
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Open = %v, want it to open", err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.says) {
				t.Fatalf("Open = %v, want %v saying %q", err, tt.want, tt.says)
			}
		})
	}

	t.Run("directory", func(t *testing.T) {
		if _, err := Open(t.TempDir()); !errors.Is(err, safeopen.ErrNotRegular) {
			t.Fatalf("Open(dir) = %v", err)
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "opencode.db")
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path); !errors.Is(err, safeopen.ErrNotRegular) {
			t.Fatalf("Open(FIFO) = %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Check(filepath.Join(t.TempDir(), "opencode.db")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Check(missing) = %v", err)
		}
	})
}

// TestCurrent: the latest turn of each session updated since, newest
// sessions first, each bounded to its turn's first and newest rows, and the
// cursor to follow.
func TestCurrent(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	old := w.Session("")
	w.Turn(old, 1, 0)
	since := time.UnixMilli(w.Now + 1)
	w.Now += 10

	a := w.Session("")
	w.Turn(a, 2, 1)
	latestA := w.Turn(a, 2, 1)
	child := w.Session(a)
	w.Turn(child, 1, 0)
	bare := w.Session("") // no user message yet
	// b's turn is in progress: a user message and an assistant one open.
	b := w.Session("")
	w.Turn(b, 1, 0)
	userB := w.ID("msg")
	w.Tx(func(tx *sql.Tx) {
		w.Message(tx, b, userB, fmt.Sprintf(`{"role":"user","time":{"created":%d}}`, w.Now))
		w.Touch(tx, b)
		w.Message(tx, b, w.ID("msg"), fmt.Sprintf(`{"role":"assistant","parentID":%q,"time":{"created":%d}}`, userB, w.Now))
	})
	all := allRows(t, w)

	// firstOf is the rowid of the first event of message id.
	firstOf := func(id string) int64 {
		for _, r := range all {
			if r.Type == "message.updated.1" && bytes.Contains(r.Data, []byte(`"id":"`+id+`"`)) {
				return r.RowID
			}
		}
		t.Fatalf("no event of %s", id)
		return 0
	}
	lastUser := func(s string) int64 {
		var last int64
		for _, r := range all {
			if r.Session == s && r.Type == "message.updated.1" && bytes.Contains(r.Data, []byte(`"role":"user"`)) {
				var id string
				_, rest, _ := bytes.Cut(r.Data, []byte(`"info":{"id":"`))
				id, _, _ = strings.Cut(string(rest), `"`)
				last = firstOf(id)
			}
		}
		return last
	}
	if lastUser(a) != firstOf(latestA) {
		t.Fatal("fixture: a's last user message is not its latest turn's")
	}
	wantFrom := map[string]int64{a: firstOf(latestA), child: lastUser(child), bare: 0, b: firstOf(userB)}
	var want []Row
	for _, r := range all {
		if from, ok := wantFrom[r.Session]; ok && r.RowID >= from {
			want = append(want, r)
		}
	}

	d := open(t, w.Path)
	rows, cursor, err := current(t, d, since, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if cursor != all[len(all)-1].RowID {
		t.Errorf("cursor %d, want %d", cursor, all[len(all)-1].RowID)
	}
	if len(rows) != len(want) {
		t.Fatalf("Current = %d rows, want %d", len(rows), len(want))
	}
	for i := range rows {
		if key(rows[i]) != key(want[i]) {
			t.Fatalf("row %d = %s\nwant %s", i, key(rows[i]), key(want[i]))
		}
		if p := map[bool]string{true: a}[rows[i].Session == child]; rows[i].Parent != p {
			t.Errorf("row %d: parent %q, want %q", rows[i].RowID, rows[i].Parent, p)
		}
	}

	// Everything since the beginning includes the old session's turn.
	if rows, _, err := current(t, d, time.Time{}, 100000); err != nil || len(rows) <= len(want) {
		t.Errorf("since zero: %d rows, %v", len(rows), err)
	}

	// perSession: every session still, a longer turn as its first row and
	// its perSession newest.
	const per = 3
	bySession := map[string][]Row{}
	for _, r := range want {
		bySession[r.Session] = append(bySession[r.Session], r)
	}
	var wantCut []string
	for _, r := range want {
		turn := bySession[r.Session]
		k := slices.IndexFunc(turn, func(x Row) bool { return x.RowID == r.RowID })
		if len(turn) <= per+1 || k == 0 || k >= len(turn)-per {
			wantCut = append(wantCut, key(r))
		}
	}
	if len(bySession[a]) <= per+1 || len(bySession[child]) <= per+1 {
		t.Fatal("fixture: no turn longer than the bound")
	}
	cut, _, err := current(t, d, since, per)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range cut {
		got = append(got, key(r))
	}
	if !slices.Equal(got, wantCut) {
		t.Errorf("Current(perSession %d) =\n%s\nwant\n%s", per, strings.Join(got, "\n"), strings.Join(wantCut, "\n"))
	}
	// Sessions newest first: b, bare, child, a.
	var order []string
	if _, err := d.Current(since, per, func(rows []Row) error { order = append(order, rows[0].Session); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{b, bare, child, a}) {
		t.Errorf("sessions in the order %v, want b, bare, child, a", order)
	}
	// An error from each ends the read with it.
	stop := errors.New("stop")
	calls := 0
	if _, err := d.Current(since, per, func([]Row) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("each's error: %v after %d calls", err, calls)
	}

	// Following the cursor.
	w.Turn(bare, 1, 0)
	next, err := d.Changes(cursor, 1000)
	if err != nil || len(next) == 0 || next[0].RowID != cursor+1 {
		t.Fatalf("Changes after Current: %d rows, %v", len(next), err)
	}
}

// TestRealOpenCode reads the database the real OpenCode 1.18.33 wrote
// (two turns of `opencode run`, testdata/PROVENANCE).
func TestRealOpenCode(t *testing.T) {
	w := storetest.RealDB(t, filepath.Join(t.TempDir(), "opencode.db"))
	s, err := Check(w.Path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Migrations != 38 || s.Newest != "20260622202450_simplify_session_input" {
		t.Errorf("Schema = %+v", s)
	}
	d := open(t, w.Path)
	rows, err := d.Changes(0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 29 || rows[0].Type != "session.created.1" || rows[28].Type != "session.updated.1" {
		t.Fatalf("Changes = %d rows", len(rows))
	}
	cur, cursor, err := current(t, d, time.UnixMilli(0), 1000)
	if err != nil {
		t.Fatal(err)
	}
	// The second turn starts at row 17, its user message ("say hi again").
	if cursor != 29 || len(cur) != 13 || cur[0].RowID != 17 || !bytes.Contains(cur[0].Data, []byte(`"role":"user"`)) {
		t.Fatalf("Current = %d rows from %d, cursor %d", len(cur), cur[0].RowID, cursor)
	}
	for _, r := range cur {
		if !bytes.Equal(r.Line(), bytes.TrimSpace(r.Line())) || !strings.HasPrefix(string(r.Line()), `{"type":"`) {
			t.Errorf("Line = %s", r.Line())
		}
	}
}

// TestLine pins the line form.
func TestLine(t *testing.T) {
	base := Row{RowID: 7, Session: "ses_1", Parent: "ses_0", Seq: 3, Type: "message.updated.1"}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"JSON verbatim", []byte(`{"info":{"text":"a<b && c>d","n":1.50}}`), `{"type":"message.updated.1","session":"ses_1","parent":"ses_0","seq":3,"rowid":7,"data":{"info":{"text":"a<b && c>d","n":1.50}}}`},
		{"multi-line JSON compacted", []byte("{\n  \"a\": [1,\n 2]\n}"), `{"type":"message.updated.1","session":"ses_1","parent":"ses_0","seq":3,"rowid":7,"data":{"a":[1,2]}}`},
		{"not JSON: a string", []byte("{\"half\":"), `{"type":"message.updated.1","session":"ses_1","parent":"ses_0","seq":3,"rowid":7,"data":"{\"half\":"}`},
		{"oversized: null", nil, `{"type":"message.updated.1","session":"ses_1","parent":"ses_0","seq":3,"rowid":7,"data":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			r.Data = tt.data
			if got := string(r.Line()); got != tt.want {
				t.Errorf("Line =\n%s\nwant\n%s", got, tt.want)
			}
			back, err := ParseLine(r.Line())
			if err != nil || back.Session != r.Session || back.Parent != r.Parent || back.RowID != r.RowID || back.Seq != r.Seq || back.Type != r.Type {
				t.Errorf("ParseLine = %+v, %v", back, err)
			}
		})
	}
}

// TestOversizedData: data over MaxData comes back nil with its size.
func TestOversizedData(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	s := w.Session("")
	big := `{"part":{"text":"` + strings.Repeat("x", MaxData) + `"}}`
	w.Tx(func(tx *sql.Tx) { w.Event(tx, s, "message.part.updated.1", big) })
	rows, err := open(t, w.Path).Changes(0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Data != nil || rows[1].Size != int64(len(big)) || rows[0].Data == nil {
		t.Fatalf("rows = %d, last data %d bytes, size %d", len(rows), len(rows[1].Data), rows[1].Size)
	}
}

// TestConcurrentUse: the methods take turns on the one connection.
func TestConcurrentUse(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	w.Turn(w.Session(""), 2, 1)
	d := open(t, w.Path)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if _, err := d.Changes(0, 10); err != nil {
					errs <- err
				}
				if _, _, err := current(t, d, time.Time{}, 10); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestVersion: the WAL index's token changes with each commit OpenCode
// makes, not with our reads, and says it cannot tell without a -shm.
func TestVersion(t *testing.T) {
	w := storetest.NewWriter(t, filepath.Join(t.TempDir(), "opencode.db"))
	s := w.Session("")
	d := open(t, w.Path)
	v1, ok := d.Version()
	if !ok {
		t.Fatal("no version of a database in WAL mode")
	}
	if _, err := d.Changes(0, 100); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Version(); !ok || v != v1 {
		t.Fatalf("a read changed the version: %x → %x (%v)", v1, v, ok)
	}
	w.Prompt(s)
	v2, ok := d.Version()
	if !ok || v2 == v1 {
		t.Fatalf("a commit left the version at %x (%v)", v2, ok)
	}
	w.Finish(s)
	if v3, _ := d.Version(); v3 == v2 || v3 == v1 {
		t.Fatalf("versions %x, %x, %x", v1, v2, v3)
	}
	if err := os.Remove(w.Path + "-shm"); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Version(); ok {
		t.Fatal("a version without a -shm")
	}
}
