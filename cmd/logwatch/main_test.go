package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/config"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// bin is the real logwatch binary, built once for the CLI tests.
var bin string

func TestMain(m *testing.M) {
	if d := os.Getenv("LW_SQUAT_DIR"); d != "" {
		squatterMain(d) // this binary re-run as another user (squat_test.go)
	}
	dir, err := os.MkdirTemp("", "logwatch-bin")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "logwatch")
	// -buildvcs=auto: stamp the revision when built in a clone, whatever
	// GOFLAGS says, as `go build` does by default.
	out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binaryOnly skips, under -race, a test whose work all happens in other
// processes (the logwatch binary TestMain builds without -race, tmux, an
// agent): the detector sees none of it, and its minutes would crowd the
// package's 10-minute budget. It runs in the plain go test ./..., as the
// live conformance suite does.
func binaryOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("drives only other processes, which -race does not instrument: run by the plain go test")
	}
}

// cli runs the binary with a clean environment: no user config file.
func cli(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Env = append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestVerifyCLI(t *testing.T) {
	mismatch := t.TempDir()
	log := filepath.Join(mismatch, "s.jsonl")
	write(t, log, `{"type":"user","sessionId":"s","message":{"content":"hi"}}`+"\n")
	write(t, filepath.Join(mismatch, "s.expect.json"), `{"turns":2,"final_state":"done"}`)
	// The oversized sample without its sidecar (which reads it with its
	// own 4096-byte limit).
	long, err := os.ReadFile("../../testdata/verify/claude-oversized.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(t.TempDir(), "long.jsonl")
	write(t, bare, string(long))

	tests := []struct {
		name     string
		args     []string
		env      []string
		code     int
		stdout   []string
		stderr   []string
		noStdout bool
	}{
		{name: "fixtures hold their expectations, with no flag", args: []string{"verify", "../../testdata/verify"},
			stdout: []string{"claude-partial-tail.jsonl", "partial last line", "interrupt  line 3  user", "16 files", "every expectation held (16 files with a .expect.json)"}},
		{name: "max line bytes from the environment", args: []string{"verify", "../../testdata/verify"}, env: []string{"LOGWATCH_MAX_LINE_BYTES=4096"},
			stdout: []string{"16 files"}},
		{name: "default limit keeps the 10 KB line", args: []string{"verify", bare},
			stdout: []string{"0 oversized"}},
		{name: "mismatch exits 1 and lists it", args: []string{"verify", log}, code: 1,
			stdout: []string{"MISMATCH final_state: want \"done\", got \"working\"", "MISMATCH turns: want 2, got 1"}},
		{name: "missing path exits 2", args: []string{"verify", "no/such/file.jsonl"}, code: 2,
			stderr: []string{"unreadable path", "no/such/file.jsonl"}},
		{name: "no path is a usage error", args: []string{"verify"}, code: 2, stderr: []string{"requires at least 1 arg"}, noStdout: true},
		{name: "unknown flag is a usage error", args: []string{"verify", "--bogus", "x"}, code: 2, stderr: []string{"unknown flag"}, noStdout: true},
		{name: "bad config value is a clear error", args: []string{"verify", "../../testdata/verify"}, env: []string{"LOGWATCH_INTERRUPT_WINDOW=soon"}, code: 2,
			stderr: []string{"interrupt.window", "soon"}, noStdout: true},
		{name: "missing config file named explicitly", args: []string{"--config", "/nonexistent/logwatch.yaml", "verify", "x"}, code: 2,
			stderr: []string{"/nonexistent/logwatch.yaml"}, noStdout: true},
		{name: "version", args: []string{"--version"}, stdout: []string{"logwatch version"}},
		{name: "run --help names the record flag's value", args: []string{"run", "--help"}, stdout: []string{"--record FILE "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := cli(t, tc.env, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if tc.noStdout && stdout != "" {
				t.Errorf("stdout should be empty:\n%s", stdout)
			}
		})
	}
}

func TestVerifyJSON(t *testing.T) {
	stdout, stderr, code := cli(t, nil, "verify", "--json", "--max-line-bytes", "4096", "../../testdata/verify")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Files []map[string]any `json:"files"`
		Total map[string]any   `json:"totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, stdout)
	}
	want := []string{"path", "agent", "session_id", "cwd", "agent_version", "lines", "malformed", "oversized",
		"partial_tail", "turns", "interrupts", "compactions", "final_state", "unknown_types"}
	for _, f := range rep.Files {
		for _, k := range want {
			if _, ok := f[k]; !ok {
				t.Errorf("%v lacks %q", f["path"], k)
			}
		}
	}
	if rep.Total["files"].(float64) != float64(len(rep.Files)) || rep.Total["malformed"].(float64) != 3 {
		t.Errorf("totals = %v", rep.Total)
	}
}

// TestRealworldFromCLI is the acceptance command: every real sample
// verifies, with every interrupt and compaction the provenance notes name.
func TestRealworldFromCLI(t *testing.T) {
	root := testsupport.Realworld(t, "../../../shared/realworld")
	stdout, stderr, code := cli(t, nil, "verify", "--json", root+"/claude", root+"/codex")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Totals struct {
			Files, Malformed, Interrupts, Compactions int
		} `json:"totals"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Totals.Files != 52 || rep.Totals.Malformed != 0 || rep.Totals.Interrupts != 21 || rep.Totals.Compactions != 11 {
		t.Fatalf("totals = %+v", rep.Totals)
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoggerUnits: the console log's timestamps carry their milliseconds
// and durations their unit; the JSON log's too.
func TestLoggerUnits(t *testing.T) {
	defer func(f func() time.Time) { zerolog.TimestampFunc = f }(zerolog.TimestampFunc)
	zerolog.TimestampFunc = func() time.Time { return time.Date(2026, 12, 4, 23, 8, 1, 123_000_000, time.Local) }
	for _, format := range []string{"console", "json"} {
		var b bytes.Buffer
		l := newLogger(&b, config.LogConfig{Level: "info", Format: format})
		l.Warn().Dur("retry_in", 4*time.Second).Msg("remote link ended")
		for _, want := range []string{"23:08:01.123", "4s"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s log lacks %q: %s", format, want, b.String())
			}
		}
	}
}

// TestRunLogsTheVersion: the daemon's start-up line names the release
// `logwatch version` prints, not the link-time default "dev".
func TestRunLogsTheVersion(t *testing.T) {
	e := startE2E(t)
	out, _, _ := cli(t, nil, "version", "--json")
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Version == "" {
		t.Fatalf("version --json: %v %s", err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(e.dir, "daemon-*.log"))
	var all []byte
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all = append(all, b...)
	}
	if want := `"version":"` + v.Version + `"`; !strings.Contains(string(all), want) {
		t.Errorf("the daemon's log lacks %s:\n%s", want, all)
	}
}
