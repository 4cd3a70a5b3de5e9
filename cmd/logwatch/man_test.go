package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages: `logwatch man DIR` writes a page for every command of the
// cobra tree, generated from it (so a new command or flag is in the manual),
// and `logwatch man` prints logwatch(1).
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := cli(t, nil, "man", dir)
	if code != 0 {
		t.Fatalf("man: %d %s", code, stderr)
	}
	root := newRoot(&app{})
	pages := 0
	for _, c := range append(root.Commands(), root) {
		if !c.IsAvailableCommand() && c != root {
			continue
		}
		name := strings.ReplaceAll(c.CommandPath(), " ", "-") + ".1"
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("no page for %q: %v", c.CommandPath(), err)
			continue
		}
		pages++
		if !strings.Contains(string(b), ".SH NAME") || !strings.Contains(string(b), c.Short) {
			t.Errorf("%s lacks its NAME or summary", name)
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				if _, err := os.Stat(filepath.Join(dir, strings.ReplaceAll(sub.CommandPath(), " ", "-")+".1")); err != nil {
					t.Errorf("no page for %q", sub.CommandPath())
				}
			}
		}
	}
	if pages < 15 || !strings.Contains(out, "pages written to") {
		t.Errorf("%d pages; output %q", pages, out)
	}
	run, _ := os.ReadFile(filepath.Join(dir, "logwatch-run.1"))
	if !strings.Contains(string(run), `\-\-record`) && !strings.Contains(string(run), "--record") {
		t.Errorf("logwatch-run.1 lacks --record:\n%s", run)
	}
	top, _, code := cli(t, nil, "man")
	if code != 0 || !strings.HasPrefix(strings.TrimPrefix(top, ".nh\n"), `.TH "LOGWATCH" "1"`) {
		t.Errorf("logwatch man: %d %.200q", code, top)
	}
}
