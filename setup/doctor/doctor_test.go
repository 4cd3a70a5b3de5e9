package doctor

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
	"github.com/logwatch/logwatch/relay/wire"
	"github.com/logwatch/logwatch/setup/agentsettings"
	"github.com/logwatch/logwatch/setup/knowngood"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// bin stands for an installed logwatch: an executable named logwatch, which
// is what the hook checks look for at a handler's absolute path.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "logwatch-doctor")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "logwatch")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func findingOf(fs []Finding, check string) Finding {
	for _, f := range fs {
		if f.Check == check {
			return f
		}
	}
	return Finding{}
}

// testEnv is a machine with nothing set up: roots under a temp HOME, no
// daemon on the socket.
func testEnv(t *testing.T) (Env, string) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	cfg := config.Config{Agents: config.AgentsConfig{
		"claude": {Roots: []string{filepath.Join(home, ".claude", "projects")}},
		"codex":  {Roots: []string{filepath.Join(home, ".codex", "sessions")}},
	}}
	return Env{Roots: cfg.Roots(), Socket: filepath.Join(home, "run", "lw.sock"), Proc: "/proc", Now: time.Now(), Path: t.TempDir()}, home
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
	fs := Run(env)
	if f := findingOf(fs, "daemon"); f.Status != Fail || !strings.Contains(f.Fix, "logwatch run") {
		t.Errorf("daemon: %+v", f)
	}
	if f := findingOf(fs, "socket"); f.Status != Fail || !strings.Contains(f.Summary, "no socket at") {
		t.Errorf("missing socket: %+v", f)
	}
	// A socket directory open to others is a Finding even with no daemon.
	dir := filepath.Join(home, "run")
	mkdirs(t, dir)
	os.Chmod(dir, 0o755)
	write(t, env.Socket, "")
	f := checkSocket(env)
	if f.Status != Fail || !strings.Contains(strings.Join(f.Details, "\n"), "is not a socket") ||
		!strings.Contains(strings.Join(f.Details, "\n"), "mode is 0755, want 0700") {
		t.Errorf("open socket dir: %+v", f)
	}
}

func TestDoctorRoots(t *testing.T) {
	env, home := testEnv(t)
	// Day one: no agent has run yet. The roots are waited for; not a
	// finding.
	if f := checkRoots(env); f.Status != Skip {
		t.Errorf("no roots: %+v", f)
	}
	claude := env.Roots[0].Path
	mkdirs(t, claude)
	if f := checkRoots(env); f.Status != OK {
		t.Errorf("readable root: %+v", f)
	}
	// A root that is a file is unreadable as a directory, for root too.
	codex := env.Roots[1].Path
	mkdirs(t, filepath.Dir(codex))
	write(t, codex, "")
	if f := checkRoots(env); f.Status != Fail || !strings.Contains(strings.Join(f.Details, "\n"), "is not a directory") {
		t.Errorf("file as root: %+v", f)
	}
	os.Remove(codex)
	if os.Getuid() == 0 {
		t.Logf("running as root: permission bits do not stop root, the chmod 000 case is skipped (%s)", home)
		return
	}
	os.Chmod(claude, 0)
	defer os.Chmod(claude, 0o755)
	if f := checkRoots(env); f.Status != Fail || !strings.Contains(strings.Join(f.Details, "\n"), "cannot be read") {
		t.Errorf("chmod 000 root: %+v", f)
	}
}

