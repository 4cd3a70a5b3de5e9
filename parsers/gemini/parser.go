package gemini

import (
	"bytes"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// Parser reads Gemini CLI's chat file, which is an edit log of one
// conversation document, not one line per message (formats/gemini.md
// §2.2): a line with a message id seen before replaces that message, and
// $set.messages replaces the whole history. The state needs none of the
// document: only whether a line is news. So the parser folds the edits in
// constant memory, one flag, whatever the file's length:
//
//   - a message line is news as it is appended (an upsert of an answer
//     with its toolCalls is the tool's outcome, read as such);
//   - a history the CLI re-appends (after a rejected tool, every message
//     again with new ids, from the <session_context> message on, closed by
//     the $set.messages it builds) is not: the replay flag, from that first
//     message to the $set.messages, reads its lines as none;
//   - $set.messages itself says nothing of the turn (a cancel, /compress
//     and --resume write it after their own marker).
type Parser struct {
	p       fastjson.Parser
	unknown parsers.UnknownNames
	id      parsers.Field
	replay  bool
	s       parsers.Scanned
}

// NewParser returns a parser of Gemini CLI chat files.
func NewParser() *Parser { return &Parser{} }

// Agent implements parsers.Parser.
func (p *Parser) Agent() parsers.Agent { return Name }

// Reset implements parsers.Parser.
func (p *Parser) Reset() { p.id, p.replay = parsers.Field{}, false }

// The record types (the message types ChatRecordingService writes, the
// header and the edits) and their names as Evidence.Type.
// $set/summary: the session's summary the CLI asks the model for and
// writes with its memoryScratchpad (seen live at a start after a resume).
var types = parsers.Table("user", "gemini", "info", "warning", "error", "session", "$set/messages",
	"$set/lastUpdated", "$set/sessionId", "$set/summary", "$set/memoryScratchpad", "$rewindTo")

// The markers, in the CLI's own words (gemini.md §2.5).
const (
	cancelled     = "Request cancelled."
	loopHalted    = "A potential loop was detected"
	sessionPrefix = "<session_context>"
)

// Parse implements parsers.Parser.
func (p *Parser) Parse(line []byte) (parsers.Evidence, error) {
	prepare(line, &p.s)
	return p.ParseScanned(line, &p.s)
}

// ParseFull is Parse by a whole-line parse: the reference the scan path
// gives the same evidence as, and the path for what the scan cannot read
// exactly.
func (p *Parser) ParseFull(line []byte) (parsers.Evidence, error) {
	v, err := p.p.ParseBytes(line)
	defer parsers.DropBig(&p.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	if set := v.Get("$set"); set != nil {
		return p.set(set), nil
	}
	if v.Get("$rewindTo") != nil {
		return parsers.Evidence{Type: types["$rewindTo"]}, nil
	}
	if v.Get("type") == nil && len(v.GetStringBytes("sessionId")) > 0 {
		// The header: the file's first line, without a type.
		return parsers.Evidence{Type: types["session"], SessionID: p.id.Get(v.GetStringBytes("sessionId")),
			At: string(v.GetStringBytes("startTime"))}, nil
	}
	name, known := p.unknown.Intern(v.GetStringBytes("type"), types)
	ev := parsers.Evidence{Type: name, Unknown: !known, At: string(v.GetStringBytes("timestamp"))}
	if !known || name == "session" || name[0] == '$' {
		ev.Unknown = true
		return ev, nil
	}
	content := v.Get("content")
	if p.replay {
		return ev, nil // the history again
	}
	switch name {
	case "user":
		p.user(content, v.Get("displayContent") != nil, &ev)
	case "gemini":
		answer(v.Get("toolCalls"), &ev)
	case "info":
		switch text := string(content.GetStringBytes()); {
		case text == cancelled:
			ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptUser
		case text == "" && content != nil && content.Type() == fastjson.TypeString:
			// A compression's history item is recorded as an info without
			// text (/compress: "Chat history compressed from …").
			ev.Kind = parsers.KindCompaction
		case strings.HasPrefix(text, loopHalted):
			// "… The request has been halted.": the turn is over.
			ev.Kind, ev.Final, ev.End = parsers.KindActivity, true, parsers.EndAPIError
		}
	case "error":
		// An error the CLI showed (an API error past its retries): final
		// unless more of the turn follows.
		ev.Kind, ev.Final, ev.End = parsers.KindActivity, true, parsers.EndAPIError
	}
	return ev, nil
}

// set is an edit of the document's top-level fields, named by its most
// telling key: messages, then sessionId, else its first.
func (p *Parser) set(set *fastjson.Value) parsers.Evidence {
	o, err := set.Object()
	if err != nil {
		return parsers.Evidence{Type: "$set", Unknown: true}
	}
	ev := parsers.Evidence{Type: "$set"}
	var first []byte
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if first == nil {
			first = k
		}
	})
	switch {
	case o.Get("messages") != nil:
		p.replay = false // the re-appended history is closed
		ev.Type = types["$set/messages"]
	case o.Get("sessionId") != nil:
		ev.Type, ev.SessionID = types["$set/sessionId"], p.id.Get(set.GetStringBytes("sessionId"))
	case first != nil:
		name, known := p.unknown.Intern(append([]byte("$set/"), first...), types)
		ev.Type, ev.Unknown = name, !known
	}
	return ev
}

// user is a user message: a tool's result (its first part a
// functionResponse), a prompt, or the CLI's own text (its
// <session_context>, which opens a re-appended history, or a loop warning
// it sends for the user, which carries the prompt the user typed as
// displayContent).
func (p *Parser) user(content *fastjson.Value, display bool, ev *parsers.Evidence) {
	parts := content.GetArray()
	if len(parts) > 0 && parts[0].Get("functionResponse") != nil {
		ev.Kind = parsers.KindActivity
		return
	}
	text := ""
	for _, part := range parts {
		if text = string(part.GetStringBytes("text")); text != "" {
			break
		}
	}
	if content != nil && content.Type() == fastjson.TypeString {
		text = string(content.GetStringBytes())
	}
	switch {
	case strings.HasPrefix(text, sessionPrefix):
		p.replay = true
	case display:
		ev.Kind = parsers.KindActivity
	case text != "":
		ev.Kind, ev.Prompt = parsers.KindTurnStart, parsers.ShortTitle(text)
	}
}

// answer is a model answer. It is written whole once its stream ended;
// without toolCalls it ends the turn unless a tool follows (a tool that
// asks approval writes its call only when it has run: the answer before
// it looks final until then, gemini.md §2.3). With toolCalls it is the
// same answer again, its tools run: the first that ran is the evidence;
// calls all cancelled or refused are the interrupt's, which its own info
// line reports.
func answer(calls *fastjson.Value, ev *parsers.Evidence) {
	if calls == nil || calls.Type() != fastjson.TypeArray || len(calls.GetArray()) == 0 {
		ev.Kind, ev.Final = parsers.KindActivity, true
		return
	}
	ev.Kind = parsers.KindActivity
	for _, c := range calls.GetArray() {
		if s := c.GetStringBytes("status"); bytes.Equal(s, []byte("cancelled")) {
			continue
		}
		ev.Kind, ev.Tool = parsers.KindTool, string(c.GetStringBytes("name"))
		if in := c.Get("args"); in != nil && in.Type() == fastjson.TypeObject {
			ev.ToolInput = parsers.ToolInputOf(in)
		}
		return
	}
}
