package verify

import (
	"path/filepath"
	"slices"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// storeOf is the agent whose session database path is (by its file name:
// parsers.Store.Files), nil for a log file.
func storeOf(path string) *parsers.Spec {
	base := filepath.Base(path)
	for _, s := range parsers.All() {
		if s.Store != nil && slices.Contains(s.Store.Files, base) {
			return s
		}
	}
	return nil
}

// storeBatch is how many rows one read of a database asks for.
const storeBatch = 4096

// storeBytes bounds the lines one read holds; a longer row is read alone.
const storeBytes = 16 << 20

// storeFiles verifies a session database: every row, oldest first, folded
// per session, one report per session (path#session), in the order the
// sessions first appear. A database that cannot be read is one report
// with its error.
func storeFiles(path string, s *parsers.Spec, max int) []File {
	db, err := s.Store.Open(path)
	if err != nil {
		return []File{{Path: path, Agent: s.Name, Error: err.Error()}}
	}
	defer db.Close()
	p := s.NewParser()
	type sess struct {
		f  *File
		fo *folder
	}
	bySession := map[string]*sess{}
	var order []*sess
	var cursor int64
	room := int64(storeBytes)
	for {
		rows, err := db.Changes(cursor, storeBatch, room)
		if err != nil {
			return []File{{Path: path, Agent: s.Name, Error: err.Error()}}
		}
		room = storeBytes
		unread := false
		for _, r := range rows {
			if r.Line == nil && (max <= 0 || r.Size <= int64(max)) {
				// Past this read's room: read alone next, with room for it.
				room, unread = r.Size, true
				break
			}
			cursor = r.Cursor
			e := bySession[r.Session]
			if e == nil {
				f := &File{Path: path + "#" + r.Session, Agent: s.Name, SessionID: r.Session, Subagent: r.Parent != "",
					UnknownTypes: map[string]int{}, Interrupts: []Interrupt{}, Compactions: []Compaction{}}
				e = &sess{f: f, fo: &folder{f: f, s: session.New(s.Name)}}
				bySession[r.Session] = e
				order = append(order, e)
			}
			e.f.Lines++
			e.f.Bytes += int64(len(r.Line)) + r.Size // Size: a row left unread
			if r.Line == nil || max > 0 && len(r.Line) > max {
				e.f.Oversized++
				continue
			}
			ev, err := p.Parse(r.Line)
			e.fo.line(e.f.Lines, ev, err)
		}
		if len(rows) < storeBatch && !unread {
			break
		}
	}
	out := make([]File, 0, len(order))
	for _, e := range order {
		st := e.fo.s
		st.Quiet() // the end of the database counts as quiet
		e.f.Cwd, e.f.AgentVersion = st.Cwd, st.AgentVersion
		e.f.Turns = st.Turns
		e.f.FinalState, e.f.FinalReason = st.State, st.Reason
		out = append(out, *e.f)
	}
	return out
}
