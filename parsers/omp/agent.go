// Package omp is everything logwatch knows about omp (oh-my-pi, the fork
// of pi published as @oh-my-pi/pi-coding-agent): where its session files
// live and how they differ from pi's, the extension that forwards its
// events as hooks, and its known-good release (formats/pi.md §5). Its
// lines are pi's lines with more types: they are read by pi's parser in
// omp's dialect.
package omp

import (
	_ "embed"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/hookmodule"
	"github.com/logwatch/logwatch/parsers/pisession"
)

// Name is omp's agent name.
const Name parsers.Agent = "omp"

// TitleSlot is the byte length of omp's first line, the title record
// (newline included), which omp rewrites in place when the title changes.
const TitleSlot = 256

// dialect is how omp 18.2.3 writes pi's format (session-entries.ts).
var dialect = pisession.Dialect{
	Agent: Name,
	Types: map[string]parsers.Kind{
		"title": parsers.KindNone, "title_change": parsers.KindNone, "model_usage": parsers.KindNone,
		"service_tier_change": parsers.KindNone, "reset_boundary": parsers.KindNone,
		"ttsr_injection": parsers.KindNone, "credential_pin": parsers.KindNone,
		"session_init": parsers.KindNone, "mode_change": parsers.KindNone,
	},
	Roles: map[string]parsers.Kind{
		"pythonExecution": parsers.KindNone, "fileMention": parsers.KindNone, "developer": parsers.KindNone,
	},
	Customs:   []string{toolStart, sessionExit},
	ToolStart: toolStart,
	// messages.ts USER_INTERRUPT_LABEL; a new process that finds the turn
	// its predecessor left open writes "Previous OMP process exited before
	// completing the turn." instead, which no key made.
	Interrupt: "Interrupted by user",
}

// omp's own custom entries (exit-diagnostics.ts).
const (
	toolStart   = "tool_execution_start" // before a tool runs: data.toolName, data.args
	sessionExit = "session_exit"         // at Ctrl+D, SIGTERM, a crash
)

// NewParser returns an omp session parser.
func NewParser() *pisession.Parser { return pisession.NewParser(dialect) }

// omp reads PI_CODING_AGENT_DIR too, but so does pi: a root both would
// claim is left to pi, and omp has its default.
const agentDir = "~/.omp/agent"

// Spec is omp as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "omp",
		Title:     "omp",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		Layout: parsers.Layout{
			// <dir>/<ts>_<uuid>.jsonl, and beside each file the directory
			// of its artifacts (not a log).
			WantDir:   func(depth int, _ string) bool { return depth == 1 },
			WantFile:  func(depth int, name string) bool { return depth == 2 && strings.HasSuffix(name, ".jsonl") },
			SessionOf: func(string) (string, bool) { return "", false }, // the header names it
			Claims:    claims,
		},
		Roots:   []string{agentDir + "/sessions"},
		Resumes: resumes,
		Traits: parsers.Traits{
			Header: true,
			// The title record comes before the header.
			Slot: TitleSlot,
			// omp writes the file at the first finished answer, as pi does.
			LazyLog: func(string) bool { return true },
			// The prompt's message is stamped when it is made, after the
			// Enter: 1.03 s after it for omp 18.2.3 in CI, four live suites
			// at once on 2 cores (TestOmpNoHooks then found no submit
			// within the default second and left the session tabless). A
			// process's first prompt, 3.9-7.8 s after it on a loaded
			// machine, is bound by its order instead (bind.submit_first).
			SubmitLag: 3 * time.Second,
			// pi's agent loop: what goes on after a final answer (a steer,
			// a follow-up) is written at once, a retry only after an error
			// (pi's FinalQuiet).
			FinalQuiet: time.Second,
		},
		Hooks: parsers.Hooks{
			// What the extension sends (extension.ts): omp's events under
			// the names the relay knows, its approval dialog and ask tool
			// as waits.
			Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"PermissionRequest", "Notification", "PreCompact", "PostCompact", "Stop", "StopFailure", "SessionEnd"},
			Claims: func(h *parsers.Hook) bool { return claims(h.TranscriptPath) },
			Extension: &parsers.Extension{
				Dir:        agentDir + "/extensions",
				ProjectDir: filepath.Join(".omp", "extensions"),
				File:       "logwatch.ts",
				Source:     extension.Source,
				BinOf:      extension.Bin,
				Untouched:  extension.Untouched,
			},
			// The extension spawns the hook client from omp's own process, a
			// Bun one titled "omp" (comm "omp", 18.2.3).
			Process:     parsers.Process{Hops: 1, Is: parsers.Named("omp")},
			InstallNote: "omp loads extensions at start: restart omp for it to take effect.",
			DoctorNote:  "omp loads it at start (a running omp needs a restart)",
		},
		Home:      agentDir,
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		Offline:   Offline(),
		// Without the extension nothing names a session's tab.
		BindBySubmit: true,
	}
}

//go:embed extension.ts
var extensionTemplate []byte

var extension = hookmodule.Module{Template: extensionTemplate, Marker: []byte("// logwatch: omp extension"), Agent: string(Name)}

// ompTypes are the line types only omp writes: a line of one is omp's.
// (Its other lines are pi's, which pi's Detect takes after this one.)
var ompTypes = map[string]bool{
	"title_change": true, "model_usage": true, "service_tier_change": true, "reset_boundary": true,
	"ttsr_injection": true, "credential_pin": true, "session_init": true, "mode_change": true,
}

// detect recognises a line only omp writes: the title record, one of its
// own entry types, or its own custom entries.
func detect(v *fastjson.Value) bool {
	typ := string(v.GetStringBytes("type"))
	switch {
	case typ == "title":
		return v.GetInt("v") == 1 && v.GetStringBytes("pad") != nil
	case typ == "custom":
		ct := string(v.GetStringBytes("customType"))
		return (ct == toolStart || ct == sessionExit) && v.Get("parentId") != nil
	}
	return ompTypes[typ] && v.Get("parentId") != nil
}

// claims recognises an omp session file by its path:
// …/.omp/agent/sessions/<dir>/<ts>_<uuid>.jsonl.
func claims(path string) bool {
	dir := filepath.Dir(path)
	return filepath.Base(filepath.Dir(dir)) == "sessions" &&
		filepath.Base(filepath.Dir(filepath.Dir(dir))) == "agent" &&
		filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(dir)))) == ".omp" &&
		strings.HasSuffix(path, ".jsonl") && strings.Contains(filepath.Base(path), "_")
}

// resumes: a line appended to an ended session's log is a new process
// (omp -c) taking it up, unless it is what the ending process itself writes
// last (its exit record, a late title, the tail of the turn the end cut).
func resumes(ev parsers.Evidence) bool {
	switch ev.Type {
	case "message/assistant", "message/toolResult", "custom/" + sessionExit, "title_change", "model_usage":
		return false
	}
	return !ev.Unknown
}
