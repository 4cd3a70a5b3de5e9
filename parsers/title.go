package parsers

import (
	"strings"
	"unicode"
)

// TitleMax is how many characters a session's title keeps: enough to tell
// sessions apart beside a status dot, short enough for an 80-column row
// and a notification's first line.
const TitleMax = 60

// ShortTitle is s as a session's title: its first line that is not blank,
// with spaces trimmed and runs of white space made one space, cut to
// TitleMax characters on a character boundary with an ellipsis. Control
// characters stay (a terminal's output neutralises them, JSON keeps them
// exact); invalid UTF-8 counts a byte as a character.
func ShortTitle(s string) string {
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if line = strings.TrimSpace(line); line != "" {
			return cutTitle(line)
		}
	}
	return ""
}

// cutTitle makes each run of white space in line one space and keeps
// TitleMax characters, the last an ellipsis when line has more. It stops
// reading once it knows.
func cutTitle(line string) string {
	out := make([]rune, 0, TitleMax+1)
	space := false
	for _, r := range line {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) > TitleMax {
			out = append(out[:TitleMax-1], '…')
			break
		}
	}
	return string(out)
}
