// Package store reads OpenCode's SQLite database (opencode.db, WAL mode:
// all sessions of a user in one file) as a read-only change feed: every
// durable change OpenCode makes writes one row to its append-only `event`
// table, whose rowid grows monotonically, so the rows after a cursor are
// the changes since the last read, for every session at once
// (shared/formats/opencode.md §3).
//
// The reader is a guest in OpenCode's database: it opens it read-only
// (mode=ro and query_only), so it never writes, never takes a write lock
// and can never checkpoint or truncate the WAL (a read-only connection's
// close does not checkpoint); it keeps one connection for its whole life,
// because every close of a connection shows up as CLOSE_WRITE on -wal and
// -shm to whoever watches them (our own watcher included); and each read
// transaction is one short query, so it never holds back OpenCode's
// checkpoints (a reader's open snapshot would stop them and grow the WAL).
//
// The driver is modernc.org/sqlite, chosen by measurement over
// github.com/ncruces/go-sqlite3 (both pure Go, no cgo): see driver.go.
package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// ErrBusy is wrapped by errors that should pass: the database is locked,
// being created or migrated. Try again later (on the next file event).
var ErrBusy = errors.New("opencode store busy")

// ErrDamaged is wrapped when the file is not a SQLite database or its
// pages are corrupt: SQLite's locks keep a database being written from
// looking like that to a reader, so it will not pass by itself.
var ErrDamaged = errors.New("opencode store damaged")

// ErrSchema is wrapped when a table or column this reader needs is missing
// (a release whose schema this reader does not know). The message names it.
var ErrSchema = errors.New("opencode store schema unknown")

// ErrReset is wrapped by Changes when the cursor no longer points into the
// same feed: the event table was renumbered (a VACUUM after rows were
// deleted) or the database was replaced. Start again with Current.
var ErrReset = errors.New("opencode event feed reset")

// LineEnvelope bounds what Line adds to a row's data: the field names,
// the ids (OpenCode's are 30 bytes), the type and two numbers.
const LineEnvelope = 512

// MaxData bounds one row's data: a row whose data is longer is returned
// with Data nil and Size set, never read whole (a bash part's streamed
// output lives in its row).
const MaxData = 4 << 20

// busyTimeoutMS is how long one of our reads waits for a lock. In WAL mode
// a reader waits only while a WAL is being recovered or reset, briefly; a
// longer wait is reported as ErrBusy, to be retried on the next event.
const busyTimeoutMS = 250

// required names what the reader reads, per table: a missing one is
// ErrSchema.
var required = []struct {
	table string
	cols  []string
}{
	{"event", []string{"id", "aggregate_id", "seq", "type", "data"}},
	{"session", []string{"id", "parent_id", "time_updated"}},
}

// Row is one event row: one durable change of one session.
type Row struct {
	RowID   int64  // event.rowid: the feed's cursor
	Session string // event.aggregate_id: the session's id
	// Parent is the session's parent_id ("" for a root session), read from
	// the session table once per session: a child's parent never changes.
	Parent string
	Seq    int64  // event.seq: per session, from 0, no gaps
	Type   string // event.type, e.g. "message.updated.1"
	// Data is event.data as stored (JSON, not checked), nil when Size is
	// over MaxData.
	Data []byte
	Size int64 // length of the stored data in bytes
	// Unread: its line did not fit in ChangesWithin's maxBytes and its data
	// was not read (Data nil); Size is then its line's length (its data's
	// and LineEnvelope): read it again with room for that.
	Unread bool
}

// line is Row's JSON line form (as ParseLine reads it).
type line struct {
	Type    string          `json:"type"`
	Session string          `json:"session"`
	Parent  string          `json:"parent"`
	Seq     int64           `json:"seq"`
	RowID   int64           `json:"rowid"`
	Data    json.RawMessage `json:"data"`
}

