// Package pisession reads the session files of pi (@mariozechner/pi-coding-
// agent) and of its forks (omp), which write pi's format with more line
// types: a line's evidence, by the Dialect each agent's package declares
// (formats/pi.md). It is the format, not an agent: parsers/pi and
// parsers/omp are.
package pisession

import (
	"bytes"
	"maps"
	"slices"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// piTypes are the line types pi 0.73.1 writes (session-manager.d.ts), each
// with what it means when it is not a message.
// PiType reports whether typ is a line type pi writes.
func PiType(typ string) bool { _, ok := piTypes[typ]; return ok }

var piTypes = map[string]parsers.Kind{
	"session": parsers.KindNone, "message": parsers.KindNone, "compaction": parsers.KindCompaction,
	"model_change": parsers.KindNone, "thinking_level_change": parsers.KindNone,
	"branch_summary": parsers.KindNone, "label": parsers.KindNone, "session_info": parsers.KindNone,
	"custom": parsers.KindNone, "custom_message": parsers.KindNone,
}

// piRoles are the message roles: user starts a turn, assistant is the
// model's answer, toolResult is activity; the rest are pi's own messages
// (a user's !command, an extension's message, summaries; hookMessage is
// custom's name before session version 3) and move nothing.
var piRoles = map[string]parsers.Kind{
	"user": parsers.KindTurnStart, "assistant": parsers.KindActivity, "toolResult": parsers.KindActivity,
	"bashExecution": parsers.KindNone, "custom": parsers.KindNone, "hookMessage": parsers.KindNone,
	"branchSummary": parsers.KindNone, "compactionSummary": parsers.KindNone,
}

// Dialect is how an agent writes pi's session format (pi itself: the
// zero Dialect but its Agent; a fork, omp: the same
// lines, with more line types and roles, a custom entry that starts a tool,
// and its own words on an answer the user aborted.
type Dialect struct {
	Agent parsers.Agent
	// Types and Roles are the fork's line types and message roles beyond
	// pi's, each with what it means.
	Types, Roles map[string]parsers.Kind
	// Customs are the customTypes of custom entries that are the fork's
	// own records, typed "custom/<customType>"; ToolStart, one of them, is
	// the entry written as a tool starts (data: toolName, args), which is
	// then the tool's evidence: the answer that holds the call is not.
	Customs   []string
	ToolStart string
	// Interrupt is the errorMessage of an answer the user's interrupt
	// aborted; "": every aborted answer is one.
	Interrupt string
	// Retries, when set, reports whether the agent will retry by itself an
	// answer of a session in cwd that failed with errm, the attempt-th
	// failure its retry counts in a row (1 on). nil: no failure is retried.
	Retries func(cwd, errm string, attempt int) bool
}

// dialect is a Dialect compiled into the parser's tables.
type dialect struct {
	agent                           parsers.Agent
	types, roles                    map[string]parsers.Kind
	typeNames, roleNames, roleTypes map[string]string
	customTypes                     map[string]string
	toolStart, interrupt            string
	retries                         func(cwd, errm string, attempt int) bool
}

func compile(d Dialect) *dialect {
	c := &dialect{agent: d.Agent, types: map[string]parsers.Kind{}, roles: map[string]parsers.Kind{},
		toolStart: d.ToolStart, interrupt: d.Interrupt, retries: d.Retries}
	maps.Copy(c.types, piTypes)
	maps.Copy(c.types, d.Types)
	maps.Copy(c.roles, piRoles)
	maps.Copy(c.roles, d.Roles)
	c.typeNames, c.roleNames = parsers.Table(slices.Collect(maps.Keys(c.types))...), parsers.Table(slices.Collect(maps.Keys(c.roles))...)
	c.roleTypes = parsers.PrefixAll(c.roleNames, "message/")
	if len(d.Customs) > 0 {
		c.customTypes = parsers.PrefixAll(parsers.Table(d.Customs...), "custom/")
	}
	return c
}

// Parser reads pi session lines (format version 1 to 3). Most bytes of a
// pi log are tool results and answers whose role alone decides their
// evidence: those lines are scanned, never parsed into values; an
// assistant line's content is parsed only when it holds a tool call.
type Parser struct {
	d       *dialect
	p       fastjson.Parser
	pc      fastjson.Parser // the content of a tool call's line
	unknown parsers.UnknownNames
	id, cwd parsers.Field
	s       parsers.Scanned
	// failed counts the failed answers the agent's retry has taken in a
	// row: what its own counter holds (retries). dir is the header's cwd.
	failed int
	dir    string
}

// NewParser returns a parser of an agent's session files in dialect d
// (pi's own: a Dialect with only the Agent).
func NewParser(d Dialect) *Parser { return &Parser{d: compile(d)} }

// Agent implements parsers.Parser.
func (p *Parser) Agent() parsers.Agent { return p.d.agent }

// Reset implements parsers.Parser.
func (p *Parser) Reset() { p.id, p.cwd, p.failed, p.dir = parsers.Field{}, parsers.Field{}, 0, "" }

// fields are the values a line's evidence comes from, raw (as the scan
// found them, without escapes) or from a parse.
type fields struct {
	typ, ts, id, cwd []byte
	role, stop, errm []byte
	content          []byte          // the raw content value (scan)
	contentV         *fastjson.Value // or the parsed one (parse)
	contentOK        bool            // message had a content member
}

// Parse implements parsers.Parser.
func (p *Parser) Parse(line []byte) (parsers.Evidence, error) {
	prepare(line, &p.s)
	return p.ParseScanned(line, &p.s)
}

// prepare scans line into s with the pi head kept with s.
func prepare(line []byte, s *parsers.Scanned) {
	m, _ := s.X.(*head)
	if m == nil {
		m = new(head)
		s.X = m
	}
	*m = head{exact: true}
	parsers.ScanLine(line, s, m)
}

type preparer struct{}

func (preparer) Prepare(line []byte, s *parsers.Scanned) { prepare(line, s) }

// NewPreparer implements parsers.ScanParser.
func (*Parser) NewPreparer() parsers.Preparer { return preparer{} }

// ParseScanned implements parsers.ScanParser.
func (p *Parser) ParseScanned(line []byte, s *parsers.Scanned) (parsers.Evidence, error) {
	if !s.OK {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	m, _ := s.X.(*head)
	if m == nil || !s.H.Exact || !m.exact {
		return p.ParseFull(line)
	}
	if p.d.customTypes != nil && string(s.H.Typ) == "custom" {
		return p.ParseFull(line) // a fork's custom entry is read by its customType and data
	}
	if titleKeys[string(s.H.Typ)] != "" || string(s.H.Typ) == "message" && string(m.role) == "user" {
		return p.ParseFull(line) // a title, or a prompt's text
	}
	f := fields{typ: s.H.Typ, ts: s.H.TS, id: m.id, cwd: m.cwd, role: m.role, stop: m.stop, errm: m.errm,
		content: m.content, contentOK: m.content != nil}
	return p.evidence(&f), nil
}

// ParseFull is Parse by a whole-line parse: the reference the scan path
// gives the same evidence as, and the path for a line with an escape where
// the scan reads.
func (p *Parser) ParseFull(line []byte) (parsers.Evidence, error) {
	v, err := p.p.ParseBytes(line)
	defer parsers.DropBig(&p.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	f := valueFields(v)
	if p.d.customTypes != nil && string(f.typ) == "custom" {
		return p.custom(v, f), nil
	}
	ev := p.evidence(f)
	if ev.Unknown {
		return ev, nil
	}
	if key := titleKeys[ev.Type]; key != "" {
		ev.Title = parsers.ShortTitle(string(v.GetStringBytes(key)))
		// pi names a session only when told (/name); omp says who titled
		// it ("auto": its own title request).
		src := string(v.GetStringBytes("source"))
		ev.TitleByUser = ev.Title != "" && (ev.Type == "session_info" || src != "" && src != "auto")
	} else if ev.Kind == parsers.KindTurnStart && f.contentV != nil {
		ev.Prompt = parsers.ShortTitle(promptText(f.contentV))
	}
	return ev, nil
}

// titleKeys name, by line type, the member holding the session's name:
// pi's session_info (/name), omp's title record, its change, and its
// header once the title is known.
var titleKeys = map[string]string{"session_info": "name", "title": "title", "title_change": "title", "session": "title"}

// promptText is a user message's text: its content string, or its first
// text block's.
func promptText(c *fastjson.Value) string {
	if c.Type() == fastjson.TypeString {
		return string(c.GetStringBytes())
	}
	for _, b := range c.GetArray() {
		if string(b.GetStringBytes("type")) == "text" {
			return string(b.GetStringBytes("text"))
		}
	}
	return ""
}

func valueFields(v *fastjson.Value) *fields {
	f := &fields{typ: v.GetStringBytes("type"), ts: v.GetStringBytes("timestamp"),
		id: v.GetStringBytes("id"), cwd: v.GetStringBytes("cwd")}
	if m := v.Get("message"); m != nil && m.Type() == fastjson.TypeObject {
		f.role, f.stop, f.errm = m.GetStringBytes("role"), m.GetStringBytes("stopReason"), m.GetStringBytes("errorMessage")
		f.contentV = m.Get("content")
		f.contentOK = f.contentV != nil
	}
	return f
}

// evidence is what a line's fields say (pi.md §2.3).
func (p *Parser) evidence(f *fields) parsers.Evidence {
	d := p.d
	typ, known := p.unknown.Intern(f.typ, d.typeNames)
	ev := parsers.Evidence{Type: typ, Unknown: !known, At: string(f.ts)}
	if !known {
		return ev
	}
	switch typ {
	case "session":
		// The header names the session; the file name may not (a /fork of
		// a path without an answer: pi.md §2.1).
		ev.SessionID, ev.Cwd = p.id.Get(f.id), p.cwd.Get(f.cwd)
		if ev.Cwd != "" {
			p.dir = ev.Cwd
		}
		return ev
	case "message":
	default:
		ev.Kind = d.types[typ]
		return ev
	}
	role, ok := d.roleNames[string(f.role)]
	if !ok {
		ev.Type, _ = p.unknown.Intern(append([]byte("message/"), f.role...), nil)
		ev.Unknown = true
		return ev
	}
	ev.Type, ev.Kind = d.roleTypes[role], d.roles[role]
	if role == "user" {
		p.failed = 0 // a new run (a retry the user cancelled writes nothing)
	}
	if role != "assistant" {
		return ev
	}
	// The run goes on after an answer only to run its tool calls; an
	// answer without one ends the run (pi writes no turn end: the quiet
	// after a Final line ends the turn). An error is final too: pi may
	// retry it in a new run, which writes nothing until its own answer
	// ends (pi.md §2.7), so a turn left open on it would never end when
	// the retries are used up.
	switch {
	case string(f.stop) == "aborted" && (d.interrupt == "" || string(f.errm) == d.interrupt):
		ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
	case string(f.stop) == "aborted":
		// Aborted by something else than the user (omp: the answer a new
		// process writes for the turn its predecessor left open): the
		// turn is over all the same.
		ev.Final = true
	case d.toolStart != "":
		// The tool's own entry started it; an answer with a call goes on.
		ev.Final = !p.tool(f, &parsers.Evidence{})
	case p.tool(f, &ev):
		ev.Kind = parsers.KindTool
	default:
		ev.Final = true
	}
	switch {
	case string(f.stop) != "error":
		p.failed = 0 // the agent's retry counts failures in a row
	case p.retry(f.errm):
		// The agent retries it after a backoff, in a run that writes
		// nothing until its own answer ends (pi.md §2.7): the turn goes on.
		ev.Kind, ev.Final, ev.Retry = parsers.KindActivity, false, true
		ev.Tool, ev.ToolInput = "", nil
	case ev.Final:
		ev.End = parsers.EndAPIError
	}
	return ev
}

// retry reports whether the agent retries the answer that failed with
// errm, and counts the failure as its retry does: up to the last retry,
// after which the count starts again.
func (p *Parser) retry(errm []byte) bool {
	if p.d.retries == nil || len(errm) == 0 {
		return false
	}
	e := string(errm) // unescaped: the scan leaves a line with an escape to the full parse
	if !p.d.retries(p.dir, e, p.failed+1) {
		if p.d.retries(p.dir, e, 1) {
			p.failed = 0 // the retries are used up: the agent's count starts again
		}
		return false
	}
	p.failed++
	return true
}

// custom is a fork's custom entry: its own records by customType, the
// tool start with the tool and its input.
func (p *Parser) custom(v *fastjson.Value, f *fields) parsers.Evidence {
	ev := parsers.Evidence{Type: "custom", At: string(f.ts)}
	ct, ok := p.d.customTypes[string(v.GetStringBytes("customType"))]
	if !ok {
		return ev // an extension's entry
	}
	ev.Type = ct
	if ct != "custom/"+p.d.toolStart {
		return ev
	}
	data := v.Get("data")
	if data == nil || data.Type() != fastjson.TypeObject {
		return ev
	}
	ev.Kind, ev.Tool = parsers.KindTool, string(data.GetStringBytes("toolName"))
	if in := data.Get("args"); in != nil && in.Type() == fastjson.TypeObject {
		ev.ToolInput = parsers.ToolInputOf(in)
	}
	return ev
}

// tool finds the answer's first tool call, by the content's blocks (pi
// runs the calls an answer holds whatever its stopReason says).
func (p *Parser) tool(f *fields, ev *parsers.Evidence) bool {
	c := f.contentV
	if c == nil {
		if !f.contentOK || !mayHoldToolCall(f.content) {
			return false
		}
		v, err := p.pc.ParseBytes(f.content)
		defer parsers.DropBig(&p.pc, len(f.content))
		if err != nil {
			return false // cannot be: the scan accepted it
		}
		c = v
	}
	if c.Type() != fastjson.TypeArray {
		return false
	}
	for _, b := range c.GetArray() {
		if string(b.GetStringBytes("type")) != "toolCall" {
			continue
		}
		ev.Tool = string(b.GetStringBytes("name"))
		if in := b.Get("arguments"); in != nil && in.Type() == fastjson.TypeObject {
			ev.ToolInput = parsers.ToolInputOf(in)
		}
		return true
	}
	return false
}

// mayHoldToolCall: a block's type "toolCall" is the token `"toolCall"`,
// unescaped, unless an escape spells it (then the content is parsed).
func mayHoldToolCall(content []byte) bool {
	return len(content) > 0 && content[0] == '[' &&
		(bytes.Contains(content, []byte(`"toolCall"`)) || bytes.Contains(content, []byte(`\u`)))
}

// head is the scan's pi part: the header's id and cwd, and the message's
// role, stopReason and content, the first of each as fastjson's Get finds
// them.
type head struct {
	exact                     bool
	seenID, seenCwd, seenM    bool
	id, cwd                   []byte
	role, stop, errm, content []byte
}

func (h *head) Stop([]byte) bool { return false }

func (h *head) Member(b, key []byte, i int) int {
	switch string(key) {
	case "id":
		return h.str(b, i, &h.seenID, &h.id, 2)
	case "cwd":
		return h.str(b, i, &h.seenCwd, &h.cwd, 2)
	case "message":
		first := !h.seenM
		h.seenM = true
		if first && b[i] == '{' {
			return h.message(b, i+1)
		}
	}
	return parsers.SkipValue(b, i, 2)
}

// str reads the first string value of a key; a later one, or one of
// another type, is skipped (and reads as absent, as GetStringBytes says).
func (h *head) str(b []byte, i int, seen *bool, dst *[]byte, depth int) int {
	if *seen || b[i] != '"' {
		*seen = true
		return parsers.SkipValue(b, i, depth)
	}
	*seen = true
	v, esc, end := parsers.RawStr(b, i)
	if esc {
		h.exact = false
	}
	*dst = v
	return end
}

// message reads role, stopReason, errorMessage and the content's extent
// (depth 2).
func (h *head) message(b []byte, i int) int {
	var role, stop, errm, content bool
	return parsers.ObjectKeys(b, i, 2, &h.exact, func(key []byte, i int) int {
		switch string(key) {
		case "role":
			return h.str(b, i, &role, &h.role, 3)
		case "stopReason":
			return h.str(b, i, &stop, &h.stop, 3)
		case "errorMessage":
			return h.str(b, i, &errm, &h.errm, 3)
		case "content":
			end := parsers.SkipValue(b, i, 3)
			if !content && end >= 0 {
				h.content = b[i:end]
			}
			content = true
			return end
		}
		return parsers.SkipValue(b, i, 3)
	})
}
