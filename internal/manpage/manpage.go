// Package manpage writes man(7) pages for a cobra command tree: one page
// per command, from its Use, Short, Long and flags. cobra's own doc
// package renders through a Markdown converter whose package init every
// `logwatch hook` run paid, the largest of the binary's; the pages need
// none of it.
//
// Text is taken as plain text, as --help shows it: a blank line starts a
// paragraph, an indented line is kept as it is laid out (the tables in
// hooks install), everything else is filled.
package manpage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/logwatch/logwatch/internal/termsafe"
)

// Header is what every page's .TH line says beside the page's own name.
type Header struct {
	Section string    // "1"
	Date    time.Time // shown as the month: fixed by the caller for reproducible pages
	Source  string    // the program, "logwatch"
	Manual  string    // "logwatch manual"
}

// Name is a command's page name: its path with dashes (logwatch-hooks-install).
func Name(cmd *cobra.Command) string { return strings.ReplaceAll(cmd.CommandPath(), " ", "-") }

// Write writes cmd's page to w.
func Write(w io.Writer, cmd *cobra.Command, h Header) error {
	var b bytes.Buffer
	page(&b, cmd, h)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("man page %s: %w", Name(cmd), err)
	}
	return nil
}

// Tree writes a page for root and every available command under it into
// dir, named NAME.SECTION, and returns how many it wrote.
func Tree(root *cobra.Command, h Header, dir string) (int, error) {
	n := 0
	for _, c := range pageCommands(root) {
		var b bytes.Buffer
		page(&b, c, h)
		path := filepath.Join(dir, Name(c)+"."+h.Section)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return n, fmt.Errorf("man page: %w", err)
		}
		n++
	}
	return n, nil
}

// pageCommands is root and, depth first, every command under it that has a
// page: not hidden, deprecated, nor cobra's help.
func pageCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range children(root) {
		out = append(out, pageCommands(c)...)
	}
	return out
}

func children(cmd *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() && !c.IsAdditionalHelpTopicCommand() {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *cobra.Command) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

func page(b *bytes.Buffer, cmd *cobra.Command, h Header) {
	cmd.InitDefaultHelpFlag() // -h is in the page as in --help
	name := Name(cmd)
	fmt.Fprintf(b, ".TH %s %s %s %s %s\n", quoted(strings.ToUpper(name)), quoted(h.Section),
		quoted(h.Date.Format("Jan 2006")), quoted(h.Source), quoted(h.Manual))
	// No hyphenation, ragged right: commands, paths and flags stay whole.
	b.WriteString(".nh\n.ad l\n")
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(b, "%s \\- %s\n", option(name), inline(cmd.Short))
	b.WriteString(".SH SYNOPSIS\n")
	// Every hyphen of a synopsis is typed as it is: a minus.
	fmt.Fprintf(b, "\\fB%s\\fR\n", option(cmd.UseLine()))
	b.WriteString(".SH DESCRIPTION\n")
	desc := cmd.Long
	if strings.TrimSpace(desc) == "" {
		desc = cmd.Short
	}
	text(b, desc)
	if f := cmd.NonInheritedFlags(); f.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS\n")
		flags(b, f)
	}
	if f := cmd.InheritedFlags(); f.HasAvailableFlags() {
		b.WriteString(".SH OPTIONS INHERITED FROM PARENT COMMANDS\n")
		flags(b, f)
	}
	var see []string
	if cmd.HasParent() {
		see = append(see, ref(Name(cmd.Parent()), h.Section))
	}
	for _, c := range children(cmd) {
		see = append(see, ref(Name(c), h.Section))
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n" + strings.Join(see, ",\n") + "\n")
	}
}

func ref(name, section string) string { return "\\fB" + option(name) + "\\fR(" + section + ")" }

