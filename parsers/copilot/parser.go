package copilot

import (
	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// The event types of events.jsonl (formats/copilot.md §2.2), by what they
// say about the state. Every line is {"type","data","id","timestamp",
// "parentId"}; the types in quiet and activity are decided by their name
// alone, so their lines (the system prompt, a compaction's model call,
// tool output: the file's bulk) are scanned, never parsed.
var (
	// quiet carry no turn evidence.
	quiet = map[string]bool{
		"session.model_change": true, "session.info": true, "session.usage_checkpoint": true,
		"hook.start": true, "hook.end": true, "system.message": true,
		"system.notification": true,
		// The summary model call of a /compact.
		"model.turn_started": true, "model.model_call_started": true, "model.model_call_success": true,
		"model.message": true, "model.response": true, "model.turn_ended": true,
		"model.messages_snapshot": true, "model.model_call_failure": true,
	}
	// activity happen inside a turn.
	activity = map[string]bool{
		"assistant.turn_start": true, "session.usage_record": true, "tool.execution_complete": true,
	}
	// content are the types whose data is evidence.
	content = []string{"session.shutdown", "session.start", "session.resume", "user.message", "assistant.message",
		"assistant.turn_end", "tool.execution_start", "permission.requested", "permission.completed",
		"abort", "session.compaction_start", "session.compaction_complete"}
	types = parsers.Table(append(append(parsers.Keys(quiet), parsers.Keys(activity)...), content...)...)
)

// noData stands for a line's data that is not an object: every Get is nil.
var noData = fastjson.MustParse("{}")

// The abort's reasons when the user stopped the turn: the marker.
// user_initiated after Esc at a dialog and Ctrl+C while the answer
// streams; user_abort after Esc Esc at a running tool (measured in the live
// suite, where copilot.md had seen user_initiated).
const (
	abortUser = "user_initiated"
	abortTool = "user_abort"
)

// Parser reads Copilot CLI's events.jsonl. It is stateful: a model round
// (assistant.turn_start … assistant.turn_end) ends the user's turn only
// when its answer asked for no tool, and an approved permission names the
// tool its request started.
type Parser struct {
	p fastjson.Parser
	// final: the current round's answer asked for no tool, so its
	// assistant.turn_end ends the turn.
	final bool
	// tool and input are the last tool.execution_start's: what an answered
	// permission runs.
	tool  string
	input []byte
	// trigger is the open compaction's ("manual" for /compact).
	trigger string
	// open: a user's turn is open (its user.message read, no final round
	// end or abort since). ahead: an abort was read while none was: a
	// Ctrl+C before Copilot wrote the turn's user.message (it writes the
	// abort at once, the user.message once the prompt's hooks have run:
	// 18 ms to 3 s later, measured, and the hooks may even start after
	// the abort), so the next user.message is the stopped turn's. aborted
	// marks that turn: its round, answerless, ends it interrupted rather
	// than leaving it open for good; an answer clears it.
	open    bool
	ahead   bool
	aborted bool
	// s is Parse's scan, reused.
	s parsers.Scanned
}

// NewParser returns a Copilot CLI events.jsonl parser.
func NewParser() *Parser { return &Parser{} }

// Agent implements parsers.Parser.
func (c *Parser) Agent() parsers.Agent { return Name }

// Reset implements parsers.Parser.
func (c *Parser) Reset() {
	c.final, c.tool, c.input, c.trigger = false, "", nil, ""
	c.open, c.ahead, c.aborted = false, false, false
}

// prompt notes a user.message.
func (c *Parser) prompt() {
	c.final, c.open = false, true
	c.aborted, c.ahead = c.ahead, false
}

// Parse implements parsers.Parser.
func (c *Parser) Parse(line []byte) (parsers.Evidence, error) {
	prepare(line, &c.s)
	return c.ParseScanned(line, &c.s)
}

// NewPreparer implements parsers.ScanParser: the state is in the lines
// before, so the preparer only scans (with data's toolRequests).
func (c *Parser) NewPreparer() parsers.Preparer { return preparer{} }

type preparer struct{}

func (preparer) Prepare(line []byte, s *parsers.Scanned) { prepare(line, s) }

// prepare scans line into s with its member, kept in s.X.
func prepare(line []byte, s *parsers.Scanned) {
	m, _ := s.X.(*member)
	if m == nil {
		m = new(member)
		s.X = m
	}
	*m = member{exact: true}
	parsers.ScanLine(line, s, m)
}

// member reads, in the head scan, what of the first "data" object the
// commonest lines' evidence needs: whether its first "toolRequests" is an
// empty array (an assistant.message) and its first "content" string (a
// user.message's prompt), so an answer's text is never parsed.
type member struct {
	sub     bool   // a subagent's line (subagentOf)
	top     bool   // the first top-level "agentId" was met
	data    bool   // the first "data" was met
	tools   byte   // its toolRequests: 'e' an empty array, 'n' one with elements, 0 anything else
	content []byte // its content, raw, when a string (nil: absent or not one)
	exact   bool   // no escape in a key on the way or in content
}

// id reads an id at b[i]: a non-empty string marks a subagent's line.
func (m *member) id(b []byte, i, depth int) int {
	if b[i] != '"' {
		return parsers.SkipValue(b, i, depth)
	}
	v, _, end := parsers.RawStr(b, i)
	m.sub = m.sub || len(v) > 0
	return end
}

// Stop implements parsers.Member: every line is scanned whole.
func (*member) Stop([]byte) bool { return false }

// Member implements parsers.Member.
func (m *member) Member(b, key []byte, i int) int {
	if string(key) == "agentId" && !m.top {
		m.top = true
		return m.id(b, i, 2)
	}
	if string(key) != "data" || m.data {
		return parsers.SkipValue(b, i, 2)
	}
	m.data = true
	if b[i] != '{' {
		return parsers.SkipValue(b, i, 2)
	}
	var seen, text, agent, parent bool
	return parsers.ObjectKeys(b, i+1, 2, &m.exact, func(k []byte, j int) int {
		switch {
		case string(k) == "agentId" && !agent:
			agent = true
			return m.id(b, j, 3)
		case string(k) == "parentToolCallId" && !parent:
			parent = true
			return m.id(b, j, 3)
		}
		if string(k) == "content" && !text {
			text = true
			if b[j] != '"' {
				return parsers.SkipValue(b, j, 3)
			}
			v, esc, end := parsers.RawStr(b, j)
			m.content, m.exact = v, m.exact && !esc
			return end
		}
		if string(k) != "toolRequests" || seen {
			return parsers.SkipValue(b, j, 3)
		}
		seen = true
		if b[j] == '[' {
			m.tools = 'n'
			if e := parsers.WS(b, j+1); e < len(b) && b[e] == ']' {
				m.tools = 'e'
			}
		}
		return parsers.SkipValue(b, j, 3)
	})
}

// ParseScanned implements parsers.ScanParser.
func (c *Parser) ParseScanned(line []byte, s *parsers.Scanned) (parsers.Evidence, error) {
	if !s.OK {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	h := &s.H
	if m, _ := s.X.(*member); h.Exact && m != nil && m.exact && m.sub {
		return sidechain(parsers.Intern(h.Typ, types), string(h.TS)), nil
	}
	if h.Exact && h.HasType && h.Typ != nil {
		typ, known := types[string(h.Typ)]
		if known && (quiet[typ] || activity[typ]) {
			ev := parsers.Evidence{Type: typ, At: string(h.TS)}
			c.named(&ev)
			return ev, nil
		}
		switch m, _ := s.X.(*member); {
		case m == nil || !m.exact:
		case typ == "assistant.message":
			c.final, c.aborted = m.tools != 'n', false
			return parsers.Evidence{Type: typ, At: string(h.TS), Kind: parsers.KindActivity}, nil
		case typ == "user.message":
			c.prompt()
			return parsers.Evidence{Type: typ, At: string(h.TS), Kind: parsers.KindTurnStart,
				Prompt: parsers.ShortTitle(string(m.content))}, nil
		}
	}
	return c.ParseFull(line)
}

// ParseFull is Parse by the whole-document path alone, the reference the
// scan path is tested against (parsertest.Same).
func (c *Parser) ParseFull(line []byte) (parsers.Evidence, error) {
	v, err := c.p.ParseBytes(line)
	defer parsers.DropBig(&c.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	raw := v.GetStringBytes("type")
	typ, known := types[string(raw)]
	if !known {
		typ = string(raw)
	}
	ev := parsers.Evidence{Type: typ, At: string(v.GetStringBytes("timestamp"))}
	d := v.Get("data")
	if d == nil || d.Type() != fastjson.TypeObject {
		d = noData
	}
	if subagentOf(v, d) {
		return sidechain(ev.Type, ev.At), nil
	}
	if !known {
		ev.Unknown = true
		return ev, nil
	}
	if quiet[typ] || activity[typ] {
		c.named(&ev)
		return ev, nil
	}
	c.data(typ, d, &ev)
	return ev, nil
}

// subagentOf reports a subagent's line (the task tool's agent), which
// Copilot writes into its parent's log and tells by an agentId on the
// event or in its data, or the parentToolCallId of the task that runs it
// (cli-main.js reads them so; not measured). It never moves the parent,
// nor its round.
func subagentOf(v, d *fastjson.Value) bool {
	return len(v.GetStringBytes("agentId")) > 0 || len(d.GetStringBytes("agentId")) > 0 || len(d.GetStringBytes("parentToolCallId")) > 0
}

func sidechain(typ, at string) parsers.Evidence {
	return parsers.Evidence{Kind: parsers.KindSidechain, Type: typ, At: at}
}

// named is the evidence of a type its name decides.
func (c *Parser) named(ev *parsers.Evidence) {
	switch {
	case ev.Type == "assistant.turn_start":
		c.final = false
		ev.Kind = parsers.KindActivity
	case ev.Type == "tool.execution_complete":
		ev.Kind, ev.ToolEnd = parsers.KindActivity, true
	case activity[ev.Type]:
		ev.Kind = parsers.KindActivity
	}
}

// data is the evidence of a type whose data decides it.
func (c *Parser) data(typ string, d *fastjson.Value, ev *parsers.Evidence) {
	str := func(keys ...string) []byte { return d.GetStringBytes(keys...) }
	switch typ {
	case "session.shutdown":
		// A clean end (/exit, Ctrl+C twice, SIGTERM): a kill -9 writes none.
		ev.Kind = parsers.KindEnd
	case "session.start", "session.resume":
		ev.SessionID = string(str("sessionId"))
		ev.Cwd = string(str("context", "cwd"))
		ev.AgentVersion = string(str("copilotVersion"))
	case "user.message":
		// Every prompt is one: Copilot queues what is typed while it
		// works and writes it when the turn before has ended.
		ev.Kind = parsers.KindTurnStart
		ev.Prompt = parsers.ShortTitle(string(str("content")))
		c.prompt()
	case "assistant.message":
		ev.Kind = parsers.KindActivity
		tr := d.Get("toolRequests")
		c.final = tr == nil || tr.Type() != fastjson.TypeArray || len(tr.GetArray()) == 0
		c.aborted = false
	case "assistant.turn_end":
		// A round; the user's turn ends with the round whose answer asked
		// for no tool. A round cut short (Ctrl+C mid-stream, Esc at a
		// dialog) has no such answer: its abort follows. A turn whose
		// abort came before its user.message has one answerless round:
		// it ends the turn, interrupted.
		ev.Kind = parsers.KindActivity
		switch {
		case c.final:
			ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndNormal
			c.final, c.open = false, false
		case c.aborted:
			ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
			c.aborted, c.open = false, false
		}
	case "tool.execution_start":
		ev.Kind = parsers.KindTool
		ev.Tool = string(str("toolName"))
		if in := d.Get("arguments"); in != nil && in.Type() == fastjson.TypeObject {
			ev.ToolInput = parsers.ToolInputOf(in)
		}
		c.tool, c.input = ev.Tool, ev.ToolInput
	case "permission.requested":
		// The approval dialog is open: it is about the tool just started.
		ev.Kind, ev.Wait = parsers.KindWait, "permission"
		ev.Tool, ev.ToolInput = c.tool, c.input
	case "permission.completed":
		// Approved: the tool runs. Cancelled (Esc) is followed by the
		// abort; denied by the next round.
		if string(str("result", "kind")) == "approved" {
			ev.Kind = parsers.KindAnswered
			ev.Tool, ev.ToolInput = c.tool, c.input
		}
	case "abort":
		if r := string(str("reason")); r == abortUser || r == abortTool {
			ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
			c.final = false
			// Before the user.message of the turn it stops?
			ev.BeforePrompt, c.ahead = !c.open, !c.open
			c.open = false
		}
	case "session.compaction_start":
		c.trigger = string(str("trigger"))
	case "session.compaction_complete":
		if d.GetBool("success") {
			ev.Kind, ev.Trigger = parsers.KindCompaction, c.trigger
		}
		c.trigger = ""
	}
}
