package opencode

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// A line is one row of OpenCode's event table as the store reader writes
// it (store.Row.Line):
//
//	{"type":"message.updated.1","session":"ses_…","parent":"","seq":7,"rowid":1234,"data":{…}}
//
// data is the row's full content after the change: "info" for sessions and
// messages, "part" for parts (formats/opencode.md §3.4).

// The event types 1.18.33 writes, by what they are about.
var eventTypes = parsers.Table(
	"session.created.1", "session.updated.1", "session.deleted.1",
	"message.updated.1", "message.removed.1",
	"message.part.updated.1", "message.part.removed.1",
)

// Part types (data.part.type) and what they are, tools aside.
var partTypes = map[string]parsers.Kind{
	"text": parsers.KindActivity, "reasoning": parsers.KindActivity,
	"step-start": parsers.KindActivity, "step-finish": parsers.KindActivity,
	"patch": parsers.KindActivity, "file": parsers.KindNone, "agent": parsers.KindNone,
	"snapshot": parsers.KindNone, "subtask": parsers.KindNone, "retry": parsers.KindActivity,
	// The user message of /compact carries it; the compaction's own
	// answer says when it is over.
	"compaction": parsers.KindNone,
}

var partNames = parsers.Table(slices.Collect(maps.Keys(partTypes))...)

// What an answer the user stopped carries (Esc Esc, Ctrl+C while busy).
const abortedError = "MessageAbortedError"

// seenMax bounds the user messages a parser remembers: a user message row
// is written at the prompt and again when the turn ends (its diff summary),
// and only the first is the turn's start. The newest messages are the ones
// rewritten, so forgetting the oldest loses nothing.
const seenMax = 4096

// Parser reads OpenCode's event rows. One reads the rows of one database,
// every session's, in rowid order.
type Parser struct {
	p       fastjson.Parser
	unknown parsers.UnknownNames
	// seen are the user messages whose first row was read (their turn
	// started), old and cur two generations of at most seenMax/2, by a
	// 64-bit hash of their id: a stored session's is kept for the daemon's
	// life, 8 bytes instead of its id's copy and header (40).
	old, cur map[uint64]struct{}
	// created are the sessions whose row was read and whose first prompt
	// was not yet, with the row's creation time (ms), at most seenMax.
	created map[string]int64
	// prompt is the user message whose turn start was read last: its text
	// part is the prompt (the fallback title).
	prompt []byte
	// rawTitle is the last session title read, title its shortened form:
	// a session row is rewritten many times a turn with the same title.
	rawTitle, title string
}

// NewParser returns an OpenCode event row parser.
func NewParser() *Parser { return &Parser{} }

// Agent implements parsers.Parser.
func (p *Parser) Agent() parsers.Agent { return Name }

// Reset implements parsers.Parser.
func (p *Parser) Reset() {
	p.old, p.cur, p.created, p.prompt, p.rawTitle, p.title = nil, nil, nil, p.prompt[:0], "", ""
}

