package tmux

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceLineRoundTrip: install adds one line, a second install adds
// nothing, uninstall gives the file back byte for byte (a last line without
// a line break, a file install created, CRLF and blank lines kept).
func TestSourceLineRoundTrip(t *testing.T) {
	const conf = "/home/u/.config/logwatch/tmux.conf"
	for _, c := range []struct {
		name   string
		user   string
		exists bool
	}{
		{"none", "", false},
		{"empty", "", true},
		{"plain", "set -g mouse on\n", true},
		{"no final newline", "set -g mouse on", true},
		{"crlf and blanks", "set -g mouse on\r\n\r\n\n# end\n", true},
	} {
		var user []byte
		if c.exists {
			user = []byte(c.user)
		}
		got, changed := AddSource(user, c.exists, conf)
		if !changed || !bytes.Contains(got, []byte("source-file -q "+conf+" ")) {
			t.Fatalf("%s: install did not add the line: %q", c.name, got)
		}
		if !bytes.HasPrefix(got, user) {
			t.Fatalf("%s: install changed the user's lines: %q", c.name, got)
		}
		again, changed := AddSource(got, true, conf)
		if changed || !bytes.Equal(again, got) {
			t.Fatalf("%s: a second install changed the file: %q", c.name, again)
		}
		back, remove, changed := RemoveSource(got)
		if !changed {
			t.Fatalf("%s: uninstall found nothing", c.name)
		}
		if remove != !c.exists || (c.exists && !bytes.Equal(back, user)) {
			t.Fatalf("%s: uninstall gave %q (remove %v), want %q", c.name, back, remove, c.user)
		}
		if _, _, changed := RemoveSource(back); changed {
			t.Fatalf("%s: a second uninstall changed the file", c.name)
		}
	}
	// A user's own source-file line, even of logwatch's file, is theirs.
	own := "source-file ~/.config/logwatch/tmux.conf\n"
	if _, _, changed := RemoveSource([]byte(own)); changed {
		t.Fatal("uninstall removed a line install did not add")
	}
}

func TestConfChecksPaths(t *testing.T) {
	for p, ok := range map[string]bool{"/usr/local/bin/logwatch": true, "/home/a b/logwatch": false, "/x/it's": false, "": false, "/x/$(rm)": false} {
		if err := CheckPath(p); (err == nil) != ok {
			t.Errorf("CheckPath(%q): %v", p, err)
		}
	}
	c := string(Conf("/usr/bin/logwatch", "N"))
	for _, want := range []string{"bind-key N run-shell -b '/usr/bin/logwatch next --switch --client \"#{client_name}\"'", "run-shell -b '/usr/bin/logwatch tmux follow >/dev/null 2>&1'",
		"set-hook -g 'after-select-pane[73]' 'wait-for -S logwatch-focus'", "set-hook -g 'client-detached[73]' 'wait-for -S logwatch-focus'",
		// tmux before 3.3 refuses the terminal's focus hooks: they are set only from 3.3 on.
		"%if \"#{m/r:" + focusVersions + ",#{version}}\"\nset-hook -g 'client-focus-in[73]' 'wait-for -S logwatch-focus'\nset-hook -g 'client-focus-out[73]' 'wait-for -S logwatch-focus'\n" +
			"if-shell -F '#{focus-events}' '' 'set-option -g focus-events on ; set-option -g @logwatch-focus-events on'\n%endif\n"} {
		if !strings.Contains(c, want) {
			t.Errorf("conf lacks %q:\n%s", want, c)
		}
	}
	// A pane switch runs no process: only the key and the follower's start do.
	if n := strings.Count(c, "run-shell"); n != 2 {
		t.Errorf("conf runs %d processes, want 2 (the key, the follower):\n%s", n, c)
	}
}

// TestConfFocusEvents: sourcing Conf turns focus-events on (a terminal in
// the background is then known not to be looked at), a second source
// changes nothing, and UnsetCommands turn it off only if Conf turned it
// on: a user's own setting stays.
func TestConfFocusEvents(t *testing.T) {
	if v, err := exec.Command("tmux", "-V").Output(); err == nil && !focusVersionsRE.MatchString(strings.TrimPrefix(strings.TrimSpace(string(v)), "tmux ")) {
		t.Skipf("%s has no terminal focus hooks", v)
	}
	for _, userOn := range []bool{false, true} {
		s, _ := realTmux(t)
		ctx := context.Background()
		if userOn {
			s.Run(ctx, []string{"set-option", "-g", "focus-events", "on"})
		}
		conf := filepath.Join(t.TempDir(), "logwatch.conf")
		if err := os.WriteFile(conf, Conf("/bin/true", "N"), 0o644); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := s.Run(ctx, []string{"source-file", conf}); err != nil {
				t.Fatal(err)
			}
			if v := show(t, s, "-g", "focus-events"); v != "on" {
				t.Fatalf("user's own on: %v; focus-events %q after sourcing", userOn, v)
			}
		}
		for _, c := range UnsetCommands("N") {
			s.Run(ctx, c)
		}
		if v, want := show(t, s, "-g", "focus-events"), map[bool]string{false: "off", true: "on"}[userOn]; v != want {
			t.Fatalf("user's own on: %v; focus-events %q after uninstall, want %q", userOn, v, want)
		}
	}
}
