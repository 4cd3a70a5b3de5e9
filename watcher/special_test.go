package watcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// releaseFIFO opens path for writing without blocking, which lets a
// reader stuck opening it (the bug) go, so a failing run ends cleanly.
func releaseFIFO(t *testing.T, path string) {
	t.Cleanup(func() {
		if fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	})
}

// TestFIFORenamedOverTranscript: a FIFO renamed over a live transcript
// mid-turn is refused (logged once, counted unreadable), never waited on
// in open(2): other sessions keep updating and the watcher stops at once.
func TestFIFORenamedOverTranscript(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	proj := filepath.Join(dir, "claude", "-home-u-proj")
	mkdir(t, proj)
	a := filepath.Join(proj, "aaaaaaaa-0000-0000-0000-000000000001.jsonl")
	b := filepath.Join(proj, "bbbbbbbb-0000-0000-0000-000000000002.jsonl")
	appendFile(t, a, claudeLine("a1", 0))
	appendFile(t, b, claudeLine("b1", 0))
	r := start(t, cfg, testLogger(t))
	r.ready()
	appendFile(t, a, claudeLine("a2", 0))
	r.waitFor("a's live line", func(recs []Record) bool { return len(lineIDs(recs, a)) == 2 })

	fifo := filepath.Join(proj, "fifo.tmp")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	releaseFIFO(t, a)
	if err := os.Rename(fifo, a); err != nil {
		t.Fatal(err)
	}
	appendFile(t, b, claudeLine("b2", 0))
	r.waitFor("b's live line", func(recs []Record) bool { return len(lineIDs(recs, b)) == 2 })
	deadline := time.Now().Add(waitTimeout)
	for r.w.Stats().Unreadable != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the FIFO at %s was never refused: %+v", a, r.w.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// More changes at the path are refused again, without a new warning.
	r.w.Poke(a)
	appendFile(t, b, claudeLine("b3", 0))
	r.waitFor("b's next line", func(recs []Record) bool { return len(lineIDs(recs, b)) == 3 })
	if n := r.w.Stats().Unreadable; n != 1 {
		t.Fatalf("unreadable = %d, want 1", n)
	}
	stopped := time.Now()
	r.stop() // fails the test if Run has not returned within 10 s
	t.Logf("stopped in %v", time.Since(stopped))
}

