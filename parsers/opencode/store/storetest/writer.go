package storetest

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// T is what the writer needs of its caller: testing.TB has it, and a
// bench program can give it with a Fatalf that exits.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// cleaner is the part of testing.TB that closes the writer when the test
// ends; a caller without it closes the writer itself.
type cleaner interface{ Cleanup(func()) }

// Schema is OpenCode 1.18.33's own schema (../testdata/PROVENANCE), read
// from the source tree as RealDB's dump is.
func Schema(t T) string {
	t.Helper()
	schemaOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join(testdata(), "schema.sql"))
		schema.sql, schema.err = string(b), err
	})
	if schema.err != nil {
		t.Fatalf("storetest: OpenCode's schema: %v", schema.err)
	}
	return schema.sql
}

var (
	schemaOnce sync.Once
	schema     struct {
		sql string
		err error
	}
)

// testdata is the store package's testdata folder.
func testdata() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "testdata")
}

// Writer plays OpenCode: the store reader's driver in read-write WAL mode
// with OpenCode's connection settings (formats/opencode.md §3.1), writing
// rows and their event rows as §3.5 orders them, each write (a row with its
// event) one transaction.
type Writer struct {
	// Path is the database's file, DB the writer's one connection.
	Path string
	DB   *sql.DB
	// Now is the clock the rows are stamped with (Unix ms), advanced by
	// every write; set it to place the rows in time.
	Now int64
	// BeforeCommit, when set, runs right before each transaction commits:
	// where a latency measurement starts.
	BeforeCommit func()

	t     T
	n     int              // id counter
	seq   map[string]int64 // each session's next event seq
	batch *sql.Tx          // the one transaction every write joins (Batch)
	// prompt is each session's last user message (Prompt), which Finish
	// answers.
	prompt map[string]string
}

// NewWriter creates the database at path (its folder too) with OpenCode's
// schema and its "global" project, as OpenCode's first start does. It is
// closed when the test ends (testing.TB), or by Close.
func NewWriter(t T, path string) *Writer {
	t.Helper()
	w := OpenWriter(t, path)
	w.Exec(Schema(t))
	w.Exec(`INSERT INTO project(id, worktree, time_created, time_updated, sandboxes) VALUES('global', '/p', 1, 1, '[]')`)
	return w
}

// OpenWriter opens (creating) the database at path with OpenCode's
// connection settings, creating no schema.
func OpenWriter(t T, path string) *Writer {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: url.Values{"_pragma": {
		"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(5000)", "foreign_keys(ON)",
	}}.Encode()}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	db.SetMaxOpenConns(1)
	w := &Writer{t: t, Path: path, DB: db, Now: 1796182095188, seq: map[string]int64{}, prompt: map[string]string{}}
	if c, ok := t.(cleaner); ok {
		c.Cleanup(func() { db.Close() })
	}
	return w
}

// Close closes the writer's connection.
func (w *Writer) Close() error { return w.DB.Close() }

// Exec runs q outside the writer's bookkeeping (pragmas, DDL, damage).
func (w *Writer) Exec(q string, args ...any) {
	w.t.Helper()
	if _, err := w.DB.Exec(q, args...); err != nil {
		w.t.Fatalf("storetest writer: %v\n%s", err, q)
	}
}

// ForgetSequences forgets the sessions' event sequences, as after
// DELETE FROM event_sequence: the next event of each starts at 0.
func (w *Writer) ForgetSequences() { w.seq = map[string]int64{} }

// ID is a new id of OpenCode's shape: prefix, "_", 12 hex digits of time
// and 14 more characters (formats/opencode.md §3.3).
func (w *Writer) ID(prefix string) string {
	w.n++
	return fmt.Sprintf("%s_%012x%014d", prefix, w.Now*4096+int64(w.n), w.n)
}

