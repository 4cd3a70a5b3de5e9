// Package codex is everything logwatch knows about Codex: its rollout
// parser (every era), where its rollouts live, its hooks and how they are
// installed, how its tabless turns find their tab, and its known-good
// release.
package codex

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Name is Codex's agent name.
const Name parsers.Agent = "codex"

// Spec is Codex as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "codex",
		Title:     "Codex",
		NewParser: func() parsers.Parser { return NewCodex() },
		Detect:    detect,
		Layout: parsers.Layout{
			// YYYY/MM/DD/rollout-*.jsonl.
			WantDir: func(depth int, _ string) bool { return depth >= 1 && depth <= 3 },
			WantFile: func(depth int, name string) bool {
				return depth == 4 && strings.HasSuffix(name, ".jsonl") && strings.HasPrefix(name, "rollout-")
			},
			SessionOf: sessionOf,
			Claims:    func(path string) bool { return strings.HasPrefix(filepath.Base(path), "rollout-") },
			Name:      &logName,
		},
		Roots:   []string{"${CODEX_HOME:-~/.codex}/sessions"},
		Resumes: resumes,
		Traits: parsers.Traits{
			Header:              true, // session_meta
			ExplicitEnds:        true,
			LateStartHook:       true,
			TurnsOutliveProcess: true,
			LazyLog:             LazyRollout,
		},
		Hooks: parsers.Hooks{
			// The events Codex 0.169 has (/hooks; formats/real-agents.md)
			// that SPEC §3 uses: it has SessionEnd and no StopFailure.
			// PreModelRequest says nothing about the state and runs on
			// every model call.
			Events: []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
				"Stop", "Interrupt", "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "SessionEnd"},
			Retired: []string{"StopFailure"},
			Claims: func(h *parsers.Hook) bool {
				return h.Event == "Interrupt" || strings.Contains(h.TranscriptPath, "/rollout-") || h.TurnID != ""
			},
			Settings:        "${CODEX_HOME:-~/.codex}/hooks.json",
			ProjectSettings: filepath.Join(".codex", "hooks.json"),
			Timeout:         3,
			// Matcher: none. Codex's matchers are regular expressions, where
			// "*" would not compile; an absent matcher matches every tool.
			InstallNote: `Codex runs new or changed hooks only once you trust them: at the next start
answer "Trust all and continue" (or review them with /hooks); until then they
do not run. Builds from before hooks were on by default also need
[features] codex_hooks = true in ~/.codex/config.toml.`,
			DoctorNote: `Codex runs them only once trusted ("Trust all and continue", or /hooks)`,
			// No Process: 0.171.0 runs every TUI's hooks in one shared
			// app-server (measured: the hook's parent is `codex app-server
			// … --managed-daemon`, a child of the first TUI), whose exit is
			// no one session's end.
		},
		Home:         "${CODEX_HOME:-~/.codex}",
		KnownGood:    func() string { return agents.KnownGood(string(Name)) },
		BindBySubmit: true, // its hooks run in a server that serves every tab: they cannot carry LOGWATCH_TAB
		Offline:      Offline(),
	}
}

// detect recognises a rollout line of any era: an envelope with a payload
// object, a paginated record, the bare 2025 header, a bare item.
func detect(v *fastjson.Value) bool {
	typ := string(v.GetStringBytes("type"))
	p := v.Get("payload")
	switch {
	case p != nil && p.Type() == fastjson.TypeObject && codexOuter[typ]:
		return true
	case v.Get("record_type") != nil:
		return true
	case typ == "" && v.Get("id") != nil && v.Get("instructions") != nil:
		return true
	}
	return codexItems[typ] && p == nil
}

// stampLayout is the time in a rollout's name; stampEpoch the zero of the
// number logName packs it into (seconds since).
const stampLayout = "2006-01-02T15-04-05"

var stampEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// logName: a rollout is rollout-<stamp>-<id>.jsonl; the stamp is kept.
var logName = parsers.LogName{
	Pack: func(base, id string) (uint32, bool) {
		const pre, ext = "rollout-", ".jsonl"
		if len(base) != len(pre)+len(stampLayout)+1+len(id)+len(ext) || !strings.HasPrefix(base, pre) ||
			!strings.HasSuffix(base, ext) || base[len(pre)+len(stampLayout)] != '-' || base[len(pre)+len(stampLayout)+1:len(base)-len(ext)] != id {
			return 0, false
		}
		return parseStamp(base[len(pre):][:len(stampLayout)])
	},
	Unpack: func(n uint32) (string, string) {
		var b [len("rollout-") + len(stampLayout) + 1]byte
		p := append(b[:0], "rollout-"...)
		p = time.Unix(stampEpoch+int64(n), 0).UTC().AppendFormat(p, stampLayout)
		return string(append(p, '-')), ".jsonl"
	},
}

// parseStamp reads a rollout name's time, if it is one stampLayout gives
// back as it was.
func parseStamp(s string) (uint32, bool) {
	t, err := time.Parse(stampLayout, s)
	if err != nil || t.Format(stampLayout) != s {
		return 0, false
	}
	d := t.Unix() - stampEpoch
	return uint32(d), d >= 0 && d <= 1<<32-1
}

// sessionOf is the rollout name's trailing uuid ("": the session_meta id
// names the session).
func sessionOf(path string) (string, bool) {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(stem) >= 36 && isUUID(stem[len(stem)-36:]) {
		return stem[len(stem)-36:], false
	}
	return "", false
}

func isUUID(s string) bool {
	for i, c := range []byte(s) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return len(s) == 36
}

// resumes: Codex 0.169 runs turns in a background server that outlives
// the TUI, so a turn running when the tab closed goes on and finishes
// there; only a new turn (or the session_meta older Codex appends when
// resuming) means a new process took the conversation up.
func resumes(ev parsers.Evidence) bool {
	return ev.Kind == parsers.KindTurnStart || ev.Kind == parsers.KindPrompt || ev.Type == "session_meta"
}

// LazyRolloutSince is the first Codex release observed to create its
// rollout at the first prompt (session_meta and task_started in the same
// millisecond), so that a rollout holding only session_meta is a TUI that
// never got a prompt (formats/real-agents.md).
const LazyRolloutSince = "0.169.0"

// LazyRollout reports whether a Codex version creates its rollout lazily.
func LazyRollout(version string) bool {
	c, ok := parsers.CompareVersions(version, LazyRolloutSince)
	return ok && c >= 0
}
