package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// The protocol document's runnable examples, each run against a real daemon
// of its own. An interpreter that is missing skips its example, and fails
// it under CI=true.
const examples = "../../docs/examples/"

func runExample(t *testing.T, interp string, script string, needs ...string) string {
	t.Helper()
	for _, tool := range append([]string{interp}, needs...) {
		if _, err := exec.LookPath(tool); err != nil {
			testsupport.Missing(t, "%s not installed", tool)
		}
	}
	e := startE2E(t)
	cmd := exec.Command(interp, examples+script, e.socket)
	cmd.Env = e.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", interp, script, err, out, stderr.String())
	}
	return string(out)
}

// TestProtocolExamplesPythonNode: both print exactly what the document shows.
func TestProtocolExamplesPythonNode(t *testing.T) {
	want, err := os.ReadFile(examples + "protocol.out")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), string(want)) {
		t.Errorf("docs/protocol.md does not show protocol.out verbatim")
	}
	for _, tc := range []struct{ interp, script string }{{"python3", "protocol.py"}, {"node", "protocol.mjs"}} {
		t.Run(tc.interp, func(t *testing.T) {
			if got := runExample(t, tc.interp, tc.script); got != string(want) {
				t.Errorf("%s prints:\n%s\nwant:\n%s", tc.script, got, want)
			}
		})
	}
}

// TestProtocolExampleShell: the socat example's raw lines are the answers
// in order, then the stream: its answer, and the four changes.
func TestProtocolExampleShell(t *testing.T) {
	out := runExample(t, "sh", "protocol.sh", "socat")
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		lines = append(lines, m)
	}
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11:\n%s", len(lines), out)
	}
	for i, l := range lines[:7] {
		wantOK := i != 5
		if l["ok"] != wantOK || l["protocol"] != float64(1) {
			t.Errorf("answer %d: %v", i, l)
		}
	}
	if _, ok := lines[0]["status"]; !ok || lines[4]["ended"] != float64(1) || !strings.Contains(lines[5]["error"].(string), "unknown op") || lines[6]["snapshot"] != float64(0) {
		t.Errorf("answers:\n%s", out)
	}
	for i, state := range []string{"working", "done", "ready", "ended"} {
		if ev := lines[7+i]; ev["session"] != "example-1" || ev["state"] != state || ev["tab"] != "example-tab" {
			t.Errorf("change %d: %v, want %s", i, ev, state)
		}
	}
}
