package session

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// TestSavedHasEveryField: a field added to Session must be added to Saved.
func TestSavedHasEveryField(t *testing.T) {
	if s, v := reflect.TypeOf(Session{}).NumField(), reflect.TypeOf(Saved{}).NumField(); s != v {
		t.Fatalf("Session has %d fields, Saved %d: persist the new field", s, v)
	}
}

// TestSaveRestoreRoundTrip walks sessions through random hooks and log
// evidence; after every step the session saved, encoded, decoded and
// restored equals the original, and both then judge the next input alike.
func TestSaveRestoreRoundTrip(t *testing.T) {
	hooks := []parsers.Hook{
		{Event: "SessionStart"}, {Event: "UserPromptSubmit"}, {Event: "PreToolUse", ToolName: "Bash", ToolInput: []byte(`{"command":"ls"}`)},
		{Event: "PostToolUse", ToolName: "Read", ToolInput: []byte(`{"file_path":"/x/y"}`)},
		{Event: "PermissionRequest", ToolName: "Bash", ToolInput: []byte(`{"command":"rm -rf"}`)},
		{Event: "Notification", NotificationType: "permission_prompt", Message: "allow?"},
		{Event: "PreCompact", Trigger: "auto"}, {Event: "PostCompact"}, {Event: "Stop"},
		{Event: "Stop", HasBackground: true, Background: 2}, {Event: "StopFailure"},
		{Event: "SubagentStart", AgentID: "a1"}, {Event: "SubagentStart", AgentID: "a2"}, {Event: "SubagentStop", AgentID: "a1"},
		{Event: "PermissionRequest", AgentID: "a2", ToolName: "Edit"}, {Event: "PostToolUse", AgentID: "a2"},
		{Event: "SessionEnd"},
	}
	evs := []parsers.Evidence{prompt, codexStart, userMsg, text, final, bash, turnEnd, codexEnd, apiError, interrupt,
		compaction, pendingEnd(1), {Kind: parsers.KindTurnStart, Cwd: "/w", AgentVersion: "2.1"}}
	for seed := int64(0); seed < 40; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		agent := parsers.AgentClaude
		if seed%3 == 0 {
			agent = parsers.AgentCodex
		}
		s := New(agent)
		s.ID = "s"
		for i := 0; i < 60; i++ {
			b, err := json.Marshal(s.Save())
			if err != nil {
				t.Fatal(err)
			}
			var v Saved
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			r := Restore(v)
			if !reflect.DeepEqual(r, s) {
				t.Fatalf("seed %d step %d: restored\n %+v\nwant\n %+v", seed, i, r, s)
			}
			var c1, c2 Change
			var ok1, ok2 bool
			switch k := rnd.Intn(10); {
			case k < 4:
				h := hooks[rnd.Intn(len(hooks))]
				h.SessionID = "s"
				c1, ok1 = s.Hook(h)
				c2, ok2 = r.Hook(h)
			case k < 9:
				ev := evs[rnd.Intn(len(evs))]
				c1, ok1 = s.Log(ev)
				c2, ok2 = r.Log(ev)
			default:
				c1, ok1 = s.Acknowledge()
				c2, ok2 = r.Acknowledge()
			}
			if c1 != c2 || ok1 != ok2 {
				t.Fatalf("seed %d step %d: original %v %v, restored %v %v", seed, i, c1, ok1, c2, ok2)
			}
		}
	}
}
