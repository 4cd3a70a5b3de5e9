package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// The real file Claude Code 2.1.328 wrote (PROVENANCE.md beside it).
const sample = "../../../shared/realworld/claude/live-2.1.328/session-registry-example.json"

func TestParseRealSample(t *testing.T) {
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseRegistry("/x/sessions/28304.json", b)
	if err != nil {
		t.Fatal(err)
	}
	want := parsers.RegistryEntry{
		Path: "/x/sessions/28304.json", Pid: 28304, SessionID: "0bd0d3bf-25c9-441a-82ce-8feb5b05ddb1",
		Cwd: "/home/dev/work", ProcStart: 139066, StartedAt: 1796108478234, Version: "2.1.328",
		Kind: "interactive", Entrypoint: "cli", Status: parsers.RegistryBusy, StatusUpdatedAt: 1796108480105,
		UpdatedAt: 1796108480105, Tmux: "main:@12.%12", Name: "work-1d",
	}
	if e != want {
		t.Errorf("Parse =\n %+v\nwant\n %+v", e, want)
	}
}

func TestParseRegistry(t *testing.T) {
	const base = `"pid":7,"sessionId":"s1"`
	for _, c := range []struct {
		name, path, in string
		want           parsers.RegistryEntry
		err            string // "" ok; "incomplete" parsers.ErrRegistryIncomplete; else a substring
	}{
		{"minimal", "7.json", `{` + base + `}`, parsers.RegistryEntry{Pid: 7, SessionID: "s1"}, ""},
		{"waiting", "7.json", `{` + base + `,"status":"waiting","waitingFor":"permission prompt","statusUpdatedAt":5}`,
			parsers.RegistryEntry{Pid: 7, SessionID: "s1", Status: parsers.RegistryWaiting, WaitingFor: "permission prompt", StatusUpdatedAt: 5}, ""},
		{"unknown fields and values are ignored", "7.json",
			`{` + base + `,"peerFeatures":["x"],"asksForConvertedSkills":null,"future":{"a":[1,2]},"status":"thinking"}`,
			parsers.RegistryEntry{Pid: 7, SessionID: "s1", Status: "thinking"}, ""},
		{"a known field of another type is ignored", "7.json", `{` + base + `,"name":42,"cwd":null,"updatedAt":"soon","status":"idle"}`,
			parsers.RegistryEntry{Pid: 7, SessionID: "s1", Status: parsers.RegistryIdle}, ""},
		{"procStart as a number", "7.json", `{` + base + `,"procStart":906253}`, parsers.RegistryEntry{Pid: 7, SessionID: "s1", ProcStart: 906253}, ""},
		{"procStart not a number", "7.json", `{` + base + `,"procStart":"abc"}`, parsers.RegistryEntry{Pid: 7, SessionID: "s1"}, ""},
		{"empty (created, not written yet)", "7.json", ``, parsers.RegistryEntry{}, "incomplete"},
		{"cut short", "7.json", `{` + base + `,"status":"bu`, parsers.RegistryEntry{}, "incomplete"},
		// A shorter status written over a longer file before the truncate:
		// what a read between Claude's write and its truncate sees.
		{"rewrite not truncated yet", "7.json", `{` + base + `,"status":"busy"}41,"waitingFor":"permission prompt"}`, parsers.RegistryEntry{}, "incomplete"},
		{"not an object", "7.json", `[1,2]`, parsers.RegistryEntry{}, "incomplete"},
		{"null", "7.json", `null`, parsers.RegistryEntry{}, "incomplete"},
		{"no pid", "7.json", `{"sessionId":"s1"}`, parsers.RegistryEntry{}, "no pid"},
		{"pid of another file", "8.json", `{` + base + `}`, parsers.RegistryEntry{}, "names pid 7"},
		{"pid a string", "7.json", `{"pid":"7","sessionId":"s1"}`, parsers.RegistryEntry{}, "no pid"},
		{"no session", "7.json", `{"pid":7,"sessionId":""}`, parsers.RegistryEntry{}, "no sessionId"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join("/r", c.path)
			e, err := ParseRegistry(p, []byte(c.in))
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case c.err == "incomplete" && !errors.Is(err, parsers.ErrRegistryIncomplete):
				t.Fatalf("Parse err = %v, want parsers.ErrRegistryIncomplete", err)
			case c.err != "" && c.err != "incomplete" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Parse err = %v, want %q", err, c.err)
			}
			if c.err == "" {
				c.want.Path = p
				if e != c.want {
					t.Errorf("Parse = %+v, want %+v", e, c.want)
				}
			}
		})
	}
}

func TestPidOf(t *testing.T) {
	for in, want := range map[string]int{
		"/s/30049.json": 30049, "30049.json": 30049, "0.json": 0, ".json": 0, "x.json": 0,
		"30049.318ec07.key": 0, "30049.318ec07.key.tmp.ebb8a3f9": 0, "30049.json.tmp": 0,
		"-1.json": 0, "99999999999.json": 0,
	} {
		if got := PidOf(in); got != want {
			t.Errorf("PidOf(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzParse: any content either parses to an entry with a pid and a
// session, or is refused with an error; it never panics.
func FuzzParseRegistry(f *testing.F) {
	if b, err := os.ReadFile(sample); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := ParseRegistry("/r/7.json", b)
		if err == nil && (e.Pid != 7 || e.SessionID == "") {
			t.Fatalf("accepted %q as %+v", b, e)
		}
	})
}
