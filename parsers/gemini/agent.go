// Package gemini is everything logwatch knows about Google's Gemini CLI
// (@google/gemini-cli): its chat-file parser, where the files live, its
// hooks (settings.json, in its own dialect), how it runs offline, and its
// known-good release (formats/gemini.md).
package gemini

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Name is Gemini CLI's agent name.
const Name parsers.Agent = "gemini"

// home is Gemini CLI's directory: GEMINI_CLI_HOME stands for the home
// directory when set (its homedir()).
const home = "${GEMINI_CLI_HOME:-~}/.gemini"

// Spec is Gemini CLI as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "gemini",
		Title:     "Gemini CLI",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		// Its records and header pass Claude Code's broad test (a type
		// user, a sessionId).
		DetectFirst: true,
		Layout: parsers.Layout{
			// <project>/chats/session-<start>-<8 hex of the id>.jsonl: the
			// name holds only part of the id, the header names it.
			WantDir:   func(depth int, name string) bool { return depth == 1 || depth == 2 && name == "chats" },
			WantFile:  func(depth int, name string) bool { return depth == 3 && isChatName(name) },
			SessionOf: func(string) (string, bool) { return "", false },
			Claims:    claims,
		},
		Roots:   []string{home + "/tmp"},
		Resumes: resumes,
		Traits: parsers.Traits{
			Header: true,
			// The answer before a tool that asks approval is written as the
			// stream ends and looks final; the call is written only once
			// the tool ran (gemini.md §2.3): output after such a "final"
			// answer means the turn went on.
			LateOutputResumes: true,
			// AfterAgent fires after Esc/Ctrl+C mid-stream too, a few ms
			// after the log's "Request cancelled." (measured).
			StopAfterInterrupt: true,
		},
		Hooks: parsers.Hooks{
			// The events that decide the state (gemini.md §4); not
			// AfterModel (one call per streamed chunk) nor BeforeModel or
			// BeforeToolSelection (each model request): Gemini CLI waits
			// for every hook in turn. PreCompress fires on every prompt and
			// tool result (trigger auto) and counts only for /compress.
			Events: []string{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification",
				"AfterAgent", "PreCompress", "SessionEnd"},
			Extra:           []string{"AfterModel", "BeforeModel", "BeforeToolSelection"},
			Claims:          func(h *parsers.Hook) bool { return claims(h.TranscriptPath) },
			Decode:          decodeHook,
			Settings:        home + "/settings.json",
			ProjectSettings: filepath.Join(".gemini", "settings.json"),
			Timeout:         5,
			TimeoutMillis:   true,
			HandlerName:     "logwatch",
			DoctorNote:      "Gemini CLI reads them at start (a running one needs a restart)",
			InstallNote:     "Gemini CLI reads its hooks at start: restart it for them to take effect.",
			// Gemini CLI 0.61.0 runs hook commands itself, no shell between,
			// from the Node process it relaunches itself in (node
			// --max-old-space-size=… …/gemini), under the Node launcher
			// that waits for it: the nearest Node process running gemini.
			Process: parsers.Process{Hops: 2, Is: runsGemini},
		},
		Home:      home,
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		// Without hooks nothing names a session's tab: its turn start binds
		// to the tab whose Enter came just before.
		BindBySubmit: true,
		Offline:      Offline(),
	}
}

// isChatName recognises session-<YYYY-MM-DDTHH-MM>-<8 hex>.jsonl.
func isChatName(name string) bool {
	return strings.HasPrefix(name, "session-") && strings.HasSuffix(name, ".jsonl")
}

// claims recognises a chat file by its path: …/chats/session-*.jsonl.
func claims(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "chats" && isChatName(filepath.Base(path))
}

// detect recognises a chat-file line: the header (sessionId, projectHash,
// startTime and no type), an edit ($set, $rewindTo), or a message record
// (id, type and content, and none of Claude Code's message or uuid).
func detect(v *fastjson.Value) bool {
	if v.Get("$set") != nil || v.Get("$rewindTo") != nil {
		return true
	}
	if v.Get("type") == nil {
		return v.GetStringBytes("sessionId") != nil && v.GetStringBytes("projectHash") != nil && v.Get("startTime") != nil
	}
	switch string(v.GetStringBytes("type")) {
	case "user", "gemini", "info", "warning", "error":
		return v.GetStringBytes("id") != nil && v.Get("content") != nil && v.Get("message") == nil && v.Get("uuid") == nil
	}
	return false
}

// resumes: Gemini CLI writes nothing at exit, so an edit after the end is a
// new process taking the session up: --resume writes $set.sessionId then
// the history into the original file, and a new stub file with the header
// (gemini.md §2.4); a prompt likewise. A re-appended history is not.
func resumes(ev parsers.Evidence) bool {
	switch ev.Type {
	case "$set/sessionId", "session":
		return true
	}
	return ev.Kind == parsers.KindTurnStart
}

// decodeHook reads Gemini CLI's hook payload into the relay's terms:
// its event names, and the approval dialog's command as the wait's detail.
// What says nothing of the state keeps Event "" (refused and counted):
// PreCompress with trigger auto (every prompt), other notifications.
func decodeHook(v *fastjson.Value, h *parsers.Hook) {
	switch h.Event {
	case "SessionStart", "SessionEnd":
	case "BeforeAgent":
		h.Event = "UserPromptSubmit"
	case "AfterAgent":
		h.Event = "Stop"
	case "BeforeTool":
		h.Event = "PreToolUse"
	case "AfterTool":
		h.Event = "PostToolUse"
	case "Notification":
		if h.NotificationType != "ToolPermission" {
			h.Event = ""
			return
		}
		h.NotificationType = "permission_prompt"
		if d := v.Get("details"); d != nil {
			for _, k := range []string{"command", "filePath", "fileName", "title"} {
				if s := d.GetStringBytes(k); len(s) > 0 {
					h.Message = string(s)
					break
				}
			}
		}
	case "PreCompress":
		h.Event = ""
		if h.Trigger == "manual" {
			h.Event = "PreCompact"
		}
	default:
		h.Event = ""
	}
}

// runsGemini tells a Node process running Gemini CLI's script.
func runsGemini(comm string, argv []string) bool {
	if comm != "node" || len(argv) < 2 {
		return false
	}
	return slices.ContainsFunc(argv[1:], func(a string) bool { return path.Base(a) == "gemini" })
}
