package hookmodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/hookmodule/moduletest"
)

func probe(t *testing.T) Module {
	t.Helper()
	tmpl, err := os.ReadFile("testdata/sender/probe.ts")
	if err != nil {
		t.Fatal(err)
	}
	return Module{Template: tmpl, Marker: []byte("// logwatch: probe extension"), Agent: "probe"}
}

func TestModuleSource(t *testing.T) {
	m := probe(t)
	for _, bin := range []string{"/usr/local/bin/logwatch", `/opt/it's "here"/logwatch`, "/tmp/\u2028/logwatch"} {
		src := m.Source(bin)
		if bytes.Contains(src, []byte("__LOGWATCH_")) {
			t.Fatalf("a placeholder is left in the extension for %q:\n%s", bin, src)
		}
		if !bytes.HasPrefix(src, m.Marker) || bytes.Count(src, []byte("function deliver(")) != 1 ||
			!bytes.Contains(src, []byte(`const AGENT = "probe";`)) || !bytes.Contains(src, []byte("export default function")) {
			t.Fatalf("extension for %q:\n%s", bin, src)
		}
		if got, ours := m.Bin(src); !ours || got != bin {
			t.Errorf("Bin = %q, %v; want %q, true", got, ours, bin)
		}
	}
	if _, ours := m.Bin([]byte("export default function (pi) {}\n")); ours {
		t.Error("a user's extension taken for logwatch's")
	}
}

// TestSender runs the extensions' sender (sender.ts, in the probe template)
// in bun, the runtime omp runs on, against a fake logwatch that takes a
// second over each session start: the events after it wait their turn
// instead of overtaking it, each process is told --detached, the session's
// end is not held behind the queue, a throwing handler and an event the
// agent lacks reach nothing, and a detail field is bounded. A daemon that
// far behind costs at most 64 queued events, tool progress first and the
// oldest of it: a turn's burst (82 events, as one pi turn sent them; then
// 5000) still delivers every event that decides the state, in order, the
// turn's end and the session's last. With nothing to coalesce the oldest
// waiting event goes, never the newest.
func TestSender(t *testing.T) {
	fake, err := filepath.Abs("testdata/sender/logwatch")
	if err != nil {
		t.Fatal(err)
	}
	drive, err := os.ReadFile("testdata/sender/drive.ts")
	if err != nil {
		t.Fatal(err)
	}
	hooks, printed := moduletest.Run(t, map[string][]byte{"ext.ts": probe(t).Source(fake), "drive.ts": drive})
	type hook struct{ event, command string }
	var events []hook
	for _, h := range hooks {
		if h.Args != "hook --agent probe --detached" {
			t.Fatalf("the hook client was run as %q", h.Args)
		}
		var p struct {
			Event     string            `json:"hook_event_name"`
			Session   string            `json:"session_id"`
			Path      string            `json:"transcript_path"`
			ToolInput map[string]string `json:"tool_input"`
		}
		if err := json.Unmarshal(h.Payload, &p); err != nil {
			t.Fatalf("payload %q: %v", h.Payload, err)
		}
		if p.Session != "s1" || p.Path != "/s1.jsonl" {
			t.Fatalf("payload %q names another session", h.Payload)
		}
		if len(events) == 3 && (len(p.ToolInput["command"]) != 4096 || len(p.ToolInput) != 1) {
			t.Errorf("tool input %q: want its command cut to 4096 bytes, nothing else", h.Payload)
		}
		events = append(events, hook{p.Event, p.ToolInput["command"]})
	}
	// Phases, each begun by its session start (phase 1's comes second).
	var phases [][]hook
	for i, h := range events {
		if i == 0 || h.event == "SessionStart" && i > 1 {
			phases = append(phases, nil)
		}
		phases[len(phases)-1] = append(phases[len(phases)-1], h)
	}
	if len(phases) != 5 {
		t.Fatalf("%d phases, want 5\n%s", len(phases), printed)
	}
	names := func(hs []hook) string {
		var out []string
		for _, h := range hs {
			out = append(out, h.event)
		}
		return strings.Join(out, " ")
	}
	// The session's end goes at once; the rest in the order they happened.
	if got := names(phases[0]); got != "SessionEnd SessionStart UserPromptSubmit PreToolUse Stop" {
		t.Errorf("phase 1: %s", got)
	}
	// Phase 2: 100 tool events behind a slow session start: the latest 64
	// wait, in order.
	if got := phases[1]; len(got) != 65 || got[1].command != "c36" || got[64].command != "c99" {
		t.Errorf("phase 2: %d events, %q, want the session start then c36..c99\n%s", len(got), got, printed)
	}
	for _, n := range []int{82, 5000} {
		got := phases[2]
		if n == 5000 {
			got = phases[3]
		}
		// The state's events, in order, and the last tool events (the
		// latest kept: both ends of the last call).
		if len(got) != 65 || names(got[:2]) != "SessionStart UserPromptSubmit" || names(got[63:]) != "Stop SessionEnd" {
			t.Errorf("burst of %d: %d arrived, want 65: %s\n%s", n, len(got), names(got), printed)
			continue
		}
		last := fmt.Sprintf("t%d", (n-4)/2-1)
		if got[61].event != "PreToolUse" || got[61].command != last || got[62].event != "PostToolUse" || got[62].command != last {
			t.Errorf("burst of %d: the last tool events %q, want %s's start and end", n, got[61:63], last)
		}
	}
	// Phase 5: nothing but state behind the slow start: the oldest goes.
	if got := names(phases[4]); got != "SessionStart "+strings.Repeat("UserPromptSubmit ", 63)+"Stop" {
		t.Errorf("phase 5: %s", got)
	}
}

