package parsers

import (
	"strings"

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
	codexOuterNames = keysOf(codexOuter)
	codexEventNames = names(append(append(keys(codexQuiet), keys(codexActivity)...), "task_started", "turn_started",
		"task_complete", "turn_complete", "turn_aborted", "user_message", "agent_message", "context_compacted", "item_completed")...)
	codexEventTypes    = prefixAll(codexEventNames, "event_msg/")
	codexItemNames     = keysOf(codexItems)
	codexResponseTypes = prefixAll(codexItemNames, "response_item/")
	codexItemKinds     = names("UserMessage", "AgentMessage", "Reasoning", "CommandExecution", "FileChange",
		"McpToolCall", "Plan", "Extension", "ContextCompaction", "WebSearch", "ImageGeneration")
	codexItemTypes = prefixAll(codexItemKinds, "event_msg/item_completed/")
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
func (c *Codex) Agent() Agent { return AgentCodex }

// Reset implements Parser.
func (c *Codex) Reset() { c.metaSeen, c.compacted = false, false }

// Parse implements Parser.
func (c *Codex) Parse(line []byte) (Evidence, error) {
	var s Scanned
	scanLine(line, &s, false)
	return c.ParseScanned(line, &s)
}

// NewPreparer implements ScanParser. Which session_meta names the session
// and whether a compaction event is an echo depend on the lines before, so
// the preparer only scans.
func (c *Codex) NewPreparer() Preparer { return codexPreparer{} }

type codexPreparer struct{}

func (codexPreparer) Prepare(line []byte, s *Scanned) { scanLine(line, s, false) }

// ParseScanned implements ScanParser.
func (c *Codex) ParseScanned(line []byte, s *Scanned) (Evidence, error) {
	h := &s.h
	if !s.ok {
		return Evidence{}, ErrMalformed
	}
	ev, ok := c.classify(h)
	if ok {
		ev.At = string(h.ts)
	} else {
		v, err := c.p.ParseBytes(line)
		defer dropBig(&c.p, len(line))
		if err != nil || v.Type() != fastjson.TypeObject {
			return Evidence{}, ErrMalformed
		}
		ev = c.parse(v)
		ev.At = string(v.GetStringBytes("timestamp"))
	}
	c.track(ev)
	return ev, nil
}

// parseFull is Parse by the whole-document path alone, the reference the
// scan path is tested against.
func (c *Codex) parseFull(line []byte) (Evidence, error) {
	v, err := c.p.ParseBytes(line)
	defer dropBig(&c.p, len(line))
	if err != nil || v.Type() != fastjson.TypeObject {
		return Evidence{}, ErrMalformed
	}
	ev := c.parse(v)
	ev.At = string(v.GetStringBytes("timestamp"))
	c.track(ev)
	return ev, nil
}

// classify returns the evidence of an envelope line whose types alone decide
// it, without parsing the line; ok is false when the content is needed.
func (c *Codex) classify(h *head) (ev Evidence, ok bool) {
	if !h.exact || !h.payload || !h.hasPType || h.ptyp == nil {
		return ev, false
	}
	typ := intern(h.typ, codexOuterNames)
	ev.Type = typ
	switch typ {
	case "session_meta":
		// Only the first names the session; later ones are fork history.
		return ev, c.metaSeen
	case "event_msg":
		et := intern(h.ptyp, codexEventNames)
		switch et {
		case "task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted", "item_completed":
			return ev, false
		}
		ev.Type = prefixed(h.ptyp, codexEventTypes, "event_msg/")
		c.eventKind(et, &ev)
		return ev, true
	case "response_item":
		it := intern(h.ptyp, codexItemNames)
		ev.Type = prefixed(h.ptyp, codexResponseTypes, "response_item/")
		switch {
		case !codexItems[it]:
			ev.Unknown = true
		case it == "message", it == "function_call", it == "custom_tool_call", it == "local_shell_call", it == "web_search_call":
			return ev, false
		case it == "compaction", it == "context_compaction":
		default:
			ev.Kind = KindActivity
		}
		return ev, true
	case "compacted":
		ev.Kind = KindCompaction
	default:
		ev.Unknown = !codexOuter[typ]
	}
	return ev, true
}

// track remembers whether the last turn evidence was a compaction.
func (c *Codex) track(ev Evidence) {
	switch ev.Kind {
	case KindCompaction:
		c.compacted = true
	case KindNone:
	default:
		c.compacted = false
	}
}

func (c *Codex) parse(v *fastjson.Value) Evidence {
	payload := v.Get("payload")
	typ := intern(v.GetStringBytes("type"), codexOuterNames)
	if payload == nil || payload.Type() != fastjson.TypeObject {
		return c.bare(v, typ)
	}
	ev := Evidence{Type: typ}
	switch typ {
	case "session_meta":
		c.meta(payload, &ev)
	case "event_msg":
		c.event(payload, &ev)
	case "response_item":
		c.item(payload, &ev, false)
	case "compacted":
		ev.Kind = KindCompaction
	default:
		ev.Unknown = !codexOuter[typ]
	}
	return ev
}

// bare handles lines without the {timestamp,type,payload} envelope: the 2025
// header, {"record_type":"state"} lines and raw ResponseItems.
func (c *Codex) bare(v *fastjson.Value, typ string) Evidence {
	switch {
	case typ == "" && v.Get("record_type") != nil:
		return Evidence{Type: "record_type/" + string(v.GetStringBytes("record_type"))}
	case typ == "" && v.Get("id") != nil && v.Get("timestamp") != nil:
		ev := Evidence{Type: "header"}
		c.meta(v, &ev)
		return ev
	case typ == "":
		return Evidence{Type: "untyped", Unknown: true}
	}
	ev := Evidence{Type: typ}
	if !codexItems[typ] {
		ev.Unknown = true
		return ev
	}
	c.item(v, &ev, true)
	return ev
}

func (c *Codex) meta(p *fastjson.Value, ev *Evidence) {
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

func (c *Codex) event(p *fastjson.Value, ev *Evidence) {
	eb := p.GetStringBytes("type")
	et := intern(eb, codexEventNames)
	ev.Type = prefixed(eb, codexEventTypes, "event_msg/")
	switch et {
	case "task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted":
		ev.TurnID = string(p.GetStringBytes("turn_id"))
	}
	switch et {
	case "task_started", "turn_started":
		ev.Kind, ev.Explicit = KindTurnStart, true
	case "task_complete", "turn_complete":
		ev.Kind, ev.End, ev.Explicit = KindTurnEnd, EndNormal, true
		if e := p.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
			ev.End = EndAPIError
		}
	case "turn_aborted":
		switch string(p.GetStringBytes("reason")) {
		case "interrupted":
			ev.Kind, ev.Interrupt = KindInterrupt, InterruptAborted
		case "budget_limited":
			// The turn stopped on a limit, not by the user: an error end.
			ev.Kind, ev.End = KindTurnEnd, EndAPIError
		case "review_ended":
			ev.Kind, ev.End = KindTurnEnd, EndNormal
		default:
			// "replaced": a new task supersedes this one and its
			// task_started follows at once. Not an interrupt.
		}
	case "item_completed":
		ib := p.GetStringBytes("item", "type")
		it := intern(ib, codexItemKinds)
		ev.Type = prefixed(ib, codexItemTypes, "event_msg/item_completed/")
		switch it {
		case "UserMessage":
			ev.Kind = KindPrompt
		case "ContextCompaction":
			if !c.compacted {
				ev.Kind = KindCompaction
			}
		case "AgentMessage":
			ev.Kind, ev.Final = KindActivity, true
		default:
			ev.Kind = KindActivity
		}
	default:
		c.eventKind(et, ev)
	}
}

// eventKind is the evidence of the event_msg types that carry no field the
// parsers read.
func (c *Codex) eventKind(et string, ev *Evidence) {
	switch {
	case et == "user_message":
		ev.Kind = KindPrompt
	case et == "agent_message":
		// Legacy files echo each assistant message as this event.
		ev.Kind, ev.Final = KindActivity, true
	case et == "context_compacted":
		if !c.compacted {
			ev.Kind = KindCompaction
		}
	case codexQuiet[et]:
	case codexActivity[et]:
		ev.Kind = KindActivity
	default:
		ev.Unknown = true
	}
}

// item handles a ResponseItem. In the envelope eras a user-role message
// duplicates (or is injected beside) the user_message event, so only the bare
// era treats one as a prompt.
func (c *Codex) item(p *fastjson.Value, ev *Evidence, bare bool) {
	ib := p.GetStringBytes("type")
	it := intern(ib, codexItemNames)
	if !bare {
		ev.Type = prefixed(ib, codexResponseTypes, "response_item/")
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
				ev.Kind = KindInterruptHint
			case bare && !isCodexInjected(text):
				ev.Kind = KindPrompt
			}
		case "assistant":
			ev.Kind, ev.Final = KindActivity, true
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		ev.Kind = KindTool
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
				ev.ToolInput = toolInput(a)
			} else if a != nil {
				ev.ToolInput = a.MarshalTo(nil)
			}
		}
	case "web_search_call":
		ev.Kind, ev.Tool = KindTool, "web_search"
		if a := p.Get("action"); a != nil && a.Type() == fastjson.TypeObject {
			ev.ToolInput = toolInput(a)
		}
	case "compaction", "context_compaction":
		// Part of a compacted line's replacement history when nested; as a
		// top-level item it is bookkeeping.
	default:
		ev.Kind = KindActivity
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
