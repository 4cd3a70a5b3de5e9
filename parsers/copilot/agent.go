// Package copilot is everything logwatch knows about GitHub Copilot CLI
// (@github/copilot): its events.jsonl parser, where the files live, its
// hooks (a settings file of its own shape, payloads in its own dialect),
// how it runs offline, and its known-good release (formats/copilot.md).
package copilot

import (
	"path/filepath"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Name is Copilot CLI's agent name.
const Name parsers.Agent = "copilot"

// home is Copilot's directory (a configuration path): COPILOT_HOME moves
// it whole (cli-main.js: COPILOT_HOME ?? ~/.copilot).
const home = "${COPILOT_HOME:-~/.copilot}"

// logFile is every session's log, in a folder named by its id.
const logFile = "events.jsonl"

// Spec is Copilot CLI as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "copilot",
		Title:     "Copilot CLI",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		Layout: parsers.Layout{
			// session-state/<id>/events.jsonl.
			WantDir:   func(depth int, _ string) bool { return depth == 1 },
			WantFile:  func(depth int, name string) bool { return depth == 2 && name == logFile },
			SessionOf: sessionOf,
			Claims:    claims,
		},
		Roots:   []string{home + "/session-state"},
		Resumes: resumes,
		Traits: parsers.Traits{
			PromptedTurns: true,
			// assistant.turn_end closes every model round; the parser
			// makes only the last round's a turn end. Quiet never does.
			ExplicitEnds:   true,
			EscKeepsStream: true,
			// events.jsonl is written at the first prompt, its metadata
			// lines first (§2.1): a file read before the prompt's line is
			// no session yet.
			LazyLog: func(string) bool { return true },
		},
		Hooks:     hooks(),
		Home:      home,
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		// Without hooks nothing names a session's tab: its first prompt
		// binds to the tab whose Enter came just before.
		BindBySubmit: true,
		Offline:      Offline(),
	}
}

// detect recognises an events.jsonl line: a typed event whose data is an
// object, linked to the one before by parentId (null on the first), with
// a type of Copilot's (dotted, or the bare abort).
func detect(v *fastjson.Value) bool {
	d := v.Get("data")
	if d == nil || d.Type() != fastjson.TypeObject || v.Get("parentId") == nil || v.Get("id") == nil {
		return false
	}
	typ := string(v.GetStringBytes("type"))
	_, known := types[typ]
	return known || strings.Contains(typ, ".")
}

// sessionOf is the log's folder: the session's id.
func sessionOf(path string) (string, bool) {
	if filepath.Base(path) != logFile {
		return "", false
	}
	return filepath.Base(filepath.Dir(path)), false
}

// claims recognises a session's log by its path:
// …/session-state/<id>/events.jsonl.
func claims(path string) bool {
	return filepath.Base(path) == logFile && filepath.Base(filepath.Dir(filepath.Dir(path))) == "session-state"
}

// resumes: a new process writes session.resume at its first prompt
// (--continue, --resume), then the prompt. What a killed process left
// half-written is never a resume.
func resumes(ev parsers.Evidence) bool {
	return ev.Type == "session.resume" || ev.Kind == parsers.KindTurnStart
}
