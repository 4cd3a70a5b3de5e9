package session

import (
	"math/rand"

	"github.com/logwatch/logwatch/parsers"
)

// walkHooks and walkEvidence are what the round-trip tests feed sessions
// at random: every kind of hook and line a session judges.
var walkHooks = []parsers.Hook{
	{Event: "SessionStart"}, {Event: "UserPromptSubmit"}, {Event: "PreToolUse", ToolName: "Bash", ToolInput: []byte(`{"command":"ls"}`)},
	{Event: "PostToolUse", ToolName: "Read", ToolInput: []byte(`{"file_path":"/x/y"}`)},
	{Event: "PermissionRequest", ToolName: "Bash", ToolInput: []byte(`{"command":"rm -rf"}`)},
	{Event: "Notification", NotificationType: "permission_prompt", Message: "allow?"},
	{Event: "PreCompact", Trigger: "auto"}, {Event: "PostCompact"}, {Event: "Stop"},
	{Event: "Stop", HasBackground: true, Background: 2}, {Event: "StopFailure"},
	{Event: "SubagentStart", AgentID: "a1"}, {Event: "SubagentStart", AgentID: "a2"}, {Event: "SubagentStop", AgentID: "a1"},
	{Event: "PermissionRequest", AgentID: "a2", ToolName: "Edit"}, {Event: "PostToolUse", AgentID: "a2"},
	{Event: "SessionEnd"},
}

func walkEvidence() []parsers.Evidence {
	return []parsers.Evidence{prompt, codexStart, userMsg, text, final, bash, turnEnd, codexEnd, apiError, interrupt,
		compaction, pendingEnd(1), {Kind: parsers.KindTurnStart, Cwd: "/w", AgentVersion: "2.1"},
		{Kind: parsers.KindActivity, Cwd: "/w/other", AgentVersion: "0.169.0"},
		{Kind: parsers.KindTurnStart, Prompt: "fix the bug"}, {Type: "ai-title", Title: "Fix the bug"}, {Type: "summary", Title: "é ✓ title"},
		{Type: "custom-title", Title: "mine", TitleByUser: true}}
}

// randomInput is a random walk's next input for session id: a hook (4 in
// 10), a log line (5 in 10) or an acknowledgement, as a function that
// gives it to any session, so that two copies can be fed the same one.
func randomInput(rnd *rand.Rand, id string, evs []parsers.Evidence) func(*Session) (Change, bool) {
	switch k := rnd.Intn(10); {
	case k < 4:
		h := walkHooks[rnd.Intn(len(walkHooks))]
		h.SessionID = id
		return func(s *Session) (Change, bool) { return s.Hook(h) }
	case k < 9:
		ev := evs[rnd.Intn(len(evs))]
		return func(s *Session) (Change, bool) { return s.Log(ev) }
	}
	return (*Session).Acknowledge
}
