package command

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/notify"
)

var alert = notify.Alert{Key: "s1", Session: "s1", Agent: "codex", Title: "Ship it", State: "waiting",
	Reason: "question", Detail: "Which branch?", Tab: "t1", Cwd: "/src", Since: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}

// TestEnvAndStdin: the alert reaches the command in its environment and as
// JSON on stdin; no shell reads it (a $ in the detail stays a $).
func TestEnvAndStdin(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	s, err := New([]string{"sh", "-c", `{ env | grep ^LOGWATCH_ | sort; cat; } > "$0"`, out}, false)
	if err != nil {
		t.Fatal(err)
	}
	a := alert
	a.Detail = "$(touch " + filepath.Join(dir, "pwned") + ")"
	if err := s.Show(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	got := string(b)
	for _, want := range []string{"LOGWATCH_EVENT=show\n", "LOGWATCH_STATE=waiting\n", "LOGWATCH_REASON=question\n",
		"LOGWATCH_SESSION=s1\n", "LOGWATCH_AGENT=codex\n", "LOGWATCH_TITLE=Ship it\n", "LOGWATCH_TAB=t1\n",
		"LOGWATCH_SINCE=2026-12-04T12:00:00Z\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	js := got[strings.Index(got, "{"):]
	var p Payload
	if err := json.Unmarshal([]byte(js), &p); err != nil || p.Event != "show" || p.Detail != a.Detail || p.Title != "Ship it" {
		t.Fatalf("stdin %q: %+v %v", js, p, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("the detail was run by a shell")
	}
	// Withdrawals run the command only when asked.
	os.Remove(out)
	if err := s.Withdraw(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a withdraw ran the command without withdraw: true")
	}
}

// TestKilledAtDeadline: a command that hangs (and its child) is killed at
// the call's deadline.
func TestKilledAtDeadline(t *testing.T) {
	s, _ := New([]string{"sh", "-c", "sleep 30 & sleep 30"}, false)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Show(ctx, alert)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("returned after %v", d)
	}
}

func TestCheck(t *testing.T) {
	if err := Check([]string{"sh"}); err != nil {
		t.Fatal(err)
	}
	if err := Check([]string{"/nonexistent/lw-sound"}); err == nil {
		t.Fatal("a missing command passed")
	}
	if _, err := New(nil, false); err == nil {
		t.Fatal("an empty command was accepted")
	}
}