// Line is the row as one JSON line (no newline), the form the parser,
// verify and the replay recordings read:
//
//	{"type":…,"session":…,"parent":…,"seq":…,"rowid":…,"data":<data>}
//
// data is the stored JSON verbatim (compacted if it spans lines); data
// that is not JSON is carried as a JSON string and oversized data as null,
// so the line is always valid and the parser sees it is not an object.
// It is what encoding/json makes of line without HTML escaping, written
// by hand: the encoder was a sixth of the start-up read (measured).
func (r Row) Line() []byte {
	b := make([]byte, 0, len(r.Data)+len(r.Type)+len(r.Session)+len(r.Parent)+80)
	b = append(b, `{"type":`...)
	b = appendString(b, r.Type)
	b = append(b, `,"session":`...)
	b = appendString(b, r.Session)
	b = append(b, `,"parent":`...)
	b = appendString(b, r.Parent)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, r.Seq, 10)
	b = append(b, `,"rowid":`...)
	b = strconv.AppendInt(b, r.RowID, 10)
	b = append(b, `,"data":`...)
	if r.Data == nil {
		b = append(b, "null"...)
	} else {
		buf := bytes.NewBuffer(b)
		if json.Compact(buf, r.Data) != nil { // not JSON: buf is as it was
			q, _ := json.Marshal(string(r.Data)) // a string always marshals
			buf.Write(q)
		}
		b = buf.Bytes()
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping: plain ASCII as it is, anything else through the
// encoder.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string always encodes
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// ParseLine reads a line written by Line back into a Row (Data is the
// line's data, verbatim; Size its length).
func ParseLine(b []byte) (Row, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return Row{}, fmt.Errorf("opencode store line: %w", err)
	}
	if l.Session == "" || l.Type == "" {
		return Row{}, fmt.Errorf("opencode store line: no session or type")
	}
	r := Row{RowID: l.RowID, Session: l.Session, Parent: l.Parent, Seq: l.Seq, Type: l.Type}
	if len(l.Data) > 0 && string(l.Data) != "null" {
		r.Data = []byte(l.Data)
		r.Size = int64(len(l.Data))
	}
	return r, nil
}

// Schema is what doctor reports of a database: the migrations OpenCode has
// run (38 for 1.18.33, the newest 20260622202450_simplify_session_input).
type Schema struct {
	Migrations int
	Newest     string // the newest migration's id ("" without a migration table)
}

// DB is an open database. Its methods may be called from any goroutine;
// they take turns on the one connection.
type DB struct {
	path string
	db   *sql.DB
	conn *sql.Conn

	mu      sync.Mutex
	parents map[string]string // session → parent_id, for sessions found
	// lastRow and lastID are the newest row Changes returned (or Current's
	// cursor), to tell a renumbered feed from a continued one.
	lastRow int64
	lastID  string
	shm     shm
}

