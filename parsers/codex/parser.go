package codex

import (
	"strings"

	"github.com/logwatch/logwatch/parsers"
	"github.com/valyala/fastjson"
)

// MarkerTurnAborted starts the user-role item Codex writes just before a
// turn_aborted event. Its guidance text has changed between releases, so only
// the prefix is matched, and only as a hint.
const MarkerTurnAborted = "<turn_aborted>"

var codexOuter = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "inter_agent_communication": true,
	"inter_agent_communication_metadata": true,
	// 0.169: one per model response, metadata.
	"token_usage_record": true,
}

// codexQuiet are event_msg types that carry no turn evidence.
var codexQuiet = map[string]bool{
	"token_count": true, "thread_name_updated": true, "thread_rolled_back": true,
	"thread_goal_updated": true, "thread_settings_applied": true, "undo_completed": true,
	"injected_message": true,
}

// codexActivity are event_msg types that happen inside a turn.
var codexActivity = map[string]bool{
	"agent_reasoning": true, "agent_reasoning_raw_content": true,
	"entered_review_mode": true, "exited_review_mode": true, "image_generation_end": true,
	"error": true, "warning": true, "stream_error": true, "guardian_assessment": true,
	"web_search_end": true, "exec_command_end": true, "patch_apply_end": true,
	"mcp_tool_call_end": true, "view_image_tool_call": true, "sub_agent_activity": true,
	"dynamic_tool_call_request": true, "dynamic_tool_call_response": true,
	"model_reroute": true, "hook_started": true, "hook_completed": true, "plan_update": true,
	"collab_agent_spawn_end": true, "collab_agent_interaction_end": true, "collab_waiting_end": true,
	"collab_close_end": true, "collab_resume_end": true,
}

var codexItems = map[string]bool{
	"message": true, "reasoning": true, "local_shell_call": true, "function_call": true,
	"function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"tool_search_call": true, "tool_search_output": true, "web_search_call": true,
	"image_generation_call": true, "ghost_snapshot": true, "compaction": true,
	"context_compaction": true, "agent_message": true,
}

// Interning tables: known values cost no allocation per line.
var (
	codexOuterNames = parsers.KeysOf(codexOuter)
	codexEventNames = parsers.Table(append(append(parsers.Keys(codexQuiet), parsers.Keys(codexActivity)...), "task_started", "turn_started",
		"task_complete", "turn_complete", "turn_aborted", "user_message", "agent_message", "context_compacted", "item_completed")...)
	codexEventTypes    = parsers.PrefixAll(codexEventNames, "event_msg/")
	codexItemNames     = parsers.KeysOf(codexItems)
	codexResponseTypes = parsers.PrefixAll(codexItemNames, "response_item/")
	codexItemKinds     = parsers.Table("UserMessage", "AgentMessage", "Reasoning", "CommandExecution", "FileChange",
		"McpToolCall", "Plan", "Extension", "ContextCompaction", "WebSearch", "ImageGeneration")
	codexItemTypes = parsers.PrefixAll(codexItemKinds, "event_msg/item_completed/")
)

// Codex parses Codex rollout lines of every era: bare (2025), envelope v1,
// envelope v2 (task_* persisted) and paginated (item_completed).
type Codex struct {
	p fastjson.Parser
	// metaSeen: the first session_meta (or bare header) has been read; later
	// ones are history copied from a fork and do not name this session.
	metaSeen bool
	// compacted: the last turn evidence was a compacted line, so the
	// context_compacted event or ContextCompaction item that echoes it is not
	// a second compaction.
	compacted bool
}

// NewCodex returns a Codex rollout parser.
func NewCodex() *Codex { return &Codex{} }

// Agent implements Parser.
func (c *Codex) Agent() parsers.Agent { return Name }

// Reset implements Parser.
func (c *Codex) Reset() { c.metaSeen, c.compacted = false, false }

// Parse implements Parser.
func (c *Codex) Parse(line []byte) (parsers.Evidence, error) {
	var s parsers.Scanned
	parsers.ScanLine(line, &s, nil)
	return c.ParseScanned(line, &s)
}

// NewPreparer implements ScanParser. Which session_meta names the session
// and whether a compaction event is an echo depend on the lines before, so
// the preparer only scans.
func (c *Codex) NewPreparer() parsers.Preparer { return codexPreparer{} }

type codexPreparer struct{}

func (codexPreparer) Prepare(line []byte, s *parsers.Scanned) { parsers.ScanLine(line, s, nil) }

