package verify

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

var update = flag.Bool("update", false, "rewrite the realworld golden expectations from the current report")

const (
	realworld = "../../../shared/realworld"
	goldenDir = "../../testdata/realworld"
)

// goldenFields are what the realworld goldens pin: what each sample's
// PROVENANCE.md describes (turns, interrupts, compactions, final state) and
// the counts that prove nothing was lost, and the line types the parsers do
// not know (none, for the agents' current releases).
var goldenFields = []string{"agent", "session_id", "agent_version", "subagent", "lines", "malformed",
	"oversized", "partial_tail", "sidechain_lines", "turns", "interrupts", "compactions",
	"final_state", "final_reason", "unknown_types"}

// TestRealworldGolden verifies every real transcript and rollout against its
// expectation in testdata/realworld. A new sample without a golden fails, so
// nothing in realworld goes unchecked.
func TestRealworldGolden(t *testing.T) {
	testsupport.Realworld(t, realworld)
	files, errs := Collect([]string{filepath.Join(realworld, "claude"), filepath.Join(realworld, "codex")})
	if len(errs) > 0 || len(files) == 0 {
		t.Fatalf("collect: %v (%d files)", errs, len(files))
	}
	rep, err := Run(files, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Files {
		rel, _ := filepath.Rel(realworld, f.Path)
		golden := filepath.Join(goldenDir, strings.TrimSuffix(rel, ".jsonl")+".expect.json")
		t.Run(rel, func(t *testing.T) {
			if *update {
				writeGolden(t, golden, &f)
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no golden for %s (run go test ./pipeline/verify -update and review it): %v", rel, err)
			}
			for _, m := range Compare(&f, want) {
				t.Error(m)
			}
		})
	}
}

func writeGolden(t *testing.T, path string, f *File) {
	full, err := asMap(f)
	if err != nil {
		t.Fatal(err)
	}
	sub := map[string]any{}
	for _, k := range goldenFields {
		sub[k] = full[k]
	}
	b, err := json.MarshalIndent(sub, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEdgeCases runs the project's own fixtures (testdata/verify), each with
// its NAME.expect.json sidecar, at a 4 KiB line limit so a 10 KB line is
// oversized.
func TestEdgeCases(t *testing.T) {
	rep, err := Run([]string{"../../testdata/verify"}, Options{MaxLineBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) < 10 {
		t.Fatalf("only %d fixtures found", len(rep.Files))
	}
	for _, f := range rep.Files {
		if _, err := os.Stat(ExpectPath(f.Path)); err != nil {
			t.Errorf("%s has no expect sidecar", f.Path)
		}
		for _, m := range f.Mismatches {
			t.Errorf("%s: %s", f.Path, m)
		}
	}
}

func TestCompare(t *testing.T) {
	f := &File{Path: "x.jsonl", Agent: "claude", Turns: 2, FinalState: "done",
		Interrupts: []Interrupt{{Line: 3, Kind: "user", At: "t"}}, Compactions: []Compaction{}}
	tests := []struct {
		expect string
		n      int
	}{
		{`{}`, 0},
		{`{"turns":2,"final_state":"done"}`, 0},
		{`{"compactions":[]}`, 0},
		{`{"interrupts":[{"line":3,"kind":"user","at":"t"}]}`, 0},
		{`{"turns":3}`, 1},
		{`{"interrupts":[]}`, 1},
		{`{"turns":1,"final_state":"working"}`, 2},
		{`{"no_such_field":1}`, 1},
		{`{"path":"ignored.jsonl"}`, 0},
		{`not json`, 1},
	}
	for _, tc := range tests {
		if got := Compare(f, []byte(tc.expect)); len(got) != tc.n {
			t.Errorf("%s: %d mismatches %q, want %d", tc.expect, len(got), got, tc.n)
		}
	}
}

func TestUnreadable(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "ok.jsonl")
	if err := os.WriteFile(good, []byte(`{"type":"user","message":{"content":"hi"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run([]string{filepath.Join(dir, "missing.jsonl"), good}, Options{})
	if !errors.Is(err, ErrUnreadable) {
		t.Fatalf("err = %v, want ErrUnreadable", err)
	}
	if len(rep.Files) != 1 || rep.Files[0].Turns != 1 {
		t.Fatalf("the readable file must still be reported: %+v", rep.Files)
	}
	if rep.Totals.Unreadable != 1 {
		t.Fatalf("unreadable = %d", rep.Totals.Unreadable)
	}
}

// TestDirectoryWalk: only *.jsonl files are read, recursively, in order.
func TestDirectoryWalk(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/2.jsonl", "a/1.jsonl", "a/deep/3.jsonl", "a/notes.txt", "a/1.expect.json"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, errs := Collect([]string{dir})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, r)
	}
	if strings.Join(rel, ",") != "a/1.jsonl,a/deep/3.jsonl,b/2.jsonl" {
		t.Fatalf("files = %v", rel)
	}
}
