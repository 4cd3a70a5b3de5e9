// Package moduletest runs a hook module logwatch writes (pi's and omp's
// extensions, OpenCode's plugin) in bun, the runtime those agents embed,
// against a fake logwatch that records each hook it is run for: the
// modules' own tests share it.
package moduletest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
)

// Bun is the bun conformance/install-agents installs beside omp; without
// it the test stops (testsupport.Missing: a failure under CI=true).
func Bun(t testing.TB) string {
	t.Helper()
	bun := filepath.Join(agents.Dir(), "node_modules", ".bin", "bun")
	if _, err := os.Stat(bun); err != nil {
		testsupport.Missing(t, "bun (installed beside omp by conformance/install-agents) not found at %s", bun)
	}
	return bun
}

// Hook is one run of the fake logwatch: its arguments and the payload it
// read on stdin.
type Hook struct {
	Args    string
	Payload []byte
}

// Run writes files into a fresh folder and runs `bun drive.ts` there, with
// the test's environment plus env, OUT (the file the fake logwatch appends
// "ARGS\tPAYLOAD" lines to) and HOME (the folder). It returns the hooks
// the fake recorded, in order, and what bun printed.
func Run(t testing.TB, files map[string][]byte, env ...string) ([]Hook, string) {
	t.Helper()
	bun := Bun(t)
	dir := t.TempDir()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "hooks.log")
	cmd := exec.Command(bun, "drive.ts")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "OUT="+out, "HOME="+dir), env...)
	printed, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bun drive.ts: %v\n%s", err, printed)
	}
	raw, err := os.ReadFile(out)
	if os.IsNotExist(err) {
		return nil, string(printed)
	}
	if err != nil {
		t.Fatal(err)
	}
	var hooks []Hook
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		args, body, _ := strings.Cut(line, "\t")
		hooks = append(hooks, Hook{Args: args, Payload: []byte(body)})
	}
	return hooks, string(printed)
}

// ExtStep is one event pi or omp hands its extension: the event's name,
// its payload, and whether the run's signal is aborted (pi's context says).
type ExtStep struct {
	Name    string         `json:"name"`
	Event   map[string]any `json:"event,omitempty"`
	Aborted bool           `json:"aborted,omitempty"`
	// Wait is how long the drive waits before the step, in ms.
	Wait int `json:"wait,omitempty"`
}

//go:embed extension_drive.ts
var extensionDrive []byte

// fakeLogwatch records each hook it is run for: "ARGS\tPAYLOAD" on $OUT.
const fakeLogwatch = "#!/bin/sh\nbody=$(cat)\nprintf '%s\\t%s\\n' \"$*\" \"$body\" >> \"$OUT\"\n"

// Extension runs the extension source writes for a logwatch binary in
// bun, feeds it steps as pi or omp would, waits for want hooks and returns
// each hook it sent as `Event[ tool_name=…][ is_interrupt=…]`.
func Extension(t testing.TB, source func(bin string) []byte, steps []ExtStep, want int) []string {
	t.Helper()
	fake := filepath.Join(t.TempDir(), "logwatch")
	if err := os.WriteFile(fake, []byte(fakeLogwatch), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	hooks, printed := Run(t, map[string][]byte{"ext.ts": source(fake), "drive.ts": extensionDrive, "steps.json": b}, fmt.Sprintf("WANT=%d", want))
	var got []string
	for _, h := range hooks {
		var p struct {
			Event       string `json:"hook_event_name"`
			Tool        string `json:"tool_name"`
			IsInterrupt *bool  `json:"is_interrupt"`
		}
		if err := json.Unmarshal(h.Payload, &p); err != nil {
			t.Fatalf("payload %q: %v\n%s", h.Payload, err, printed)
		}
		s := p.Event
		if p.Tool != "" {
			s += " tool_name=" + p.Tool
		}
		if p.IsInterrupt != nil {
			s += fmt.Sprintf(" is_interrupt=%v", *p.IsInterrupt)
		}
		got = append(got, s)
	}
	return got
}