// TestDoctorDatabases opens OpenCode's database as the daemon would: no
// check without a root of it, waited for while missing, readable when it is
// OpenCode's, a failure with a fix when it is not a database logwatch reads.
func TestDoctorDatabases(t *testing.T) {
	env, home := testEnv(t)
	if _, ok := checkStores(env); ok {
		t.Fatal("a databases check with no database root")
	}
	dir := filepath.Join(home, ".local", "share", "opencode")
	env.Roots = append(env.Roots, config.AgentRoot{Agent: "opencode", Path: dir})
	if f, ok := checkStores(env); !ok || f.Status != OK || !strings.Contains(strings.Join(f.Details, "\n"), "does not exist yet") {
		t.Fatalf("missing database: %+v", f)
	}
	storetest.RealDB(t, filepath.Join(dir, "opencode.db"))
	if f, _ := checkStores(env); f.Status != OK || f.Summary != "1 session database(s) readable" {
		t.Fatalf("OpenCode's database: %+v", f)
	}
	// Being created (SQLite's file is empty until its first commit): busy.
	creating := filepath.Join(home, "creating")
	mkdirs(t, creating)
	write(t, filepath.Join(creating, "opencode.db"), "")
	env.Roots = append(env.Roots, config.AgentRoot{Agent: "opencode", Path: creating})
	if f, _ := checkStores(env); f.Status != Warn || !strings.Contains(f.Summary, "busy (being created or migrated)") {
		t.Fatalf("a database being created: %+v", f)
	}
	// Not a database, or corrupt: damaged, with what to do (issue 32: it
	// was "busy (being created or migrated)", waited for for ever).
	other := filepath.Join(home, "other")
	mkdirs(t, other)
	write(t, filepath.Join(other, "opencode.db"), "SQLite format 3\x00 but nothing after")
	env.Roots = append(env.Roots, config.AgentRoot{Agent: "opencode", Path: other})
	f, _ := checkStores(env)
	if f.Status != Fail || !strings.Contains(f.Summary, "1 session database(s) damaged") || !strings.Contains(f.Fix, "move the damaged file aside") ||
		!strings.Contains(strings.Join(f.Details, "\n"), filepath.Join(other, "opencode.db")+" is damaged") {
		t.Fatalf("a file that is no database: %+v", f)
	}
	if fs := Run(env); findingOf(fs, "databases").Status != f.Status {
		t.Fatalf("Run's databases check: %+v", findingOf(fs, "databases"))
	}
}

// TestDoctorInotify lowers the limits in a fake /proc: 30 directories to
// watch against max_user_watches 10.
func TestDoctorInotify(t *testing.T) {
	env, _ := testEnv(t)
	root := env.Roots[0].Path
	for i := range 30 {
		mkdirs(t, filepath.Join(root, fmt.Sprintf("-home-dev-p%d", i)))
	}
	proc := t.TempDir()
	mkdirs(t, filepath.Join(proc, "sys/fs/inotify"))
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_watches"), "10\n")
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_instances"), "0\n")
	env.Proc = proc
	f := checkInotify(env)
	if f.Status != Fail || !strings.Contains(f.Fix, "fs.inotify.max_user_watches=65536") ||
		!strings.Contains(f.Fix, "fs.inotify.max_user_instances=256") ||
		!strings.Contains(strings.Join(f.Details, "\n"), "31 directories to watch, limit 10") {
		t.Errorf("low limits: %+v", f)
	}
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_watches"), "100000\n")
	write(t, filepath.Join(proc, "sys/fs/inotify/max_user_instances"), "128\n")
	if f := checkInotify(env); f.Status != OK {
		t.Errorf("ample limits: %+v", f)
	}
	// The real /proc is readable here and counts this process's usage.
	env.Proc = "/proc"
	if _, err := os.Stat("/proc/sys/fs/inotify/max_user_watches"); err == nil {
		if f := checkInotify(env); f.Status == Skip {
			t.Errorf("real /proc: %+v", f)
		}
	}
}

