package manpage

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/testsupport"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var header = Header{Section: "1", Date: time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC), Source: "tool", Manual: "tool manual"}

// tree is a small command tree with what a page must get right: a root
// with persistent flags and no Long, a child whose Long has paragraphs, an
// indented table, lines roff would read as requests, backslashes, options
// and text outside ASCII, and flags of each kind.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "Does one thing well"}
	root.PersistentFlags().String("config", "", "configuration `file` (default $TOOL_CONFIG)")
	root.PersistentFlags().String("log-level", "info", "log level")
	sub := &cobra.Command{
		Use:   "sub-cmd [--dry-run] NAME",
		Short: "Changes NAME → done, or says why not",
		Long: `Changes NAME, once: running it twice changes nothing. --dry-run
prints the change; -f forces it. A path such as C:\dir\file or ~/a-b stays.
.SH is text here, and so is
'quoted text at a line's start.

Where it looks:
  claude   ${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json
           (project: .claude/settings.json)

	tabbed	line
`,
		Args: cobra.ExactArgs(1),
		Run:  func(*cobra.Command, []string) {},
	}
	sub.Flags().BoolP("force", "f", false, "replace a changed file")
	sub.Flags().Bool("dry-run", false, "print the change instead")
	sub.Flags().Duration("wait", 5*time.Second, "give up after this long")
	sub.Flags().String("scope", "user", "user or project")
	sub.Flags().String("old", "", "gone")
	_ = sub.Flags().MarkDeprecated("old", "use --scope")
	hidden := &cobra.Command{Use: "secret", Hidden: true, Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sub, hidden)
	return root
}

// TestGolden: the pages of the small tree, checked by reading them and by
// man -l: NAME, SYNOPSIS, the description's paragraphs with the table laid
// out as written, every option with its value and non-zero default, SEE
// ALSO both ways, the hidden command and the deprecated flag left out.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	n, err := Tree(tree(), header, dir)
	if err != nil || n != 2 {
		t.Fatalf("Tree: %d pages, %v", n, err)
	}
	for _, name := range []string{"tool.1", "tool-sub-cmd.1"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		testsupport.Golden(t, filepath.Join("testdata", name), got, *update)
	}
	var b bytes.Buffer
	if err := Write(&b, tree(), header); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "tool.1"))
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("Write and Tree differ for the root:\n%s\n%s", b.Bytes(), want)
	}
}

// TestLint: groff reads the golden pages with every warning on and
// reports none (mandoc's lint where it is the one installed).
func TestLint(t *testing.T) {
	pages, _ := filepath.Glob("testdata/*.1")
	testsupport.LintMan(t, pages)
}

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, inline, option string }{
		{"--dry-run", `\-\-dry\-run`, `\-\-dry\-run`},
		{"a well-known -h (--scope user)", `a well-known \-h (\-\-scope user)`, `a well\-known \-h (\-\-scope user)`},
		{"logwatch-run", `logwatch-run`, `logwatch\-run`},
		{"x=--y-z, a-b", `x=\-\-y\-z, a-b`, `x=\-\-y\-z, a\-b`},
		{`C:\dir \fB`, `C:\edir \efB`, `C:\edir \efB`},
		{"→ … é", `\[u2192] \[u2026] \[u00E9]`, `\[u2192] \[u2026] \[u00E9]`},
		{"a\x1bb\nc", `a\ex1bb c`, `a\ex1bb c`},
		{"\U0001F600", `\[u1F600]`, `\[u1F600]`},
	} {
		if got := inline(c.in); got != c.inline {
			t.Errorf("inline(%q) = %q, want %q", c.in, got, c.inline)
		}
		if got := option(c.in); got != c.option {
			t.Errorf("option(%q) = %q, want %q", c.in, got, c.option)
		}
	}
}

// FuzzText: whatever a command's text holds, the page's lines are our own
// requests or text that roff cannot read as one, all ASCII, with no control
// character but a tab.
func FuzzText(f *testing.F) {
	f.Add(tree().Commands()[0].Long)
	f.Add(".TH x\n'br\n\\\\\n  \n\t.x\n\n\n-a")
	f.Add("\xff\u202e\x00é")
	requests := map[string]bool{".PP": true, ".RS 4": true, ".RE": true, ".nf": true, ".fi": true}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		text(&b, s)
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if (strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'")) && !requests[l] {
				t.Fatalf("%q: line %q reads as a request", s, l)
			}
			for _, c := range []byte(l) {
				if c > 0x7e || c < 0x20 && c != '\t' {
					t.Fatalf("%q: byte %#x in line %q", s, c, l)
				}
			}
		}
	})
}
