package statusview

import (
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
)

// ANSI colours the commands' output uses.
const (
	Green = "\x1b[32m"
	Amber = "\x1b[33m"
	Red   = "\x1b[31m"
	Dim   = "\x1b[2m"
)

// ColorOn says whether output to w is coloured: w is a terminal, NO_COLOR
// is not set and TERM is not dumb. Piped output never is.
func ColorOn(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd()) && ColorAllowed()
}

// ColorAllowed is the environment's half of ColorOn (NO_COLOR, TERM=dumb).
func ColorAllowed() bool {
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// Paint wraps s in the colour code when on.
func Paint(on bool, code, s string) string {
	if !on || code == "" {
		return s
	}
	return code + s + ansiReset
}

// StateColor is the colour a state is shown in.
func StateColor(state string) string { return stateColor[state] }

// Wrap breaks s at spaces into lines of at most width runes; a word longer
// than width (a path) has a line of its own.
func Wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}