// TestUntouched: a module is logwatch's to update only as logwatch wrote
// it: its sum holds for any binary, and any change (a line appended, one
// character, the sum line dropped) makes it the user's.
func TestUntouched(t *testing.T) {
	m := probe(t)
	src := m.Source("/usr/local/bin/logwatch")
	if !m.Untouched(src) || !m.Untouched(m.Source(`/opt/it's "here"/logwatch`)) {
		t.Fatalf("logwatch's own module taken for a changed one:\n%s", src)
	}
	first := bytes.IndexByte(src, '\n') + 1
	sumEnd := first + bytes.IndexByte(src[first:], '\n') + 1
	for name, changed := range map[string][]byte{
		"a line appended": append(bytes.Clone(src), "console.log(1);\n"...),
		"a character":     bytes.Replace(src, []byte("MAX_QUEUED = 64"), []byte("MAX_QUEUED = 65"), 1),
		"the sum dropped": append(bytes.Clone(src[:first]), src[sumEnd:]...),
		"the sum cut":     append(bytes.Clone(src[:sumEnd-2]), src[sumEnd-1:]...),
		"the binary":      bytes.Replace(src, []byte(`"/usr/local/bin/logwatch"`), []byte(`"/tmp/evil"`), 1),
	} {
		if m.Untouched(changed) {
			t.Errorf("%s: still taken for logwatch's", name)
		}
	}
}

// TestLegacyModules: the modules logwatch wrote before they carried a sum
// (each text, as its release wrote it for the placeholder binary) are
// logwatch's for any binary, and no longer once changed.
func TestLegacyModules(t *testing.T) {
	files, err := filepath.Glob("testdata/legacy/*.ts")
	if err != nil || len(files) != len(legacySums) {
		t.Fatalf("%d legacy modules for %d sums (%v)", len(files), len(legacySums), err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := Module{Marker: src[:bytes.IndexByte(src, '\n')]}
		src = bytes.Replace(src, []byte(binPlaceholder), []byte(`"/old/place/logwatch"`), 1)
		if !m.Untouched(src) {
			t.Errorf("%s: not taken for logwatch's", f)
		}
		if m.Untouched(append(src, "// mine\n"...)) {
			t.Errorf("%s: changed, still taken for logwatch's", f)
		}
	}
}
