package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func findingOf(fs []finding, check string) finding {
	for _, f := range fs {
		if f.Check == check {
			return f
		}
	}
	return finding{}
}

// testEnv is a machine with nothing set up: roots under a temp HOME, no
// daemon on the socket.
func testEnv(t *testing.T) (doctorEnv, string) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	cfg := Config{}
	cfg.Agents.Claude.Roots = []string{filepath.Join(home, ".claude", "projects")}
	cfg.Agents.Codex.Roots = []string{filepath.Join(home, ".codex", "sessions")}
	return doctorEnv{cfg: cfg, socket: filepath.Join(home, "run", "lw.sock"), proc: "/proc", now: time.Now()}, home
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDoctorDaemonAndSocket(t *testing.T) {
	env, home := testEnv(t)
	fs := runDoctor(env)
	if f := findingOf(fs, "daemon"); f.Status != checkFail || !strings.Contains(f.Fix, "logwatch run") {
		t.Errorf("daemon: %+v", f)
	}
	if f := findingOf(fs, "socket"); f.Status != checkFail || !strings.Contains(f.Summary, "no socket at") {
		t.Errorf("missing socket: %+v", f)
	}
	// A socket directory open to others is a finding even with no daemon.
	dir := filepath.Join(home, "run")
	mkdirs(t, dir)
	os.Chmod(dir, 0o755)
	write(t, env.socket, "")
	f := checkSocket(env)
	if f.Status != checkFail || !strings.Contains(strings.Join(f.Details, "\n"), "is not a socket") ||
		!strings.Contains(strings.Join(f.Details, "\n"), "mode is 0755, want 0700") {
		t.Errorf("open socket dir: %+v", f)
	}
}

func TestDoctorRoots(t *testing.T) {
	env, home := testEnv(t)
	if f := checkRoots(env); f.Status != checkWarn {
		t.Errorf("no roots: %+v", f)
	}
	claude := env.cfg.Agents.Claude.Roots[0]
	mkdirs(t, claude)
	if f := checkRoots(env); f.Status != checkOK {
		t.Errorf("readable root: %+v", f)
	}
	// A root that is a file is unreadable as a directory, for root too.
	codex := env.cfg.Agents.Codex.Roots[0]
	mkdirs(t, filepath.Dir(codex))
	write(t, codex, "")
	if f := checkRoots(env); f.Status != checkFail || !strings.Contains(strings.Join(f.Details, "\n"), "is not a directory") {
		t.Errorf("file as root: %+v", f)
	}
	os.Remove(codex)
	if os.Getuid() == 0 {
		t.Logf("running as root: permission bits do not stop root, the chmod 000 case is skipped (%s)", home)
		return
	}
	os.Chmod(claude, 0)
	defer os.Chmod(claude, 0o755)
	if f := checkRoots(env); f.Status != checkFail || !strings.Contains(strings.Join(f.Details, "\n"), "cannot be read") {
		t.Errorf("chmod 000 root: %+v", f)
	}
}

// TestDoctorInotify lowers the limits in a fake /proc: 30 directories to
// watch against max_user_watches 10.
func TestDoctorInotify(t *testing.T) {
	env, _ := testEnv(t)
	root := env.cfg.Agents.Claude.Roots[0]
	for i := range 30 {
		mkdirs(t, filepath.Join(root, fmt.Sprintf("-home-dev-p%d", i)))
	}
	proc := t.TempDir()
	mkdirs(t, filepath.Join(proc, "sys/fs/inotify"))
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_watches"), "10\n")
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_instances"), "0\n")
	env.proc = proc
	f := checkInotify(env)
	if f.Status != checkFail || !strings.Contains(f.Fix, "fs.inotify.max_user_watches=65536") ||
		!strings.Contains(f.Fix, "fs.inotify.max_user_instances=256") ||
		!strings.Contains(strings.Join(f.Details, "\n"), "31 directories to watch, limit 10") {
		t.Errorf("low limits: %+v", f)
	}
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_watches"), "100000\n")
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_instances"), "128\n")
	if f := checkInotify(env); f.Status != checkOK {
		t.Errorf("ample limits: %+v", f)
	}
	// The real /proc is readable here and counts this process's usage.
	env.proc = "/proc"
	if _, err := os.Stat("/proc/sys/fs/inotify/max_user_watches"); err == nil {
		if f := checkInotify(env); f.Status == checkSkip {
			t.Errorf("real /proc: %+v", f)
		}
	}
}

