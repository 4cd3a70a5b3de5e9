// Package claude is everything logwatch knows about Claude Code: its
// transcript parser, where its transcripts and live session registry live,
// its hooks and how they are installed, and its known-good release.
package claude

import (
	"path/filepath"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Name is Claude Code's agent name.
const Name parsers.Agent = "claude"

// Spec is Claude Code as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "claude",
		Title:     "Claude Code",
		NewParser: func() parsers.Parser { return NewClaude() },
		Detect:    detect,
		Layout: parsers.Layout{
			// <slug>/<id>.jsonl and <slug>/<id>/subagents/agent-*.jsonl.
			WantDir: func(depth int, name string) bool {
				return depth == 1 || depth == 2 || depth == 3 && name == "subagents"
			},
			WantFile: func(depth int, name string) bool {
				return strings.HasSuffix(name, ".jsonl") && (depth == 2 || depth == 4 && strings.HasPrefix(name, "agent-"))
			},
			SessionOf: sessionOf,
			Claims:    isSubagentLog,
			Name:      &logName,
		},
		Roots:   []string{"${CLAUDE_CONFIG_DIR:-~/.claude}/projects", "~/.config/claude/projects"},
		Resumes: resumes,
		Traits: parsers.Traits{
			PromptedTurns:     true,
			LateOutputResumes: true,
		},
		Hooks: parsers.Hooks{
			Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"Notification", "PermissionRequest", "PreCompact", "PostCompact", "Stop", "StopFailure",
				"SubagentStart", "SubagentStop", "SessionEnd"},
			Claims:          func(h *parsers.Hook) bool { return strings.Contains(h.TranscriptPath, "/projects/") },
			Fallback:        true, // the first agent with hooks: old installs ran `logwatch hook` without --agent
			Settings:        "${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json",
			ProjectSettings: filepath.Join(".claude", "settings.json"),
			Timeout:         5,
			Matcher:         "*", // settings.json: "*" matches every tool
			ToolEvents:      []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"},
			HTTP:            true,
			// Hook commands run under /bin/sh -c, a child of the claude
			// process (comm "claude", 2.1.332).
			Process: parsers.Process{Hops: 2, Is: parsers.Named("claude")},
		},
		Registry: &parsers.Registry{
			Dirs:  []string{"${CLAUDE_CONFIG_DIR:-~/.claude}/sessions", "~/.config/claude/sessions"},
			PidOf: PidOf,
			Parse: ParseRegistry,
		},
		Home:      "${CLAUDE_CONFIG_DIR:-~/.claude}",
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		Offline:   Offline(),
	}
}

// claudeTypes are line types only Claude Code writes.
var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true}

// detect recognises a transcript line: its types, or the ids only Claude
// Code's lines carry.
func detect(v *fastjson.Value) bool {
	typ := string(v.GetStringBytes("type"))
	return claudeTypes[typ] || claudeMeta[typ] ||
		v.Get("sessionId") != nil || v.Get("parentUuid") != nil || v.Get("leafUuid") != nil
}

// sessionOf is the file stem, the parent session's for a subagent's file.
func sessionOf(path string) (string, bool) {
	if isSubagentLog(path) {
		return filepath.Base(filepath.Dir(filepath.Dir(path))), true
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl"), false
}

// logName: a transcript is <id>.jsonl, nothing else to keep.
var logName = parsers.LogName{
	Pack: func(base, id string) (uint32, bool) {
		return 0, len(base) == len(id)+len(".jsonl") && strings.HasPrefix(base, id) && strings.HasSuffix(base, ".jsonl")
	},
	Unpack: func(uint32) (string, string) { return "", ".jsonl" },
}

// isSubagentLog recognises <id>/subagents/agent-*.jsonl.
func isSubagentLog(path string) bool {
	return filepath.Base(filepath.Dir(path)) == "subagents" && strings.HasPrefix(filepath.Base(path), "agent-")
}

// resumes: Claude Code flushes metadata (cost-state, file-history-snapshot,
// last-prompt) just after SessionEnd, so only a turn or its output means a
// new process took the conversation up (--continue writes a synthetic
// assistant line first).
func resumes(ev parsers.Evidence) bool {
	return ev.Kind != parsers.KindNone && ev.Kind != parsers.KindSidechain
}
