package parsers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestShortTitle(t *testing.T) {
	long := strings.Repeat("é", 70)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  \n\t\n", ""},
		{"fix the flaky test", "fix the flaky test"},
		{"\n\n  first line  \nsecond line", "first line"},
		{"tabs\tand   spaces", "tabs and spaces"},
		{long, strings.Repeat("é", 59) + "…"},
		{strings.Repeat("é", 60), strings.Repeat("é", 60)},
		{strings.Repeat("a", 60) + " ", strings.Repeat("a", 60)},
		{strings.Repeat("a", 60) + " b", strings.Repeat("a", 59) + "…"},
		{"\x1b]52;c;aGk=\x07 title", "\x1b]52;c;aGk=\x07 title"}, // kept exact: a terminal's output neutralises it
	} {
		got := ShortTitle(tc.in)
		if got != tc.want {
			t.Errorf("ShortTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > TitleMax {
			t.Errorf("ShortTitle(%q) has %d characters", tc.in, n)
		}
	}
}
