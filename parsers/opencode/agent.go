// Package opencode is everything logwatch knows about OpenCode (the
// opencode-ai package): its store, a SQLite database in WAL mode whose
// event rows are its log, the plugin that forwards its bus events as hooks,
// and its known-good release (formats/opencode.md in this folder).
package opencode

import (
	_ "embed"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/hookmodule"
)

// Name is OpenCode's agent name.
const Name parsers.Agent = "opencode"

// configDir is OpenCode's configuration directory (a configuration path).
const configDir = "${XDG_CONFIG_HOME:-~/.config}/opencode"

// Spec is OpenCode as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "opencode",
		Title:     "OpenCode",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		// Its log is its database: every session of the user in one file.
		Store: storeSpec(),
		Roots: []string{dataDir},
		// --continue and --session write nothing until the next prompt;
		// what the old process wrote on its way out (an aborted answer)
		// takes nothing up.
		Resumes: func(ev parsers.Evidence) bool { return ev.Kind == parsers.KindTurnStart },
		Traits: parsers.Traits{
			PromptedTurns: true,
			// The session's row is written at its first prompt, its user
			// message 40 ms later, and the plugin's session.created comes
			// through a spawned hook: the start that arrives after the turn
			// began closes nothing.
			LateStartHook: true,
			// /compact writes a user message, then the summary's answer.
			CompactionTurns: true,
			// A prompt is stamped when its user message is made: a new
			// session's first by the session's row, made at the Enter
			// (0.3-0.5 s after it, measured under load); the first prompt
			// of a process taking an old session up (--continue) only after
			// its lazy start, 1.9 s after the Enter on a loaded machine,
			// measured. Without the plugin that is what binds the tab; a
			// first prompt stamped later still (15 s under heavier load) is
			// bound by its order instead (bind.submit_first).
			SubmitLag: 5 * time.Second,
		},
		Hooks: parsers.Hooks{
			// What the plugin sends (plugin.ts): OpenCode's bus events and
			// hooks under the names the relay knows; a child session's as
			// its root's subagent.
			Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
				"PermissionRequest", "Notification", "PreCompact", "PostCompact", "Stop", "StopFailure",
				"SubagentStart", "SubagentStop", "SessionEnd"},
			Claims: func(h *parsers.Hook) bool { return IsSessionID(h.SessionID) },
			Extension: &parsers.Extension{
				// OpenCode loads {plugin,plugins}/*.{ts,js} of each config dir.
				Dir:        configDir + "/plugins",
				ProjectDir: filepath.Join(".opencode", "plugins"),
				File:       "logwatch.ts",
				Source:     plugin.Source,
				BinOf:      plugin.Bin,
				Untouched:  plugin.Untouched,
			},
			// The plugin spawns the hook client from OpenCode's own process
			// (comm "opencode", 1.18.33), which runs every session it
			// reports, a child session's too.
			Process:     parsers.Process{Hops: 1, Is: parsers.Named("opencode")},
			InstallNote: "OpenCode loads plugins at start: restart OpenCode for it to take effect.",
			DoctorNote:  "OpenCode loads it at start (a running OpenCode needs a restart)",
		},
		Home:      configDir,
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		Offline:   Offline(),
		// Without the plugin nothing in the database names a tab: a turn
		// start binds to the tab whose Enter came just before it.
		BindBySubmit: true,
	}
}

//go:embed plugin.ts
var pluginTemplate []byte

var plugin = hookmodule.Module{Template: pluginTemplate, Marker: []byte("// logwatch: opencode plugin"), Agent: string(Name)}

// IsSessionID reports whether id is an OpenCode session id: "ses_" and 26
// characters (12 hex digits of time, 14 random), formats/opencode.md §3.3.
func IsSessionID(id string) bool {
	if len(id) != 30 || !strings.HasPrefix(id, "ses_") {
		return false
	}
	for _, c := range []byte(id[4:]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// detect recognises a line of the store reader's (store.Row.Line): an event
// row, with its rowid and session.
func detect(v *fastjson.Value) bool {
	return v.Exists("rowid") && v.Exists("seq") && v.Exists("session") && v.Exists("data")
}
