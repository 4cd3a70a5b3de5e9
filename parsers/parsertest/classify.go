package parsertest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// Classify loads every real sample line under root (a realworld/<agent>
// folder) and splits them, by scanOnly, into the lines the scan alone
// classifies and those that need a parse. scanOnly is called once per file
// with a fresh predicate, so it may keep per-file state.
func Classify(b *testing.B, root string, scanOnly func() func(line []byte) bool) (scanned, parsed [][]byte) {
	b.Helper()
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no samples at %s", root)
	}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		only := scanOnly()
		for _, l := range bytes.Split(raw, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			if only(l) {
				scanned = append(scanned, l)
			} else {
				parsed = append(parsed, l)
			}
		}
		return nil
	})
	return scanned, parsed
}

// BenchClassify is the per-line cost of Parse on the scan-only and the
// parsed lines, with allocations per line.
func BenchClassify(b *testing.B, agent parsers.Agent, newParser func() parsers.Parser, scanned, parsed [][]byte) {
	for _, set := range []struct {
		name  string
		lines [][]byte
	}{{"scan-only", scanned}, {"parsed", parsed}} {
		b.Run(string(agent)+"/"+set.name, func(b *testing.B) {
			p := newParser()
			b.SetBytes(lineBytes(set.lines))
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range set.lines {
					p.Parse(l)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set.lines)), "ns/line")
			b.ReportMetric(float64(len(set.lines)), "lines")
		})
	}
}

// BenchScanHead is the validating head scan alone (scan, as the agent's
// Preparer runs it) over lines, in MB/s.
func BenchScanHead(b *testing.B, agent parsers.Agent, lines [][]byte, scan func(line []byte, s *parsers.Scanned)) {
	b.Run(string(agent), func(b *testing.B) {
		b.SetBytes(lineBytes(lines))
		var s parsers.Scanned
		for b.Loop() {
			for _, l := range lines {
				scan(l, &s)
			}
		}
	})
}

// lineBytes is lines' size on disk, newlines counted.
func lineBytes(lines [][]byte) int64 {
	var n int64
	for _, l := range lines {
		n += int64(len(l) + 1)
	}
	return n
}
