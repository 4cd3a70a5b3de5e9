// Package toyagent is a third agent that exists only for the seam's test
// (../toyagent_test.go): the test builds the real logwatch binary with this
// file added (go build -overlay), so the agent is registered by its own
// package and drives the product without a line changed outside it.
package toyagent

import (
	"path/filepath"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// Name is the toy agent's name.
const Name parsers.Agent = "toy"

func init() { parsers.Register(Spec()) }

// Spec is everything logwatch knows about the toy agent. Its logs are
// <root>/toy-<session>.jsonl, one JSON object per line with a "toy" kind.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Title:     "Toy",
		NewParser: func() parsers.Parser { return &parser{} },
		Detect:    func(v *fastjson.Value) bool { return v.Get("toy") != nil },
		Layout: parsers.Layout{
			WantDir: func(int, string) bool { return false },
			WantFile: func(depth int, name string) bool {
				return depth == 1 && strings.HasPrefix(name, "toy-") && strings.HasSuffix(name, ".jsonl")
			},
			SessionOf: func(path string) (string, bool) {
				return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "toy-"), ".jsonl"), false
			},
			Claims: func(path string) bool { return strings.HasPrefix(filepath.Base(path), "toy-") },
		},
		Roots:   []string{"${TOY_HOME:-~/.toy}/logs"},
		Resumes: func(ev parsers.Evidence) bool { return ev.Kind == parsers.KindTurnStart },
		Traits:  parsers.Traits{PromptedTurns: true},
		Hooks: parsers.Hooks{
			Events:          []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop", "SessionEnd"},
			Settings:        "${TOY_HOME:-~/.toy}/hooks.json",
			ProjectSettings: filepath.Join(".toy", "hooks.json"),
			Timeout:         2,
			InstallNote:     "the toy reads its hooks at start:\nrestart it",
			DoctorNote:      "the toy reads its hooks at start",
		},
		Home:      "${TOY_HOME:-~/.toy}",
		KnownGood: func() string { return "1.0.0" },
	}
}

type parser struct{ p fastjson.Parser }

func (*parser) Agent() parsers.Agent { return Name }
func (*parser) Reset()               {}

// Parse reads one toy line: meta (identity), prompt (a turn starts), tool,
// say (output), done (the turn ends) and aborted (the interrupt marker).
func (t *parser) Parse(line []byte) (parsers.Evidence, error) {
	v, err := t.p.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return parsers.Evidence{}, parsers.ErrMalformed
	}
	kind := string(v.GetStringBytes("toy"))
	ev := parsers.Evidence{Type: "toy/" + kind, At: string(v.GetStringBytes("ts"))}
	switch kind {
	case "meta":
		ev.SessionID = string(v.GetStringBytes("sid"))
		ev.Cwd = string(v.GetStringBytes("cwd"))
		ev.AgentVersion = string(v.GetStringBytes("version"))
	case "prompt":
		ev.Kind = parsers.KindTurnStart
	case "tool":
		ev.Kind, ev.Tool = parsers.KindTool, string(v.GetStringBytes("name"))
		if in := v.Get("input"); in != nil && in.Type() == fastjson.TypeObject {
			ev.ToolInput = parsers.ToolInputOf(in)
		}
	case "say":
		ev.Kind = parsers.KindActivity
	case "done":
		ev.Kind, ev.End = parsers.KindTurnEnd, parsers.EndNormal
	case "aborted":
		ev.Kind, ev.Interrupt = parsers.KindInterrupt, parsers.InterruptAborted
	default:
		ev.Unknown = true
	}
	return ev, nil
}
