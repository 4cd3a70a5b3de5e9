package relay

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestEncodeStateIsMarshal: the streamed state decodes to exactly what
// json.Marshal of the whole savedRelay gave, tabs and several sessions
// included, and the relay restores it.
func TestEncodeStateIsMarshal(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	must(t, h.hook("tab-1", "claude", claudeHook("UserPromptSubmit", "s1")))
	must(t, h.hook("", "claude", claudeHook("SubagentStart", "s1", "agent_id", "a1")))
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s2")))
	must(t, h.hook("", "claude", claudeHook("Stop", "s2")))
	must(t, h.r.TabProcess(h.ctx, "tab-1", os.Getpid()))
	h.sync()
	type pair struct{ got, want []byte }
	res := make(chan pair, 1)
	h.r.enqueue(func() {
		st := savedRelay{Version: savedVersion, Seq: h.r.seq, Tabs: h.r.tabs, TabProcs: h.r.tabProcs}
		for _, e := range h.r.sortedEntries() {
			st.Sessions = append(st.Sessions, savedEntry{Session: e.s.Save(), Tab: e.tab, Since: e.since, Path: e.path})
		}
		want, err := json.Marshal(st)
		if err != nil {
			t.Error(err)
		}
		got, err := h.r.encodeState()
		if err != nil {
			t.Error(err)
		}
		res <- pair{got, want}
	})
	p := <-res
	var got, want any
	if err := json.Unmarshal(p.got, &got); err != nil {
		t.Fatalf("streamed state is not JSON: %v\n%s", err, p.got)
	}
	must(t, json.Unmarshal(p.want, &want))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("streamed state\n%s\nwant\n%s", p.got, p.want)
	}
	if n := len(want.(map[string]any)["sessions"].([]any)); n != 2 {
		t.Fatalf("%d sessions saved, want 2", n)
	}
	if want.(map[string]any)["tabs"] == nil {
		t.Fatal("no tab saved: the test does not cover tabs")
	}
	var st savedRelay
	must(t, json.Unmarshal(p.got, &st))
	// A restart remembers which process each tab runs.
	h2 := newHarness(t, DefaultConfig())
	h2.r.Restore(p.got)
	if pid, err := h2.r.TabPID(h2.ctx, "tab-1"); err != nil || pid != os.Getpid() {
		t.Fatalf("restored tab-1 pid %d (%v), want %d", pid, err, os.Getpid())
	}
}
