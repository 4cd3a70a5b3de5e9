package parsertest

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// CaptureLines reads testdata/captures/<name>.jsonl, the rows or lines a
// real agent wrote in a live scenario, one slice per line (at most 16 MiB
// each).
func CaptureLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "captures", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// Titles reads the log at path with p and returns the titles and the
// prompts' titles its lines give (Evidence.Title, Evidence.Prompt), in
// file order.
func Titles(t *testing.T, p parsers.Parser, path string) (titles, prompts []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		ev, err := p.Parse(sc.Bytes())
		if err != nil {
			continue
		}
		if ev.Title != "" {
			titles = append(titles, ev.Title)
		}
		if ev.Prompt != "" {
			prompts = append(prompts, ev.Prompt)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return titles, prompts
}

// Captures checks every capture in want (name → one description per line)
// with a new parser each: no line fails or is unknown, describe gives each
// line's description in order, no line more or fewer, and the scan path
// parses each line as the full parse does (Same).
func Captures(t *testing.T, newParser func() parsers.Parser, describe func(parsers.Evidence) string, want map[string][]string) {
	t.Helper()
	for name, lines := range want {
		t.Run(name, func(t *testing.T) {
			p := newParser()
			raw := CaptureLines(t, name)
			for i, line := range raw {
				ev, err := p.Parse(line)
				if err != nil || ev.Unknown {
					t.Fatalf("line %d: %v, unknown %v", i+1, err, ev.Unknown)
				}
				if i >= len(lines) {
					t.Fatalf("line %d not expected: %s", i+1, describe(ev))
				}
				if got := describe(ev); got != lines[i] {
					t.Errorf("line %d: %s, want %s", i+1, got, lines[i])
				}
			}
			if len(raw) != len(lines) {
				t.Errorf("%d lines, want %d", len(raw), len(lines))
			}
			Same(t, newParser, name, raw)
		})
	}
}
