package lines_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/lines"
)

// benchMixed writes a ~32 MiB JSONL file of mixed line sizes: nine 1.5 KB
// lines, then one 32 KB line, repeated. It returns the path and its bytes.
func benchMixed(b *testing.B) (string, []byte) {
	b.Helper()
	line := func(n int) string {
		// A JSON object of exactly n bytes (without the newline).
		head := `{"type":"assistant","message":{"content":"`
		tail := `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	small, large := line(1536), line(32<<10)
	var buf bytes.Buffer
	for buf.Len() < 32<<20 {
		for i := 0; i < 9; i++ {
			buf.WriteString(small)
			buf.WriteByte('\n')
		}
		buf.WriteString(large)
		buf.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path, buf.Bytes()
}

func benchDrain(b *testing.B, rd *lines.Reader) int {
	n := 0
	for {
		_, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkReader reads the mixed file through lines.Reader: from the file
// (page cache, as verify does) and from memory (the reader alone), with
// bufio.Scanner and bytes.Count ('\n', what wc -l does) as floors.
func BenchmarkReader(b *testing.B) {
	path, data := benchMixed(b)
	want := bytes.Count(data, []byte{'\n'})

	b.Run("file", func(b *testing.B) {
		rd := lines.New(nil, 0, 0, 0)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			fh, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			rd.Reset(fh, 0, 0)
			if n := benchDrain(b, rd); n != want {
				b.Fatalf("%d lines, want %d", n, want)
			}
			fh.Close()
		}
	})
	b.Run("memory", func(b *testing.B) {
		rd := lines.New(nil, 0, 0, 0)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rd.Reset(bytes.NewReader(data), 0, 0)
			if n := benchDrain(b, rd); n != want {
				b.Fatalf("%d lines, want %d", n, want)
			}
		}
	})
	b.Run("floor-bufio.Scanner", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 256<<10), 32<<20)
			n := 0
			for sc.Scan() {
				n++
			}
			if n != want {
				b.Fatalf("%d lines, want %d", n, want)
			}
		}
	})
	b.Run("floor-bytes.Count", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if n := bytes.Count(data, []byte{'\n'}); n != want {
				b.Fatalf("%d lines, want %d", n, want)
			}
		}
	})
}
