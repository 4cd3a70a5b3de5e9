package copilot

import (
	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// hookEvents maps Copilot's hook names (its settings file's keys; the
// hook client puts the one it was installed for into the payload, which
// names none) to the relay's.
var hookEvents = map[string]string{
	"sessionStart":        "SessionStart",
	"userPromptSubmitted": "UserPromptSubmit",
	"preToolUse":          "PreToolUse",
	"permissionRequest":   "PermissionRequest",
	"notification":        "Notification",
	"postToolUse":         "PostToolUse",
	"postToolUseFailure":  "PostToolUseFailure",
	"agentStop":           "Stop",
	"preCompact":          "PreCompact",
	"sessionEnd":          "SessionEnd",
}

// hooks: Copilot runs every hook command and waits for it (§3), so only the
// events that decide the state are installed. notification repeats
// permissionRequest's wait; the subagent and error hooks never fired in
// the measured runs.
func hooks() parsers.Hooks {
	return parsers.Hooks{
		Events: []string{"sessionStart", "userPromptSubmitted", "preToolUse", "permissionRequest",
			"postToolUse", "agentStop", "preCompact", "sessionEnd"},
		Extra:    []string{"notification", "postToolUseFailure", "errorOccurred", "subagentStart", "subagentStop"},
		Decode:   decodeHook,
		Settings: home + "/settings.json",
		// Copilot reads no project settings file for hooks; its repo hooks
		// (.github/hooks/*.json) are another shape, not measured.
		Timeout:     15,
		Flat:        true,
		InstallNote: "Copilot CLI reads its settings at start: restart it for the hooks to take effect.",
		DoctorNote:  "Copilot CLI reads them at start",
		// 1.0.102 runs hook commands from its native binary (argv[0]
		// …/copilot-linux-x64/copilot; its comm is a thread's,
		// "MainThread"), the child of a Node launcher that waits for it.
		Process: parsers.Process{Hops: 2, Is: parsers.Named("copilot")},
	}
}

// decodeHook reads a Copilot payload (camelCase, its own event names) into
// the relay's terms. An event the relay has no use for keeps Event "".
func decodeHook(v *fastjson.Value, h *parsers.Hook) {
	h.Event = hookEvents[h.Event]
	str := func(keys ...string) string { return string(v.GetStringBytes(keys...)) }
	set := func(dst *string, s string) {
		if s != "" {
			*dst = s
		}
	}
	set(&h.SessionID, str("sessionId"))
	set(&h.TranscriptPath, str("transcriptPath"))
	set(&h.NotificationType, str("notificationType"))
	set(&h.ToolName, str("toolName"))
	if h.Prompt == "" {
		h.Prompt = parsers.ShortTitle(str("initialPrompt"))
	}
	// preToolUse and postToolUse carry toolArgs, permissionRequest
	// toolInput.
	for _, k := range []string{"toolArgs", "toolInput"} {
		if in := v.Get(k); in != nil && in.Type() == fastjson.TypeObject {
			h.ToolInput = in.MarshalTo(nil)
			break
		}
	}
}
