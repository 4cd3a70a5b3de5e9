package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCmd: each value's origin, and the validation that stops a
// command instead of starting on a silent default.
func TestConfigCmd(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	write(t, file, "max_line_bytes: 1000\nturn_quiet: 5s\nhosts:\n  "+host+":\n    interrupt: {window: 3s}\n")
	stdout, stderr, code := cli(t, []string{"LOGWATCH_TURN_QUIET=7s"}, "--config", file, "--log-level", "debug", "config", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		File string `json:"file"`
		Host string `json:"host"`
		Keys map[string]struct {
			Value  any    `json:"value"`
			Origin string `json:"origin"`
		} `json:"keys"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err, stdout)
	}
	for key, want := range map[string][2]string{
		"max_line_bytes":   {"1000", "file " + file},
		"turn_quiet":       {"7s", "env LOGWATCH_TURN_QUIET"},
		"interrupt.window": {"3s", "host " + strings.ToLower(host) + " (" + file + ")"},
		"log.level":        {"debug", "flag --log-level"},
		"log.format":       {"auto", "default"},
	} {
		got := rep.Keys[key]
		if v := strings.TrimSuffix(strings.TrimPrefix(jsonString(got.Value), `"`), `"`); v != want[0] || !strings.EqualFold(got.Origin, want[1]) {
			t.Errorf("%s = %v from %q, want %s from %q", key, got.Value, got.Origin, want[0], want[1])
		}
	}
	stdout, _, code = cli(t, nil, "config")
	if code != 0 || !strings.Contains(stdout, "file: (none: built-in defaults)") || !strings.Contains(stdout, "KEY") {
		t.Errorf("text: %d\n%s", code, stdout)
	}

	bad := filepath.Join(dir, "bad.yaml")
	write(t, bad, "interupt:\n  window: 3s\nmax_line_bytes: 10\nhosts:\n  box:\n    agents: {claude: {root: [/x]}}\n")
	_, stderr, code = cli(t, nil, "--config", bad, "config")
	if code != 2 || !strings.Contains(stderr, `unknown key "interupt.window" (did you mean "interrupt.window"?)`) ||
		!strings.Contains(stderr, `unknown key "hosts.box.agents.claude.root" (did you mean "agents.claude.roots"?)`) {
		t.Errorf("unknown keys: %d %s", code, stderr)
	}
	_, stderr, code = cli(t, []string{"LOGWATCH_INTERRUPT_WINDOW=soon"}, "config")
	if code != 2 || !strings.Contains(stderr, `interrupt.window: invalid duration "soon"`) {
		t.Errorf("bad duration: %d %s", code, stderr)
	}
	_, stderr, code = cli(t, []string{"LOGWATCH_LINE_BUFFER_BYTES=1048576"}, "config")
	if code != 2 || !strings.Contains(stderr, "line_buffer_bytes (1048576) must be at least max_line_bytes (33554432)") {
		t.Errorf("line budget below the longest line: %d %s", code, stderr)
	}

	// A root that exists but is not a readable directory stops config and
	// run; a missing one is fine.
	notDir := filepath.Join(dir, "projects")
	write(t, notDir, "")
	env := []string{"LOGWATCH_AGENTS_CLAUDE_ROOTS=" + notDir, "LOGWATCH_SOCKET=" + filepath.Join(dir, "s.sock")}
	for _, args := range [][]string{{"config"}, {"run"}} {
		_, stderr, code = cli(t, env, args...)
		if code != 2 || !strings.Contains(stderr, notDir+" is not a directory") {
			t.Errorf("%v with a file as root: %d %s", args, code, stderr)
		}
	}
	if _, _, code = cli(t, []string{"LOGWATCH_AGENTS_CLAUDE_ROOTS=" + filepath.Join(dir, "later")}, "config"); code != 0 {
		t.Errorf("missing root refused: %d", code)
	}
	if os.Getuid() == 0 {
		t.Log("running as root: the chmod 000 root case is skipped (root reads it anyway)")
		return
	}
	locked := filepath.Join(dir, "locked")
	mkdirs(t, locked)
	os.Chmod(locked, 0)
	defer os.Chmod(locked, 0o755)
	_, stderr, code = cli(t, []string{"LOGWATCH_AGENTS_CLAUDE_ROOTS=" + locked}, "config")
	if code != 2 || !strings.Contains(stderr, "cannot be read") {
		t.Errorf("chmod 000 root: %d %s", code, stderr)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
