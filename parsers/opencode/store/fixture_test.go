package store

import (
	"database/sql"
	_ "embed"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
)

// schemaSQL is OpenCode 1.18.33's own schema (testdata/PROVENANCE).
//
//go:embed testdata/schema.sql
var schemaSQL string

// writer plays OpenCode: the same driver in read-write WAL mode with
// OpenCode's connection settings (formats/opencode.md §3.1), writing rows
// and their event rows as §3.5 orders them.
type writer struct {
	tb   testing.TB
	path string
	db   *sql.DB
	now  int64 // ms, advanced by every write
	n    int   // id counter
	seq  map[string]int64
	// batch, when set, is the one transaction every write joins (the
	// benchmarks' fixture: the same rows, faster to make).
	batch *sql.Tx
}

// openWriter opens (creating) the database at path with OpenCode's
// pragmas; schema decides whether OpenCode's schema is created.
func openWriter(tb testing.TB, path string, schema bool) *writer {
	tb.Helper()
	u := url.URL{Scheme: "file", Path: path, RawQuery: url.Values{"_pragma": {
		"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(5000)", "foreign_keys(ON)",
	}}.Encode()}
	db, err := sql.Open(driverName, u.String())
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	w := &writer{tb: tb, path: path, db: db, now: 1796182095188, seq: map[string]int64{}}
	tb.Cleanup(func() { db.Close() })
	if schema {
		w.exec(schemaSQL)
		w.exec(`INSERT INTO project(id, worktree, time_created, time_updated, sandboxes) VALUES('global', '/p', 1, 1, '[]')`)
	}
	return w
}

func (w *writer) exec(q string, args ...any) {
	w.tb.Helper()
	if _, err := w.db.Exec(q, args...); err != nil {
		w.tb.Fatalf("writer: %v\n%s", err, q)
	}
}

func (w *writer) id(prefix string) string {
	w.n++
	return fmt.Sprintf("%s_%012x%014d", prefix, w.now*4096+int64(w.n), w.n)
}

// tx runs f in one write transaction, as OpenCode writes a row with its
// event.
func (w *writer) tx(f func(tx *sql.Tx)) {
	w.tb.Helper()
	if w.batch != nil {
		f(w.batch)
		return
	}
	tx, err := w.db.Begin()
	if err != nil {
		w.tb.Fatal(err)
	}
	f(tx)
	if err := tx.Commit(); err != nil {
		w.tb.Fatal(err)
	}
}

func mustExec(tb testing.TB, tx *sql.Tx, q string, args ...any) {
	tb.Helper()
	if _, err := tx.Exec(q, args...); err != nil {
		tb.Fatalf("writer: %v\n%s", err, q)
	}
}

// event appends session's next event row.
func (w *writer) event(tx *sql.Tx, session, typ, data string) {
	seq, ok := w.seq[session]
	if !ok {
		mustExec(w.tb, tx, `INSERT INTO event_sequence(aggregate_id, seq) VALUES(?, 0)`, session)
	}
	mustExec(w.tb, tx, `INSERT INTO event(id, aggregate_id, seq, type, data) VALUES(?, ?, ?, ?, ?)`, w.id("evt"), session, seq, typ, data)
	mustExec(w.tb, tx, `UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?`, seq, session)
	w.seq[session] = seq + 1
}

func (w *writer) sessionInfo(id, parent string) string {
	p := ""
	if parent != "" {
		p = fmt.Sprintf(`"parentID":%q,`, parent)
	}
	return fmt.Sprintf(`{"id":%q,"slug":"mighty-tiger","projectID":"global","directory":"/p",%s"title":"New session","version":"1.18.33","time":{"created":%d,"updated":%d}}`, id, p, w.now, w.now)
}

// session creates a session (a child when parent is set): the row and
// session.created.1.
func (w *writer) session(parent string) string {
	w.now++
	id := w.id("ses")
	var par any
	if parent != "" {
		par = parent
	}
	w.tx(func(tx *sql.Tx) {
		mustExec(w.tb, tx, `INSERT INTO session(id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES(?, 'global', ?, 'mighty-tiger', '/p', 'New session', '1.18.33', ?, ?)`, id, par, w.now, w.now)
		w.event(tx, id, "session.created.1", fmt.Sprintf(`{"sessionID":%q,"info":%s}`, id, w.sessionInfo(id, parent)))
	})
	return id
}

// touch is session.updated.1 with time_updated now.
func (w *writer) touch(tx *sql.Tx, session string) {
	mustExec(w.tb, tx, `UPDATE session SET time_updated = ? WHERE id = ?`, w.now, session)
	w.event(tx, session, "session.updated.1", fmt.Sprintf(`{"sessionID":%q,"info":%s}`, session, w.sessionInfo(session, "")))
}

// message writes a message row (insert or update) and its event.
func (w *writer) message(tx *sql.Tx, session, id, info string) {
	w.now++
	mustExec(w.tb, tx, `INSERT INTO message(id, session_id, time_created, time_updated, data) VALUES(?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data`, id, session, w.now, w.now, info)
	w.event(tx, session, "message.updated.1", fmt.Sprintf(`{"sessionID":%q,"info":{"id":%q,"sessionID":%q,%s}}`, session, id, session, info[1:len(info)-1]))
}

