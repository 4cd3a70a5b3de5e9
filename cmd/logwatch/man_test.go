package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
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
		if !strings.Contains(unroff(string(b)), ".SH NAME\n"+strings.TrimSuffix(name, ".1")+" - "+c.Short+"\n") {
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

// unroff undoes the escapes manpage writes in text: \- \e \[uXXXX].
func unroff(s string) string {
	s = regexp.MustCompile(`\\\[u[0-9A-F]+\]`).ReplaceAllStringFunc(s, func(u string) string {
		r, _ := strconv.ParseUint(u[3:len(u)-1], 16, 32)
		return string(rune(r))
	})
	return strings.NewReplacer(`\-`, "-", `\e`, `\`).Replace(s)
}

// TestManGolden: logwatch(1) and logwatch-version(1) as written, with
// SOURCE_DATE_EPOCH fixing the date; groff (or mandoc) reads every page
// of the tree without a warning.
func TestManGolden(t *testing.T) {
	dir := t.TempDir()
	epoch := []string{"SOURCE_DATE_EPOCH=1764892800"} // 2025-12-05
	if _, stderr, code := cli(t, epoch, "man", dir); code != 0 {
		t.Fatalf("man: %d %s", code, stderr)
	}
	for _, name := range []string{"logwatch.1", "logwatch-version.1"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		testsupport.Golden(t, filepath.Join("testdata", "man", name), got, *update)
	}
	top, _, _ := cli(t, epoch, "man")
	if root, _ := os.ReadFile(filepath.Join(dir, "logwatch.1")); top != string(root) {
		t.Errorf("logwatch man and logwatch man DIR differ on logwatch.1:\n%s", top)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	testsupport.LintMan(t, pages)
	if _, stderr, code := cli(t, []string{"SOURCE_DATE_EPOCH=soon"}, "man"); code != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("a bad SOURCE_DATE_EPOCH: %d %q", code, stderr)
	}
}
