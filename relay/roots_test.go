package relay

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTranscriptPathOutsideRootsRefused: a hook's transcript_path is
// followed only under a log root, with symlinks and ".." resolved; every
// other one is counted and never handed to the watcher. The hook itself
// still counts.
func TestTranscriptPathOutsideRootsRefused(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "claude", "projects")
	ok := filepath.Join(root, "-w-app", "ok.jsonl")
	outside := filepath.Join(dir, "elsewhere", "s.jsonl")
	shadow := filepath.Join(dir, "etc", "shadow")
	for p, body := range map[string]string{
		ok:      `{"type":"user","sessionId":"ok","message":{"content":"hi"}}` + "\n",
		outside: `{"type":"user","sessionId":"out","message":{"content":"hi"}}` + "\n",
		shadow:  "root:$6$secret:19000:0:99999:7:::\n",
	} {
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		must(t, os.WriteFile(p, []byte(body), 0o600))
	}
	link := filepath.Join(root, "-w-app", "link.jsonl")
	must(t, os.Symlink(shadow, link))
	linkedDir := filepath.Join(root, "-w-linked")
	must(t, os.Symlink(filepath.Dir(outside), linkedDir))
	later := filepath.Join(root, "-w-new", "later.jsonl") // not written yet: followed when it appears

	h := newHarness(t, Config{Roots: []string{root}})
	refused := map[string]string{
		"shadow":     shadow,
		"outside":    outside,
		"symlink":    link,
		"dirlink":    filepath.Join(linkedDir, "s.jsonl"),
		"dotdot":     root + "/../../etc/shadow",
		"relative":   "etc/shadow",
		"rootitself": root,
	}
	for _, id := range slices.Sorted(maps.Keys(refused)) { // in one order: the golden pins it
		must(t, h.hook("", "claude", jsonObj("hook_event_name", "UserPromptSubmit", "session_id", id, "transcript_path", refused[id])))
	}
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "UserPromptSubmit", "session_id", "ok", "transcript_path", ok)))
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "UserPromptSubmit", "session_id", "later", "transcript_path", later)))
	st := h.sync()
	h.follow.mu.Lock()
	follows := append([]string(nil), h.follow.follows...)
	h.follow.mu.Unlock()
	if len(follows) != 2 || follows[0] != ok || follows[1] != later {
		t.Fatalf("followed %v, want only %s and %s", follows, ok, later)
	}
	if st.Counters.TranscriptsRefused != int64(len(refused)) || st.Counters.HooksReceived != int64(len(refused))+2 {
		t.Fatalf("counters %+v", st.Counters)
	}
	for _, s := range st.Sessions {
		if s.State != "working" {
			t.Errorf("%s: %s (the hook itself still counts)", s.Session, s.State)
		}
	}
	t.Logf("%d transcript paths refused, %d followed", st.Counters.TranscriptsRefused, len(follows))
}

// TestInvalidUTF8IDsRefused: an id that is not UTF-8 would be published
// with U+FFFD and could then never be acknowledged: refused with an error.
func TestInvalidUTF8IDsRefused(t *testing.T) {
	h := newHarness(t, Config{})
	bad := []struct {
		name string
		err  error
	}{
		{"hook session_id", h.r.Hook(h.ctx, "claude", "", []byte("{\"hook_event_name\":\"Stop\",\"session_id\":\"s\xff\"}"))},
		{"hook tab", h.r.Hook(h.ctx, "claude", "t\xfe", []byte(`{"hook_event_name":"Stop","session_id":"s"}`))},
		{"ack", h.r.Ack(h.ctx, "s\xff")},
		{"key tab", h.r.Key(h.ctx, "t\xff", KeyEsc, h.clock.Now())},
		{"tab_closed", func() error { _, err := h.r.TabClosed(h.ctx, "t\xff"); return err }()},
	}
	for _, b := range bad {
		if b.err == nil {
			t.Errorf("%s: accepted", b.name)
		}
	}
	for _, line := range []string{"{\"op\":\"ack\",\"session\":\"s\xff\"}",
		"{\"op\":\"hook\",\"payload\":{\"hook_event_name\":\"Stop\",\"session_id\":\"s\xff\"}}"} {
		if _, err := DecodeRequest([]byte(line)); err == nil {
			t.Errorf("request %q accepted", line)
		}
	}
	st := h.sync()
	if len(st.Sessions) != 0 || st.Counters.BadRequests != int64(len(bad)) {
		t.Fatalf("sessions %+v, bad requests %d", st.Sessions, st.Counters.BadRequests)
	}
}
