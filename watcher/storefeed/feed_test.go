package storefeed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/watcher"
)

// The tests follow a toy store: a file whose lines are
// "<session> <parent> <json>", a row each (its cursor is its line number),
// read whole on every call. A file "<db>.lock" beside it makes it busy, a
// first line "schema 2" makes it a schema it does not know, and a file
// "<db>.late" hides the last row from the next read (and is removed by
// it), as a SQLite commit is not visible yet to the read its own file
// writes woke.
const toy parsers.Agent = "toystore"

type toyDB struct{ path string }

func (d toyDB) rows() ([]parsers.StoreRow, error) {
	if _, err := os.Stat(d.path + ".lock"); err == nil {
		return nil, fmt.Errorf("%w: locked", parsers.ErrStoreBusy)
	}
	b, err := os.ReadFile(d.path)
	if err != nil {
		return nil, err
	}
	var out []parsers.StoreRow
	for i, l := range strings.Split(string(b), "\n") {
		if i == 0 && l == "schema 2" {
			return nil, fmt.Errorf("schema 2 is unknown")
		}
		f := strings.SplitN(l, " ", 3)
		if len(f) < 3 {
			continue // a row being written
		}
		parent := f[1]
		if parent == "-" {
			parent = ""
		}
		out = append(out, parsers.StoreRow{Cursor: int64(i + 1), Session: f[0], Parent: parent, Line: []byte(f[2])})
	}
	if os.Remove(d.path+".late") == nil && len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out, nil
}

// toyReads counts the toy's Changes calls: its queries.
var toyReads atomic.Int64

func (d toyDB) Changes(after int64, max int, maxBytes int64) ([]parsers.StoreRow, error) {
	toyReads.Add(1)
	rows, err := d.rows()
	var out []parsers.StoreRow
	for _, r := range rows {
		if r.Cursor > after && len(out) < max {
			if n := int64(len(r.Line)); n > maxBytes {
				r.Line, r.Size = nil, n // unread: past the room
				return append(out, r), err
			}
			maxBytes -= int64(len(r.Line))
			out = append(out, r)
		}
	}
	return out, err
}

// Current: a session's rows from its last "turn" row on (its first and
// perSession newest), sessions in the order of their first rows.
func (d toyDB) Current(_ time.Time, perSession int, each func([]parsers.StoreRow) error) (int64, error) {
	rows, err := d.rows()
	if err != nil {
		return 0, err
	}
	from := map[string]int{}
	var order []string
	for i, r := range rows {
		if _, ok := from[r.Session]; !ok {
			order = append(order, r.Session)
		}
		if _, ok := from[r.Session]; !ok || bytes.Contains(r.Line, []byte(`"turn"`)) {
			from[r.Session] = i
		}
	}
	for _, s := range order {
		var turn []parsers.StoreRow
		for i, r := range rows {
			if r.Session == s && i >= from[s] {
				turn = append(turn, r)
			}
		}
		if len(turn) > perSession+1 {
			turn = append(turn[:1], turn[len(turn)-perSession:]...)
		}
		if err := each(turn); err != nil {
			return 0, err
		}
	}
	var cursor int64
	if len(rows) > 0 {
		cursor = rows[len(rows)-1].Cursor
	}
	return cursor, nil
}

