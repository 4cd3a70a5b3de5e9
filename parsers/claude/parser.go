package claude

import (
	"strings"

	"github.com/logwatch/logwatch/parsers"
	"github.com/valyala/fastjson"
)

// The interrupt markers Claude Code writes as a user line (SPEC §4). They are
// interrupts only as the whole string content or the whole text of the only
// block; the same text inside tool output or a longer prompt is not one.
const (
	MarkerInterrupt        = "[Request interrupted by user]"
	MarkerInterruptToolUse = "[Request interrupted by user for tool use]"
)

// claudeMeta are the line types that carry session metadata and never a
// state transition (formats/claude-transcripts.md §2.2).
var claudeMeta = map[string]bool{
	"summary": true, "file-history-snapshot": true, "queue-operation": true,
	"progress": true, "attachment": true, "custom-title": true, "ai-title": true,
	"agent-name": true, "agent-color": true, "agent-setting": true, "tag": true,
	"mode": true, "permission-mode": true, "pr-link": true, "last-prompt": true,
	"atis-latch": true, "worktree-state": true, "frame-link": true,
	// 2.1.328 (formats/real-agents.md): request, cost and tool bookkeeping.
	"api-request": true, "api-request-blob": true, "api-request-shape": true,
	"cost-state": true, "tools-used": true,
}

var claudeTypeNames = parsers.Table("user", "assistant", "system")

var (
	claudeMetaNames   = parsers.KeysOf(claudeMeta)
	claudeSystemNames = parsers.KeysOf(claudeSystem)
	claudeSystemTypes = parsers.PrefixAll(claudeSystemNames, "system/")
)

var claudeSystem = map[string]bool{
	"": true, "compact_boundary": true, "stop_hook_summary": true, "turn_duration": true,
	"api_error": true, "local_command": true, "informational": true, "away_summary": true,
	"agents_killed": true, "model_refusal_fallback": true, "api_refusal": true,
	"session_start": true,
}

// claudeLocalCommands are built-in slash commands that run locally and never
// start a model turn. Any other <command-name> (custom or skill commands,
// /init, /review, …) invokes the model and so starts a turn.
var claudeLocalCommands = map[string]bool{
	"/clear": true, "/compact": true, "/model": true, "/help": true, "/cost": true,
	"/status": true, "/config": true, "/login": true, "/logout": true, "/doctor": true,
	"/exit": true, "/quit": true, "/resume": true, "/permissions": true, "/hooks": true,
	"/mcp": true, "/agents": true, "/vim": true, "/theme": true, "/terminal-setup": true,
	"/ide": true, "/add-dir": true, "/bug": true, "/release-notes": true, "/upgrade": true,
	"/usage": true, "/context": true, "/export": true, "/rewind": true, "/statusline": true,
	"/output-style": true, "/privacy-settings": true, "/todos": true, "/tasks": true,
	"/plugin": true, "/memory": true, "/fast": true, "/effort": true, "/feedback": true,
	"/stickers": true, "/migrate-installer": true, "/install-github-app": true,
}

// Claude parses Claude Code transcript lines.
type Claude struct {
	p       fastjson.Parser
	id      identity
	unknown parsers.UnknownNames
	s       parsers.Scanned // Parse's, with its claudeHead
}

// identity is the per-file memory of the identity fields.
type identity struct{ session, cwd, version parsers.Field }

// NewClaude returns a Claude transcript parser.
func NewClaude() *Claude { return &Claude{} }

// Agent implements Parser.
func (c *Claude) Agent() parsers.Agent { return Name }

// Reset implements Parser.
func (c *Claude) Reset() { c.id = identity{} }

// Parse implements Parser.
func (c *Claude) Parse(line []byte) (parsers.Evidence, error) {
	scan(line, &c.s)
	return c.ParseScanned(line, &c.s)
}

// scan scans line into s, reading the Claude members into the claudeHead
// kept with s (made once per Scanned).
func scan(line []byte, s *parsers.Scanned) {
	m, _ := s.X.(*claudeHead)
	if m == nil {
		m = new(claudeHead)
		s.X = m
	}
	*m = claudeHead{exact: true}
	parsers.ScanLine(line, s, m)
}

