package jsonc

import (
	"strings"
	"testing"
)

func TestParseJSONCRefuses(t *testing.T) {
	for src, want := range map[string]string{
		`{"a": 1,}`:                      "line 1, column 9: trailing comma",
		"{\n  \"a\": [1, 2,]\n}":         "line 2, column 14: trailing comma",
		`{"a": "x}`:                      "unterminated string",
		`{"a" 1}`:                        `expected ':' after key "a"`,
		`{"a": 1} {}`:                    "after the end of the document",
		"{/* open comment":               "unterminated /* comment",
		`{"a": tru}`:                     "invalid literal",
		"{\n  \"permissions\": {\n  }\n": "unexpected end of file",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", src, err, want)
		}
	}
	// Comments and a BOM are fine.
	if _, err := Parse([]byte("\xef\xbb\xbf// c\n{\"a\": /* x */ 1 // y\n}\n")); err != nil {
		t.Errorf("JSONC refused: %v", err)
	}
}