// ParseScanned implements ScanParser.
func (c *Codex) ParseScanned(line []byte, s *parsers.Scanned) (parsers.Evidence, error) {
	h := &s.H
	if !s.OK {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	ev, ok := c.classify(h)
	if ok {
		ev.At = string(h.TS)
	} else {
		v, err := c.p.ParseBytes(line)
		defer parsers.DropBig(&c.p, len(line))
		if err != nil || v.Type() != fastjson.TypeObject {
			return parsers.Evidence{}, parsers.ErrMalformed
		}
		ev = c.parse(v)
		ev.At = string(v.GetStringBytes("timestamp"))
	}
	c.track(ev)
	return ev, nil
}

// parseFull is Parse by the whole-document path alone, the reference the
// scan path is tested against.
func (c *Codex) parseFull(line []byte) (parsers.Evidence, error) {
	v, err := c.p.ParseBytes(line)
	defer parsers.DropBig(&c.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	ev := c.parse(v)
	ev.At = string(v.GetStringBytes("timestamp"))
	c.track(ev)
	return ev, nil
}

// classify returns the evidence of an envelope line whose types alone decide
// it, without parsing the line; ok is false when the content is needed.
func (c *Codex) classify(h *parsers.Head) (ev parsers.Evidence, ok bool) {
	if !h.Exact || !h.Payload || !h.HasPType || h.PTyp == nil {
		return ev, false
	}
	typ := parsers.Intern(h.Typ, codexOuterNames)
	ev.Type = typ
	switch typ {
	case "session_meta":
		// Only the first names the session; later ones are fork history.
		return ev, c.metaSeen
	case "event_msg":
		et := parsers.Intern(h.PTyp, codexEventNames)
		switch et {
		case "task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted", "item_completed",
			"user_message", "thread_name_updated":
			return ev, false // their payload's fields are evidence
		}
		ev.Type = parsers.Prefixed(h.PTyp, codexEventTypes, "event_msg/")
		c.eventKind(et, &ev)
		return ev, true
	case "response_item":
		it := parsers.Intern(h.PTyp, codexItemNames)
		ev.Type = parsers.Prefixed(h.PTyp, codexResponseTypes, "response_item/")
		switch {
		case !codexItems[it]:
			ev.Unknown = true
		case it == "message", it == "function_call", it == "custom_tool_call", it == "local_shell_call", it == "web_search_call":
			return ev, false
		case it == "compaction", it == "context_compaction":
		default:
			ev.Kind = parsers.KindActivity
		}
		return ev, true
	case "compacted":
		ev.Kind = parsers.KindCompaction
	default:
		ev.Unknown = !codexOuter[typ]
	}
	return ev, true
}

// track remembers whether the last turn evidence was a compaction.
func (c *Codex) track(ev parsers.Evidence) {
	switch ev.Kind {
	case parsers.KindCompaction:
		c.compacted = true
	case parsers.KindNone:
	default:
		c.compacted = false
	}
}

func (c *Codex) parse(v *fastjson.Value) parsers.Evidence {
	payload := v.Get("payload")
	typ := parsers.Intern(v.GetStringBytes("type"), codexOuterNames)
	if payload == nil || payload.Type() != fastjson.TypeObject {
		return c.bare(v, typ)
	}
	ev := parsers.Evidence{Type: typ}
	switch typ {
	case "session_meta":
		c.meta(payload, &ev)
	case "event_msg":
		c.event(payload, &ev)
	case "response_item":
		c.item(payload, &ev, false)
	case "compacted":
		ev.Kind = parsers.KindCompaction
	default:
		ev.Unknown = !codexOuter[typ]
	}
	return ev
}

// bare handles lines without the {timestamp,type,payload} envelope: the 2025
// header, {"record_type":"state"} lines and raw ResponseItems.
func (c *Codex) bare(v *fastjson.Value, typ string) parsers.Evidence {
	switch {
	case typ == "" && v.Get("record_type") != nil:
		return parsers.Evidence{Type: "record_type/" + string(v.GetStringBytes("record_type"))}
	case typ == "" && v.Get("id") != nil && v.Get("timestamp") != nil:
		ev := parsers.Evidence{Type: "header"}
		c.meta(v, &ev)
		return ev
	case typ == "":
		return parsers.Evidence{Type: "untyped", Unknown: true}
	}
	ev := parsers.Evidence{Type: typ}
	if !codexItems[typ] {
		ev.Unknown = true
		return ev
	}
	c.item(v, &ev, true)
	return ev
}

func (c *Codex) meta(p *fastjson.Value, ev *parsers.Evidence) {
	if c.metaSeen {
		return
	}
	c.metaSeen = true
	ev.SessionID = string(p.GetStringBytes("id"))
	if ev.SessionID == "" {
		ev.SessionID = string(p.GetStringBytes("session_id"))
	}
	ev.Cwd = string(p.GetStringBytes("cwd"))
	ev.AgentVersion = string(p.GetStringBytes("cli_version"))
}

func (c *Codex) event(p *fastjson.Value, ev *parsers.Evidence) {
	eb := p.GetStringBytes("type")
	et := parsers.Intern(eb, codexEventNames)
	ev.Type = parsers.Prefixed(eb, codexEventTypes, "event_msg/")
	switch et {
	case "task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted":
		ev.TurnID = string(p.GetStringBytes("turn_id"))
	}
	switch et {
	case "task_started", "turn_started":
		ev.Kind, ev.Explicit = parsers.KindTurnStart, true
	case "task_complete", "turn_complete":
		ev.Kind, ev.End, ev.Explicit = parsers.KindTurnEnd, parsers.EndNormal, true
		if e := p.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
			ev.End = parsers.EndAPIError
		}
	case "turn_aborted":
		switch string(p.GetStringBytes("reason")) {
		case "interrupted":
			ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
		case "budget_limited":
			// The turn stopped on a limit, not by the user: an error end.
			ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndAPIError
		case "review_ended":
			ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndNormal
		default:
			// "replaced": a new task supersedes this one and its
			// task_started follows at once. Not an interrupt.
		}
	case "user_message":
		ev.Kind = parsers.KindPrompt
		ev.Prompt = parsers.ShortTitle(string(p.GetStringBytes("message")))
	case "thread_name_updated":
		// The thread's name (/rename, or the one Codex generates).
		ev.Title = parsers.ShortTitle(string(p.GetStringBytes("thread_name")))
	case "item_completed":
		ib := p.GetStringBytes("item", "type")
		it := parsers.Intern(ib, codexItemKinds)
		ev.Type = parsers.Prefixed(ib, codexItemTypes, "event_msg/item_completed/")
		switch it {
		case "UserMessage":
			ev.Kind = parsers.KindPrompt
		case "ContextCompaction":
			if !c.compacted {
				ev.Kind = parsers.KindCompaction
			}
		case "AgentMessage":
			ev.Kind, ev.Final = parsers.KindActivity, true
		default:
			ev.Kind = parsers.KindActivity
		}
	default:
		c.eventKind(et, ev)
	}
}

// eventKind is the evidence of the event_msg types that carry no field the
// parsers read.
func (c *Codex) eventKind(et string, ev *parsers.Evidence) {
	switch {
	case et == "user_message":
		ev.Kind = parsers.KindPrompt
	case et == "agent_message":
		// Legacy files echo each assistant message as this event.
		ev.Kind, ev.Final = parsers.KindActivity, true
	case et == "context_compacted":
		if !c.compacted {
			ev.Kind = parsers.KindCompaction
		}
	case codexQuiet[et]:
	case codexActivity[et]:
		ev.Kind = parsers.KindActivity
	default:
		ev.Unknown = true
	}
}

// item handles a ResponseItem. In the envelope eras a user-role message
// duplicates (or is injected beside) the user_message event, so only the bare
// era treats one as a prompt.
func (c *Codex) item(p *fastjson.Value, ev *parsers.Evidence, bare bool) {
	ib := p.GetStringBytes("type")
	it := parsers.Intern(ib, codexItemNames)
	if !bare {
		ev.Type = parsers.Prefixed(ib, codexResponseTypes, "response_item/")
		if !codexItems[it] {
			ev.Unknown = true
			return
		}
	}
	switch it {
	case "message":
		role := string(p.GetStringBytes("role"))
		text := codexFirstText(p)
		switch role {
		case "user":
			switch {
			case strings.HasPrefix(text, MarkerTurnAborted):
				ev.Kind = parsers.KindInterruptHint
			case bare && !isCodexInjected(text):
				ev.Kind = parsers.KindPrompt
				ev.Prompt = parsers.ShortTitle(text)
			}
		case "assistant":
			ev.Kind, ev.Final = parsers.KindActivity, true
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		ev.Kind = parsers.KindTool
		ev.Tool = string(p.GetStringBytes("name"))
		switch it {
		case "function_call":
			// arguments is JSON text inside a JSON string.
			if a := p.GetStringBytes("arguments"); len(a) > 0 && a[0] == '{' {
				ev.ToolInput = append([]byte(nil), a...)
			}
		case "custom_tool_call":
			// Free-form input (apply_patch's patch): wrap it as a command.
			if in := p.Get("input"); in != nil {
				ev.ToolInput = append(in.MarshalTo([]byte(`{"command":`)), '}')
			}
		case "local_shell_call":
			ev.Tool = "local_shell"
			if a := p.Get("action"); a != nil && a.Type() == fastjson.TypeObject {
				ev.ToolInput = parsers.ToolInputOf(a)
			} else if a != nil {
				ev.ToolInput = a.MarshalTo(nil)
			}
		}
	case "web_search_call":
		ev.Kind, ev.Tool = parsers.KindTool, "web_search"
		if a := p.Get("action"); a != nil && a.Type() == fastjson.TypeObject {
			ev.ToolInput = parsers.ToolInputOf(a)
		}
	case "compaction", "context_compaction":
		// Part of a compacted line's replacement history when nested; as a
		// top-level item it is bookkeeping.
	default:
		ev.Kind = parsers.KindActivity
	}
}

// codexFirstText is the head of a message's first text: only prefixes are
// ever looked at, and the text can be a whole pasted file.
func codexFirstText(p *fastjson.Value) string {
	for _, b := range p.GetArray("content") {
		if t := b.GetStringBytes("text"); t != nil {
			return string(t[:min(len(t), 64)])
		}
	}
	return ""
}

// isCodexInjected reports context Codex writes as user-role messages that the
// user did not type (AGENTS.md, environment, instructions, notifications).
func isCodexInjected(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md")
}

// ParseFull is the whole-document path alone, the reference the scan path
// is tested against (parsertest.Same).
func (c *Codex) ParseFull(line []byte) (parsers.Evidence, error) { return c.parseFull(line) }
