package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// TestDriftAgainstItself: a capture compared with its own catalogue has
// no drift (what the canary against the pins must show).
func TestDriftAgainstItself(t *testing.T) {
	s := NewScan()
	if err := s.Dir("testdata/pins"); err != nil {
		t.Fatal(err)
	}
	if d := s.Against(s.Cat); len(d) != 0 {
		t.Fatalf("drift against itself: %+v", d)
	}
	// Two levels: the content blocks' own keys are the agent's to vary.
	if got := s.Cat["claude"].LineTypes["assistant"]; !slices.Contains(got, "message.stop_reason") || slices.Contains(got, "message.content[].text") {
		t.Errorf("assistant fields %v", got)
	}
}

// TestDriftNamesTheNew: a capture with an unknown line type, a new field,
// a new hook event and a new registry status names each, with its count
// and an example, and says the parser does not know the type.
func TestDriftNamesTheNew(t *testing.T) {
	known := NewScan()
	if err := known.Dir("testdata/pins"); err != nil {
		t.Fatal(err)
	}
	s := NewScan()
	if err := s.Dir("testdata/new"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range s.Against(known.Cat) {
		got = append(got, d.Agent+" "+d.What+" "+d.Name)
		if d.Count == 0 || d.Example == "" {
			t.Errorf("%+v: no count or example", d)
		}
	}
	want := []string{
		"claude field assistant newField",
		"claude hook event PreThink",
		"claude line type brand-new-type",
		"claude registry status sleeping",
		"claude unparsed line type brand-new-type",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("drift\n got %q\nwant %q", got, want)
	}
	var out bytes.Buffer
	writeDrift(&out, s.Against(known.Cat))
	if !strings.Contains(out.String(), `"brand-new-type", "sessionId": "s1"}`) {
		t.Errorf("the report lacks the example line:\n%s", out.String())
	}
}

// TestScanFlag: -scan compares captures with the known set and exits red
// on drift, green without.
func TestScanFlag(t *testing.T) {
	known := filepath.Join(t.TempDir(), "known.json")
	s := NewScan()
	if err := s.Dir("testdata/pins"); err != nil {
		t.Fatal(err)
	}
	if err := s.Cat.Write(known); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-known", known, "-scan", "testdata/pins"}, &out); err != nil || !strings.Contains(out.String(), "none:") {
		t.Fatalf("pins: %v\n%s", err, out.String())
	}
	out.Reset()
	if err := run([]string{"-known", known, "-scan", "testdata/new"}, &out); err == nil || !strings.Contains(out.String(), "brand-new-type") {
		t.Fatalf("new: %v\n%s", err, out.String())
	}
}

// TestRaisePins: only the raised agent's version and package change.
func TestRaisePins(t *testing.T) {
	src, err := os.ReadFile("../agents/agents.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "agents.json")
	os.WriteFile(path, src, 0o644)
	vs := []version{}
	for _, a := range pinned(t) {
		v := version{Agent: a, Pinned: a.Version, Installed: a.Version}
		if a.Name == "codex" {
			v.Installed = "9.9.9"
		}
		vs = append(vs, v)
	}
	if err := raisePins(path, vs); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	var changed []string
	a, b := strings.Split(string(src), "\n"), strings.Split(string(got), "\n")
	if len(a) != len(b) {
		t.Fatalf("line count changed:\n%s", got)
	}
	for i := range a {
		if a[i] != b[i] {
			changed = append(changed, strings.TrimSpace(b[i]))
		}
	}
	if len(changed) != 2 || !strings.Contains(changed[0], `"version": "9.9.9"`) || !strings.Contains(changed[1], `@openai/codex@9.9.9`) {
		t.Fatalf("changed lines %q", changed)
	}
}

// TestReadTestJSON: go test -json output folds into one result per test,
// a failure keeping its last lines, the agent named from the test.
func TestReadTestJSON(t *testing.T) {
	in := `{"Action":"run","Test":"TestClaudePrompt"}
{"Action":"output","Test":"TestClaudePrompt","Output":"ok\n"}
{"Action":"pass","Test":"TestClaudePrompt","Elapsed":3.5}
{"Action":"run","Test":"TestCodexEsc"}
{"Action":"output","Test":"TestCodexEsc","Output":"harness.go:1: no ready within 15s\n"}
{"Action":"fail","Test":"TestCodexEsc","Elapsed":20}
`
	var progress bytes.Buffer
	rs := readTestJSON(strings.NewReader(in), &progress)
	if len(rs) != 2 || rs[0].Agent != "claude" || rs[0].Result != "pass" || rs[1].Agent != "codex" || rs[1].Result != "fail" ||
		!strings.Contains(strings.Join(rs[1].Output, "\n"), "no ready") {
		t.Fatalf("%+v", rs)
	}
	if !strings.Contains(progress.String(), "fail TestCodexEsc") {
		t.Errorf("progress:\n%s", progress.String())
	}
	var rep bytes.Buffer
	report(&rep, nil, rs, nil)
	if !strings.Contains(rep.String(), "1 passed, 1 failed, 0 skipped") || !strings.Contains(rep.String(), "### TestCodexEsc") {
		t.Errorf("report:\n%s", rep.String())
	}
}

func pinned(t *testing.T) []agents.Agent {
	t.Helper()
	return agents.Pinned()
}

// TestKnownSet: the committed known set reads and covers every pinned
// agent that the live suite drives: its line types, or, for an agent whose
// log is not read yet (no roots: OpenCode until its store is wired), its
// hook events.
func TestKnownSet(t *testing.T) {
	known, err := ReadCatalogue("known.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents.Pinned() {
		k := known[a.Name]
		if s := parsers.Lookup(parsers.Agent(a.Name)); s != nil && len(s.Roots) == 0 {
			if k == nil || len(k.HookEvents) == 0 {
				t.Errorf("known.json has no hook events of %s", a.Name)
			}
			continue
		}
		if k == nil || len(k.LineTypes) == 0 {
			t.Errorf("known.json has no line types of %s", a.Name)
		}
	}
}