// ParseScanned implements ScanParser.
func (c *Claude) ParseScanned(line []byte, s *parsers.Scanned) (parsers.Evidence, error) {
	if s.Done {
		return s.Ev, s.Err
	}
	// A metadata line's type is all its evidence: scan it, never parse it.
	h := &s.H
	if !s.OK {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	u, _ := s.X.(*claudeHead)
	if h.Exact && u != nil {
		switch string(h.Typ) {
		case "user":
			// A user line is mostly a tool result: its evidence is in
			// the few fields the scan read, unless an escape hides one.
			if ev, ok := c.user(h, u); ok {
				return ev, nil
			}
		case "assistant":
			if ev, ok := c.assistant(h, u, line); ok {
				return ev, nil
			}
		case "system":
		default:
			if titleKeys[string(h.Typ)] == "" {
				// claudeMetaNames holds exactly claudeMeta's types.
				typ, meta := c.unknown.Intern(h.Typ, claudeMetaNames)
				return parsers.Evidence{Type: typ, Unknown: !meta}, nil
			}
		}
	}
	return c.parse(line)
}

// scanned is the evidence a scanned user or assistant line of type typ
// gives before its content: its type, its ids, and for a sidechain's line
// its kind (all it says).
func (c *Claude) scanned(h *claudeHead, typ string) parsers.Evidence {
	ev := parsers.Evidence{
		Type:         claudeTypeNames[typ],
		SessionID:    c.id.session.Get(h.sid),
		Cwd:          c.id.cwd.Get(h.cwd),
		AgentVersion: c.id.version.Get(h.ver),
	}
	if h.sidechain {
		ev.Kind = parsers.KindSidechain
	}
	return ev
}

// user is parse's evidence for a user line from its scan; ok is false when
// an escape leaves a value the evidence needs unread.
func (c *Claude) user(h *parsers.Head, u *claudeHead) (ev parsers.Evidence, ok bool) {
	if !u.exact {
		return ev, false
	}
	if ev = c.scanned(u, "user"); u.sidechain {
		return ev, true
	}
	if !u.meta && !u.compact {
		switch {
		case u.content == 's' || u.content == 'a' && !u.toolResult && u.texts == 1 && u.blocks == 1:
			if u.textEsc {
				return parsers.Evidence{}, false
			}
			claudeText(string(u.text), &ev)
		case u.content == 'a' && u.toolResult:
			ev.Kind = parsers.KindActivity
		case u.content == 'a' && u.prompts > 0:
			// Several blocks (text plus images, say) are a real prompt.
			if u.texts > 0 {
				return parsers.Evidence{}, false // parse reads its text for the title
			}
			ev.Kind = parsers.KindTurnStart
		case u.content == 'a' && u.blocks > 0:
			// Only blocks of types a prompt is not made of: what a new
			// release writes, unproven, moves nothing.
			ev.Type, ev.Unknown = c.oddBlock(u.odd), true
		}
	}
	ev.At = string(h.TS)
	return ev, true
}

// assistant is parse's evidence for an assistant line from its scan; ok is
// false when an escape leaves a value the evidence needs unread. A tool's
// input is parsed alone, for the fields ToolDetail reads.
func (c *Claude) assistant(h *parsers.Head, a *claudeHead, line []byte) (ev parsers.Evidence, ok bool) {
	if !a.exact {
		return ev, false
	}
	if ev = c.scanned(a, "assistant"); a.sidechain {
		return ev, true
	}
	ev.At = string(h.TS)
	switch {
	case a.apiError:
		ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndAPIError
	case a.tool:
		ev.Kind, ev.Tool = parsers.KindTool, string(a.toolName)
		if a.in1 > 0 {
			in, err := c.p.ParseBytes(line[a.in0:a.in1])
			defer parsers.DropBig(&c.p, a.in1-a.in0)
			if err != nil || in.Type() != fastjson.TypeObject {
				return parsers.Evidence{}, false // cannot be: the scan accepted it
			}
			ev.ToolInput = parsers.ToolInputOf(in)
		}
	default:
		ev.Kind = parsers.KindActivity
		switch {
		case a.synthetic:
		case a.stopStr:
			ev.Final = a.stopEnd
		case string(a.last) == "text" && isOldClaude(ev.AgentVersion):
			// See claudeAssistant.
			ev.Final = true
		}
	}
	return ev, true
}

// NewPreparer implements ScanParser. A Claude line's evidence depends on no
// other line, so the preparer parses it whole.
func (c *Claude) NewPreparer() parsers.Preparer { return &claudePreparer{} }

type claudePreparer struct{ c Claude }

func (p *claudePreparer) Prepare(line []byte, s *parsers.Scanned) {
	scan(line, s)
	s.Ev, s.Err = p.c.ParseScanned(line, s)
	s.Done = true
}

// parse is the whole-document path, for the lines whose evidence is in
// their content (and any line the scan could not classify exactly).
func (c *Claude) parse(line []byte) (parsers.Evidence, error) {
	v, err := c.p.ParseBytes(line)
	defer parsers.DropBig(&c.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	tb := v.GetStringBytes("type")
	ev := parsers.Evidence{}
	switch string(tb) {
	case "user", "assistant", "system":
		ev.Type = claudeTypeNames[string(tb)]
	default:
		typ, meta := c.unknown.Intern(tb, claudeMetaNames)
		ev := parsers.Evidence{Type: typ, Unknown: !meta}
		if key := titleKeys[typ]; key != "" {
			ev.Title = parsers.ShortTitle(string(v.GetStringBytes(key)))
			ev.TitleByUser = typ == "custom-title"
		}
		return ev, nil
	}
	ev.SessionID = c.id.session.Get(v.GetStringBytes("sessionId"))
	ev.Cwd = c.id.cwd.Get(v.GetStringBytes("cwd"))
	ev.AgentVersion = c.id.version.Get(v.GetStringBytes("version"))
	if v.GetBool("isSidechain") {
		ev.Kind = parsers.KindSidechain
		return ev, nil
	}
	switch ev.Type {
	case "user":
		if odd, ok := claudeUser(v, &ev); !ok {
			ev.Type, ev.Unknown = c.oddBlock(odd), true
		}
	case "assistant":
		claudeAssistant(v, &ev)
	case "system":
		sb := v.GetStringBytes("subtype")
		sub := parsers.Intern(sb, claudeSystemNames)
		if sub != "" {
			ev.Type = parsers.Prefixed(sb, claudeSystemTypes, "system/")
		}
		ev.Unknown = !claudeSystem[sub]
		switch sub {
		case "turn_duration":
			ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndNormal
			// Every turn_duration states the counts: 2.1.328 writes 1 while a
			// background agent runs and leaves the field out once it is back
			// to zero, so an absent count is zero, not "unknown".
			ev.HasPending = true
			ev.PendingAgents, ev.PendingWorkflows = v.GetInt("pendingBackgroundAgentCount"), v.GetInt("pendingWorkflowCount")
		case "compact_boundary":
			ev.Kind = parsers.KindCompaction
			ev.Trigger = string(v.GetStringBytes("compactMetadata", "trigger"))
		case "api_error":
			// A retry in progress, not the end of the turn.
			ev.Kind = parsers.KindActivity
		}
	}
	ev.At = string(v.GetStringBytes("timestamp"))
	return ev, nil
}

// claudeUser is the evidence of a user line. ok is false for a content
// array of blocks none of which a prompt is made of (text, image,
// document): odd is the first such block's type.
func claudeUser(v *fastjson.Value, ev *parsers.Evidence) (odd []byte, ok bool) {
	if v.GetBool("isMeta") || v.GetBool("isCompactSummary") {
		return nil, true
	}
	content := v.Get("message", "content")
	if content == nil {
		return nil, true
	}
	var text string
	switch content.Type() {
	case fastjson.TypeString:
		text = string(content.GetStringBytes())
	case fastjson.TypeArray:
		blocks, _ := content.Array()
		texts, prompts, oddSeen := 0, 0, false
		for _, b := range blocks {
			switch typ := b.GetStringBytes("type"); string(typ) {
			case "tool_result":
				// A tool result carrier: activity inside the turn, whatever
				// its text (it may quote an interrupt marker).
				ev.Kind = parsers.KindActivity
				return nil, true
			case "text":
				texts++
				prompts++
				if texts == 1 {
					text = string(b.GetStringBytes("text"))
				}
			case "image", "document":
				prompts++
			default:
				if !oddSeen {
					odd, oddSeen = typ, true
				}
			}
		}
		if texts != 1 || len(blocks) != 1 {
			// Several blocks (text plus images, say) are a real prompt,
			// never a marker.
			switch {
			case len(blocks) == 0:
				return nil, true
			case prompts == 0:
				return odd, false
			}
			ev.Kind = parsers.KindTurnStart
			ev.Prompt = parsers.ShortTitle(text)
			return nil, true
		}
	default:
		return nil, true
	}
	claudeText(text, ev)
	return nil, true
}

// oddBlock is the type a user line made only of blocks of unknown types
// is counted under: "user/" and the first block's type.
func (c *Claude) oddBlock(typ []byte) string {
	s, _ := c.unknown.Intern(append([]byte("user/"), typ...), nil)
	return s
}

// claudeText is the evidence of a user line whose only text is text.
func claudeText(text string, ev *parsers.Evidence) {
	switch text {
	case MarkerInterrupt:
		ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptUser
		return
	case MarkerInterruptToolUse:
		ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptToolUse
		return
	}
	if isClaudeWrapper(text) {
		return
	}
	ev.Kind = parsers.KindTurnStart
	ev.Prompt = parsers.ShortTitle(text)
}

// titleKeys name, by a metadata line's type, the member holding the
// session's title: the summary --resume lists, a title the user gave
// (/rename: custom-title, re-appended with the others on a resume) and the
// one Claude Code generates.
var titleKeys = map[string]string{"summary": "summary", "custom-title": "customTitle", "ai-title": "aiTitle"}

// isClaudeWrapper reports whether a user text is an injected wrapper rather
// than something typed: local-command output and caveats, built-in slash
// commands, and bare system reminders.
func isClaudeWrapper(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "<") {
		return false
	}
	for _, p := range []string{"<local-command-stdout>", "<local-command-stderr>",
		"<local-command-caveat>", "<system-reminder>", "<bash-stdout>", "<bash-stderr>"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(t, "<command-name>"); ok {
		name, _, _ := strings.Cut(rest, "</command-name>")
		return claudeLocalCommands[strings.TrimSpace(name)]
	}
	if rest, ok := strings.CutPrefix(t, "<command-message>"); ok {
		// Some versions put the message tag first; the name follows.
		if i := strings.Index(rest, "<command-name>"); i >= 0 {
			return isClaudeWrapper(rest[i:])
		}
	}
	return false
}

func claudeAssistant(v *fastjson.Value, ev *parsers.Evidence) {
	if v.GetBool("isApiErrorMessage") {
		ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndAPIError
		return
	}
	ev.Kind = parsers.KindActivity
	msg := v.Get("message")
	if msg == nil {
		return
	}
	stop := msg.Get("stop_reason")
	synthetic := string(msg.GetStringBytes("model")) == "<synthetic>"
	blocks := msg.GetArray("content")
	last := ""
	for _, b := range blocks {
		bt := string(b.GetStringBytes("type"))
		if bt == "tool_use" || bt == "server_tool_use" {
			ev.Kind = parsers.KindTool
			ev.Tool = string(b.GetStringBytes("name"))
			if in := b.Get("input"); in != nil && in.Type() == fastjson.TypeObject {
				ev.ToolInput = parsers.ToolInputOf(in)
			}
		}
		last = bt
	}
	if synthetic || ev.Kind == parsers.KindTool {
		return
	}
	switch {
	case stop != nil && stop.Type() == fastjson.TypeString:
		ev.Final = string(stop.GetStringBytes()) == "end_turn"
	case last == "text" && isOldClaude(ev.AgentVersion):
		// 1.0.x and 2.0.x leave stop_reason null even on the last line of
		// a finished turn; a text block is the best end-of-response hint.
		ev.Final = true
	}
}

// isOldClaude reports versions before 2.1, whose stop_reason is unreliable.
func isOldClaude(v string) bool {
	return strings.HasPrefix(v, "0.") || strings.HasPrefix(v, "1.") || strings.HasPrefix(v, "2.0.")
}

// ParseFull is the whole-document path alone, the reference the scan path
// is tested against (parsertest.Same).
func (c *Claude) ParseFull(line []byte) (parsers.Evidence, error) { return c.parse(line) }
