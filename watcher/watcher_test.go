package watcher

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestBootstrapThenLive(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	proj := filepath.Join(dir, "claude", "-home-u-proj")
	mkdir(t, proj)
	path := filepath.Join(proj, "11111111-2222-3333-4444-555555555555.jsonl")
	appendFile(t, path, claudeLine("a", 0)+claudeLine("b", 0))

	r := start(t, cfg, testLogger(t))
	r.ready()
	r.waitFor("bootstrap", func(recs []Record) bool { return len(lineIDs(recs, path)) == 2 })
	appendFile(t, path, claudeLine("c", 0))
	recs := r.waitFor("live line", func(recs []Record) bool { return len(lineIDs(recs, path)) == 3 })
	if got := lineIDs(recs, path); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("ids = %v", got)
	}
	for _, rec := range recs {
		if rec.Session != "11111111-2222-3333-4444-555555555555" || rec.Agent != "claude" {
			t.Fatalf("record %+v", rec)
		}
		if want := rec.Evidence.At != "c"; rec.Bootstrap != want {
			t.Errorf("line %s: bootstrap = %v", rec.Evidence.At, rec.Bootstrap)
		}
	}
	if recs[2].Line != 3 || recs[2].Offset != recs[1].End {
		t.Errorf("third record: line %d offset %d, previous end %d", recs[2].Line, recs[2].Offset, recs[1].End)
	}
}