// Open opens the database at path for reading only (see the package
// comment). It refuses a path that is not a regular file, and a database
// without the tables and columns this reader reads (ErrSchema, or ErrBusy
// while it has no tables at all: being created).
func Open(path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opencode store %s: %w", path, err)
	}
	// safeopen refuses a directory, FIFO, device or socket without
	// blocking; SQLite would block on a FIFO's open.
	f, err := safeopen.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("opencode store: %w", err)
	}
	f.Close()
	// cache_size: SQLite's default page cache (2 MB) was most of the
	// daemon's anonymous memory over OpenCode's database (+5.7 MB after the
	// present state of 1 000 sessions, measured, held by the driver's heap
	// after the read); 64 KiB made that +1.9 MB, as fast (the file's pages
	// are in the OS's cache anyway). 16 KiB was no smaller nor slower, and
	// 2 MB again added 3.7 MB (Current over 1 250 sessions). What SQLite
	// frees stays resident in its allocator (modernc.org/memory keeps freed
	// pages for reuse): closing the connection after a read gave back under
	// 0.2 MB (measured), so it stays open.
	u := url.URL{Scheme: "file", Path: abs, RawQuery: url.Values{
		"mode":    {"ro"},
		"_pragma": {"busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")", "query_only(1)", "cache_size(-64)"},
	}.Encode()}
	db, err := sql.Open(driverName, u.String())
	if err != nil {
		return nil, fmt.Errorf("opencode store %s: %w", abs, err)
	}
	// One connection for good: no pool churn, no closes that look like
	// OpenCode's exit to a watcher.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		return nil, classify(abs, "open", err)
	}
	d := &DB{path: abs, db: db, conn: conn, parents: map[string]string{}, shm: shm{path: abs + "-shm"}}
	if err := d.checkSchema(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// Close closes the connection. It leaves -wal and -shm as they are.
func (d *DB) Close() error {
	d.mu.Lock()
	d.shm.close()
	d.mu.Unlock()
	err := d.conn.Close()
	if e := d.db.Close(); err == nil {
		err = e
	}
	return err
}

// Version is a token of what OpenCode committed, read without a query
// (two system calls): it changes whenever a commit becomes visible. ok is
// false when it cannot tell (no WAL index to read): read to know.
func (d *DB) Version() (v uint64, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shm.version()
}

// Path is the database's absolute path.
func (d *DB) Path() string { return d.path }

// Check opens the database at path, checks its schema and reads its
// migration count, for doctor: found, a regular file, readable, a schema
// this reader knows.
func Check(path string) (Schema, error) {
	d, err := Open(path)
	if err != nil {
		return Schema{}, err
	}
	defer d.Close()
	return d.Schema()
}

// Schema reads the migration table (a database without one has Schema{}).
func (d *DB) Schema() (Schema, error) {
	ctx := context.Background()
	var n int
	if err := d.conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name='migration'`).Scan(&n); err != nil {
		return Schema{}, classify(d.path, "schema", err)
	}
	if n == 0 {
		return Schema{}, nil
	}
	var s Schema
	var newest sql.NullString
	if err := d.conn.QueryRowContext(ctx, `SELECT count(*), max(id) FROM migration`).Scan(&s.Migrations, &newest); err != nil {
		return Schema{}, classify(d.path, "migrations", err)
	}
	s.Newest = newest.String
	return s, nil
}

// checkSchema reads every table's columns in one short read.
func (d *DB) checkSchema() error {
	ctx := context.Background()
	rows, err := d.conn.QueryContext(ctx, `SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type='table'`)
	if err != nil {
		return classify(d.path, "schema", err)
	}
	cols := map[string]map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return classify(d.path, "schema", err)
		}
		if cols[t] == nil {
			cols[t] = map[string]bool{}
		}
		cols[t][c] = true
	}
	if err := rows.Close(); err != nil {
		return classify(d.path, "schema", err)
	}
	if err := rows.Err(); err != nil {
		return classify(d.path, "schema", err)
	}
	if len(cols) == 0 {
		return fmt.Errorf("opencode store %s: %w: no tables yet (being created)", d.path, ErrBusy)
	}
	for _, r := range required {
		if cols[r.table] == nil {
			return fmt.Errorf("opencode store %s: %w: no table %s", d.path, ErrSchema, r.table)
		}
		for _, c := range r.cols {
			if !cols[r.table][c] {
				return fmt.Errorf("opencode store %s: %w: no column %s.%s", d.path, ErrSchema, r.table, c)
			}
		}
	}
	// The feed is the event table's rowid: a WITHOUT ROWID table has none.
	if _, err := d.conn.ExecContext(ctx, `SELECT rowid FROM event LIMIT 0`); err != nil {
		return fmt.Errorf("opencode store %s: %w: event has no rowid: %v", d.path, ErrSchema, err)
	}
	return nil
}

// rowCols selects a Row's columns from event (data bounded by MaxData).
var rowCols = `rowid, id, aggregate_id, seq, type, CASE WHEN octet_length(data) > ` + strconv.Itoa(MaxData) + ` THEN NULL ELSE data END, coalesce(octet_length(data), 0)`

// scanRows reads rowCols rows; the ids come back beside them.
func scanRows(rows *sql.Rows, out []Row, ids *[]string) ([]Row, error) {
	defer rows.Close()
	for rows.Next() {
		var r Row
		var id, session, typ sql.NullString
		var data []byte
		if err := rows.Scan(&r.RowID, &id, &session, &r.Seq, &typ, &data, &r.Size); err != nil {
			return out, err
		}
		r.Session, r.Type, r.Data = session.String, typ.String, data // Scan copied data
		out = append(out, r)
		if ids != nil {
			*ids = append(*ids, id.String)
		}
	}
	return out, rows.Err()
}

// Changes returns the event rows after cursor (an event rowid; 0 for all),
// oldest first, at most max. A cursor that no longer points into the same
// feed is ErrReset.
func (d *DB) Changes(after int64, max int) ([]Row, error) {
	return d.ChangesWithin(after, max, math.MaxInt64)
}

// ChangesWithin is Changes giving at most maxBytes of lines (each row's
// data and LineEnvelope): the sizes are read first, and the first row that
// would pass maxBytes ends the rows, Unread (its data not read, Size its
// line's length), so the caller can make room for it and ask again. Data
// over MaxData is never read: such a row counts its envelope alone.
func (d *DB) ChangesWithin(after int64, max int, maxBytes int64) ([]Row, error) {
	if max <= 0 {
		return nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx := context.Background()
	tx, err := d.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, classify(d.path, "begin", err)
	}
	defer tx.Rollback() // a read: nothing to commit
	if after > 0 {
		if err := d.checkCursor(ctx, tx, after); err != nil {
			return nil, err
		}
	}
	// The rows' sizes (octet_length reads no overflow page), then the data
	// of those that fit.
	q, err := tx.QueryContext(ctx, `SELECT rowid, coalesce(octet_length(data), 0) FROM event WHERE rowid > ? ORDER BY rowid LIMIT ?`, after, max)
	if err != nil {
		return nil, classify(d.path, "changes", err)
	}
	var last, unread, unreadSize int64
	room := maxBytes
	for q.Next() {
		var id, size int64
		if err := q.Scan(&id, &size); err != nil {
			q.Close()
			return nil, classify(d.path, "changes", err)
		}
		if size > MaxData {
			size = 0
		}
		size += LineEnvelope
		if size > room {
			unread, unreadSize = id, size
			break
		}
		room -= size
		last = id
	}
	if err := q.Close(); err != nil {
		return nil, classify(d.path, "changes", err)
	}
	if err := q.Err(); err != nil {
		return nil, classify(d.path, "changes", err)
	}
	var rows []Row
	var ids []string
	if last > 0 {
		q, err := tx.QueryContext(ctx, `SELECT `+rowCols+` FROM event WHERE rowid > ? AND rowid <= ? ORDER BY rowid`, after, last)
		if err != nil {
			return nil, classify(d.path, "changes", err)
		}
		if rows, err = scanRows(q, nil, &ids); err != nil {
			return nil, classify(d.path, "changes", err)
		}
	}
	if unread > 0 {
		r := Row{RowID: unread, Size: unreadSize, Unread: true}
		var id, session, typ sql.NullString
		if err := tx.QueryRowContext(ctx, `SELECT id, aggregate_id, seq, type FROM event WHERE rowid = ?`, unread).Scan(&id, &session, &r.Seq, &typ); err != nil {
			return nil, classify(d.path, "changes", err)
		}
		r.Session, r.Type = session.String, typ.String
		rows = append(rows, r)
		ids = append(ids, id.String)
	}
	if err := d.setParents(ctx, tx, rows); err != nil {
		return nil, err
	}
	// The cursor moves past the rows read, not the unread one.
	n := len(rows)
	if unread > 0 {
		n--
	}
	if n > 0 {
		d.lastRow, d.lastID = rows[n-1].RowID, ids[n-1]
	}
	return rows, nil
}

// checkCursor tells a continued feed from a renumbered or replaced one:
// the row at the cursor must be the one Changes last returned there, and
// a cursor past the end is only possible in another feed.
func (d *DB) checkCursor(ctx context.Context, tx *sql.Tx, after int64) error {
	var id sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT id FROM event WHERE rowid = ?`, after).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT max(rowid) FROM event`).Scan(&last); err != nil {
			return classify(d.path, "cursor", err)
		}
		if last.Int64 < after {
			return fmt.Errorf("opencode store %s: %w: cursor %d is past the last event (%d)", d.path, ErrReset, after, last.Int64)
		}
		return nil // that row was deleted; the rest keep their rowids
	case err != nil:
		return classify(d.path, "cursor", err)
	}
	if after == d.lastRow && d.lastID != "" && id.String != d.lastID {
		return fmt.Errorf("opencode store %s: %w: event %d is %s, was %s", d.path, ErrReset, after, id.String, d.lastID)
	}
	return nil
}

// setParents fills Parent from the cache, reading the sessions not in it.
// A session without a row yet (or any more) has Parent "" and is looked
// up again next time.
func (d *DB) setParents(ctx context.Context, tx *sql.Tx, rows []Row) error {
	for i := range rows {
		s := rows[i].Session
		p, ok := d.parents[s]
		if !ok {
			var parent sql.NullString
			err := tx.QueryRowContext(ctx, `SELECT parent_id FROM session WHERE id = ?`, s).Scan(&parent)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return classify(d.path, "session", err)
			default:
				p = parent.String
				d.parents[s] = p
			}
		}
		rows[i].Parent = p
	}
	return nil
}

// latestTurn reads a session's latest turn up to a cursor in one
// statement: from the turn's start on (the first event of its newest user
// message, its insert; seq -1, all its rows, when it has none; data that is
// not JSON is skipped, never an error), its ?3 newest rows and its first
// row, in no order. Rows after the cursor (?2) are not looked at.
var latestTurn = `
WITH u AS (
  SELECT json_extract(data, '$.info.id') AS mid FROM event
  WHERE aggregate_id = ?1 AND type = 'message.updated.1' AND rowid <= ?2
    AND json_valid(data) AND json_extract(data, '$.info.role') = 'user'
  ORDER BY seq DESC LIMIT 1),
t(start) AS (
  SELECT coalesce(min(e.seq), -1) FROM event e, u
  WHERE e.aggregate_id = ?1 AND e.type = 'message.updated.1' AND e.rowid <= ?2
    AND json_valid(e.data) AND json_extract(e.data, '$.info.id') = u.mid)
SELECT * FROM (SELECT ` + rowCols + ` FROM event, t WHERE aggregate_id = ?1 AND seq >= t.start AND rowid <= ?2 ORDER BY seq DESC LIMIT ?3)
UNION ALL
SELECT * FROM (SELECT ` + rowCols + ` FROM event, t WHERE aggregate_id = ?1 AND seq >= t.start AND rowid <= ?2 ORDER BY seq LIMIT 1)`

type session struct {
	id, parent string
	updated    int64 // time_updated, Unix ms
}

// Current is what a reader starting now needs: for each session (root or
// child) updated at or after since, newest first, the event rows of its
// latest turn (from its newest user message's first row on; all its rows
// if it has no user message yet), oldest first, given to each in one call
// per session; and the cursor (the newest event rowid) to follow with
// Changes. A turn of more than perSession+1 rows gives its first row (the
// user message: the turn began) and its perSession newest: what its state
// is now, in bounded memory and time however long the turn (a session's
// present state is its latest evidence). each may not keep rows; an error
// from it ends the read and is returned.
//
// Each step is its own short read (no transaction is held while each
// runs); rows after the cursor are left to Changes, so nothing is given
// twice or missed.
func (d *DB) Current(since time.Time, perSession int, each func(rows []Row) error) (cursor int64, err error) {
	perSession = max(perSession, 1)
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx := context.Background()
	sessions, cursor, err := d.sessionsSince(ctx, since)
	if err != nil {
		return 0, err
	}
	// Prepared once for every session: preparing it each time was a fifth
	// of the read (1 250 sessions, measured).
	turnQ, err := d.conn.PrepareContext(ctx, latestTurn)
	if err != nil {
		return 0, classify(d.path, "turn", err)
	}
	defer turnQ.Close()
	var turn []Row
	for _, s := range sessions {
		q, err := turnQ.QueryContext(ctx, s.id, cursor, perSession+1)
		if err != nil {
			return 0, classify(d.path, "turn", err)
		}
		if turn, err = scanRows(q, turn[:0], nil); err != nil {
			return 0, classify(d.path, "turn", err)
		}
		if len(turn) == 0 {
			continue
		}
		// The newest rows and the first: oldest first, the first once, and
		// the newest but perSession dropped when there are more.
		slices.SortFunc(turn, func(a, b Row) int { return cmp.Compare(a.Seq, b.Seq) })
		turn = slices.CompactFunc(turn, func(a, b Row) bool { return a.RowID == b.RowID })
		if n := len(turn); n > perSession+1 {
			turn = append(turn[:1], turn[n-perSession:]...)
		}
		for i := range turn {
			turn[i].Parent = s.parent
		}
		if err := each(turn); err != nil {
			return 0, err
		}
		clear(turn) // its data, for the collector
	}
	return cursor, nil
}

// sessionsSince reads the cursor and the sessions updated at or after
// since, newest first, in one read. Their parents are not cached: most
// stored sessions never change again, and Changes looks up those that do.
func (d *DB) sessionsSince(ctx context.Context, since time.Time) ([]session, int64, error) {
	tx, err := d.conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, classify(d.path, "begin", err)
	}
	defer tx.Rollback()
	// The cursor row's id too, so Changes can tell the feed it follows.
	var cursor int64
	var id sql.NullString
	switch err := tx.QueryRowContext(ctx, `SELECT rowid, id FROM event ORDER BY rowid DESC LIMIT 1`).Scan(&cursor, &id); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, 0, classify(d.path, "cursor", err)
	default:
		d.lastRow, d.lastID = cursor, id.String
	}
	// Sorted here, not by SQLite: time_updated has no index, and SQLite's
	// sorter's buffers stay in the driver's allocator (resident) for good.
	q, err := tx.QueryContext(ctx, `SELECT id, parent_id, time_updated FROM session WHERE time_updated >= ?`, since.UnixMilli())
	if err != nil {
		return nil, 0, classify(d.path, "sessions", err)
	}
	defer q.Close()
	var out []session
	for q.Next() {
		var id, parent sql.NullString
		var updated sql.NullInt64
		if err := q.Scan(&id, &parent, &updated); err != nil {
			return nil, 0, classify(d.path, "sessions", err)
		}
		out = append(out, session{id.String, parent.String, updated.Int64})
	}
	if err := q.Err(); err != nil {
		return nil, 0, classify(d.path, "sessions", err)
	}
	// Newest first.
	slices.SortFunc(out, func(a, b session) int {
		if c := cmp.Compare(b.updated, a.updated); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out, cursor, nil
}

// classify wraps a driver error: locks and I/O that may pass are ErrBusy;
// a file that is not a database, or corrupt pages, ErrDamaged; a missing
// table or column is ErrSchema.
func classify(path, op string, err error) error {
	if code, ok := sqliteCode(err); ok {
		switch code {
		case codeBusy, codeLocked, codeProtocol, codeCantOpen, codeIOErr, codeEmpty:
			return fmt.Errorf("opencode store %s: %s: %w: %w", path, op, ErrBusy, err)
		case codeNotADB, codeCorrupt:
			return fmt.Errorf("opencode store %s: %s: %w: %w", path, op, ErrDamaged, err)
		}
	}
	if noSuch(err) {
		return fmt.Errorf("opencode store %s: %s: %w: %w", path, op, ErrSchema, err)
	}
	return fmt.Errorf("opencode store %s: %s: %w", path, op, err)
}
