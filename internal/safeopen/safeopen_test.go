package safeopen

import (
	"bytes"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bounded runs f and fails the test if it has not returned within 10 s:
// the bugs these tests catch hang for ever.
func bounded(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10 s", what)
	}
}

// specials makes one of each kind of file that is not a regular one in a
// temp dir, and a regular file; a char device needs root (CI runs as root).
func specials(t *testing.T) (dir string, paths map[string]string) {
	t.Helper()
	dir = t.TempDir()
	paths = map[string]string{}
	p := func(name string) string { paths[name] = filepath.Join(dir, name); return paths[name] }
	if err := os.WriteFile(p("regular"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(paths["fifo"], p("link-to-fifo")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", p("link-to-zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(paths["regular"], p("link-to-regular")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p("sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if err := syscall.Mknod(p("null"), syscall.S_IFCHR|0o600, 1<<8|3); err != nil {
		delete(paths, "null")
		t.Logf("no char device (mknod: %v)", err)
	}
	return dir, paths
}

func TestOpenRefusesAllButRegularFiles(t *testing.T) {
	_, paths := specials(t)
	tests := []struct {
		name, kind string // kind "": opened
	}{
		{"regular", ""},
		{"link-to-regular", ""},
		{"fifo", "a FIFO"},
		{"link-to-fifo", "a FIFO"},
		{"link-to-zero", "a character device"},
		{"null", "a character device"},
		{"dir", "a directory"},
		{"sock", "a socket"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, ok := paths[tc.name]
			if !ok {
				t.Skip("not made")
			}
			var f *os.File
			var err error
			bounded(t, "Open", func() { f, err = Open(path) })
			if tc.kind == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer f.Close()
				b := make([]byte, 16)
				if n, err := f.Read(b); err != nil || string(b[:n]) != "hello\n" {
					t.Fatalf("read %q, %v", b[:n], err)
				}
				return
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) {
				t.Fatalf("Open: %v, want a NotRegularError", err)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tc.kind) {
				t.Fatalf("error %q does not name %s and %q", msg, path, tc.kind)
			}
		})
	}
}

// A FIFO that appears between the stat and the open (the window Open's
// second check covers) is refused, not waited on.
func TestOpenCheckedRefusesFIFO(t *testing.T) {
	_, paths := specials(t)
	for _, name := range []string{"fifo", "link-to-fifo"} {
		var err error
		bounded(t, "openChecked", func() {
			var f *os.File
			if f, err = openChecked(paths[name], syscall.O_RDONLY); f != nil {
				f.Close()
			}
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("%s: %v, want ErrNotRegular", name, err)
		}
	}
}

func TestReadFileBounded(t *testing.T) {
	_, paths := specials(t)
	if b, err := ReadFile(paths["regular"], 6); err != nil || string(b) != "hello\n" {
		t.Fatalf("at the bound: %q, %v", b, err)
	}
	if _, err := ReadFile(paths["regular"], 5); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), paths["regular"]) {
		t.Fatalf("over the bound: %v, want ErrTooLarge naming the path", err)
	}
	var err error
	bounded(t, "ReadFile of a symlink to /dev/zero", func() { _, err = ReadFile(paths["link-to-zero"], 1<<20) })
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("/dev/zero: %v", err)
	}
	// A reader that never ends is cut at the bound, not read to the end.
	var n int64
	bounded(t, "ReadAll of an endless reader", func() {
		_, err = ReadAll(endless{&n}, "endless", 1<<20)
	})
	if !errors.Is(err, ErrTooLarge) || n > 1<<20+64<<10 {
		t.Fatalf("endless: %v after %d bytes", err, n)
	}
	b, err := ReadAll(bytes.NewReader(bytes.Repeat([]byte("x"), 5000)), "x", 5000)
	if err != nil || len(b) != 5000 {
		t.Fatalf("5000 bytes: %d, %v", len(b), err)
	}
}

type endless struct{ n *int64 }

func (e endless) Read(b []byte) (int, error) {
	*e.n += int64(len(b))
	return len(b), nil
}

func TestDir(t *testing.T) {
	dir, paths := specials(t)
	var err error
	bounded(t, "Dir", func() {
		var f *os.File
		if f, err = Dir(dir); err == nil {
			_, err = f.Readdirnames(-1)
			f.Close()
		}
	})
	if err != nil {
		t.Fatalf("Dir(%s): %v", dir, err)
	}
	for _, name := range []string{"fifo", "link-to-fifo", "regular"} {
		bounded(t, "Dir of "+name, func() {
			var f *os.File
			if f, err = Dir(paths[name]); f != nil {
				f.Close()
			}
		})
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("Dir(%s): %v, want ENOTDIR", name, err)
		}
	}
}

func TestCheckReplace(t *testing.T) {
	dir, paths := specials(t)
	if err := CheckReplace(filepath.Join(dir, "absent")); err != nil {
		t.Fatalf("absent: %v", err)
	}
	if err := CheckReplace(paths["regular"]); err != nil {
		t.Fatalf("regular: %v", err)
	}
	for name, kind := range map[string]string{"fifo": "a FIFO", "link-to-zero": "a symlink", "link-to-regular": "a symlink",
		"null": "a character device", "dir": "a directory", "sock": "a socket"} {
		path, ok := paths[name]
		if !ok {
			continue
		}
		err := CheckReplace(path)
		if !errors.Is(err, ErrNotRegular) || err.Error() != path+" is "+kind+", not a regular file" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(paths["fifo"]); err != nil {
		t.Fatal(err)
	}
	var pe *fs.PathError
	if err := CheckReplace(string([]byte{0})); err == nil || !errors.As(err, &pe) {
		t.Fatalf("NUL path: %v", err)
	}
}
