package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
	write(t, file, "max_line_bytes: 1000\nturn_quiet: 5s\nhosts:\n  "+host+":\n    interrupt: {window: 3s}\n    agents: {claude: {registry: [/data/claude/sessions]}}\n")
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
		// The session registry is set per agent and per host like the log roots.
		"agents.claude.registry": {`["/data/claude/sessions"]`, "host " + strings.ToLower(host) + " (" + file + ")"},
		"agents.codex.registry":  {`[]`, "default"},
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
	for _, line := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(line); n > configWidth {
			t.Errorf("%d columns: %q", n, line)
		}
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
	// Left at its default, the budget follows a raised max_line_bytes, so a
	// line size the README allows needs no second key (verify's flag too).
	stdout, stderr, code = cli(t, []string{"LOGWATCH_MAX_LINE_BYTES=100000000"}, "config")
	if code != 0 || !regexp.MustCompile(`line_buffer_bytes +raised +100000000`).MatchString(stdout) {
		t.Errorf("default budget below a raised max_line_bytes: %d %s\n%s", code, stderr, stdout)
	}
	if _, stderr, code = cli(t, nil, "verify", "--max-line-bytes", "100000000", "../../testdata/verify"); code == 2 {
		t.Errorf("verify --max-line-bytes 100000000 refused: %s", stderr)
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

// TestConfigAcceptedButWrong: values that used to be taken silently and
// wrongly (a duration without a unit became nanoseconds, a string became a
// one-element list, a routable listener failed only later with exit 1)
// stop `config` and `run` with exit 2 and a message naming the key.
func TestConfigAcceptedButWrong(t *testing.T) {
	host, _ := os.Hostname()
	dir := t.TempDir()
	tests := []struct {
		name, file string
		env        []string
		want       string
	}{
		{"duration without a unit", "interrupt:\n  window: 10\n", nil, "interrupt.window: invalid duration 10: a duration needs a unit"},
		{"fractional duration without a unit", "turn_quiet: 1.5\n", nil, "turn_quiet: invalid duration 1.5: a duration needs a unit"},
		{"duration without a unit from the environment", "", []string{"LOGWATCH_INTERRUPT_ESC_TIMEOUT=30"}, `interrupt.esc_timeout: invalid duration "30"`},
		{"duration without a unit in a host section", "hosts:\n  " + host + ":\n    interrupt: {window: 10}\n", nil, "interrupt.window: invalid duration 10"},
		{"absurd max_line_bytes", "max_line_bytes: 1000000000000\n", nil, "max_line_bytes must be between 1 and 268435456 (256 MiB), got 1000000000000"},
		{"absurd max_line_bytes in float notation", "max_line_bytes: 1e12\n", nil, "max_line_bytes must be between 1 and 268435456"},
		{"string where the worktrees list belongs", "worktrees: \"~/src\"\n", nil, `worktrees: want a list of paths`},
		{"string where the roots list belongs", "agents:\n  claude:\n    roots: /data/claude\n", nil, `agents.claude.roots: want a list of paths`},
		{"number in the roots list", "agents:\n  codex:\n    roots: [7]\n", nil, `agents.codex.roots[0]: want a path string, got 7`},
		{"string where the registry list belongs", "agents:\n  claude:\n    registry: ~/.claude/sessions\n", nil, `agents.claude.registry: want a list of paths`},
		{"routable http listener", "http: 0.0.0.0:8765\n", nil, `http: "0.0.0.0:8765": only loopback addresses`},
		{"http listener from the environment", "", []string{"LOGWATCH_HTTP=192.168.1.5:8765"}, `http: "192.168.1.5:8765": only loopback`},
		{"http listener without a port", "http: 127.0.0.1\n", nil, `http: "127.0.0.1": want host:port`},
		{"relative socket", "socket: rel.sock\n", nil, `socket must be an absolute path, got "rel.sock"`},
		{"relative socket from the environment", "", []string{"LOGWATCH_SOCKET=run/x.sock"}, `socket must be an absolute path, got "run/x.sock"`},
	}
	for i, tc := range tests {
		args := []string{}
		if tc.file != "" {
			f := filepath.Join(dir, fmt.Sprintf("c%d.yaml", i))
			write(t, f, tc.file)
			args = append(args, "--config", f)
		}
		// The runtime dir is the test's own: a `run` that wrongly starts
		// must not take the machine's default socket; the bound stops it.
		env := append([]string{"XDG_RUNTIME_DIR=" + dir, "LOGWATCH_CHECKPOINT="}, tc.env...)
		for _, cmd := range []string{"config", "run"} {
			stderr, code := cliBounded(t, env, append(args, cmd)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s: %s: exit %d, stderr %q; want exit 2 and %q", tc.name, cmd, code, stderr, tc.want)
			}
		}
	}
	// The right spellings pass.
	ok := filepath.Join(dir, "ok.yaml")
	write(t, ok, "interrupt: {window: 10s}\nworktrees: [\"~/src\"]\nhttp: 127.0.0.1:8765\nmax_line_bytes: 268435456\nline_buffer_bytes: 268435456\nsocket: /run/x.sock\n")
	if _, stderr, code := cli(t, nil, "--config", ok, "config"); code != 0 {
		t.Errorf("valid config refused: %d %s", code, stderr)
	}
	if _, stderr, code := cli(t, []string{"LOGWATCH_WORKTREES=/a /b"}, "config"); code != 0 {
		t.Errorf("a list from the environment refused: %d %s", code, stderr)
	}
}

// cliBounded is cli for a command that must exit at once: one that keeps
// running (a daemon that should have refused to start) is killed after 20 s
// and reported as exit -1.
func cliBounded(t *testing.T, env []string, args ...string) (stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}, env...)
	var e bytes.Buffer
	cmd.Stderr = &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return e.String() + " (still running after 20 s: killed)", -1
	case errors.As(err, &ee):
		return e.String(), ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return e.String(), 0
}

// TestConfigTextGolden: the text fits 80 columns: short origins (the file
// is named above), a list one item a line, a long value broken.
func TestConfigTextGolden(t *testing.T) {
	values := map[string]any{
		"agents.claude.roots": []string{"/home/dev/.claude/projects", "/home/dev/.config/claude/projects"},
		"agents.codex.roots":  []string{},
		"checkpoint":          "/home/dev/.local/state/logwatch/a/very/deep/directory/that/goes/on/and/on/checkpoint.json",
		"http":                "",
		"line_buffer_bytes":   int64(100000000),
		"log.level":           "debug",
		"turn_quiet":          7 * time.Second,
		"interrupt.window":    3 * time.Second,
	}
	origins := map[string]string{
		"agents.claude.roots": "default", "agents.codex.roots": "file /home/dev/.config/logwatch/config.yaml",
		"checkpoint": "default", "http": "default", "line_buffer_bytes": "default (raised to max_line_bytes)",
		"log.level": "flag --log-level", "turn_quiet": "env LOGWATCH_TURN_QUIET",
		"interrupt.window": "host box (/home/dev/.config/logwatch/config.yaml)",
	}
	keys := []string{"agents.claude.roots", "agents.codex.roots", "checkpoint", "http", "interrupt.window", "line_buffer_bytes", "log.level", "turn_quiet"}
	var b bytes.Buffer
	writeConfigText(&b, "/home/dev/.config/logwatch/config.yaml", "box", keys, values, origins)
	for _, line := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > configWidth {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	golden(t, "testdata/config-80.golden", b.Bytes())
}