// Tx runs f in one write transaction, as OpenCode writes a row with its
// event (inside Batch: in the batch's).
func (w *Writer) Tx(f func(tx *sql.Tx)) {
	w.t.Helper()
	if w.batch != nil {
		f(w.batch)
		return
	}
	tx, err := w.DB.Begin()
	if err != nil {
		w.t.Fatalf("storetest writer: %v", err)
	}
	f(tx)
	if w.BeforeCommit != nil {
		w.BeforeCommit()
	}
	if err := tx.Commit(); err != nil {
		w.t.Fatalf("storetest writer: %v", err)
	}
}

// Batch runs f with every write in one transaction: the same rows as one
// by one, made much faster (fixtures).
func (w *Writer) Batch(f func()) {
	w.t.Helper()
	tx, err := w.DB.Begin()
	if err != nil {
		w.t.Fatalf("storetest writer: %v", err)
	}
	w.batch = tx
	defer func() { w.batch = nil }()
	f()
	if err := tx.Commit(); err != nil {
		w.t.Fatalf("storetest writer: %v", err)
	}
}

func (w *Writer) exec(tx *sql.Tx, q string, args ...any) {
	w.t.Helper()
	if _, err := tx.Exec(q, args...); err != nil {
		w.t.Fatalf("storetest writer: %v\n%s", err, q)
	}
}

// Event appends session's next event row.
func (w *Writer) Event(tx *sql.Tx, session, typ, data string) {
	w.t.Helper()
	seq, ok := w.seq[session]
	if !ok {
		w.exec(tx, `INSERT INTO event_sequence(aggregate_id, seq) VALUES(?, 0)`, session)
	}
	w.exec(tx, `INSERT INTO event(id, aggregate_id, seq, type, data) VALUES(?, ?, ?, ?, ?)`, w.ID("evt"), session, seq, typ, data)
	w.exec(tx, `UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?`, seq, session)
	w.seq[session] = seq + 1
}

func (w *Writer) sessionInfo(id, parent string) string {
	p := ""
	if parent != "" {
		p = fmt.Sprintf(`"parentID":%q,`, parent)
	}
	return fmt.Sprintf(`{"id":%q,"slug":"mighty-tiger","projectID":"global","directory":"/p",%s"title":"New session","version":"1.18.33","time":{"created":%d,"updated":%d}}`, id, p, w.Now, w.Now)
}

// Session creates a session (a child when parent is set): the row and
// session.created.1. It returns the session's id.
func (w *Writer) Session(parent string) string {
	w.t.Helper()
	w.Now++
	id := w.ID("ses")
	var par any
	if parent != "" {
		par = parent
	}
	w.Tx(func(tx *sql.Tx) {
		w.exec(tx, `INSERT INTO session(id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES(?, 'global', ?, 'mighty-tiger', '/p', 'New session', '1.18.33', ?, ?)`, id, par, w.Now, w.Now)
		w.Event(tx, id, "session.created.1", fmt.Sprintf(`{"sessionID":%q,"info":%s}`, id, w.sessionInfo(id, parent)))
	})
	return id
}

// Touch is session.updated.1 with time_updated now.
func (w *Writer) Touch(tx *sql.Tx, session string) {
	w.t.Helper()
	w.exec(tx, `UPDATE session SET time_updated = ? WHERE id = ?`, w.Now, session)
	w.Event(tx, session, "session.updated.1", fmt.Sprintf(`{"sessionID":%q,"info":%s}`, session, w.sessionInfo(session, "")))
}

// Message writes a message row (insert or update) and its event; info is
// the message's JSON object without its id and sessionID.
func (w *Writer) Message(tx *sql.Tx, session, id, info string) {
	w.t.Helper()
	w.Now++
	w.exec(tx, `INSERT INTO message(id, session_id, time_created, time_updated, data) VALUES(?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data`, id, session, w.Now, w.Now, info)
	w.Event(tx, session, "message.updated.1", fmt.Sprintf(`{"sessionID":%q,"info":{"id":%q,"sessionID":%q,%s}}`, session, id, session, info[1:len(info)-1]))
}

