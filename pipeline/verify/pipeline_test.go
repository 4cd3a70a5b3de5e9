package verify

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestPipelineMatchesSequential verifies every sample and held-out case, and
// one file that concatenates them all, with the line scans spread over
// goroutines (as for a long file) and line by line, and requires the same
// report. Small batches make the pipeline cycle its batches many times.
func TestPipelineMatchesSequential(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	paths := []string{realworld, "../../testdata/verify"}
	files, _ := Collect(paths)
	if len(files) == 0 {
		t.Skip("no samples")
	}
	all := filepath.Join(t.TempDir(), "all.jsonl")
	out, err := os.Create(all)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			out.Write([]byte("\n"))
		}
	}
	out.Close()
	files = append(files, all)

	run := func(min int64, batch int) []File {
		defer func(m int64, b int) { pipelineMin, batchBytes = m, b }(pipelineMin, batchBytes)
		pipelineMin, batchBytes = min, batch
		rep, _ := Run(files, Options{MaxLineBytes: 1 << 20})
		return rep.Files
	}
	seq := run(1<<62, batchBytes)
	par := run(0, 4<<10)
	for i := range seq {
		if !reflect.DeepEqual(seq[i], par[i]) {
			t.Errorf("%s: pipeline %+v\nline by line %+v", seq[i].Path, par[i], seq[i])
		}
	}
}
