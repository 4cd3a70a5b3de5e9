package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// TestRecordReplayRoundTrip records a scripted session with the real daemon
// (hooks, a key, log lines, an interrupt), replays the recording, and gets
// the same timeline; replaying twice gives the same bytes.
func TestRecordReplayRoundTrip(t *testing.T) {
	recDir := t.TempDir()
	rec := filepath.Join(recDir, "session.rec.jsonl")
	e := startE2EArgs(t, []string{"--record", rec})
	transcript := filepath.Join(e.claude, "-w-app", "r1.jsonl")
	prompt := func(text string) string {
		return `{"type":"user","sessionId":"r1","cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"` + text + `"}}`
	}

	e.hook("tabR", "claude", hookJSON("SessionStart", "r1", "transcript_path", transcript))
	e.want("r1", "ready", "session_start", "hook")
	e.hook("tabR", "claude", hookJSON("UserPromptSubmit", "r1", "transcript_path", transcript))
	e.want("r1", "working", "prompt", "hook")
	e.append(transcript, prompt("count to a thousand"))
	if _, stderr, code := cli(t, e.env, "key", "--tab", "tabR", "esc"); code != 0 {
		t.Fatalf("key: %s", stderr)
	}
	e.append(transcript, `{"type":"user","sessionId":"r1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	e.want("r1", "ready", "interrupted", "key+log")
	e.hook("tabR", "claude", hookJSON("UserPromptSubmit", "r1"))
	e.want("r1", "working", "prompt", "hook")
	e.append(transcript, prompt("just say ok"))
	e.hook("tabR", "claude", hookJSON("PreToolUse", "r1", "tool_name", "Bash", "tool_input", `{"command":"echo ok"}`))
	e.want("r1", "working", "tool", "hook")
	e.hook("tabR", "claude", hookJSON("Stop", "r1"))
	e.want("r1", "done", "turn_end", "hook")
	if _, stderr, code := cli(t, e.env, "ack", "--session", "r1"); code != 0 {
		t.Fatalf("ack: %s", stderr)
	}
	e.want("r1", "ready", "acknowledged", "api")
	e.daemon.Process.Signal(syscall.SIGTERM)
	e.daemon.Wait()

	st, err := os.Stat(rec)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("recording: %v %v", st, err)
	}
	live := recordedChanges(t, rec)
	if len(live) < 6 {
		t.Fatalf("recording holds %d changes", len(live))
	}
	for _, kind := range []string{`"kind":"hook"`, `"kind":"key"`, `"kind":"log"`, `"kind":"ack"`, `"hook_event_name":"PreToolUse"`, `"raw":`} {
		if b, _ := os.ReadFile(rec); !strings.Contains(string(b), kind) {
			t.Errorf("recording lacks %s", kind)
		}
	}

	out1, stderr, code := cli(t, nil, "replay", "--json", rec)
	if code != 0 {
		t.Fatalf("replay: %d %s", code, stderr)
	}
	out2, _, _ := cli(t, nil, "replay", "--json", rec)
	if out1 != out2 {
		t.Fatalf("replay is not deterministic:\n%s\n---\n%s", out1, out2)
	}
	var got struct {
		Timeline []struct{ Session, State, Reason, Source, Rule string }
	}
	if err := json.Unmarshal([]byte(out1), &got); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, e := range got.Timeline {
		replayed = append(replayed, strings.Join([]string{e.Session, e.State, e.Reason, e.Source, e.Rule}, "/"))
	}
	if strings.Join(replayed, "\n") != strings.Join(live, "\n") {
		t.Fatalf("replayed timeline differs from the recorded one:\nlive:\n  %s\nreplayed:\n  %s",
			strings.Join(live, "\n  "), strings.Join(replayed, "\n  "))
	}
	text, _, code := cli(t, nil, "replay", rec)
	if code != 0 || !strings.Contains(text, "key.confirmed") {
		t.Fatalf("text replay: %d\n%s", code, text)
	}
	if text, stderr, code := cli(t, nil, "replay", "--check", rec); code != 0 || !strings.Contains(text, "SAME  the replay published the") {
		t.Fatalf("replay --check: exit %d\n%s\n%s", code, text, stderr)
	}

	// A recording whose published changes the replay does not reproduce
	// (here: one edited) fails --check with the first differing change.
	b, _ := os.ReadFile(rec)
	forged := filepath.Join(recDir, "forged.rec.jsonl")
	write(t, forged, strings.Replace(string(b), `"reason":"acknowledged"`, `"reason":"forged"`, 1))
	text, stderr, code = cli(t, nil, "replay", "--check", forged)
	if code != 1 || !strings.Contains(text, "recorded: seq=") || !strings.Contains(text, "/forged source=api") ||
		!strings.Contains(text, "/acknowledged source=api") || !strings.Contains(stderr, "replay to other changes") {
		t.Fatalf("forged recording: exit %d\n%s\n%s", code, text, stderr)
	}
	if _, stderr, code := cli(t, nil, "replay", "--check", "--json", forged); code != 1 || !strings.Contains(stderr, "1 recording(s)") {
		t.Fatalf("forged recording, --json: exit %d %s", code, stderr)
	}
}

// recordedEvent is one change a live daemon published, as its recording
// keeps it.
type recordedEvent struct {
	Seq                                       uint64
	Session, Tab, State, Reason, Source, Rule string
}

// recordedEvents reads the changes the live daemon published.
func recordedEvents(t *testing.T, path string) []recordedEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recordedEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l struct {
			Kind  string
			Event *recordedEvent
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		if l.Kind == "change" && l.Event != nil {
			out = append(out, *l.Event)
		}
	}
	return out
}

// recordedChanges is recordedEvents as session/state/reason/source/rule.
func recordedChanges(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, ev := range recordedEvents(t, path) {
		out = append(out, strings.Join([]string{ev.Session, ev.State, ev.Reason, ev.Source, ev.Rule}, "/"))
	}
	return out
}

// TestReplayPeerScenarioCLI runs the command on a peer recording.
func TestReplayPeerScenarioCLI(t *testing.T) {
	dir := "../../../shared/realworld/irrlicht-scenarios/claudecode/2-20_user-esc-interrupt"
	recs, _ := filepath.Glob(filepath.Join(dir, "recordings", "*"))
	if len(recs) == 0 {
		testsupport.Missing(t, "peer scenarios not present under %s", dir)
	}
	out, stderr, code := cli(t, nil, "replay", "--expect", filepath.Join(dir, "expected.jsonl"), recs[0])
	if code != 0 || !strings.Contains(out, "3/3 phases passed") || !strings.Contains(out, "interrupted") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	// A failing phase exits 1 with a readable reason.
	exp := filepath.Join(t.TempDir(), "expected.jsonl")
	write(t, exp, `{"schema_version":1,"scenario_id":"x"}
{"phase":"never_waits","expected_state":"waiting","relative_to":"start"}
`)
	out, _, code = cli(t, nil, "replay", "--expect", exp, recs[0])
	if code != 1 || !strings.Contains(out, "FAIL  never_waits: no transition to waiting") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// A peer recording holds no changes of ours to check against.
	if _, stderr, code := cli(t, nil, "replay", "--check", recs[0]); code != 2 || !strings.Contains(stderr, "no published changes") {
		t.Fatalf("--check on a peer recording: exit %d %s", code, stderr)
	}
}

// TestRecordReplayAfterRestart: a recording made by a daemon that restored
// its state at start (a waiting session, mid-turn behind a 300 KB tool
// result) replays to the same timeline: the restored state is recorded and
// replayed, and the lines it already held are not folded again.
func TestRecordReplayAfterRestart(t *testing.T) {
	e := startE2E(t)
	tr := filepath.Join(e.claude, "-w-app", "r2.jsonl")
	e.hook("tabQ", "claude", hookJSON("UserPromptSubmit", "r2", "transcript_path", tr))
	e.append(tr,
		`{"type":"user","sessionId":"r2","cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"clean up"}}`,
		`{"type":"user","sessionId":"r2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+strings.Repeat("z", 300_000)+`"}]}}`)
	e.hook("tabQ", "claude", hookJSON("PermissionRequest", "r2", "tool_name", "Bash", "tool_input", `{"command":"rm -rf dist"}`))
	e.waitView("r2", "waiting/permission/Bash: rm -rf dist/hook/hook.permission_request/tabQ")
	e.hook("tabD", "claude", hookJSON("UserPromptSubmit", "r3"))
	e.hook("tabD", "claude", hookJSON("Stop", "r3"))
	e.waitView("r3", "done/turn_end//hook/hook.stop/tabD")
	e.stop(true)

	rec := filepath.Join(t.TempDir(), "restarted.rec.jsonl")
	e.args = []string{"--record", rec}
	e.start()
	e.waitView("r2", "waiting/permission/Bash: rm -rf dist/hook/hook.permission_request/tabQ")
	e.hook("tabQ", "claude", hookJSON("PostToolUse", "r2", "tool_name", "Bash", "tool_input", `{"command":"rm -rf dist"}`))
	e.append(tr, `{"type":"system","subtype":"turn_duration","sessionId":"r2","durationMs":100}`)
	e.waitView("r2", "done/turn_end//log/log.turn_end/tabQ")
	if _, stderr, code := cli(t, e.env, "ack", "--session", "r3"); code != 0 { // known only from the restored state
		t.Fatalf("ack: %s", stderr)
	}
	e.waitView("r3", "ready/acknowledged//api/api.ack/tabD")
	e.stop(true)

	live := recordedChanges(t, rec)
	out, stderr, code := cli(t, nil, "replay", "--json", rec)
	if code != 0 {
		t.Fatalf("replay: %d %s", code, stderr)
	}
	var got struct {
		Timeline []struct{ Session, State, Reason, Source, Rule string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, e := range got.Timeline {
		replayed = append(replayed, strings.Join([]string{e.Session, e.State, e.Reason, e.Source, e.Rule}, "/"))
	}
	if len(live) < 2 || strings.Join(replayed, "\n") != strings.Join(live, "\n") {
		t.Fatalf("replayed timeline differs from the recorded one:\nlive:\n  %s\nreplayed:\n  %s",
			strings.Join(live, "\n  "), strings.Join(replayed, "\n  "))
	}
	// The text timeline has no log line of the replayed daemon in it (its
	// "state restored" was a JSON line among the text, piped).
	text, stderr, code := cli(t, nil, "replay", rec)
	if code != 0 || strings.Contains(text+stderr, `{"level"`) || strings.Contains(text+stderr, "state restored") {
		t.Errorf("text replay: exit %d\n%s\n%s", code, text, stderr)
	}
}
