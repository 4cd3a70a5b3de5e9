package gemini

import (
	"bytes"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// The scan path: most bytes of a chat file are tool results, answers and
// the histories $set.messages rewrites, whose evidence needs none of their
// text. They are scanned (parsers.ScanLine) with head reading the members
// the evidence needs, the first of each as fastjson's Get finds it; only a
// tool call's list is parsed. What the scan cannot tell exactly (an escape
// where it reads, a prompt's text) is parsed whole (ParseFull), which
// TestCaptures and the fuzz test hold the scan path equal to.

// head is the scan's Gemini part of a line.
type head struct {
	exact bool
	// Top-level members seen, and the values read.
	seenSet, seenRewind, seenContent, seenCalls, seenSession, seenStart bool
	seenDisplay                                                         bool
	setObject                                                           bool   // $set's value is an object
	setMessages, setSession                                             bool   // $set has messages, sessionId
	setSessionStr                                                       []byte // $set.sessionId, nil: not a string
	setFirst                                                            []byte // $set's first key
	content, calls                                                      []byte // raw values
	sessionID, startTime                                                []byte // strings
}

func (h *head) Stop([]byte) bool { return false }

func (h *head) Member(b, key []byte, i int) int {
	switch string(key) {
	case "$set":
		first := !h.seenSet
		h.seenSet = true
		if first && b[i] == '{' {
			h.setObject = true
			return h.set(b, i+1)
		}
	case "$rewindTo":
		h.seenRewind = true
	case "content":
		return h.raw(b, i, &h.seenContent, &h.content)
	case "toolCalls":
		return h.raw(b, i, &h.seenCalls, &h.calls)
	case "displayContent":
		h.seenDisplay = true
	case "sessionId":
		return h.str(b, i, &h.seenSession, &h.sessionID)
	case "startTime":
		return h.str(b, i, &h.seenStart, &h.startTime)
	}
	return parsers.SkipValue(b, i, 2)
}

// raw keeps the first value of a key whole.
func (h *head) raw(b []byte, i int, seen *bool, dst *[]byte) int {
	end := parsers.SkipValue(b, i, 2)
	if !*seen && end >= 0 {
		*dst = b[i:end]
	}
	*seen = true
	return end
}

// str reads the first string value of a key; a later one, or one of
// another type, reads as absent (GetStringBytes).
func (h *head) str(b []byte, i int, seen *bool, dst *[]byte) int {
	if *seen || b[i] != '"' {
		*seen = true
		return parsers.SkipValue(b, i, 2)
	}
	*seen = true
	v, esc, end := parsers.RawStr(b, i)
	h.exact = h.exact && !esc
	*dst = v
	return end
}

// set reads $set's keys (depth 2): which there are, the first, and
// sessionId's string.
func (h *head) set(b []byte, i int) int {
	seenSession := false
	return parsers.ObjectKeys(b, i, 2, &h.exact, func(key []byte, i int) int {
		if h.setFirst == nil {
			h.setFirst = key
		}
		switch string(key) {
		case "messages":
			h.setMessages = true
		case "sessionId":
			h.setSession = true
			if !seenSession && b[i] == '"' {
				seenSession = true
				v, esc, end := parsers.RawStr(b, i)
				h.exact = h.exact && !esc
				h.setSessionStr = v
				return end
			}
			seenSession = true
		}
		return parsers.SkipValue(b, i, 3)
	})
}

// prepare scans line into s with the head kept with s.
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

// toolResult is how a tool's result starts: its first part a
// functionResponse.
var toolResult = []byte(`[{"functionResponse":`)

// ParseScanned implements parsers.ScanParser.
func (p *Parser) ParseScanned(line []byte, s *parsers.Scanned) (parsers.Evidence, error) {
	if !s.OK {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	m, _ := s.X.(*head)
	if m == nil || !s.H.Exact || !m.exact {
		return p.ParseFull(line)
	}
	switch {
	case m.seenSet && !m.setObject:
		return parsers.Evidence{Type: "$set", Unknown: true}, nil
	case m.seenSet:
		return p.setScanned(m), nil
	case m.seenRewind:
		return parsers.Evidence{Type: types["$rewindTo"]}, nil
	case !s.H.HasType && len(m.sessionID) > 0:
		return parsers.Evidence{Type: types["session"], SessionID: p.id.Get(m.sessionID), At: string(m.startTime)}, nil
	}
	name, known := p.unknown.Intern(s.H.Typ, types)
	ev := parsers.Evidence{Type: name, Unknown: !known, At: string(s.H.TS)}
	if !known || name == "session" || name[0] == '$' {
		ev.Unknown = true
		return ev, nil
	}
	if p.replay {
		return ev, nil
	}
	switch name {
	case "user":
		if bytes.HasPrefix(m.content, toolResult) {
			ev.Kind = parsers.KindActivity
			break
		}
		// A prompt's text, or the CLI's own: its content parsed alone.
		var c *fastjson.Value
		if m.content != nil {
			v, err := p.p.ParseBytes(m.content)
			defer parsers.DropBig(&p.p, len(m.content))
			if err != nil {
				return parsers.Evidence{}, parsers.ErrMalformed // cannot be: the scan accepted it
			}
			c = v
		}
		p.user(c, m.seenDisplay, &ev)
	case "gemini":
		if m.calls == nil {
			ev.Kind, ev.Final = parsers.KindActivity, true
			return ev, nil
		}
		if !p.callsScanned(m.calls, &ev) {
			return p.ParseFull(line)
		}
	case "info":
		return p.ParseFull(line) // short: its text is the marker
	case "error":
		ev.Kind, ev.Final, ev.End = parsers.KindActivity, true, parsers.EndAPIError
	}
	return ev, nil
}

// setScanned is set for a scanned $set object.
func (p *Parser) setScanned(m *head) parsers.Evidence {
	ev := parsers.Evidence{Type: "$set"}
	switch {
	case m.setMessages:
		p.replay = false
		ev.Type = types["$set/messages"]
	case m.setSession:
		ev.Type, ev.SessionID = types["$set/sessionId"], p.id.Get(m.setSessionStr)
	case m.setFirst != nil:
		name, known := p.unknown.Intern(append([]byte("$set/"), m.setFirst...), types)
		ev.Type, ev.Unknown = name, !known
	}
	return ev
}

// callsScanned is answer for a toolCalls value read by a scan: each call's
// first status, name and args, as Get finds them, so that a call's result
// (the tool's whole output) is skipped, never parsed; only the args of the
// call that is the evidence are. False: an escape where it reads.
func (p *Parser) callsScanned(b []byte, ev *parsers.Evidence) bool {
	i := parsers.WS(b, 0)
	if i >= len(b) || b[i] != '[' {
		ev.Kind, ev.Final = parsers.KindActivity, true
		return true
	}
	if i = parsers.WS(b, i+1); i < len(b) && b[i] == ']' {
		ev.Kind, ev.Final = parsers.KindActivity, true
		return true
	}
	ev.Kind = parsers.KindActivity
	for exact := true; ; {
		var status, name, args []byte
		var seenStatus, seenName, seenArgs bool
		end := -1
		if b[i] == '{' {
			end = parsers.ObjectKeys(b, i+1, 3, &exact, func(key []byte, k int) int {
				var seen *bool
				var dst *[]byte
				switch string(key) {
				case "status":
					seen, dst = &seenStatus, &status
				case "name":
					seen, dst = &seenName, &name
				case "args":
					e := parsers.SkipValue(b, k, 4)
					if !seenArgs && e >= 0 {
						args = b[k:e]
					}
					seenArgs = true
					return e
				default:
					return parsers.SkipValue(b, k, 4)
				}
				first := !*seen
				*seen = true
				if !first || b[k] != '"' {
					return parsers.SkipValue(b, k, 4)
				}
				v, esc, e := parsers.RawStr(b, k)
				exact = exact && !esc
				*dst = v
				return e
			})
		} else {
			end = parsers.SkipValue(b, i, 3)
		}
		if end < 0 || !exact {
			return false
		}
		if string(status) != "cancelled" {
			ev.Kind, ev.Tool = parsers.KindTool, string(name)
			if len(args) > 0 && args[0] == '{' {
				v, err := p.p.ParseBytes(args)
				defer parsers.DropBig(&p.p, len(args))
				if err != nil {
					return false
				}
				ev.ToolInput = parsers.ToolInputOf(v)
			}
			return true
		}
		var more bool
		if i, more = parsers.Next(b, end, ']'); i < 0 {
			return false
		} else if !more {
			return true
		}
		i = parsers.WS(b, i)
	}
}
