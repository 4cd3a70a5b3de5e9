// Package termsafe makes text from files and payloads safe to print to a
// terminal. Session ids, paths, commands and reasons come from data anyone
// can write; a terminal obeys the escape sequences in them (OSC 52 writes
// the clipboard, OSC 0 retitles the window, CSI 2J clears the screen) and
// reorders text around bidi controls. Line and Text show each such
// character as a Go escape (\x1b, \n, \u202e), never drop it: what was
// there stays visible, and nothing in it acts.
package termsafe

import (
	"io"
	"strings"
	"unicode/utf8"
)

// MaxGrowth bounds the output: at most this many bytes per input byte (an
// ESC or a stray byte becomes \xHH).
const MaxGrowth = 4

// Line is s as one line of printable text: every control character (C0,
// DEL, C1), bidi control, line or paragraph separator and byte that is not
// UTF-8 is written as a Go escape, newline and tab included. The result is
// valid UTF-8, holds no control character, and Line(Line(s)) == Line(s).
// The escaped form is what a view must measure: one rune per column.
func Line(s string) string { return escape(s, false) }

// Text is Line for a message of several lines: newlines and tabs are kept,
// everything else Line escapes is escaped.
func Text(s string) string { return escape(s, true) }

func escape(s string, multiline bool) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7f) && !(multiline && (c == '\n' || c == '\t')) {
			break
		}
	}
	if i == len(s) {
		return s // plain ASCII: the common case, no copy
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(s[i]), 2)
		case multiline && (r == '\n' || r == '\t'):
			b.WriteByte(byte(r))
		case r < 0x20 || r == 0x7f:
			if e := named[r]; e != "" {
				b.WriteString(e)
			} else {
				writeHex(&b, `\x`, uint32(r), 2)
			}
		case unsafeRune(r):
			writeHex(&b, `\u`, uint32(r), 4)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// named are the C0 controls with a short Go escape.
var named = map[rune]string{'\a': `\a`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`}

// unsafeRune reports the non-ASCII runes a terminal obeys or that make text
// read as something else: C1 controls (0x9b is CSI, 0x9d OSC), bidi
// embeddings, overrides, isolates and marks, and the line and paragraph
// separators.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[v>>shift&0xf])
	}
}

// Writer passes every Write through Text, for a printer that writes whole
// lines (fmt.Fprintf does): a character split across two Writes is shown
// as its bytes.
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Text(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// JSON wraps w, which receives encoded JSON (whole values per Write, as
// json.Encoder writes them), so that the runes Line escapes and
// encoding/json leaves raw (C1 controls, bidi controls) are written as
// \u escapes: the decoded strings are exactly the same, and a terminal
// that shows the JSON acts on none of them. encoding/json already escapes
// the C0 controls, and outside strings its output is ASCII.
func JSON(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	i := 0
	for ; i < len(p) && p[i] < utf8.RuneSelf; i++ {
	}
	if i == len(p) {
		return j.w.Write(p) // ASCII: the common case
	}
	var b strings.Builder
	b.Grow(len(p) + 16)
	b.Write(p[:i])
	for i < len(p) {
		r, size := utf8.DecodeRune(p[i:])
		if unsafeRune(r) {
			writeHex(&b, `\u`, uint32(r), 4)
		} else {
			b.Write(p[i : i+size])
		}
		i += size
	}
	if _, err := io.WriteString(j.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
