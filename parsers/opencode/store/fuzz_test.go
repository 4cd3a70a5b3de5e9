package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
)

// lineRef is Row.Line as encoding/json makes it: the line struct through
// an encoder without HTML escaping, data compacted by it.
func lineRef(r Row) []byte {
	l := line{Type: r.Type, Session: r.Session, Parent: r.Parent, Seq: r.Seq, RowID: r.RowID}
	switch {
	case r.Data == nil:
		l.Data = json.RawMessage("null")
	case !json.Valid(r.Data):
		s, _ := json.Marshal(string(r.Data))
		l.Data = s
	default:
		l.Data = r.Data
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(l); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// FuzzLine: every row makes one valid JSON line, the one encoding/json
// makes of it (lineRef), that ParseLine reads back; JSON data is kept (compacted), other data carried as a string.
func FuzzLine(f *testing.F) {
	f.Add("message.updated.1", "ses_1", "", int64(0), int64(1), []byte(`{"info":{"role":"user"}}`))
	f.Add("message.part.updated.1", "ses_2", "ses_1", int64(5), int64(9), []byte("{\n\"a\":\"<&>\"}"))
	f.Add("x", "s", "p", int64(-1), int64(-1), []byte("\xff{"))
	f.Add("t\u2028\"\\", "s\x01\xfe", "p<>&", int64(3), int64(4), []byte("\"a\u2029\\u00e9\" "))
	f.Add("t", "s", "", int64(1), int64(2), []byte("[1, 2,\t{\"k\" : \"v w\"}]"))
	f.Add("t", "s", "", int64(1), int64(2), []byte{})
	f.Fuzz(func(t *testing.T, typ, session, parent string, seq, rowid int64, data []byte) {
		r := Row{RowID: rowid, Session: session, Parent: parent, Seq: seq, Type: typ, Data: data}
		l := r.Line()
		if ref := lineRef(r); !bytes.Equal(l, ref) {
			t.Fatalf("Line = %q, encoding/json makes %q", l, ref)
		}
		if !json.Valid(l) || bytes.ContainsAny(l, "\r\n") {
			t.Fatalf("Line = %q: not one JSON line", l)
		}
		back, err := ParseLine(l)
		if session == "" || typ == "" {
			if err == nil {
				t.Fatalf("ParseLine took a line without session or type: %q", l)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseLine(%q): %v", l, err)
		}
		if !utf8.ValidString(typ) || !utf8.ValidString(session) || !utf8.ValidString(parent) {
			return // marshalled with U+FFFD (each on its own: "\xcd"+"\xba" is valid)
		}
		if back.Type != typ || back.Session != session || back.Parent != parent || back.Seq != seq || back.RowID != rowid {
			t.Fatalf("round trip: %+v from %+v", back, r)
		}
		switch {
		case data == nil:
			if back.Data != nil {
				t.Fatalf("nil data came back as %q", back.Data)
			}
		case json.Valid(data):
			var want bytes.Buffer
			json.Compact(&want, data)
			if !bytes.Equal(back.Data, want.Bytes()) {
				t.Fatalf("data %q came back as %q", want.Bytes(), back.Data)
			}
		case utf8.Valid(data):
			var s string
			if err := json.Unmarshal(back.Data, &s); err != nil || s != string(data) {
				t.Fatalf("non-JSON data %q came back as %q", data, back.Data)
			}
		}
	})
}

// FuzzOpenBytes: whatever bytes are at the path (a database cut short,
// corrupted, or none), Open and the reads return rows or an error, never
// panic or hang.
func FuzzOpenBytes(f *testing.F) {
	w := storetest.RealDB(f, filepath.Join(f.TempDir(), "opencode.db"))
	w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	whole, err := os.ReadFile(w.Path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(whole)
	f.Add(whole[:100])
	f.Add(whole[:len(whole)/2])
	flipped := bytes.Clone(whole)
	for i := 4096; i < len(flipped); i += 997 {
		flipped[i] ^= 0x5a
	}
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "opencode.db")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Open(path)
		if err != nil {
			return
		}
		defer d.Close()
		_, _ = d.Changes(0, 100)
		_, _ = d.Changes(3, 100)
		_, _ = d.Current(time.Time{}, 100, func([]Row) error { return nil })
		_, _ = d.Schema()
	})
}
