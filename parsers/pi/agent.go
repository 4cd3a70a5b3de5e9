// Package pi is everything logwatch knows about pi (the coding agent of
// @mariozechner/pi-coding-agent): its session-file parser, where the files
// live, the extension that forwards its events as hooks and how it is
// installed, and its known-good release (formats/pi.md).
package pi

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

// Name is pi's agent name.
const Name parsers.Agent = "pi"

// Spec is pi as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "pi",
		Title:     "pi",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		Layout: parsers.Layout{
			// --<cwd>--/<ts>_<uuid>.jsonl.
			WantDir:   func(depth int, _ string) bool { return depth == 1 },
			WantFile:  func(depth int, name string) bool { return depth == 2 && strings.HasSuffix(name, ".jsonl") },
			SessionOf: func(string) (string, bool) { return "", false }, // the header names it
			Claims:    claims,
		},
		Roots:   []string{"${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions"},
		Resumes: resumes,
		Traits: parsers.Traits{
			Header: true,
			// /compact and auto-compaction both run after agent_end
			// (pi.md §2.8, measured): never inside a run.
			CompactsBetweenRuns: true,
			// 0.73.1 writes the file at the first finished answer, the
			// prompt with it: a file of metadata alone is nobody's session.
			// (So the first turn of a session without the extension is
			// seen only once it has ended.)
			LazyLog: func(string) bool { return true },
			// The prompt's message is stamped when it is made, after the
			// Enter: 1.03 s after it for omp 18.2.3 in CI, four live suites
			// at once on 2 cores (TestOmpNoHooks then found no submit
			// within the default second and left the session tabless).
			SubmitLag: 3 * time.Second,
			// After a final answer pi writes at once what goes on (a steer or
			// a follow-up: the queued prompt, as the next message of the same
			// run, pi.md §2.5), and a compaction after it finds the run over
			// (CompactsBetweenRuns); only a retry follows later, after an
			// error, which keeps turn_quiet.
			FinalQuiet: time.Second,
		},
		Hooks: parsers.Hooks{
			// What the extension sends (extension.ts): pi's events under
			// the names the relay knows. pi asks no permission (pi.md
			// §2.11): nothing waits.
			Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
				"PreCompact", "PostCompact", "Stop", "StopFailure", "SessionEnd"},
			Claims: func(h *parsers.Hook) bool { return claims(h.TranscriptPath) },
			Extension: &parsers.Extension{
				Dir:        "${PI_CODING_AGENT_DIR:-~/.pi/agent}/extensions",
				ProjectDir: filepath.Join(".pi", "extensions"),
				File:       "logwatch.ts",
				Source:     extension.Source,
				BinOf:      extension.Bin,
				Untouched:  extension.Untouched,
			},
			// The extension spawns the hook client from pi's own process, a
			// Node one titled "pi" (comm "pi", 0.73.1).
			Process:     parsers.Process{Hops: 1, Is: parsers.Named("pi")},
			InstallNote: "pi loads extensions at start: restart pi (or /reload) for it to take effect.",
			DoctorNote:  "pi loads it at start (a running pi needs /reload)",
		},
		Home:      "${PI_CODING_AGENT_DIR:-~/.pi/agent}",
		KnownGood: func() string { return agents.KnownGood(string(Name)) },
		Offline:   Offline(),
		// Without the extension nothing names a session's tab: its turn
		// start binds to the tab whose Enter came just before.
		BindBySubmit: true,
	}
}

// detect recognises a pi line: the header (session, with id and cwd), or
// an entry of pi's types linked into the tree by parentId (format
// version 2 on; Claude's lines link by parentUuid).
func detect(v *fastjson.Value) bool {
	typ := string(v.GetStringBytes("type"))
	if typ == "session" {
		return v.GetStringBytes("id") != nil && v.GetStringBytes("cwd") != nil
	}
	return pisession.PiType(typ) && v.Get("parentId") != nil && v.Get("payload") == nil
}

// claims recognises a pi session file by its path:
// …/--<cwd>--/<ts>_<uuid>.jsonl.
func claims(path string) bool {
	dir, name := filepath.Base(filepath.Dir(path)), filepath.Base(path)
	return len(dir) >= 4 && strings.HasPrefix(dir, "--") && strings.HasSuffix(dir, "--") &&
		strings.HasSuffix(name, ".jsonl") && strings.Contains(name, "_")
}

// resumes: pi writes nothing once its process ends (no end marker, no flush
// at exit: pi.md §2.10), so a prompt or anything the user did is a new
// process (pi -c) taking the session up. An answer or tool result could be
// the tail of the turn the end cut, racing it: not a resume by itself.
func resumes(ev parsers.Evidence) bool {
	switch ev.Type {
	case "message/assistant", "message/toolResult":
		return false
	}
	return !ev.Unknown
}

//go:embed extension.ts
var extensionTemplate []byte

// extension is pi's extension as logwatch writes it.
var extension = hookmodule.Module{Template: extensionTemplate, Marker: []byte("// logwatch: pi extension"), Agent: string(Name)}

// NewParser returns a pi session parser.
func NewParser() *pisession.Parser {
	return pisession.NewParser(pisession.Dialect{Agent: Name, Retries: retries})
}
