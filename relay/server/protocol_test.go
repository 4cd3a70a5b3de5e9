package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/relay"
)

// TestAnswersCarryProtocol: every answer, refusals included, names the
// protocol version; empty lists are [] and never null; a subscription's first
// answer says how many snapshot lines follow.
func TestAnswersCarryProtocol(t *testing.T) {
	d := startDaemon(t, nil)
	lines := raw(t, d.socket, `{"op":"status"}`, `{"op":"nope"}`, `not json`, `{"op":"subscribe"}`)
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, l)
		}
		if m["protocol"] != float64(relay.Protocol) {
			t.Errorf("answer %d lacks protocol %d: %s", i, relay.Protocol, l)
		}
	}
	for _, want := range []string{`"sessions":[]`, `"worktrees":[]`, `"roots":[]`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("status lacks %s: %s", want, lines[0])
		}
	}
	if !strings.Contains(lines[3], `"ok":true`) || !strings.Contains(lines[3], `"snapshot":0`) {
		t.Errorf("subscribe answer: %s", lines[3])
	}
}