// TestCheckpointNotRegular: a checkpoint path that is a FIFO, a device or
// a symlink (to a FIFO, to /dev/zero, even to a regular file) is refused
// with an error naming it, at once, and left as it was: never read (a
// FIFO blocked start-up for ever, /dev/zero grew the daemon to 3 GB),
// never renamed over (a device would have become a file).
func TestCheckpointNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	releaseFIFO(t, fifo)
	regular := filepath.Join(dir, "regular.json")
	if err := os.WriteFile(regular, []byte(`{"version":1,"files":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o600, 1<<8|3); err != nil {
		t.Logf("no char device (mknod: %v): that case is skipped", err)
		null = ""
	}
	tests := []struct {
		name, target, kind string // target: a symlink's ("": the path is made otherwise)
		path               string
	}{
		{name: "fifo", path: fifo, kind: "a FIFO"},
		{name: "char device", path: null, kind: "a character device"},
		{name: "symlink to fifo", target: fifo, kind: "a symlink"},
		{name: "symlink to /dev/zero", target: "/dev/zero", kind: "a symlink"},
		{name: "symlink to /dev/null", target: "/dev/null", kind: "a symlink"},
		{name: "symlink to a regular file", target: regular, kind: "a symlink"},
		{name: "directory", path: filepath.Join(dir, "d"), kind: "a directory"},
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if tc.target != "" {
				path = filepath.Join(dir, "link"+string(rune('a'+i)))
				if err := os.Symlink(tc.target, path); err != nil {
					t.Fatal(err)
				}
			}
			if path == "" {
				t.Skip("not made")
			}
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(dir)
			cfg.CheckpointFile = path
			cfg.SaveState = true
			w, err := New(cfg, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			go func() {
				for range w.Records() {
				}
			}()
			select {
			case err = <-done:
			case <-time.After(waitTimeout):
				// Not refused: stop it, and see below what its final
				// checkpoint did to the path.
				cancel()
				select {
				case <-done:
				case <-time.After(waitTimeout):
					t.Fatal("Run blocked on the checkpoint")
				}
				t.Errorf("Run did not refuse the checkpoint within %v", waitTimeout)
			}
			if !errors.Is(err, safeopen.ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.kind) {
				t.Errorf("Run: %v, want an error naming %s as %s", err, path, tc.kind)
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Fatalf("%s changed: %v → %v (%v)", path, before.Mode(), after.Mode(), err)
			}
			if err := CheckCheckpoint(path); err == nil {
				t.Fatal("CheckCheckpoint accepts it")
			}
		})
	}
}

// TestCheckpointReplacedWhileRunning: a checkpoint path turned into a
// device (here a symlink to /dev/null) while the watcher runs is not
// renamed over: the write fails, naming it, and the link is left.
func TestCheckpointReplacedWhileRunning(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	r := start(t, cfg, testLogger(t))
	r.ready()
	mkdir(t, filepath.Dir(cfg.CheckpointFile))
	if err := os.Symlink("/dev/null", cfg.CheckpointFile); err != nil {
		t.Fatal(err)
	}
	_, err := r.w.writeCheckpoint(true)
	if !errors.Is(err, safeopen.ErrNotRegular) || !strings.Contains(err.Error(), cfg.CheckpointFile) {
		t.Fatalf("write: %v", err)
	}
	if target, err := os.Readlink(cfg.CheckpointFile); err != nil || target != "/dev/null" {
		t.Fatalf("the link is now %q (%v)", target, err)
	}
	os.Remove(cfg.CheckpointFile)
}

// TestCheckpointTooLarge: a regular checkpoint over MaxCheckpointBytes is
// refused without being read (a sparse file: nothing to read anyway) and
// the files are bootstrapped from their tails, as for any unreadable one.
func TestCheckpointTooLarge(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	mkdir(t, filepath.Dir(cfg.CheckpointFile))
	f, err := os.Create(cfg.CheckpointFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxCheckpointBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	err = w.loadCheckpoint()
	if !errors.Is(err, safeopen.ErrTooLarge) || !strings.Contains(err.Error(), cfg.CheckpointFile) {
		t.Fatalf("load: %v", err)
	}
	proj := filepath.Join(dir, "claude", "-p")
	mkdir(t, proj)
	path := filepath.Join(proj, "s.jsonl")
	appendFile(t, path, claudeLine("a", 0))
	r := start(t, cfg, testLogger(t))
	r.waitFor("bootstrap", func(recs []Record) bool { return len(lineIDs(recs, path)) == 1 })
}

func TestNameID(t *testing.T) {
	tests := []struct{ name, id string }{
		{"5fb9e89c-5625-4458-ba8b-7d74a8860e01", "5fb9e89c-5625-4458-ba8b-7d74a8860e01"},
		{"caf\u00e9", "caf\u00e9"},
		{"100%", "100%"}, // valid: as it is, as a hook names it
		{"\xff\xfe", "%FF%FE"},
		{"a\xffb%", "a%FFb%25"},
		{"caf\xe9", "caf%E9"},
		{"\xe2\x82", "%E2%82"},        // a truncated sequence: each byte
		{"\xed\xa0\x80", "%ED%A0%80"}, // a surrogate
		{"\u00e9\xff", "\u00e9%FF"},
	}
	for _, tc := range tests {
		if got := nameID(tc.name); got != tc.id {
			t.Errorf("nameID(%q) = %q, want %q", tc.name, got, tc.id)
		}
	}
	if id, _ := sessionOf("/r/-p/\xff\xfe.jsonl", "claude"); id != "%FF%FE" {
		t.Errorf("stem id %q", id)
	}
	if id, sub := sessionOf("/r/-p/\xff/subagents/agent-1.jsonl", "claude"); id != "%FF" || !sub {
		t.Errorf("subagent id %q %v", id, sub)
	}
}

// FuzzNameID: every id is valid UTF-8, a valid name is its own id, and
// two invalid names never share one (percent-decoding gives each back).
func FuzzNameID(f *testing.F) {
	for _, s := range []string{"", "abc", "\xff\xfe", "a%FFb", "%", "caf\xe9", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		id := nameID(name)
		if !utf8.ValidString(id) {
			t.Fatalf("nameID(%q) = %q: not UTF-8", name, id)
		}
		if utf8.ValidString(name) {
			if id != name {
				t.Fatalf("valid %q changed to %q", name, id)
			}
			return
		}
		if back := percentDecode(t, id); back != name {
			t.Fatalf("nameID(%q) = %q decodes to %q", name, id, back)
		}
	})
}

func percentDecode(t *testing.T, s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) {
			t.Fatalf("%q: a cut escape at %d", s, i)
		}
		var v byte
		for _, c := range []byte(s[i+1 : i+3]) {
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | (c - '0')
			case c >= 'A' && c <= 'F':
				v = v<<4 | (c - 'A' + 10)
			default:
				t.Fatalf("%q: bad escape at %d", s, i)
			}
		}
		b = append(b, v)
		i += 2
	}
	return string(b)
}