func TestDoctorHooks(t *testing.T) {
	env, home := testEnv(t)
	if f := checkHooks(env, "codex", logScan{}); f.Status != Skip {
		t.Errorf("no codex: %+v", f)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	// The folder `hooks install` made and uninstall left is no agent.
	mkdirs(t, filepath.Dir(settings))
	if f := checkHooks(env, "claude", logScan{}); f.Status != Skip {
		t.Errorf("an empty ~/.claude, no claude binary: %+v", f)
	}
	// The agent's binary on the PATH is.
	write(t, filepath.Join(env.Path, "claude"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(env.Path, "claude"), 0o755)
	if f := checkHooks(env, "claude", logScan{}); f.Status != Fail || f.Fix != "logwatch hooks install --agent claude" {
		t.Errorf("not installed: %+v", f)
	}
	write(t, settings, "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n")
	if f := checkHooks(env, "claude", logScan{}); f.Status != Fail || !strings.Contains(f.Summary, "cannot be parsed: line 4, column 3") {
		t.Errorf("unparsable settings: %+v", f)
	}
	spec, _ := agentsettings.Lookup("claude")
	full, err := spec.Plan(nil, agentsettings.Command(bin, "claude"), true)
	if err != nil {
		t.Fatal(err)
	}
	write(t, settings, string(full))
	if f := checkHooks(env, "claude", logScan{}); f.Status != OK {
		t.Errorf("installed: %+v", f)
	}
	gone, _ := spec.Plan(nil, agentsettings.Command("/nonexistent/logwatch", "claude"), true)
	write(t, settings, string(gone))
	if f := checkHooks(env, "claude", logScan{}); f.Status != Fail || !strings.Contains(f.Summary, "not there") {
		t.Errorf("moved binary: %+v", f)
	}
}

// TestDoctorCodexHookSet: a hooks.json written for the events logwatch
// used to install for Codex (StopFailure, no SessionEnd) is checked against
// Codex 0.169's own events; install repairs it; logs from a release past the
// known-good one are named.
func TestDoctorCodexHookSet(t *testing.T) {
	env, home := testEnv(t)
	hooks := filepath.Join(home, ".codex", "hooks.json")
	mkdirs(t, filepath.Dir(hooks), env.Roots[1].Path) // Codex has run here
	old, err := os.ReadFile("../agentsettings/testdata/setup/codex-upgrade/before.json")
	if err != nil {
		t.Fatal(err)
	}
	write(t, hooks, strings.ReplaceAll(string(old), "/usr/local/bin/logwatch", bin))
	f := checkHooks(env, "codex", logScan{})
	details := strings.Join(f.Details, "\n")
	codex := agents.KnownGood("codex")
	if f.Status != Fail || !strings.Contains(f.Summary, "11 of 12 events of codex "+codex) ||
		!strings.Contains(details, "missing: SessionEnd") || !strings.Contains(details, "not events of codex "+codex+" (they never fire): StopFailure") {
		t.Errorf("old event set: %+v", f)
	}
	// Only the retired one left: a warning, not a failure.
	spec, _ := agentsettings.Lookup("codex")
	full, err := spec.Plan(nil, agentsettings.Command(bin, "codex"), true)
	if err != nil {
		t.Fatal(err)
	}
	extra := strings.Replace(string(full), `"hooks": {`, `"hooks": {`+"\n"+`    "StopFailure": [{"hooks": [{"type": "command", "command": "`+bin+` hook --agent codex", "timeout": 3}]}],`, 1)
	write(t, hooks, extra)
	if f := checkHooks(env, "codex", logScan{}); f.Status != Warn || !strings.Contains(f.Summary, "and 1 it does not have") {
		t.Errorf("a retired event: %+v", f)
	}
	fixed, err := spec.Plan([]byte(extra), agentsettings.Command(bin, "codex"), true)
	if err != nil {
		t.Fatal(err)
	}
	write(t, hooks, string(fixed))
	if f := checkHooks(env, "codex", logScan{}); f.Status != OK || !strings.Contains(f.Summary, "all 12 events of codex "+codex) {
		t.Errorf("after install: %+v", f)
	}
	scan := logScan{versions: map[string]map[string]int{"codex": {codex: 1, nextPatch(codex): 2}}}
	if f := checkHooks(env, "codex", scan); f.Status != OK ||
		!strings.Contains(strings.Join(f.Details, "\n"), "recent logs come from codex "+nextPatch(codex)+", whose events are not checked yet") {
		t.Errorf("a newer release: %+v", f)
	}
}

func TestNewerThan(t *testing.T) {
	tests := []struct {
		v, good string
		want    bool
	}{
		{"2.1.328", "2.1.156", true}, // within a minor: drift all the same
		{"2.1.329", "2.1.328", true},
		{"2.1.328", "2.1.328", false},
		{"2.1.143", "2.1.328", false},
		{"2.2.0", "2.1.328", true},
		{"0.170.0", "0.169.0", true},
		{"0.104.0-alpha.1", "0.169.0", false},
		{"garbage", "2.1.328", false},
		{"2.1.400", "", false}, // an agent not pinned is not judged
	}
	for _, tc := range tests {
		if got := newerThan(tc.v, tc.good); got != tc.want {
			t.Errorf("newerThan(%q, %q) = %v", tc.v, tc.good, got)
		}
	}
}

// TestDoctorDrift provokes each drift Finding with real files under a temp
// HOME: a Claude release past the known-good one (a patch within the same
// minor), a Codex one, and unknown line types, each named; the known-good
// releases with known lines are clean, and hook payloads kept under a root
// are not a log.
func TestDoctorDrift(t *testing.T) {
	env, _ := testEnv(t)
	proj := filepath.Join(env.Roots[0].Path, "-home-dev-app")
	day := filepath.Join(env.Roots[1].Path, "2026", "12", "01")
	mkdirs(t, proj, day)
	claudeLog := func(name, version string) {
		write(t, filepath.Join(proj, name+".jsonl"),
			`{"type":"mode","mode":"normal","sessionId":"`+name+`"}`+"\n"+
				`{"type":"user","sessionId":"`+name+`","version":"`+version+`","cwd":"/home/dev/app","timestamp":"2026-12-01T07:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"+
				`{"type":"api-request","sessionId":"`+name+`","timestamp":"2026-12-01T07:00:00.1Z"}`+"\n"+
				`{"type":"cost-state","sessionId":"`+name+`","totalCostUSD":0}`+"\n")
	}
	codexLog := func(id, version, extra string) {
		write(t, filepath.Join(day, "rollout-2026-12-01T07-00-00-"+id+".jsonl"),
			`{"timestamp":"2026-12-01T07:00:00Z","type":"session_meta","payload":{"id":"`+id+`","cwd":"/home/dev/app","cli_version":"`+version+`"}}`+"\n"+
				`{"timestamp":"2026-12-01T07:00:00Z","type":"token_usage_record","payload":{"thread_id":"`+id+`"}}`+"\n"+extra)
	}
	claudeLog("11111111-aaaa-4bbb-8ccc-000000000001", agents.KnownGood("claude"))
	codexLog("01a23064-f24f-74c0-8657-6ca6791bc246", agents.KnownGood("codex"), "")
	// Captured hook payloads beside the transcripts: not a log, no drift.
	write(t, filepath.Join(proj, "hook-payloads.jsonl"), `{"t":"2026-12-01T07:00:00Z","tab":"s1","payload":{"hook_event_name":"Stop"}}`+"\n")
	if f := checkFormats(env, scanRecentLogs(env)); f.Status != OK {
		t.Fatalf("known-good releases: %+v", f)
	}

	claude, codex := agents.KnownGood("claude"), agents.KnownGood("codex")
	claudeLog("11111111-aaaa-4bbb-8ccc-000000000002", nextPatch(claude))
	f := checkFormats(env, scanRecentLogs(env))
	if f.Status != Warn || !strings.Contains(f.Summary, "claude "+nextPatch(claude)+" (known-good "+claude+")") || strings.Contains(f.Summary, "codex") {
		t.Errorf("claude patch release: %+v", f)
	}
	codexLog("01a23064-f24f-74c0-8657-000000000002", nextPatch(codex), `{"timestamp":"2026-12-01T07:00:01Z","type":"event_msg","payload":{"type":"telepathy"}}`+"\n"+
		`{"timestamp":"2026-12-01T07:00:02Z","type":"brand_new_line","payload":{}}`+"\n")
	f = checkFormats(env, scanRecentLogs(env))
	if f.Status != Warn || !strings.Contains(f.Summary, "codex "+nextPatch(codex)+" (known-good "+codex+")") ||
		!strings.Contains(f.Summary, "line types the parsers do not know: codex brand_new_line×1, event_msg/telepathy×1") ||
		!strings.Contains(f.Fix, "logwatch verify") {
		t.Errorf("codex release and unknown types: %+v", f)
	}
}

// TestDoctorFormatsAndClock: a transcript from a future Claude Code version
// warns of format drift; a line dated a day ahead says the clock is off.
func TestDoctorFormatsAndClock(t *testing.T) {
	env, _ := testEnv(t)
	dir := filepath.Join(env.Roots[0].Path, "-home-dev-app")
	mkdirs(t, dir)
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env.Now = now
	line := func(version string, at time.Time) string {
		return fmt.Sprintf(`{"type":"user","sessionId":"s1","version":%q,"cwd":"/home/dev/app","timestamp":%q,"message":{"role":"user","content":"hi"}}`+"\n",
			version, at.Format(time.RFC3339Nano))
	}
	write(t, filepath.Join(dir, "s1.jsonl"), line("2.1.143", now.Add(-time.Hour))+`{"type":"hologram","sessionId":"s1"}`+"\n")
	os.Chtimes(filepath.Join(dir, "s1.jsonl"), now.Add(-time.Hour), now.Add(-time.Hour))
	scan := scanRecentLogs(env)
	if f := checkFormats(env, scan); f.Status != Warn || !strings.Contains(f.Summary, "line types the parsers do not know: claude hologram×1") ||
		strings.Contains(f.Summary, "newer") {
		t.Errorf("known version, an unknown line type: %+v", f)
	}
	if f := checkClock(env, scan); f.Status != OK {
		t.Errorf("sane clock: %+v", f)
	}
	write(t, filepath.Join(dir, "s2.jsonl"), line("9.9.0", now.Add(24*time.Hour)))
	os.Chtimes(filepath.Join(dir, "s2.jsonl"), now, now)
	scan = scanRecentLogs(env)
	if f := checkFormats(env, scan); f.Status != Warn || !strings.Contains(f.Summary, "claude 9.9.0") || !strings.Contains(f.Fix, "logwatch verify") {
		t.Errorf("future version: %+v", f)
	}
	if f := checkClock(env, scan); f.Status != Fail || !strings.Contains(strings.Join(f.Details, "\n"), "24h0m0s ahead") {
		t.Errorf("future line: %+v", f)
	}
}

// TestWriteTextEscapesLogData: a version and a line type read from a log
// reach the text report escaped, each finding on its own lines; JSON keeps
// them exact.
func TestWriteTextEscapesLogData(t *testing.T) {
	root := t.TempDir()
	const title = "\x1b]0;owned\x07"
	write(t, filepath.Join(root, "s.jsonl"),
		`{"type":"user","sessionId":"s","version":"2.1.0`+strings.ReplaceAll(title, "\x1b", `\u001b`)+`","message":{"role":"user","content":"hi"}}`+"\n"+
			`{"type":"x\u001b]52;c;aGk=\u0007\u009b2J\u202e\nfake line","sessionId":"s"}`+"\n")
	env := Env{Roots: []config.AgentRoot{{Agent: "claude", Path: root}}, Socket: filepath.Join(root, "none.sock"), Proc: "/proc", Now: time.Now(), Path: t.TempDir()}
	fs := Run(env)
	var b strings.Builder
	WriteText(&b, fs, false)
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, r := range out {
		if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e {
			t.Fatalf("%U reaches the terminal:\n%q", r, out)
		}
	}
	for _, want := range []string{`2.1.0\x1b]0;owned\a`, `x\x1b]52;c;aGk=\a\u009b2J\u202e\nfake line`} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	var js strings.Builder
	if err := WriteJSON(&js, fs); err != nil || !strings.Contains(js.String(), `x\u001b]52;c;aGk=\u0007`) {
		t.Errorf("JSON: %v\n%s", err, js.String())
	}
}

// nextPatch is the release one patch past v ("2.1.332" → "2.1.333"): drift
// against the pinned known-good version, whatever it is today.
func nextPatch(v string) string {
	i := strings.LastIndexByte(v, '.')
	n, err := strconv.Atoi(v[i+1:])
	if err != nil {
		panic("version " + v)
	}
	return v[:i+1] + strconv.Itoa(n+1)
}

// TestDoctorInstalledAgents: an agent on the PATH newer than its known-good
// release warns with selftest as the fix, until selftest passed with that
// release here; the same release in the logs is then no drift either.
func TestDoctorInstalledAgents(t *testing.T) {
	env, _ := testEnv(t)
	claudeGood := parsers.Lookup("claude").KnownGood()
	newer := nextPatch(claudeGood)
	script := func(name, out string) {
		write(t, filepath.Join(env.Path, name), "#!/bin/sh\necho '"+out+"'\n")
		os.Chmod(filepath.Join(env.Path, name), 0o755)
	}
	if f := checkInstalled(env); f.Status != Skip {
		t.Errorf("no agent on the PATH: %+v", f)
	}
	script("claude", newer+" (Claude Code)")
	script("codex", "codex-cli "+parsers.Lookup("codex").KnownGood())
	f := checkInstalled(env)
	if f.Status != Warn || !strings.Contains(f.Summary, "claude "+newer) || strings.Contains(f.Summary, "codex") ||
		!strings.Contains(f.Fix, "logwatch selftest --agent claude") {
		t.Fatalf("newer claude: %+v", f)
	}
	// pi, which selftest drives too, gets it as the fix (its release read
	// from stderr); an agent it cannot drive offline would get verify.
	pi := parsers.Lookup("pi")
	write(t, filepath.Join(env.Path, "pi"), "#!/bin/sh\necho '"+nextPatch(pi.KnownGood())+"' >&2\n")
	os.Chmod(filepath.Join(env.Path, "pi"), 0o755)
	fix := "`logwatch selftest --agent pi`"
	if pi.Offline == nil {
		fix = "`logwatch verify` on a recent pi log"
	}
	if f := checkInstalled(env); f.Status != Warn || !strings.Contains(f.Fix, fix) {
		t.Fatalf("newer pi: %+v, want the fix %s", f, fix)
	}
	os.Remove(filepath.Join(env.Path, "pi"))
	env.KnownGood = knowngood.Record{"claude": {newer: time.Now()}}
	if f := checkInstalled(env); f.Status != OK || !strings.Contains(strings.Join(f.Details, "\n"), "claude "+newer+" passed selftest on this machine") {
		t.Fatalf("after selftest: %+v", f)
	}
	dir := filepath.Join(env.Roots[0].Path, "-home-dev-app")
	mkdirs(t, dir)
	write(t, filepath.Join(dir, "s1.jsonl"), `{"type":"user","sessionId":"s1","version":"`+newer+`","cwd":"/w","message":{"role":"user","content":"hi"}}`+"\n")
	if f := checkFormats(env, scanRecentLogs(env)); f.Status != OK {
		t.Errorf("a release selftest passed here is no drift: %+v", f)
	}
	env.KnownGood = nil
	if f := checkFormats(env, scanRecentLogs(env)); f.Status != Warn || !strings.Contains(f.Fix, "logwatch selftest") {
		t.Errorf("the same release unchecked: %+v", f)
	}
}

// TestDoctorVersionOnStderr: pi prints its release on stderr; a newer one
// still warns. The agents are probed after one line naming them.
func TestDoctorVersionOnStderr(t *testing.T) {
	env, _ := testEnv(t)
	pi := parsers.Lookup("pi")
	if pi == nil || pi.Bin == "" {
		t.Skip("no pi parser")
	}
	newer := nextPatch(pi.KnownGood())
	write(t, filepath.Join(env.Path, pi.Bin), "#!/bin/sh\necho '"+newer+"' >&2\n")
	os.Chmod(filepath.Join(env.Path, pi.Bin), 0o755)
	var progress strings.Builder
	env.Progress = &progress
	if f := checkInstalled(env); f.Status != Warn || !strings.Contains(f.Summary, "pi "+newer) {
		t.Errorf("pi's release on stderr: %+v", f)
	}
	if got := progress.String(); !strings.HasPrefix(got, "probing "+pi.Bin) {
		t.Errorf("progress: %q", got)
	}
}

// TestDoctorConfigFinding: a configuration that cannot be used is a
// failure of its own; without one, the file read is named.
func TestDoctorConfigFinding(t *testing.T) {
	env, _ := testEnv(t)
	if f := checkConfig(env); f.Status != OK {
		t.Errorf("defaults: %+v", f)
	}
	env.ConfigErr = fmt.Errorf("config /x/config.yaml: line 3: unknown key intrerupt")
	fs := Run(env)
	if f := findingOf(fs, "config"); f.Status != Fail || !strings.Contains(strings.Join(f.Details, ""), "intrerupt") {
		t.Errorf("bad file: %+v", f)
	}
	if f := findingOf(fs, "roots"); f.Status == "" {
		t.Errorf("the other checks did not run: %+v", fs)
	}
}

// TestDoctorRemoteDaemonLink: a remote that answers doctor's own link but
// that the running daemon shows down is a failure with the daemon's reason.
func TestDoctorRemoteDaemonLink(t *testing.T) {
	env, _ := testEnv(t)
	env.Remotes = []config.RemoteConfig{{Name: "box", Dest: "dev@box"}, {Name: "up", Dest: "dev@up"}}
	env.ProbeRemote = func(config.RemoteConfig) RemoteProbe { return RemoteProbe{Version: "1.0", Protocol: 1, Sessions: 2} }
	var progress strings.Builder
	env.Progress = &progress
	if f := checkRemotes(env, nil); f.Status != OK {
		t.Fatalf("no daemon: %+v", f)
	}
	if progress.String() != "linking to box, up over ssh…\n" {
		t.Errorf("progress: %q", progress.String())
	}
	st := &wire.Status{Remotes: []wire.RemoteState{
		{Name: "box", Dest: "dev@box", State: "down", Error: "ssh: exit 255", Fix: "check ssh dev@box", Since: time.Now()},
		{Name: "up", Dest: "dev@up", State: wire.RemoteUp, Since: time.Now()},
	}}
	f := checkRemotes(env, st)
	if f.Status != Fail || f.Summary != "1 of 2 remotes answer" || !strings.Contains(f.Fix, "box: check ssh dev@box") ||
		!strings.Contains(strings.Join(f.Details, "\n"), "daemon's link is down") {
		t.Errorf("daemon shows box down: %+v", f)
	}
}

// TestWriteTextGolden: the report fits 80 columns, its columns aligned,
// fixes wrapped under "fix:"; on a terminal the statuses are coloured.
func TestWriteTextGolden(t *testing.T) {
	fs := []Finding{
		{Check: "config", Status: OK, Summary: "/home/dev/.config/logwatch/config.yaml read"},
		{Check: "daemon", Status: Fail, Summary: "not reachable on /run/user/1000/logwatch/logwatch.sock",
			Details: []string{"dial unix /run/user/1000/logwatch/logwatch.sock: connect: no such file or directory"},
			Fix:     "start it: `logwatch run` (or `logwatch service install`); if it runs, give both the same --socket / LOGWATCH_SOCKET"},
		{Check: "roots", Status: Skip, Summary: "no configured log root exists yet (waited for: an agent makes its own when it first runs)"},
		{Check: "opencode hooks", Status: Warn, Summary: "2 of 3 events of opencode 1.2.3 hooked in /home/dev/.config/opencode/plugin/logwatch.js",
			Details: []string{"missing: session.idle"}, Fix: "logwatch hooks install --agent opencode (adds the missing events, removes the others)"},
	}
	for _, color := range []bool{false, true} {
		var b strings.Builder
		WriteText(&b, fs, color)
		name := "testdata/doctor-80.golden"
		if color {
			name = "testdata/doctor-80-color.golden"
		} else {
			for _, line := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > Width {
					t.Errorf("%d columns: %q", n, line)
				}
			}
		}
		testsupport.Golden(t, name, []byte(b.String()), *update)
	}
}

// TestDoctorGeminiVersion: `gemini --version` prints the bare release
// (0.61.0, measured); its known-good release is OK, a newer one warns.
func TestDoctorGeminiVersion(t *testing.T) {
	env, _ := testEnv(t)
	g := parsers.Lookup("gemini")
	if g == nil || g.KnownGood == nil || g.KnownGood() == "" {
		t.Fatal("gemini is not registered with a known-good release")
	}
	bin := filepath.Join(env.Path, g.Bin)
	for _, c := range []struct {
		release string
		want    string
	}{{g.KnownGood(), OK}, {nextPatch(g.KnownGood()), Warn}} {
		write(t, bin, "#!/bin/sh\necho '"+c.release+"'\n")
		os.Chmod(bin, 0o755)
		if f := checkInstalled(env); f.Status != c.want || !strings.Contains(f.Summary, "gemini "+c.release) {
			t.Errorf("gemini %s: %+v", c.release, f)
		}
	}
}