// Version is the number in "<db>.ver", when there is one.
func (d toyDB) Version() (uint64, bool) {
	b, err := os.ReadFile(d.path + ".ver")
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

func (toyDB) Close() error { return nil }

// toyParser: {"kind":"turn"} starts a turn, {"kind":"end"} ends it,
// anything else that is JSON is activity.
type toyParser struct{}

func (toyParser) Agent() parsers.Agent { return toy }
func (toyParser) Reset()               {}
func (toyParser) Parse(line []byte) (parsers.Evidence, error) {
	switch {
	case bytes.Contains(line, []byte(`"turn"`)):
		return parsers.Evidence{Kind: parsers.KindTurnStart, Type: "turn"}, nil
	case bytes.Contains(line, []byte(`"end"`)):
		return parsers.Evidence{Kind: parsers.KindTurnEnd, Type: "end"}, nil
	case len(line) > 0 && line[0] == '{':
		return parsers.Evidence{Kind: parsers.KindActivity, Type: "other"}, nil
	}
	return parsers.Evidence{}, parsers.ErrMalformed
}

func init() {
	parsers.Register(parsers.Spec{
		Name:      toy,
		NewParser: func() parsers.Parser { return toyParser{} },
		Store: &parsers.Store{
			Files: []string{"toy.db"},
			Wakes: func(db, name string) bool { return name == filepath.Base(db) || name == filepath.Base(db)+".lock" },
			Open: func(path string) (parsers.StoreDB, error) {
				fi, err := os.Stat(path)
				if err != nil {
					return nil, err
				}
				if !fi.Mode().IsRegular() {
					return nil, fmt.Errorf("%s is not a regular file", path)
				}
				return toyDB{path}, nil
			},
		},
	})
}

type run struct {
	t    *testing.T
	f    *Feed
	dir  string
	db   string
	stop func()
}

func start(t *testing.T, dir string, setup func(db string)) *run {
	t.Helper()
	db := filepath.Join(dir, "toy.db")
	if setup != nil {
		setup(db)
	}
	f := New(Config{Roots: map[parsers.Agent][]string{toy: {dir}}, MaxLineBytes: 64, Raw: true}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	r := &run{t: t, f: f, dir: dir, db: db, stop: func() { cancel(); <-done }}
	t.Cleanup(r.stop)
	select {
	case <-f.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("feed never ready")
	}
	return r
}

// next is the next record, as "session/kind/type cursor [bootstrap] [sub]".
func (r *run) next() string {
	r.t.Helper()
	select {
	case rec := <-r.f.Records():
		s := fmt.Sprintf("%s/%s/%s %d", rec.Session, rec.Kind, rec.Evidence.Type, rec.End)
		if rec.Malformed {
			s += " malformed"
		}
		if rec.Bootstrap {
			s += " bootstrap"
		}
		if rec.Subagent {
			s += " sub"
		}
		if rec.Kind == watcher.KindLine && string(rec.Raw) == "" {
			s += " no-raw"
		}
		return s
	case <-time.After(10 * time.Second):
		r.t.Fatal("no record within 10 s")
		return ""
	}
}

func (r *run) expect(want ...string) {
	r.t.Helper()
	for _, w := range want {
		if got := r.next(); got != w {
			r.t.Fatalf("record %q, want %q", got, w)
		}
	}
}

// none checks nothing more comes (a bounded wait: a record that came late
// would fail a later expect anyway).
func (r *run) none() {
	r.t.Helper()
	select {
	case rec := <-r.f.Records():
		r.t.Fatalf("unexpected record %+v", rec)
	case <-time.After(300 * time.Millisecond):
	}
}

func appendRows(t *testing.T, path string, rows ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range rows {
		if _, err := f.WriteString(r + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFeedBootstrapThenFollow(t *testing.T) {
	r := start(t, t.TempDir(), func(db string) {
		appendRows(t, db,
			`s1 - {"kind":"turn"}`, `s1 - {"kind":"end"}`, // an old turn: not read
			`s1 - {"kind":"turn"}`, `s1 - {"x":1}`,
			`s2 - {"kind":"turn"}`, `c1 s2 {"kind":"turn"}`)
	})
	r.expect("s1/line/turn 3 bootstrap", "s1/line/other 4 bootstrap", "s2/line/turn 5 bootstrap", "c1/line/turn 6 bootstrap sub")
	r.none()
	appendRows(t, r.db, `s1 - {"kind":"end"}`, `s2 - not json`)
	r.expect("s1/line/end 7", "s2/line/ 8 malformed")
	// A row over MaxLineBytes is skipped and counted, never held.
	appendRows(t, r.db, `s2 - {"kind":"other","pad":"`+strings.Repeat("x", 100)+`"}`, `s2 - {"kind":"end"}`)
	r.expect("s2/oversized/ 9", "s2/line/end 10")
	if st := r.f.Stats(); st.Rows != 8 || st.Malformed != 1 || st.Oversized != 1 || st.Open != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// A database's directory that does not exist yet is waited for through
// its nearest ancestor; every row of a database created while the feed
// runs is new.
func TestFeedDatabaseCreatedLater(t *testing.T) {
	base := t.TempDir()
	r := start(t, filepath.Join(base, "share", "toy"), nil)
	r.none()
	if err := os.MkdirAll(filepath.Join(base, "share", "toy"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The directory's watch is taken on its creation event: write until
	// the feed hears (an empty line is no row; the row before the watch is
	// read with the next write).
	deadline := time.Now().Add(10 * time.Second)
	appendRows(t, r.db, `s1 - {"kind":"turn"}`)
	for {
		select {
		case rec := <-r.f.Records():
			if rec.Session != "s1" || rec.Bootstrap || rec.End != 1 {
				t.Fatalf("first record %+v", rec)
			}
			appendRows(t, r.db, `s1 - {"kind":"end"}`)
			if got := r.next(); !strings.HasPrefix(got, "s1/line/end ") || strings.Contains(got, "bootstrap") {
				t.Fatalf("record %q, want s1's end", got)
			}
			return
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the new database was never read")
			}
			appendRows(t, r.db, "")
		}
	}
}

// A busy database is tried again until it answers; a schema the reader
// does not know is waited out to its next change, never a crash.
func TestFeedBusyAndUnknownSchema(t *testing.T) {
	dir := t.TempDir()
	r := start(t, dir, func(db string) {
		appendRows(t, db, `s1 - {"kind":"turn"}`)
		appendRows(t, db+".lock")
	})
	r.none() // busy at start: nothing yet, and ready all the same
	os.Remove(r.db + ".lock")
	r.expect("s1/line/turn 1 bootstrap")
	appendRows(t, r.db, `s1 - {"kind":"end"}`)
	r.expect("s1/line/end 2")

	// Migrated to a schema it does not know: nothing read, nothing lost.
	if err := os.WriteFile(r.db, []byte("schema 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.none()
	if st := r.f.Stats(); st.Errors == 0 || st.Open != 0 {
		t.Fatalf("stats after the unknown schema: %+v", st)
	}
	// Back to a known one: read from where it stood.
	b := strings.Join([]string{`s1 - {"kind":"turn"}`, `s1 - {"kind":"end"}`, `s1 - {"kind":"turn"}`}, "\n") + "\n"
	if err := os.WriteFile(r.db, []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	r.expect("s1/line/turn 3")
}

// A commit that was not visible yet to the read its file event woke is
// read all the same, with no later file event (the removal of "<db>.late"
// wakes nothing).
func TestFeedCommitVisibleAfterItsEvent(t *testing.T) {
	r := start(t, t.TempDir(), func(db string) { appendRows(t, db, `s1 - {"kind":"turn"}`) })
	r.expect("s1/line/turn 1 bootstrap")
	appendRows(t, r.db+".late")
	appendRows(t, r.db, `s1 - {"kind":"end"}`)
	r.expect("s1/line/end 2")
	if _, err := os.Stat(r.db + ".late"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the woken read did not come first: %v", err)
	}
}

// A database replaced by another (moved over it) holds history: it is read
// as at start-up, its sessions' present state as bootstrap, then followed.
func TestFeedDatabaseReplaced(t *testing.T) {
	dir := t.TempDir()
	r := start(t, dir, func(db string) { appendRows(t, db, `s1 - {"kind":"turn"}`, `s1 - {"kind":"end"}`) })
	r.expect("s1/line/turn 1 bootstrap", "s1/line/end 2 bootstrap")
	next := filepath.Join(dir, "next")
	appendRows(t, next, `s8 - {"kind":"turn"}`, `s8 - {"kind":"end"}`, `s9 - {"kind":"turn"}`)
	if err := os.Rename(next, r.db); err != nil {
		t.Fatal(err)
	}
	r.expect("s8/line/turn 1 bootstrap", "s8/line/end 2 bootstrap", "s9/line/turn 3 bootstrap")
	appendRows(t, r.db, `s9 - {"kind":"end"}`)
	r.expect("s9/line/end 4")
	// Gone, then another moved in: history again.
	if err := os.Remove(r.db); err != nil {
		t.Fatal(err)
	}
	appendRows(t, next, `s7 - {"kind":"turn"}`)
	if err := os.Rename(next, r.db); err != nil {
		t.Fatal(err)
	}
	r.expect("s7/line/turn 1 bootstrap")
	// A look due from the last wake can read the new file before its
	// creation event does: the same history again, never a live row.
	for {
		select {
		case rec := <-r.f.Records():
			if rec.Session != "s7" || !rec.Bootstrap || rec.End != 1 {
				t.Fatalf("unexpected record %+v", rec)
			}
			continue
		case <-time.After(300 * time.Millisecond):
		}
		break
	}
}

// A row past a read's own room is read alone, its bytes taken from the
// line budget and given back; one longer than the whole budget is skipped
// unread, as a log reader skips it.
func TestFeedRowsWithinTheLineBudget(t *testing.T) {
	dir := t.TempDir()
	budget := lines.NewBudget(40)
	f := New(Config{Roots: map[parsers.Agent][]string{toy: {dir}}, MaxLineBytes: 64, ReadBytes: 30, LineBudget: budget, Raw: true}, zerolog.Nop())
	db := filepath.Join(dir, "toy.db")
	appendRows(t, db, `s1 - {"kind":"turn"}`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	r := &run{t: t, f: f, dir: dir, db: db, stop: func() { cancel(); <-done }}
	t.Cleanup(r.stop)
	r.expect("s1/line/turn 1 bootstrap")
	// A line of pad(n) is n+10 bytes: within the read's room (30), within
	// the budget (40), within MaxLineBytes (64) but not the budget, over
	// MaxLineBytes.
	pad := func(n int) string { return `s1 - {"pad":"` + strings.Repeat("x", n) + `"}` }
	appendRows(t, db, pad(15), pad(25), pad(45), pad(60), `s1 - {"kind":"end"}`)
	r.expect("s1/line/other 2", "s1/line/other 3", "s1/oversized/ 4", "s1/oversized/ 5", "s1/line/end 6")
	if st := budget.Stats(); st.Used != 0 || st.Peak != 35 {
		t.Fatalf("budget after the reads: %+v, want 35 at most, none now", st)
	}
}

func TestSplit(t *testing.T) {
	logs, stores := Split(map[parsers.Agent][]string{toy: {"/a"}, "claude": {"/b"}})
	if strconv.Itoa(len(logs)) != "1" || logs["claude"][0] != "/b" || stores[toy][0] != "/a" || len(stores) != 1 {
		t.Fatalf("logs %v, stores %v", logs, stores)
	}
}

// A busy database is asked again soon, doubling to 5 s; a damaged one (not
// a database, corrupt) from 5 s doubling to 10 min, closed each time so a
// file moved over it is opened anew (issue 32: it was asked every 5 s for
// ever, as busy).
func TestFailBackoff(t *testing.T) {
	var log bytes.Buffer
	f := New(Config{Roots: map[parsers.Agent][]string{toy: {t.TempDir()}}}, zerolog.New(&log))
	d := f.dbs[0]
	busy := fmt.Errorf("%w: locked", parsers.ErrStoreBusy)
	damaged := fmt.Errorf("%w: file is not a database", parsers.ErrStoreDamaged)
	var got []time.Duration
	for range 8 {
		f.fail(d, busy)
		got = append(got, d.retry)
	}
	d.retry = 0
	for range 9 {
		f.fail(d, damaged)
		got = append(got, d.retry)
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond,
		1600 * time.Millisecond, 3200 * time.Millisecond, 5 * time.Second, 5 * time.Second,
		5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 160 * time.Second,
		320 * time.Second, 600 * time.Second, 600 * time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("retries %v, want %v", got, want)
	}
	if st := f.Stats(); st.Errors != 17 {
		t.Fatalf("stats %+v", st)
	}
	// Said once, as damaged, with what to do.
	if n := strings.Count(log.String(), `"message":"session database damaged"`); n != 1 ||
		!strings.Contains(log.String(), `"level":"error"`) || !strings.Contains(log.String(), "move the file aside") {
		t.Fatalf("%d damaged reports in the log:\n%s", n, log.String())
	}
}

// A database that tells its Version is read only when it changed: the file
// events of a commit's writes (a WAL's frames, many per commit) and the
// looks after them cost no query until the commit is visible, which the
// looks catch with no further event (issue 32 item 12: every event was a
// query, and a commit visible after its writes waited for a read again
// 2, 6, 14 … ms later).
func TestFeedReadsOnNewVersions(t *testing.T) {
	r := start(t, t.TempDir(), func(db string) {
		appendRows(t, db, `s1 - {"kind":"turn"}`)
		appendRows(t, db+".ver")
		if err := os.WriteFile(db+".ver", []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	r.expect("s1/line/turn 1 bootstrap")
	appendRows(t, r.db, `s1 - {"x":1}`) // the first wake reads: no version read yet
	r.expect("s1/line/other 2")
	before := toyReads.Load()
	// Writes whose commit is not visible yet: the version stands.
	for range 20 {
		appendRows(t, r.db, "")
	}
	r.none()
	// At most the looks that end a burst, which read whatever the version
	// says (before: a read per write).
	if n := toyReads.Load() - before; n > 2 {
		t.Fatalf("%d reads for writes with no new version", n)
	}
	// A commit's writes, then it becomes visible with no file event: a
	// look reads it.
	appendRows(t, r.db, `s1 - {"kind":"end"}`)
	if err := os.WriteFile(r.db+".ver", []byte("2"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.expect("s1/line/end 23") // the toy's cursor is the line's number
}
