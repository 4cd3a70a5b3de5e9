package hookmodule

import (
	"bytes"
	"encoding/json"
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
// agent lacks reach nothing, a detail field is bounded, and a daemon that
// far behind costs at most 64 queued events.
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
	var events []string
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
		events = append(events, p.Event)
	}
	if len(events) < 5 {
		t.Fatalf("%d hooks: %q\n%s", len(events), events, printed)
	}
	// The session's end goes at once; the rest in the order they happened.
	if got := strings.Join(events[:5], " "); got != "SessionEnd SessionStart UserPromptSubmit PreToolUse Stop" {
		t.Errorf("phase 1: %s", got)
	}
	// Phase 2: a session start held a second, 100 events behind it. The
	// queue holds 64, the one being sent included (and phase 1's last may
	// still have been leaving it).
	rest := events[5:]
	if len(rest) == 0 || rest[0] != "SessionStart" {
		t.Fatalf("phase 2: %q", rest)
	}
	if n := len(rest) - 1; n < 62 || n > 63 {
		t.Errorf("phase 2: %d tool events behind the slow one, want 63 (62 if phase 1's last was still leaving)\n%s", n, printed)
	}
}