// Part writes a part row (insert or update) and its event; body is the
// part's JSON object without its ids.
func (w *Writer) Part(tx *sql.Tx, session, msg, id, body string) {
	w.t.Helper()
	w.Now++
	w.exec(tx, `INSERT INTO part(id, message_id, session_id, time_created, time_updated, data) VALUES(?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET time_updated = excluded.time_updated, data = excluded.data`, id, msg, session, w.Now, w.Now, body)
	w.Event(tx, session, "message.part.updated.1", fmt.Sprintf(`{"sessionID":%q,"part":{"id":%q,"sessionID":%q,"messageID":%q,%s},"time":%d}`, session, id, session, msg, body[1:len(body)-1], w.Now))
}

func userInfo(created int64) string {
	return fmt.Sprintf(`{"role":"user","time":{"created":%d},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}`, created)
}

func assistantHead(user string) string {
	return fmt.Sprintf(`"parentID":%q,"role":"assistant","mode":"build","agent":"build","path":{"cwd":"/p","root":"/p"},"cost":0,"modelID":"fake-model","providerID":"fake"`, user)
}

// Prompt is a turn's start alone: the user message's first row and its
// event, one transaction (one event row). It returns the message's id.
func (w *Writer) Prompt(session string) string {
	w.t.Helper()
	user := w.ID("msg")
	w.Tx(func(tx *sql.Tx) { w.Message(tx, session, user, userInfo(w.Now)) })
	w.prompt[session] = user
	return user
}

// Finish is a turn's end alone: the answer to session's last Prompt
// completed with finish "stop" and its event, one transaction (one event
// row). It returns the answer's id.
func (w *Writer) Finish(session string) string {
	w.t.Helper()
	asst := w.ID("msg")
	created := w.Now
	w.Tx(func(tx *sql.Tx) {
		w.Message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"total":1025,"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"time":{"created":%d,"completed":%d},"finish":"stop"}`,
			assistantHead(w.prompt[session]), created, w.Now+1))
	})
	return asst
}

// Turn writes one whole turn as OpenCode 1.18.33 does (§3.5): the user
// message and its text part, then per step an assistant message with
// step-start, text, tools tool parts (pending → running → completed),
// step-finish and its completion; the last step ends with finish "stop".
// It returns the user message's id. Each write is its own transaction.
func (w *Writer) Turn(session string, steps, tools int) string {
	w.t.Helper()
	user := w.ID("msg")
	w.Tx(func(tx *sql.Tx) { w.Message(tx, session, user, userInfo(w.Now)) })
	w.Tx(func(tx *sql.Tx) {
		w.Part(tx, session, user, w.ID("prt"), `{"type":"text","text":"run the tests and tell me what failed"}`)
	})
	w.Tx(func(tx *sql.Tx) { w.Touch(tx, session) })
	for s := 0; s < steps; s++ {
		last := s == steps-1
		asst := w.ID("msg")
		created := w.Now
		head := assistantHead(user)
		w.Tx(func(tx *sql.Tx) {
			w.Message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"input":0,"output":0,"reasoning":0,"cache":{"read":0,"write":0}},"time":{"created":%d}}`, head, created))
		})
		w.Tx(func(tx *sql.Tx) {
			w.Part(tx, session, asst, w.ID("prt"), `{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}`)
		})
		text := w.ID("prt")
		w.Tx(func(tx *sql.Tx) { w.Part(tx, session, asst, text, `{"type":"text","text":""}`) })
		w.Tx(func(tx *sql.Tx) {
			w.Part(tx, session, asst, text, fmt.Sprintf(`{"type":"text","text":"Let me look at the failing test first.","time":{"start":%d,"end":%d}}`, w.Now-5, w.Now))
		})
		finish := "stop"
		if !last && tools > 0 {
			finish = "tool-calls"
			for i := 0; i < tools; i++ {
				tool := w.ID("prt")
				call := fmt.Sprintf("call_%d", w.n)
				w.Tx(func(tx *sql.Tx) {
					w.Part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"pending","input":{},"raw":""}}`, call))
				})
				w.Tx(func(tx *sql.Tx) {
					w.Part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"running","input":{"command":"go test ./...","description":"Run tests"},"metadata":{"output":""},"time":{"start":%d}}}`, call, w.Now))
				})
				w.Tx(func(tx *sql.Tx) {
					w.Part(tx, session, asst, tool, fmt.Sprintf(`{"type":"tool","callID":%q,"tool":"bash","state":{"status":"completed","input":{"command":"go test ./...","description":"Run tests"},"output":"ok  \tgithub.com/x/y\t0.01s\n","title":"go test ./...","metadata":{"output":"ok\n","exit":0,"truncated":false},"time":{"start":%d,"end":%d}}}`, call, w.Now-3, w.Now))
				})
			}
		}
		w.Tx(func(tx *sql.Tx) {
			w.Part(tx, session, asst, w.ID("prt"), fmt.Sprintf(`{"type":"step-finish","reason":%q,"cost":0,"tokens":{"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}}}`, finish))
		})
		w.Tx(func(tx *sql.Tx) {
			w.Message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"total":1025,"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"time":{"created":%d},"finish":%q}`, head, created, finish))
		})
		w.Tx(func(tx *sql.Tx) {
			w.Message(tx, session, asst, fmt.Sprintf(`{%s,"tokens":{"total":1025,"input":1020,"output":5,"reasoning":0,"cache":{"write":0,"read":0}},"time":{"created":%d,"completed":%d},"finish":%q}`, head, created, w.Now, finish))
		})
	}
	w.Tx(func(tx *sql.Tx) {
		w.Touch(tx, session)
		w.Message(tx, session, user, fmt.Sprintf(`{"role":"user","time":{"created":%d},"summary":{"diffs":[]},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}`, w.Now))
	})
	return user
}

