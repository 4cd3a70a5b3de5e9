package codex

import (
	"path/filepath"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// classifyLines splits the real samples into the lines Codex's scan alone
// classifies and those it parses.
func classifyLines(b *testing.B) (scanned, parsed [][]byte) {
	return parsertest.Classify(b, filepath.Join("../../../shared/realworld", string(Name)), func() func([]byte) bool {
		c := &Codex{metaSeen: true}
		return func(l []byte) bool {
			var s parsers.Scanned
			parsers.ScanLine(l, &s, nil)
			if !s.OK || !s.H.Exact {
				return false
			}
			_, only := c.classify(&s.H)
			return only
		}
	})
}

// BenchmarkClassify is the per-line cost of Parse on the real samples,
// split into the lines whose type alone is their evidence (the scan path:
// token counts, tool output…) and the lines parsed whole, with allocations
// per line.
func BenchmarkClassify(b *testing.B) {
	scanned, parsed := classifyLines(b)
	parsertest.BenchClassify(b, Name, func() parsers.Parser { return NewCodex() }, scanned, parsed)
}

// BenchmarkScanHead is the validating head scan alone over every real
// sample line (as verify's Preparers run it), in MB/s.
func BenchmarkScanHead(b *testing.B) {
	scanned, parsed := classifyLines(b)
	parsertest.BenchScanHead(b, Name, append(scanned, parsed...), func(l []byte, s *parsers.Scanned) { parsers.ScanLine(l, s, nil) })
}
