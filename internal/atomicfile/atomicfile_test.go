package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// TestWriteRefusesSpecialFiles: a path that is a FIFO, a character device
// (1,3: a /dev/null of our own, made in the temp dir) or a directory is
// refused by name and left as it was, never renamed over; a regular file
// and a symlink are replaced (the symlink's target untouched).
func TestWriteRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no char device (mknod: %v): that case is skipped", err)
		null = ""
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a FIFO", null: "a character device", sub: "a directory"} {
		if path == "" {
			continue
		}
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		err = Write(path, []byte("x"), 0o600)
		if !errors.Is(err, safeopen.ErrNotRegular) || !strings.Contains(err.Error(), path+" is "+kind) {
			t.Errorf("%s: %v", kind, err)
		}
		after, err := os.Lstat(path)
		if err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
			t.Errorf("%s replaced: %v → %v (%v)", kind, before.Mode(), after.Mode(), err)
		}
	}
	want := 3 // fifo, null, sub
	if null == "" {
		want--
	}
	if ents, _ := os.ReadDir(dir); len(ents) != want {
		t.Errorf("temporary files left: %v", ents)
	}

	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{target, link} {
		if err := Write(p, []byte("new"), 0o600); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: %v %v", p, fi, err)
		}
	}
}
