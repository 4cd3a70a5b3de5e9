package desktop

import (
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/notify"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    notify.Alert
		want string
	}{
		{"title, permission", notify.Alert{Title: "fix the flaky test", Agent: "claude", Cwd: "/src/api", State: "waiting", Reason: "permission"}, "fix the flaky test — needs your permission"},
		{"question", notify.Alert{Title: "t", State: "waiting", Reason: "question"}, "t — has a question"},
		{"another wait", notify.Alert{Title: "t", State: "waiting", Reason: "tool"}, "t — waiting"},
		{"no title: agent and project", notify.Alert{Agent: "codex", Cwd: "/src/api", State: "done", Reason: "turn_end"}, "codex · api — done"},
		{"error", notify.Alert{Agent: "codex", Cwd: "/src/api", State: "done", Reason: "error"}, "codex · api — ended with an error"},
		{"remote host named", notify.Alert{Host: "build1", Agent: "pi", Cwd: "/home/x/web", State: "waiting"}, "build1: pi · web — waiting"},
		{"nothing known", notify.Alert{}, "session — waiting"},
		{"root cwd is no project", notify.Alert{Agent: "omp", Cwd: "/", State: "done"}, "omp — done"},
		{"control characters neutralised", notify.Alert{Title: "a\x1b[31mred\x07\nnext\u202eevil", State: "waiting"}, "a [31mred next evil — waiting"},
		{"invalid UTF-8 replaced", notify.Alert{Title: "bad\xff\xfebytes", State: "waiting"}, "bad\uFFFDbytes — waiting"},
		{"long title cut, reason kept", notify.Alert{Title: strings.Repeat("x", 300), State: "waiting", Reason: "question"}, strings.Repeat("x", maxSummary-len("has a question")-3-1) + "… — has a question"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summary(tc.a); got != tc.want {
				t.Errorf("summary = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a      notify.Alert
		markup bool
		want   string
	}{
		{"the detail", notify.Alert{Reason: "permission", Detail: "Claude needs your permission to use Bash"}, true, "Claude needs your permission to use Bash"},
		{"a reason the summary does not say", notify.Alert{Reason: "subagents_pending", Detail: "go test ./..."}, false, "subagents_pending\ngo test ./..."},
		{"nothing", notify.Alert{Reason: "turn_end"}, false, ""},
		{"markup escaped when the server reads it", notify.Alert{Detail: `<b>x</b> & <a href="file:///etc">y</a> &amp;`}, true, `&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href="file:///etc"&gt;y&lt;/a&gt; &amp;amp;`},
		{"plain text left alone", notify.Alert{Detail: "a < b && c > d"}, false, "a < b && c > d"},
		{"blank lines and escapes dropped", notify.Alert{Detail: "one\n\n\x1b]0;title\x07\r\ntwo\t\tthree"}, false, "one\n]0;title\ntwo three"},
		{"bounded", notify.Alert{Detail: strings.Repeat("é", 1000)}, false, strings.Repeat("é", maxBody-1) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := body(tc.a, tc.markup); got != tc.want {
				t.Errorf("body = %q, want %q", got, tc.want)
			}
		})
	}
}

// A title is an argument of a fixed script, never part of it.
func TestOsascriptArgs(t *testing.T) {
	evil := `x" & (do shell script "touch /tmp/pwned") & "`
	args := osascriptArgs(evil, "-e body")
	script := args[:slices.Index(args, "--")]
	for _, a := range script {
		if strings.Contains(a, "pwned") || strings.Contains(a, "body") {
			t.Errorf("text spliced into the script: %q", a)
		}
	}
	if got := args[len(args)-2:]; got[0] != evil || got[1] != "-e body" {
		t.Errorf("texts are not the last arguments after --: %q", args)
	}
}
