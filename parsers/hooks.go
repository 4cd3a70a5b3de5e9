package parsers

import (
	"errors"
	"strings"

	"github.com/valyala/fastjson"
)

// Hook is one hook event an agent sent (Claude Code or Codex: both hand the
// hook command one JSON object on stdin), reduced to what the state needs.
type Hook struct {
	Event          string // hook_event_name, as sent ("Stop", "PreToolUse", …)
	SessionID      string
	TranscriptPath string
	Cwd            string
	TurnID         string // Codex
	// AgentID is set on payloads a subagent's activity produced; they never
	// move the parent session to working (SPEC §3).
	AgentID          string
	NotificationType string // Notification: permission_prompt, idle_prompt, elicitation_dialog, …
	Message          string // Notification message, for the waiting detail
	// Prompt is a UserPromptSubmit's prompt, its first line shortened
	// (ShortTitle): the session's title while the agent has written none.
	Prompt      string
	ToolName    string
	ToolInput   []byte // the tool input as a JSON object
	Source      string // SessionStart: startup, resume, clear, compact
	Trigger     string // PreCompact/PostCompact: manual, auto
	IsInterrupt bool   // PostToolUseFailure / Stop: the user interrupted
	Error       string // StopFailure error type
	// Background counts the Stop payload's running or pending subagent and
	// workflow tasks; HasBackground says the payload carried the list at all.
	// Background shells never count.
	Background    int
	HasBackground bool
	// Agent is who sent it when the payload itself tells (an agent's
	// Hooks.Claims); AgentUnknown otherwise.
	Agent Agent
}

// ErrBadHook is returned for a payload that is not a JSON object or has no
// event name.
var ErrBadHook = errors.New("hook payload is not a JSON object with hook_event_name")

// ParseHook decodes a hook payload whose agent the payload tells (or
// nobody does). Unknown fields are ignored; a field of the wrong type reads
// as absent.
func ParseHook(payload []byte) (Hook, error) { return ParseAgentHook(AgentUnknown, payload) }

// ParseAgentHook decodes a hook payload agent sent (AgentUnknown: the
// payload's fields tell, or nobody does). An agent whose hooks speak their
// own dialect (Hooks.Decode) has it read into the relay's terms.
func ParseAgentHook(agent Agent, payload []byte) (Hook, error) {
	var p fastjson.Parser
	v, err := p.ParseBytes(payload)
	if err != nil || v.Type() != fastjson.TypeObject {
		return Hook{}, ErrBadHook
	}
	if agent == "" {
		agent = AgentUnknown
	}
	str := func(Keys ...string) string { return string(v.GetStringBytes(Keys...)) }
	h := Hook{
		Event:            str("hook_event_name"),
		SessionID:        str("session_id"),
		TranscriptPath:   str("transcript_path"),
		Cwd:              str("cwd"),
		TurnID:           str("turn_id"),
		AgentID:          str("agent_id"),
		NotificationType: str("notification_type"),
		Message:          str("message"),
		ToolName:         str("tool_name"),
		Prompt:           ShortTitle(str("prompt")),
		Source:           str("source"),
		Trigger:          str("trigger"),
		IsInterrupt:      v.GetBool("is_interrupt"),
		Agent:            AgentUnknown,
	}
	if h.SessionID == "" {
		h.SessionID = str("conversationId")
	}
	if in := v.Get("tool_input"); in != nil && in.Type() == fastjson.TypeObject {
		h.ToolInput = in.MarshalTo(nil)
	}
	if e := v.Get("error"); e != nil {
		switch e.Type() {
		case fastjson.TypeString:
			h.Error = string(e.GetStringBytes())
		case fastjson.TypeObject:
			h.Error = string(e.GetStringBytes("type"))
		}
	}
	if h.Error == "" {
		h.Error = str("error_type")
	}
	if bg := v.Get("background_tasks"); bg != nil && bg.Type() == fastjson.TypeArray {
		h.HasBackground = true
		for _, t := range bg.GetArray() {
			if countsAsBackgroundWork(t) {
				h.Background++
			}
		}
	}
	if agent == AgentUnknown {
		for _, s := range All() {
			if s.Hooks.Claims != nil && s.Hooks.Claims(&h) {
				agent = s.Name
				break
			}
		}
	}
	h.Agent = agent
	if s := Lookup(agent); s != nil && s.Hooks.Decode != nil {
		s.Hooks.Decode(v, &h)
	}
	if h.Event == "" {
		return Hook{}, ErrBadHook
	}
	return h, nil
}

// countsAsBackgroundWork reports whether a background task keeps a turn
// from being done: a subagent or workflow that is running or pending. A
// background shell (a dev server left running) never does.
func countsAsBackgroundWork(t *fastjson.Value) bool {
	kind := strings.ToLower(string(t.GetStringBytes("type")) + " " + string(t.GetStringBytes("kind")))
	if !strings.Contains(kind, "agent") && !strings.Contains(kind, "workflow") {
		return false
	}
	switch strings.ToLower(string(t.GetStringBytes("status"))) {
	case "", "running", "pending", "in_progress", "started":
		return true
	}
	return false
}