// part writes a part row (insert or update) and its event.
func (w *writer) part(tx *sql.Tx, session, msg, id, body string) {
	w.now++
	mustExec(w.tb, tx, `INSERT INTO part(id, message_id, session_id, time_created, time_updated, data) VALUES(?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data`, id, msg, session, w.now, w.now, body)
	w.event(tx, session, "message.part.updated.1", fmt.Sprintf(`{"sessionID":%q,"part":{"id":%q,"sessionID":%q,"messageID":%q,%s},"time":%d}`, session, id, session, msg, body[1:len(body)-1], w.now))
}

// turn writes one whole turn as OpenCode 1.18.33 does (§3.5): the user
// message and its text part, then per step an assistant message with
// step-start, text, tools tool parts (pending → running → completed),
// step-finish and its completion; the last step ends with finish "stop".
// It returns the user message's id. Each write is its own transaction.
func (w *writer) turn(session string, steps, tools int) string {
	user := w.id("msg")
	w.tx(func(tx *sql.Tx) {
		w.message(tx, session, user, fmt.Sprintf(`{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}`, w.now))
	})
	w.tx(func(tx *sql.Tx) {
		w.part(tx, session, user, w.id("prt"), `{"type":"text","text":"run the tests and tell me what failed"}`)
	})
	w.tx(func(tx *sql.Tx) { w.touch(tx, session) })
	for s := 0; s < steps; s++ {
		last := s == steps-1
		asst := w.id("msg")
		created := w.now
		head := fmt.Sprintf(`"parentID":%q,"role":"assistant","mode":"build","agent":"build","path":{"cwd":"/p","root":"/p"},"cost":0,"modelID":"fake-model","providerID":"fake"`, user)
		w.tx(func(tx *sql.Tx) {
			w.message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"time":{"created":%d}}`, head, created))
		})
		w.tx(func(tx *sql.Tx) {
			w.part(tx, session, asst, w.id("prt"), `{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}`)
		})
		text := w.id("prt")
		w.tx(func(tx *sql.Tx) { w.part(tx, session, asst, text, `{"type":"text","text":""}`) })
		w.tx(func(tx *sql.Tx) {
			w.part(tx, session, asst, text, fmt.Sprintf(`{"type":"text","text":"Let me look at the failing test first.","time":{"start":%d,"end":%d}}`, w.now-5, w.now))
		})
		finish := "stop"
		if !last && tools > 0 {
			finish = "tool-calls"
			for i := 0; i < tools; i++ {
				tool := w.id("prt")
				call := fmt.Sprintf("call_%d", w.n)
				w.tx(func(tx *sql.Tx) {
					w.part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"pending","input":{},"raw":""}}`, call))
				})
				w.tx(func(tx *sql.Tx) {
					w.part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"running","input":{"command":"go test ./...","description":"Run tests"},"metadata":{"output":""},"time":{"start":%d}}}`, call, w.now))
				})
				w.tx(func(tx *sql.Tx) {
					w.part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"completed","input":{"command":"go test ./...","description":"Run tests"},"output":"ok  \tgithub.com/x/y\t0.01s\n","title":"go test ./...","metadata":{"output":"ok\n","exit":0,"truncated":false},"time":{"start":%d,"end":%d}}}`, call, w.now-3, w.now))
				})
			}
		}
		w.tx(func(tx *sql.Tx) {
			w.part(tx, session, asst, w.id("prt"), fmt.Sprintf(`{"type":"step-finish","reason":%q,"cost":0,"tokens":{"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}}}`, finish))
		})
		w.tx(func(tx *sql.Tx) {
			w.message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"total":1025,"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"time":{"created":%d},"finish":%q}`, head, created, finish))
		})
		w.tx(func(tx *sql.Tx) {
			w.message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"total":1025,"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"time":{"created":%d,"completed":%d},"finish":%q}`, head, created, w.now, finish))
		})
	}
	w.tx(func(tx *sql.Tx) {
		w.touch(tx, session)
		w.message(tx, session, user, fmt.Sprintf(`{"role":"user","time":{"created":%d},"summary":{"diffs":[]},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}`, w.now))
	})
	return user
}

// fixture makes an OpenCode-shaped database at dir/opencode.db with
// sessions root sessions (every fourth with a child), each with turns
// turns of 3 steps of 2 tools (about 40 event rows a turn), and returns
// its path and event row count.
func fixture(tb testing.TB, dir string, sessions, turns int) (string, int64) {
	tb.Helper()
	path := filepath.Join(dir, "opencode.db")
	w := openWriter(tb, path, true)
	tx, err := w.db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	w.batch = tx
	for i := 0; i < sessions; i++ {
		s := w.session("")
		for t := 0; t < turns; t++ {
			w.turn(s, 3, 2)
		}
		if i%4 == 3 {
			c := w.session(s)
			w.turn(c, 2, 1)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	w.batch = nil
	var n int64
	if err := w.db.QueryRow(`SELECT count(*) FROM event`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return path, n
}