func TestDoctorHooks(t *testing.T) {
	env, home := testEnv(t)
	if f := checkHooks(env, "codex"); f.Status != checkSkip {
		t.Errorf("no codex: %+v", f)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	mkdirs(t, filepath.Dir(settings))
	if f := checkHooks(env, "claude"); f.Status != checkFail || f.Fix != "logwatch hooks install --agent claude" {
		t.Errorf("not installed: %+v", f)
	}
	write(t, settings, "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n")
	if f := checkHooks(env, "claude"); f.Status != checkFail || !strings.Contains(f.Summary, "cannot be parsed: line 4, column 3") {
		t.Errorf("unparsable settings: %+v", f)
	}
	spec := hookSpecs["claude"]
	full, err := spec.planHooks(nil, hookCommand(bin, "claude"), true)
	if err != nil {
		t.Fatal(err)
	}
	write(t, settings, string(full))
	if f := checkHooks(env, "claude"); f.Status != checkOK {
		t.Errorf("installed: %+v", f)
	}
	gone, _ := spec.planHooks(nil, hookCommand("/nonexistent/logwatch", "claude"), true)
	write(t, settings, string(gone))
	if f := checkHooks(env, "claude"); f.Status != checkFail || !strings.Contains(f.Summary, "not there") {
		t.Errorf("moved binary: %+v", f)
	}
}

// TestDoctorFormatsAndClock: a transcript from a future Claude Code version
// warns of format drift; a line dated a day ahead says the clock is off.
func TestDoctorFormatsAndClock(t *testing.T) {
	env, _ := testEnv(t)
	dir := filepath.Join(env.cfg.Agents.Claude.Roots[0], "-home-dev-app")
	mkdirs(t, dir)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env.now = now
	line := func(version string, at time.Time) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s1","version":%q,"cwd":"/home/dev/app","timestamp":%q,"message":{"role":"user","content":"hi"}}`+"\n",
			version, at.Format(time.RFC3339Nano))
	}
	write(t, filepath.Join(dir, "s1.jsonl"), line("2.1.143", now.Add(-time.Hour))+`{"type":"hologram","sessionId":"s1"}`+"\n")
	os.Chtimes(filepath.Join(dir, "s1.jsonl"), now.Add(-time.Hour), now.Add(-time.Hour))
	scan := scanRecentLogs(env)
	if f := checkFormats(scan); f.Status != checkOK || !strings.Contains(strings.Join(f.Details, "\n"), "hologram×1") {
		t.Errorf("known version: %+v", f)
	}
	if f := checkClock(env, scan); f.Status != checkOK {
		t.Errorf("sane clock: %+v", f)
	}
	write(t, filepath.Join(dir, "s2.jsonl"), line("9.9.0", now.Add(24*time.Hour)))
	os.Chtimes(filepath.Join(dir, "s2.jsonl"), now, now)
	scan = scanRecentLogs(env)
	if f := checkFormats(scan); f.Status != checkWarn || !strings.Contains(f.Summary, "claude 9.9.0") || !strings.Contains(f.Fix, "logwatch verify") {
		t.Errorf("future version: %+v", f)
	}
	if f := checkClock(env, scan); f.Status != checkFail || !strings.Contains(strings.Join(f.Details, "\n"), "24h0m0s ahead") {
		t.Errorf("future line: %+v", f)
	}
}

// TestDoctorCLI runs the real command: findings on a bare machine (exit 1,
// JSON for tools), then a healthy setup with a daemon and hooks (exit 0).
func TestDoctorCLI(t *testing.T) {
	stdout, stderr, code := cli(t, []string{"LOGWATCH_SOCKET=/nonexistent/lw.sock"}, "doctor", "--json")
	var rep struct {
		Healthy bool      `json:"healthy"`
		Checks  []finding `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 1 || rep.Healthy {
		t.Fatalf("bare machine: exit %d, healthy %v, %v\n%s\n%s", code, rep.Healthy, err, stdout, stderr)
	}
	if f := findingOf(rep.Checks, "daemon"); f.Status != checkFail {
		t.Errorf("daemon: %+v", f)
	}

	e := startE2E(t)
	mkdirs(t, e.claude)
	if _, stderr, code := cli(t, e.env, "hooks", "install", "--agent", "claude"); code != 0 {
		t.Fatalf("hooks install: %s", stderr)
	}
	stdout, _, code = cli(t, e.env, "doctor")
	if code != 0 || !strings.Contains(stdout, "all checks passed") {
		t.Fatalf("healthy machine: exit %d\n%s", code, stdout)
	}
}
