package watcher

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// TestFileIndex: files are found through their directory's sorted list,
// a dropped directory's files stay findable (and are the same files when
// it comes back) until they are forgotten, and a file followed before its
// directory was known moves into the directory's list, keeping its path.
// The Run loop is not started: no reader runs, each step is the loop's.
// An idle file's session id and its records' Path share its path's bytes.
func TestFileIndex(t *testing.T) {
	tmp := t.TempDir()
	proj := filepath.Join(tmp, "claude", "-p")
	mkdir(t, proj)
	mkdir(t, filepath.Join(tmp, "codex"))
	names := []string{sessA + ".jsonl", "00000000-0000-4000-8000-000000000002.jsonl", "00000000-0000-4000-8000-000000000001.jsonl"}
	for _, n := range names {
		appendFile(t, filepath.Join(proj, n), claudeLine("a", 0))
	}
	w, err := New(testConfig(tmp), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	w.starting = true // found files are queued, not read
	w.checkRoots()
	w.starting = false

	find := func(p string) *file {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.lookup(p)
	}
	files := func() int {
		w.mu.Lock()
		defer w.mu.Unlock()
		n := 0
		w.eachFile(func(*file) { n++ })
		if n != w.nfiles {
			t.Fatalf("%d files listed, %d counted", n, w.nfiles)
		}
		return n
	}
	dirOf := func(f *file) *dir {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.dirOf(f)
	}
	d := w.dirs[proj]
	if d == nil || len(d.files) != 3 || files() != 3 {
		t.Fatalf("dir %v, %d files", d, files())
	}
	for i := 1; i < len(d.files); i++ {
		if d.files[i-1].base() >= d.files[i].base() {
			t.Fatalf("files not sorted: %q before %q", d.files[i-1].path, d.files[i].path)
		}
	}
	pa := filepath.Join(proj, sessA+".jsonl")
	fa := find(pa)
	if fa == nil || fa.path != pa || fa.base() != sessA+".jsonl" {
		t.Fatalf("lookup %s: %+v", pa, fa)
	}
	if find(filepath.Join(proj, "other.jsonl")) != nil || find(filepath.Join(tmp, "claude", "-x", sessA+".jsonl")) != nil {
		t.Fatal("found a file that is not there")
	}
	// The session id is the path's own bytes: the relay's copies of both
	// share them.
	r := w.newReader(fa)
	if r.session != sessA || unsafe.StringData(r.session) != unsafe.StringData(fa.base()) {
		t.Fatalf("session %q does not share the path's bytes", r.session)
	}
	if rec := r.record(KindLine); unsafe.StringData(rec.Path) != unsafe.StringData(fa.path) || rec.Session != sessA {
		t.Fatalf("record %+v does not share the file's path", rec)
	}

	// Renamed away: dropped, its files listed until their readers forget them.
	away := filepath.Join(tmp, "away")
	if err := os.Rename(proj, away); err != nil {
		t.Fatal(err)
	}
	w.dropDir(d)
	if w.dirs[proj] != nil || w.dropped[proj] != d || !d.dropped || find(pa) != fa || dirOf(fa) != d || files() != 3 {
		t.Fatalf("after drop: dirs %v, dropped %v, lookup %v", w.dirs[proj], w.dropped[proj], find(pa))
	}
	// Back before they were forgotten: the same dir and files.
	if err := os.Rename(away, proj); err != nil {
		t.Fatal(err)
	}
	w.addDir(proj, d.root, 1)
	if w.dirs[proj] != d || d.dropped || len(w.dropped) != 0 || find(pa) != fa || files() != 3 {
		t.Fatalf("after return: dir %p (was %p), %d dropped, lookup %v, %d files", w.dirs[proj], d, len(w.dropped), find(pa), files())
	}
	// Dropped again, and forgotten: the dir goes with its last file.
	w.dropDir(d)
	for _, n := range names {
		p := filepath.Join(proj, n)
		if !w.forget(find(p)) {
			t.Fatalf("%s not forgotten", p)
		}
	}
	if len(w.dropped) != 0 || find(pa) != nil || files() != 0 {
		t.Fatalf("after forget: %d dropped, lookup %v, %d files", len(w.dropped), find(pa), files())
	}

	// Followed before its directory is known: outside the layout, by path.
	q := filepath.Join(tmp, "claude", "-q")
	pc := filepath.Join(q, sessA+".jsonl")
	mkdir(t, q)
	appendFile(t, pc, claudeLine("c", 0))
	w.Follow(pc)
	w.checkWanted()
	fc := find(pc)
	if fc == nil || dirOf(fc) != nil || w.loose[pc] != fc || fc.path != pc {
		t.Fatalf("followed file %+v", fc)
	}
	// Its directory is listed: the same file, in the dir's list.
	w.addDir(q, d.root, 1)
	if find(pc) != fc || dirOf(fc) != w.dirs[q] || len(w.loose) != 0 || fc.path != pc || files() != 1 {
		t.Fatalf("after listing: lookup %v, dir %v, %d loose", find(pc), dirOf(fc), len(w.loose))
	}
}