// Fixture fills w's database with sessions root sessions (every fourth
// with a child session), each with turns turns of 3 steps of 2 tools
// (about 40 event rows a turn; a child has one turn of 2 steps of 1 tool),
// in one transaction, and returns the event table's row count.
func (w *Writer) Fixture(sessions, turns int) int64 {
	w.t.Helper()
	w.Batch(func() {
		for i := 0; i < sessions; i++ {
			s := w.Session("")
			for t := 0; t < turns; t++ {
				w.Turn(s, 3, 2)
			}
			if i%4 == 3 {
				c := w.Session(s)
				w.Turn(c, 2, 1)
			}
		}
	})
	var n int64
	if err := w.DB.QueryRow(`SELECT count(*) FROM event`).Scan(&n); err != nil {
		w.t.Fatalf("storetest writer: %v", err)
	}
	return n
}

// Stream writes n updates of one text part of an answer in session (one
// this writer made) as event rows alone, in one statement: a turn of n
// rows, written in a fraction of the time one write each takes (tests of
// the bounds on a long turn).
func (w *Writer) Stream(session string, n int) {
	w.t.Helper()
	first, ok := w.seq[session]
	if !ok {
		w.t.Fatalf("storetest writer: Stream in %s, a session it did not make", session)
	}
	w.Now++
	part, msg := w.ID("prt"), w.ID("msg")
	w.Tx(func(tx *sql.Tx) {
		w.exec(tx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i+1 < ?2)
			INSERT INTO event(id, aggregate_id, seq, type, data)
			SELECT ?3 || '_' || i, ?1, ?4 + i, 'message.part.updated.1',
				json_object('sessionID', ?1, 'part', json_object('id', ?5, 'sessionID', ?1, 'messageID', ?6, 'type', 'text', 'text', 'streaming ' || i), 'time', ?7 + i)
			FROM n`, session, n, w.ID("evt"), first, part, msg, w.Now)
		w.exec(tx, `UPDATE event_sequence SET seq = ? WHERE aggregate_id = ?`, first+int64(n)-1, session)
		w.exec(tx, `UPDATE session SET time_updated = ? WHERE id = ?`, w.Now, session)
		w.seq[session] = first + int64(n)
	})
}