// flags lists fs as --help does: name, the value's name, the usage and a
// default that is not the type's zero.
func flags(b *bytes.Buffer, fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		b.WriteString(".TP\n")
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", inline(f.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", option(f.Name))
		varname, usage := pflag.UnquoteUsage(f)
		if varname != "" {
			fmt.Fprintf(b, " \\fI%s\\fR", inline(varname))
		}
		b.WriteString("\n")
		if !zeroDefault(f) {
			if f.Value.Type() == "string" {
				usage += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
		}
		b.WriteString(line(usage) + "\n")
	})
}

// zeroDefault is pflag's test for a default --help does not show.
func zeroDefault(f *pflag.Flag) bool {
	if f.Value.Type() == "string" {
		return f.DefValue == ""
	}
	switch f.DefValue {
	case "", "false", "0", "0s", "[]", "<nil>":
		return true
	}
	return false
}

// text writes s as paragraphs: blank lines part them, a run of indented
// lines is kept as laid out (its common indentation taken off), other
// lines are filled.
func text(b *bytes.Buffer, s string) {
	lines := strings.Split(s, "\n")
	blank := func(i int) bool { return strings.TrimSpace(lines[i]) == "" }
	para, gap := false, false // text written; a blank line after it
	for i := 0; i < len(lines); i++ {
		if gap && !blank(i) {
			b.WriteString(".PP\n")
			gap = false
		}
		switch l := lines[i]; {
		case blank(i):
			gap = para
		case l[0] == ' ' || l[0] == '\t':
			// The block runs to the next line of text, blank lines within it kept.
			j, end := i, i
			for ; j < len(lines) && (blank(j) || lines[j][0] == ' ' || lines[j][0] == '\t'); j++ {
				if !blank(j) {
					end = j
				}
			}
			block := lines[i : end+1]
			cut := indent(block)
			b.WriteString(".RS 4\n.nf\n")
			for _, bl := range block {
				bl = strings.TrimRight(bl, " \t\r")
				b.WriteString(line(strings.TrimPrefix(bl, cut)) + "\n")
			}
			b.WriteString(".fi\n.RE\n")
			i, para = end, true
		default:
			b.WriteString(line(strings.TrimRight(l, " \t\r")) + "\n")
			para = true
		}
	}
}

// indent is the leading space the non-blank lines of block share.
func indent(block []string) string {
	var cut string
	first := true
	for _, l := range block {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			cut, first = lead, false
			continue
		}
		for !strings.HasPrefix(lead, cut) {
			cut = cut[:len(cut)-1]
		}
	}
	return cut
}

// line is one input line of text: escaped, and kept from reading as a
// request or macro (a leading . or ').
func line(s string) string {
	s = inline(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		return `\&` + s
	}
	return s
}

// inline escapes s for roff, within a line: a backslash prints as \e,
// a hyphen that starts an option (-h, --dry-run, all its hyphens) as the
// minus \- that can be copied into a shell, anything outside ASCII as its
// code point (groff reads bytes, not UTF-8), and a control character as the
// Go escape termsafe shows. Newlines become spaces.
func inline(s string) string { return escape(s, false) }

// option is inline for a name every hyphen of which is an option's or a
// page's (dry-run, logwatch-run).
func option(s string) string { return escape(s, true) }

func escape(s string, minus bool) string {
	s = strings.ReplaceAll(termsafe.Text(s), "\n", " ")
	var b strings.Builder
	opt := minus // in a word that started as an option
	prev := ' '
	for _, r := range s {
		switch {
		case r == '-' && (opt || !wordRune(prev)):
			b.WriteString(`\-`)
			opt = true
		case r == '\\':
			b.WriteString(`\e`)
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
		if !minus && r != '-' && !wordRune(r) {
			opt = false
		}
		prev = r
	}
	return b.String()
}

func wordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r > 0x7f
}

// quoted is a .TH argument: in double quotes, which it cannot hold.
func quoted(s string) string { return `"` + strings.ReplaceAll(inline(s), `"`, `\(dq`) + `"` }
