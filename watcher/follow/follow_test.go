package follow

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The conformance suite every Follower the watcher may use must pass.
var impls = map[string]func(max int) Opener{
	"Reader": func(max int) Opener { return NewReaders(max) },
}

type step struct {
	write string   // appended before reading
	want  []string // lines Next returns until io.EOF
	over  int      // Oversized after the step
	off   int64    // Offset after the step
}

func TestConformance(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name  string
		max   int
		start int64 // open at this offset (line number = lines before it)
		num   int
		init  string
		steps []step
	}{
		{name: "complete lines only", max: 64, steps: []step{
			{write: "a\nb\nc", want: []string{"a", "b"}, off: 4},
			{write: "", want: nil, off: 4},
			{write: "d\n", want: []string{"cd"}, off: 7},
		}},
		{name: "partial line in many writes", max: 64, steps: []step{
			{write: `{"k":`, off: 0},
			{write: `"v"`, off: 0},
			{write: "}\r\n", want: []string{`{"k":"v"}`}, off: 11},
		}},
		{name: "oversized skipped and counted", max: 10, steps: []step{
			{write: "ok\n" + long, want: []string{"ok"}, off: 3},
			{write: long + "\nafter\n", want: []string{"after"}, over: 1, off: 3 + 201 + 6},
			{write: strings.Repeat("y", 11) + "\n" + strings.Repeat("z", 10) + "\n", want: []string{strings.Repeat("z", 10)}, over: 2, off: 210 + 12 + 11},
		}},
		{name: "resume at an offset", max: 64, init: "one\ntwo\n", start: 4, num: 1, steps: []step{
			{write: "three\n", want: []string{"two", "three"}, off: 14},
		}},
	}
	for name, open := range impls {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "f.jsonl")
				if err := os.WriteFile(path, []byte(c.init), 0o644); err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				fol, err := open(c.max).Open(f, c.start, c.num)
				if err != nil {
					t.Fatal(err)
				}
				defer fol.Close()
				num := c.num
				for i, s := range c.steps {
					w, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					w.WriteString(s.write)
					w.Close()
					var got []string
					for {
						l, err := fol.Next()
						if errors.Is(err, io.EOF) {
							break
						}
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, string(l.Bytes))
						if l.Num <= num || l.End > fol.Offset() && fol.Offset() != l.End {
							t.Errorf("step %d: line %q num %d end %d offset %d", i, l.Bytes, l.Num, l.End, fol.Offset())
						}
						num = l.Num
					}
					if strings.Join(got, "|") != strings.Join(s.want, "|") || fol.Oversized() != s.over || fol.Offset() != s.off {
						t.Fatalf("step %d: got %q oversized %d offset %d; want %q %d %d",
							i, got, fol.Oversized(), fol.Offset(), s.want, s.over, s.off)
					}
				}
			})
		}
	}
}
