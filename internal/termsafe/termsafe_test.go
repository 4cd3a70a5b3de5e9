package termsafe

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	for _, tc := range []struct {
		name, in, line, text string
	}{
		{"plain", "git commit -m 'fix'", "git commit -m 'fix'", "git commit -m 'fix'"},
		{"empty", "", "", ""},
		{"unicode kept", "café ✓ 日本 ●", "café ✓ 日本 ●", "café ✓ 日本 ●"},
		{"OSC 52 clipboard", "echo \x1b]52;c;aGk=\x07", `echo \x1b]52;c;aGk=\a`, `echo \x1b]52;c;aGk=\a`},
		{"OSC 0 title, ST end", "\x1b]0;owned\x1b\\", `\x1b]0;owned\x1b\`, `\x1b]0;owned\x1b\`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"newline and tab", "a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"CR overwrites", "safe\rrm -rf /", `safe\rrm -rf /`, `safe\rrm -rf /`},
		{"backspace, DEL, NUL", "a\bb\x7fc\x00", `a\bb\x7fc\x00`, `a\bb\x7fc\x00`},
		{"other C0", "\x01\x1f\v\f", `\x01\x1f\v\f`, `\x01\x1f\v\f`},
		{"C1 as UTF-8", "\u009b2J \u009d0;t\u009c \u0085", `\u009b2J \u009d0;t\u009c \u0085`, `\u009b2J \u009d0;t\u009c \u0085`},
		{"8-bit CSI and OSC bytes", "\x9b2J\x9d0;t", `\x9b2J\x9d0;t`, `\x9b2J\x9d0;t`},
		{"invalid UTF-8", "a\xffb\xe2\x80", `a\xffb\xe2\x80`, `a\xffb\xe2\x80`},
		{"bidi override", "ls \u202etxt.exe", `ls \u202etxt.exe`, `ls \u202etxt.exe`},
		{"bidi isolates and marks", "\u2066\u2067\u2068\u2069\u202a\u200e\u200f\u061c", `\u2066\u2067\u2068\u2069\u202a\u200e\u200f\u061c`, `\u2066\u2067\u2068\u2069\u202a\u200e\u200f\u061c`},
		{"line separators", "a\u2028b\u2029", `a\u2028b\u2029`, `a\u2028b\u2029`},
		{"backslash kept", `C:\x1b\path`, `C:\x1b\path`, `C:\x1b\path`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := Writer{W: &b}
	in := []byte("file \x1b]0;x\x07.jsonl\n\tok\n")
	n, err := w.Write(in)
	if err != nil || n != len(in) {
		t.Fatalf("Write: %d %v", n, err)
	}
	if got, want := b.String(), "file \\x1b]0;x\\a.jsonl\n\tok\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestPlainNoCopy: text with nothing to escape is returned as is.
func TestPlainNoCopy(t *testing.T) {
	s := strings.Repeat("plain ascii ", 100)
	if n := testing.AllocsPerRun(100, func() { Line(s); Text(s + "\n") }); n > 1 {
		t.Fatalf("%v allocations for plain text", n)
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("echo \x1b]52;c;aGk=\x07")
	f.Add("\u009b2J\x9b\xff\u202e\n\t")
	f.Fuzz(func(t *testing.T, s string) {
		for _, tc := range []struct {
			name      string
			fn        func(string) string
			multiline bool
		}{{"Line", Line, false}, {"Text", Text, true}} {
			out := tc.fn(s)
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not UTF-8", tc.name, s, out)
			}
			for _, r := range out {
				if (r < 0x20 || r == 0x7f) && !(tc.multiline && (r == '\n' || r == '\t')) || unsafeRune(r) {
					t.Fatalf("%s(%q) = %q holds %U", tc.name, s, out, r)
				}
			}
			if len(out) > MaxGrowth*len(s) {
				t.Fatalf("%s(%q): %d bytes out of %d", tc.name, s, len(out), len(s))
			}
			if again := tc.fn(out); again != out {
				t.Fatalf("%s is not idempotent on %q: %q then %q", tc.name, s, out, again)
			}
		}
		if Line(Text(s)) != Line(s) {
			t.Fatalf("Line(Text(%q)) = %q, Line = %q", s, Line(Text(s)), Line(s))
		}
		// Nothing is dropped: text without anything to escape is unchanged.
		if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || unsafeRune(r) }) &&
			utf8.ValidString(s) && Line(s) != s {
			t.Fatalf("Line changed safe text %q to %q", s, Line(s))
		}
	})
}

// JSON output keeps the exact strings but sends no C1 or bidi control raw.
func TestJSON(t *testing.T) {
	in := map[string]string{"cmd": "a\u009b2Jb\u202ec\u2028d é 日本 \x1b]52;c;x\x07"}
	var out bytes.Buffer
	if err := json.NewEncoder(JSON(&out)).Encode(in); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.String() {
		if unsafeRune(r) || r < 0x20 && r != '\n' {
			t.Fatalf("raw %U in %q", r, out.String())
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back["cmd"] != in["cmd"] {
		t.Fatalf("decoded %q (%v), want %q", back["cmd"], err, in["cmd"])
	}
}
