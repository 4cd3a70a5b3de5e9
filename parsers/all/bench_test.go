package all_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
	"github.com/logwatch/logwatch/parsers/pi"
)

// benchRealworld is where the real sample logs live, relative to this
// package's directory (/work/main/parsers/all → /work/shared/realworld).
const benchRealworld = "../../../shared/realworld"

// benchFile is one sample log, split into lines (without newlines).
type benchFile struct {
	path  string
	lines [][]byte
}

// benchLoad reads every *.jsonl under realworld/<agent> (subagent files
// included) and returns the files and their total line bytes (newlines
// counted, as on disk). It skips the benchmark when the samples are absent.
func benchLoad(b *testing.B, agent string) ([]benchFile, int64) {
	b.Helper()
	return benchLoadDir(b, filepath.Join(benchRealworld, agent))
}

func benchLoadDir(b *testing.B, root string) ([]benchFile, int64) {
	b.Helper()
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no real samples at %s: %v", root, err)
	}
	var files []benchFile
	var total int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f := benchFile{path: path}
		sc := bufio.NewScanner(bytes.NewReader(raw))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			f.lines = append(f.lines, bytes.Clone(sc.Bytes()))
			total += int64(len(sc.Bytes()) + 1)
		}
		if err := sc.Err(); err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Skipf("no *.jsonl under %s", root)
	}
	return files, total
}

// benchParse feeds every sample file, in file order, to the parser and
// reports MB/s of line bytes. "new-per-file" makes a fresh parser for each
// file, as verify does today; "reused" keeps one parser for every file, the
// cost without re-growing fastjson's scratch space per file (for Codex it
// also carries per-file state across files, which only makes it do less).
func benchParse(b *testing.B, agent string, newParser func() parsers.Parser) {
	benchParseDir(b, filepath.Join(benchRealworld, agent), newParser)
}

func benchParseDir(b *testing.B, root string, newParser func() parsers.Parser) {
	files, total := benchLoadDir(b, root)
	for _, reuse := range []bool{false, true} {
		name := "new-per-file"
		if reuse {
			name = "reused"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			p := newParser()
			for b.Loop() {
				for _, f := range files {
					if !reuse {
						p = newParser()
					}
					for _, l := range f.lines {
						if _, err := p.Parse(l); err != nil {
							b.Fatalf("%s: %v", f.path, err)
						}
					}
				}
			}
		})
	}
}

func BenchmarkClaudeParse(b *testing.B) {
	benchParse(b, "claude", func() parsers.Parser { return claude.NewClaude() })
}

// BenchmarkPiParse is pi's parser over the real pi's files the live suite
// captured (parsers/pi/testdata/captures): its MB/s within 1.5× of
// BenchmarkClaudeParse's in the same run is issue 25's bound.
func BenchmarkPiParse(b *testing.B) {
	benchParseDir(b, filepath.Join("..", "pi", "testdata", "captures"), func() parsers.Parser { return pi.NewParser() })
}

func BenchmarkCodexParse(b *testing.B) {
	benchParse(b, "codex", func() parsers.Parser { return codex.NewCodex() })
}

// BenchmarkFastjsonFloor is the cost of fastjson's full parse of the same
// lines with nothing else: the floor for a parser built on a whole-document
// parse. The gap between it and Benchmark*Parse is the parsers' own work.
func BenchmarkFastjsonFloor(b *testing.B) {
	for _, agent := range []string{"claude", "codex"} {
		b.Run(agent, func(b *testing.B) {
			files, total := benchLoad(b, agent)
			var p fastjson.Parser
			b.SetBytes(total)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for _, f := range files {
					for _, l := range f.lines {
						if _, err := p.ParseBytes(l); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
	}
}

// BenchmarkDetect is the agent detector over each file's first lines, as
// verify runs it before the parser.
func BenchmarkDetect(b *testing.B) {
	var files []benchFile
	var total int64
	for _, agent := range []string{"claude", "codex"} {
		f, _ := benchLoad(b, agent)
		files = append(files, f...)
	}
	for _, f := range files {
		for _, l := range f.lines[:min(len(f.lines), 64)] {
			total += int64(len(l) + 1)
		}
	}
	b.SetBytes(total)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			var d parsers.Detector
			for _, l := range f.lines[:min(len(f.lines), 64)] {
				if d.Line(l) != parsers.AgentUnknown {
					break
				}
			}
		}
	}
}