// Parse implements parsers.Parser.
func (p *Parser) Parse(line []byte) (parsers.Evidence, error) {
	v, err := p.p.ParseBytes(line)
	defer parsers.DropBig(&p.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	typ, known := p.unknown.Intern(v.GetStringBytes("type"), eventTypes)
	ev := parsers.Evidence{Type: typ, Unknown: !known, SessionID: string(v.GetStringBytes("session"))}
	data := v.Get("data")
	if !known || data == nil || data.Type() != fastjson.TypeObject {
		ev.Unknown = true
		return ev, nil
	}
	switch typ {
	case "session.created.1", "session.updated.1":
		ev.Cwd = string(data.GetStringBytes("info", "directory"))
		ev.AgentVersion = string(data.GetStringBytes("info", "version"))
		if ms := data.GetInt64("info", "time", "created"); typ == "session.created.1" && ms > 0 && ev.SessionID != "" {
			if p.created == nil || len(p.created) >= seenMax {
				p.created = map[string]int64{}
			}
			p.created[ev.SessionID] = ms
		}
		ev.Title = p.sessionTitle(data.GetStringBytes("info", "title"))
	case "message.updated.1":
		p.message(&ev, data.Get("info"))
	case "message.part.updated.1":
		p.part(&ev, data.Get("part"))
	}
	return ev, nil
}

// message reads a message row: a user message's first row starts a turn;
// an answer's row says whether the turn goes on or how it ended (§3.6).
func (p *Parser) message(ev *parsers.Evidence, info *fastjson.Value) {
	if info == nil {
		ev.Unknown = true
		return
	}
	role := string(info.GetStringBytes("role"))
	ev.Type += "/" + role
	switch role {
	case "user":
		if p.first(info.GetStringBytes("id"), ev) {
			ev.Kind = parsers.KindTurnStart
			p.prompt = append(p.prompt[:0], info.GetStringBytes("id")...)
			// Stamped when its Enter was read, as near as the database
			// tells (the tab's Enter is judged by the stamp): a new
			// session's row is made then, its first prompt's only after
			// the process's lazy start (seconds, on a loaded machine);
			// a later prompt is made at once.
			ms, ok := p.created[ev.SessionID]
			delete(p.created, ev.SessionID)
			if !ok {
				ms = info.GetInt64("time", "created")
			}
			if ms > 0 {
				ev.At = time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
			}
		}
		return
	case "assistant":
	default:
		ev.Type, ev.Unknown = "message.updated.1/?", true
		return
	}
	ev.Kind = parsers.KindActivity
	completed := info.Exists("time", "completed")
	finish := string(info.GetStringBytes("finish"))
	if e := info.Get("error"); e != nil && e.Type() == fastjson.TypeObject {
		if string(e.GetStringBytes("name")) == abortedError {
			ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
		} else if completed {
			ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndAPIError
		}
		return
	}
	switch {
	case string(info.GetStringBytes("agent")) == "compaction" && info.GetBool("summary"):
		if completed {
			ev.Kind = parsers.KindCompaction
		}
	case !completed:
		// An answer that will go on, or its last step written before its
		// completion (finish "stop" comes 100-200 ms before it).
		ev.Final = finish == "stop"
	case finish == "stop" || finish == "length" || finish == "content-filter" || finish == "other":
		ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndNormal
	default:
		// "tool-calls": the next step's answer follows within
		// milliseconds, unless the user rejected the tool or dismissed
		// its question; then it was the turn's last word. No finish: the
		// user stopped a provider retry (§5), which writes no marker, so
		// that quiet ends the turn.
		ev.Final = true
	}
}

// part reads a part row: a tool's call with what it acts on, or output.
func (p *Parser) part(ev *parsers.Evidence, part *fastjson.Value) {
	if part == nil {
		ev.Unknown = true
		return
	}
	t := part.GetStringBytes("type")
	if string(t) == "tool" {
		ev.Type += "/tool"
		ev.Kind = parsers.KindActivity
		st := part.Get("state")
		if string(st.GetStringBytes("status")) == "running" {
			ev.Kind = parsers.KindTool
			ev.Tool = string(part.GetStringBytes("tool"))
			if in := st.Get("input"); in != nil && in.Type() == fastjson.TypeObject {
				ev.ToolInput = parsers.ToolInputOf(in)
			}
		}
		return
	}
	if string(t) == "text" && len(p.prompt) > 0 && string(part.GetStringBytes("messageID")) == string(p.prompt) {
		ev.Prompt = parsers.ShortTitle(string(part.GetStringBytes("text")))
		p.prompt = p.prompt[:0]
	}
	name, known := p.unknown.Intern(t, partNames)
	ev.Type += "/" + name
	if !known {
		ev.Unknown = true
		return
	}
	ev.Kind = partTypes[name]
}

// first reports whether the user message id is seen for the first time,
// and remembers it.
func (p *Parser) first(id []byte, ev *parsers.Evidence) bool {
	if len(id) == 0 {
		ev.Unknown = true
		return false
	}
	h := idHash(id)
	if _, ok := p.cur[h]; ok {
		return false
	}
	if _, ok := p.old[h]; ok {
		return false
	}
	if p.cur == nil || len(p.cur) >= seenMax/2 {
		// Grown as needed: most databases hold far fewer.
		p.old, p.cur = p.cur, map[uint64]struct{}{}
	}
	p.cur[h] = struct{}{}
	return true
}

// idHash is FNV-1a of id: deterministic (a replay parses as the daemon
// did), and two of seenMax ids alike by chance once in 10^12 databases.
func idHash(id []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// placeholderTitle starts the title OpenCode gives a session until it has
// generated one (about 2 s after the first prompt).
const placeholderTitle = "New session - "

// sessionTitle is a session row's title shortened, "" for the
// placeholder.
func (p *Parser) sessionTitle(raw []byte) string {
	if string(raw) == p.rawTitle {
		return p.title
	}
	p.rawTitle = string(raw)
	p.title = ""
	if !strings.HasPrefix(p.rawTitle, placeholderTitle) {
		p.title = parsers.ShortTitle(p.rawTitle)
	}
	return p.title
}
