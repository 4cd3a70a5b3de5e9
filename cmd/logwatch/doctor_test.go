package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/setup/doctor"
)

func findingOf(fs []doctor.Finding, check string) doctor.Finding {
	for _, f := range fs {
		if f.Check == check {
			return f
		}
	}
	return doctor.Finding{}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoctorCLI runs the real command: findings on a bare machine (exit 1,
// JSON for tools), then a healthy setup with a daemon and hooks (exit 0).
func TestDoctorCLI(t *testing.T) {
	stdout, stderr, code := cli(t, []string{"LOGWATCH_SOCKET=/nonexistent/lw.sock"}, "doctor", "--json")
	var rep struct {
		Healthy bool             `json:"healthy"`
		Checks  []doctor.Finding `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 1 || rep.Healthy {
		t.Fatalf("bare machine: exit %d, healthy %v, %v\n%s\n%s", code, rep.Healthy, err, stdout, stderr)
	}
	if f := findingOf(rep.Checks, "daemon"); f.Status != doctor.Fail {
		t.Errorf("daemon: %+v", f)
	}

	// A configuration that cannot be used is one finding; the rest is
	// still checked, on the defaults.
	bad := filepath.Join(t.TempDir(), "config.yaml")
	write(t, bad, "interrupt:\n  window: 10\n")
	stdout, stderr, code = cli(t, []string{"LOGWATCH_SOCKET=/nonexistent/lw.sock", "LOGWATCH_CONFIG=" + bad}, "doctor")
	if code != 1 || !strings.Contains(stdout, "[fail] config") || !strings.Contains(stdout, "[fail] daemon") {
		t.Fatalf("broken config: exit %d\n%s\n%s", code, stdout, stderr)
	}

	e := startE2E(t)
	// Day one: the daemon runs, no agent is installed or has run yet.
	stdout, _, code = cli(t, append(slices.Clone(e.env), "PATH="+t.TempDir()), "doctor")
	if code != 0 || !strings.Contains(stdout, "all checks passed") {
		t.Fatalf("fresh install: exit %d\n%s", code, stdout)
	}
	mkdirs(t, e.claude)
	if _, stderr, code := cli(t, e.env, "hooks", "install", "--agent", "claude"); code != 0 {
		t.Fatalf("hooks install: %s", stderr)
	}
	stdout, _, code = cli(t, e.env, "doctor")
	if code != 0 || !strings.Contains(stdout, "all checks passed") {
		t.Fatalf("healthy machine: exit %d\n%s", code, stdout)
	}
	// A Claude release one patch past the known-good one is drift.
	good := agents.KnownGood("claude")
	dot := strings.LastIndexByte(good, '.')
	patch, err := strconv.Atoi(good[dot+1:])
	if err != nil {
		t.Fatalf("known-good claude %q", good)
	}
	next := good[:dot+1] + strconv.Itoa(patch+1)
	proj := filepath.Join(e.claude, "-home-dev-app")
	mkdirs(t, proj)
	write(t, filepath.Join(proj, "11111111-aaaa-4bbb-8ccc-000000000009.jsonl"),
		`{"type":"user","sessionId":"11111111-aaaa-4bbb-8ccc-000000000009","version":"`+next+`","timestamp":"2026-12-01T07:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"+
			`{"type":"hologram","sessionId":"11111111-aaaa-4bbb-8ccc-000000000009"}`+"\n")
	stdout, _, code = cli(t, e.env, "doctor")
	stdout = strings.Join(strings.Fields(stdout), " ") // the report wraps at 80 columns
	if code != 1 || !strings.Contains(stdout, "[warn] formats") || !strings.Contains(stdout, "claude "+next+" (known-good "+good+")") ||
		!strings.Contains(stdout, "line types the parsers do not know: claude hologram×1") {
		t.Fatalf("drift: exit %d\n%s", code, stdout)
	}
}
