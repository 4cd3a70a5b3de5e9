package watcher

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestFileIndex: files are found through their directory's sorted list,
// a dropped directory's files stay findable (and are the same files when
// it comes back) until they are forgotten, and a file followed before its
// directory was known moves into the directory's list, keeping its path.
// The Run loop is not started: no reader runs, each step is the loop's.
func TestFileIndex(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "claude", "-p")
	mkdir(t, proj)
	mkdir(t, filepath.Join(dir, "codex"))
	names := []string{sessA + ".jsonl", "00000000-0000-4000-8000-000000000002.jsonl", "00000000-0000-4000-8000-000000000001.jsonl"}
	for _, n := range names {
		appendFile(t, filepath.Join(proj, n), claudeLine("a", 0))
	}
	w, err := New(testConfig(dir), testLogger(t))
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
	d := w.dirs[proj]
	if d == nil || len(d.files) != 3 || files() != 3 {
		t.Fatalf("dir %v, %d files", d, files())
	}
	for i := 1; i < len(d.files); i++ {
		if d.files[i-1].name >= d.files[i].name {
			t.Fatalf("files not sorted: %q before %q", d.files[i-1].name, d.files[i].name)
		}
	}
	pa := filepath.Join(proj, sessA+".jsonl")
	fa := find(pa)
	if fa == nil || fa.path() != pa || fa.name != sessA+".jsonl" {
		t.Fatalf("lookup %s: %+v", pa, fa)
	}
	if find(filepath.Join(proj, "other.jsonl")) != nil || find(filepath.Join(dir, "claude", "-x", sessA+".jsonl")) != nil {
		t.Fatal("found a file that is not there")
	}
	// The session id is the name's own bytes: the relay's copy shares them.
	r := w.newReader(fa)
	if r.session != sessA || unsafe.StringData(r.session) != unsafe.StringData(fa.name) {
		t.Fatalf("session %q does not share the name's bytes", r.session)
	}
	if r.path != pa {
		t.Fatalf("reader path %q", r.path)
	}

	// Renamed away: dropped, its files listed until their readers forget them.
	away := filepath.Join(dir, "away")
	if err := os.Rename(proj, away); err != nil {
		t.Fatal(err)
	}
	w.dropDir(d)
	if w.dirs[proj] != nil || w.dropped[proj] != d || !d.dropped || find(pa) != fa || files() != 3 {
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
		if !w.forget(find(p), p) {
			t.Fatalf("%s not forgotten", p)
		}
	}
	if len(w.dropped) != 0 || find(pa) != nil || files() != 0 {
		t.Fatalf("after forget: %d dropped, lookup %v, %d files", len(w.dropped), find(pa), files())
	}

	// Followed before its directory is known: outside the layout, by path.
	q := filepath.Join(dir, "claude", "-q")
	pc := filepath.Join(q, sessA+".jsonl")
	mkdir(t, q)
	appendFile(t, pc, claudeLine("c", 0))
	w.Follow(pc)
	w.checkWanted()
	fc := find(pc)
	if fc == nil || !fc.abs || fc.dir != nil || w.loose[pc] != fc || fc.path() != pc {
		t.Fatalf("followed file %+v", fc)
	}
	// Its directory is listed: the same file, in the dir's list.
	w.addDir(q, d.root, 1)
	if find(pc) != fc || fc.dir != w.dirs[q] || len(w.loose) != 0 || fc.path() != pc || files() != 1 {
		t.Fatalf("after listing: lookup %v, dir %v, %d loose, path %q", find(pc), fc.dir, len(w.loose), fc.path())
	}
	if r := w.newReader(fc); r.path != pc {
		t.Fatalf("reader path %q", r.path)
	}
}

// TestCheckpointEntryEncoding: an entry is written byte for byte as
// json.Encoder writes a ckptEntry, whatever the path holds.
func TestCheckpointEntryEncoding(t *testing.T) {
	paths := []string{
		"/home/u/.claude/projects/-home-u-w/" + sessA + ".jsonl",
		`/a "quoted" \back\slash`,
		"/ctl\x00\x01\b\f\n\r\t\x1f\x7f",
		"/html <a> & </a>",
		"/utf8 é 日本 \u2028 \u2029 🙂",
		"/invalid \xff\xfe utf8 \xe6\x97",
		strings.Repeat("x", 300),
	}
	p := filePos{dev: 1<<64 - 1, ino: 42, sig: 1 << 63, sigLen: sigMax, offset: 1<<63 - 1, line: 7, flags: lineKnown}
	for _, path := range paths {
		for _, known := range []bool{true, false} {
			p.set(lineKnown, known)
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(ckptEntry{Path: path, Dev: p.dev, Ino: p.ino, Sig: p.sig,
				SigLen: int(p.sigLen), Offset: p.offset, Line: p.line, LineKnown: known}); err != nil {
				t.Fatal(err)
			}
			if got := appendEntry(nil, []byte(path), p); string(got) != want.String() {
				t.Errorf("path %q:\n got %s\nwant %s", path, got, want.Bytes())
			}
		}
	}
}
