package codex

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// classifyLines loads every real sample line of agent and splits them into
// the lines the scan alone classifies and those that need a parse.
func classifyLines(b *testing.B) (scanned, parsed [][]byte) {
	b.Helper()
	root := filepath.Join("../../../shared/realworld", string(Name))
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
		c := &Codex{metaSeen: true}
		for _, l := range bytes.Split(raw, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			var s parsers.Scanned
			parsers.ScanLine(l, &s, nil)
			only := s.OK && s.H.Exact
			if only {
				_, only = c.classify(&s.H)
			}
			if only {
				scanned = append(scanned, l)
			} else {
				parsed = append(parsed, l)
			}
		}
		return nil
	})
	return scanned, parsed
}

// BenchmarkClassify is the per-line cost of Parse on the real samples,
// split into the lines whose type alone is their evidence (the scan path:
// tool results, attachments, API blobs, token counts…) and the lines parsed
// whole, with allocations per line (run with -benchmem).
func BenchmarkClassify(b *testing.B) {
	{
		agent := Name
		scanned, parsed := classifyLines(b)
		for _, set := range []struct {
			name  string
			lines [][]byte
		}{{"scan-only", scanned}, {"parsed", parsed}} {
			b.Run(string(agent)+"/"+set.name, func(b *testing.B) {
				var n int64
				for _, l := range set.lines {
					n += int64(len(l) + 1)
				}
				p := NewCodex()
				b.SetBytes(n)
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
}

// BenchmarkScanHead is the validating head scan alone over every real
// sample line of each agent (as verify's Preparers run it), in MB/s.
func BenchmarkScanHead(b *testing.B) {
	{
		agent := Name
		scanned, parsed := classifyLines(b)
		all := append(scanned, parsed...)
		b.Run(string(agent), func(b *testing.B) {
			var n int64
			for _, l := range all {
				n += int64(len(l) + 1)
			}
			b.SetBytes(n)
			var s parsers.Scanned
			for b.Loop() {
				for _, l := range all {
					parsers.ScanLine(l, &s, nil)
				}
			}
		})
	}
}
