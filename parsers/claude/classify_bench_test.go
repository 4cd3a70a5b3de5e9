package claude

import (
	"path/filepath"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// classifyLines splits the real samples into the lines Claude's scan
// alone classifies and those it parses (user, assistant and system lines
// have their evidence in their content).
func classifyLines(b *testing.B) (scanned, parsed [][]byte) {
	return parsertest.Classify(b, filepath.Join("../../../shared/realworld", string(Name)), func() func([]byte) bool {
		return func(l []byte) bool {
			var s parsers.Scanned
			scan(l, &s)
			return s.OK && s.H.Exact && !claudeContent(s.H.Typ)
		}
	})
}

// BenchmarkClassify is the per-line cost of Parse on the real samples,
// split into the lines whose type alone is their evidence (the scan path:
// attachments, API blobs…) and the lines parsed whole, with allocations
// per line.
func BenchmarkClassify(b *testing.B) {
	scanned, parsed := classifyLines(b)
	parsertest.BenchClassify(b, Name, func() parsers.Parser { return NewClaude() }, scanned, parsed)
}

// BenchmarkScanHead is the validating head scan alone over every real
// sample line (as verify's Preparers run it), in MB/s.
func BenchmarkScanHead(b *testing.B) {
	scanned, parsed := classifyLines(b)
	parsertest.BenchScanHead(b, Name, append(scanned, parsed...), scan)
}

// claudeContent reports the line types whose evidence is in their content.
func claudeContent(t []byte) bool {
	switch string(t) {
	case "user", "assistant", "system":
		return true
	}
	return false
}
