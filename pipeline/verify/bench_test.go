package verify_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/pipeline/verify"
)

// benchRealworld is where the real sample logs live, relative to this
// package's directory (/work/main/pipeline/verify → /work/shared/realworld).
const benchRealworld = "../../../shared/realworld"

// BenchmarkVerifyRealworld runs verify over every real Claude and Codex sample
// (subagent files included), with the default worker count and with one
// worker (the per-core rate), and reports MB/s of log bytes.
func BenchmarkVerifyRealworld(b *testing.B) {
	var paths []string
	var total int64
	for _, agent := range []string{"claude", "codex"} {
		root := filepath.Join(benchRealworld, agent)
		if _, err := os.Stat(root); err != nil {
			b.Skipf("no real samples at %s: %v", root, err)
		}
		paths = append(paths, root)
		total += jsonlBytes(b, root)
	}
	for _, bc := range []struct {
		name    string
		workers int
	}{{"workers=default", 0}, {"workers=1", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				rep, err := verify.Run(paths, verify.Options{Workers: bc.workers})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Totals.Bytes != total {
					b.Fatalf("verified %d bytes, want %d", rep.Totals.Bytes, total)
				}
			}
		})
	}
}

// BenchmarkVerifyCorpus runs verify over a directory named by
// LOGWATCH_BENCH_CORPUS (bench/verify.sh builds one in bench/out/corpus), for
// profiling at the scale bench/run measures. Skipped when the variable is unset.
func BenchmarkVerifyCorpus(b *testing.B) {
	dir := os.Getenv("LOGWATCH_BENCH_CORPUS")
	if dir == "" {
		b.Skip("LOGWATCH_BENCH_CORPUS not set")
	}
	total := jsonlBytes(b, dir)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := verify.Run([]string{dir}, verify.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyOneFile runs verify over one file of every real sample
// concatenated to 64 MiB, as `bench/run bigfile` does at 384 MiB: one file
// read through the pipeline (Claude's parser reads the Codex lines too).
func BenchmarkVerifyOneFile(b *testing.B) {
	var unit []byte
	for _, agent := range []string{"claude", "codex"} {
		root := filepath.Join(benchRealworld, agent)
		if _, err := os.Stat(root); err != nil {
			b.Skipf("no real samples at %s: %v", root, err)
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			raw, err := os.ReadFile(path)
			if len(raw) > 0 && raw[len(raw)-1] != '\n' {
				raw = append(raw, '\n')
			}
			unit = append(unit, raw...)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	var all []byte
	for len(all) < 64<<20 {
		all = append(all, unit...)
	}
	path := filepath.Join(b.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, all, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := verify.Run([]string{path}, verify.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Totals.Bytes != int64(len(all)) {
			b.Fatalf("verified %d bytes, want %d", rep.Totals.Bytes, len(all))
		}
	}
}

// jsonlBytes is the size of the logs (*.jsonl) under root, what verify
// reads there.
func jsonlBytes(b *testing.B, root string) int64 {
	b.Helper()
	var total int64
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return total
}
