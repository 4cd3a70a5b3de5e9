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
		{"title", notify.Alert{Title: "fix the flaky test", Agent: "claude", Cwd: "/src/api", State: "waiting"}, "fix the flaky test — waiting"},
		{"no title: agent and project", notify.Alert{Agent: "codex", Cwd: "/src/api", State: "done"}, "codex · api — done"},
		{"remote host named", notify.Alert{Host: "build1", Agent: "pi", Cwd: "/home/x/web", State: "waiting"}, "build1: pi · web — waiting"},
		{"nothing known", notify.Alert{State: "waiting"}, "session — waiting"},
		{"root cwd is no project", notify.Alert{Agent: "omp", Cwd: "/", State: "done"}, "omp — done"},
		{"control characters neutralised", notify.Alert{Title: "a\x1b[31mred\x07\nnext\u202eevil", State: "waiting"}, "a [31mred next evil — waiting"},
		{"invalid UTF-8 replaced", notify.Alert{Title: "bad\xff\xfebytes", State: "waiting"}, "bad\uFFFDbytes — waiting"},
		{"long title cut, state kept", notify.Alert{Title: strings.Repeat("x", 300), State: "waiting"}, strings.Repeat("x", maxSummary-len("waiting")-3-1) + "… — waiting"},
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
		{"reason and detail", notify.Alert{Reason: "Claude needs your permission to use Bash", Detail: "rm -rf build"}, true, "Claude needs your permission to use Bash\nrm -rf build"},
		{"detail inside the reason once", notify.Alert{Reason: "Bash: go test ./...", Detail: "go test ./..."}, false, "Bash: go test ./..."},
		{"detail alone", notify.Alert{Detail: "src/main.go"}, false, "src/main.go"},
		{"markup escaped when the server reads it", notify.Alert{Reason: `<b>x</b> & <a href="file:///etc">y</a> &amp;`}, true, `&lt;b&gt;x&lt;/b&gt; &amp; &lt;a href="file:///etc"&gt;y&lt;/a&gt; &amp;amp;`},
		{"plain text left alone", notify.Alert{Reason: "a < b && c > d"}, false, "a < b && c > d"},
		{"blank lines and escapes dropped", notify.Alert{Reason: "one\n\n\x1b]0;title\x07\r\ntwo\t\tthree"}, false, "one\n]0;title\ntwo three"},
		{"bounded", notify.Alert{Reason: strings.Repeat("é", 1000)}, false, strings.Repeat("é", maxBody-1) + "…"},
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
