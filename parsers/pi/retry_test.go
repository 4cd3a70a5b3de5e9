package pi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// TestPiRetries: an error answer pi retries (its own test on the message,
// its settings, the failures it counted in a row) goes on as activity;
// the one after the last retry, one pi does not retry, or any when retry
// is off ends the turn as an error (pi 0.73.1, agent-session.js).
func TestPiRetries(t *testing.T) {
	e500 := lineError
	e503 := strings.Replace(lineError, "500 fake server error", "503 Service Unavailable: overloaded", 1)
	e400 := strings.Replace(lineError, "500 fake server error", "400 status code (no body)", 1)
	over := strings.Replace(lineError, "500 fake server error", "500 prompt is too long: 210000 tokens", 1)
	limit := strings.Replace(lineError, "500 fake server error", "429 rate limit: too many tokens", 1)
	retry, final := "retry", "final"
	for _, tc := range []struct {
		name, global, project string
		lines, want           []string // want per error line, in order
	}{
		{"defaults: three retries", "", "", []string{e500, e500, e500, e500}, []string{retry, retry, retry, final}},
		{"the suite's one retry", `{"retry":{"maxRetries":1,"baseDelayMs":500}}`, "", []string{e500, e500}, []string{retry, final}},
		{"count starts again after the last", `{"retry":{"maxRetries":1}}`, "", []string{e500, e500, lineUser, e500}, []string{retry, final, retry}},
		{"an answer resets the count", `{"retry":{"maxRetries":1}}`, "", []string{e500, lineAnswer, lineUser, e503}, []string{retry, retry}},
		{"a prompt resets it (a cancelled retry)", `{"retry":{"maxRetries":1}}`, "", []string{e500, lineUser, e500}, []string{retry, retry}},
		{"retry off", `{"retry":{"enabled":false}}`, "", []string{e500}, []string{final}},
		{"the project's over the user's", `{"retry":{"enabled":false}}`, `{"retry":{"enabled":true,"maxRetries":2}}`, []string{e500, e500, e500}, []string{retry, retry, final}},
		{"not retryable", "", "", []string{e400}, []string{final}},
		{"a context overflow compacts", "", "", []string{over}, []string{final}},
		{"a rate limit is no overflow", "", "", []string{limit}, []string{retry}},
		{"a settings file pi cannot read", `{"retry":`, "", []string{e500, e500, e500, e500}, []string{retry, retry, retry, final}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agent, work := t.TempDir(), t.TempDir()
			t.Setenv("PI_CODING_AGENT_DIR", agent)
			write := func(path, s string) {
				if s == "" {
					return
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(agent, "settings.json"), tc.global)
			write(filepath.Join(work, ".pi", "settings.json"), tc.project)
			p := NewParser()
			if _, err := p.Parse([]byte(strings.Replace(lineHeader, "/path/to/proj", work, 1))); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range tc.lines {
				ev, err := p.Parse([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(l, `"error"`) {
					continue
				}
				switch {
				case ev.Retry && ev.Kind == parsers.KindActivity && !ev.Final && ev.End == "":
					got = append(got, retry)
				case !ev.Retry && ev.Final && ev.End == parsers.EndAPIError:
					got = append(got, final)
				default:
					t.Fatalf("%s: %+v", l, ev)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
