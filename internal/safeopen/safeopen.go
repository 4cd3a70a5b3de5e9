// Package safeopen opens files whose names come from the filesystem or the
// configuration, where anyone who can create a file there may have put a
// FIFO, a device or a symlink to one: opening a FIFO for reading blocks
// until a writer comes (for ever, and a goroutine stuck in open(2) cannot
// be stopped), and /dev/zero never ends. Only regular files are opened, the
// open never blocks, and whole-file reads are bounded.
package safeopen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is wrapped by every refusal of a path that is not a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's refusal of a file over its bound.
var ErrTooLarge = errors.New("file too large")

// NotRegularError names the path and what it is.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// Kind names a file type for a message ("a FIFO", "a character device").
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// Open opens path for reading if it is a regular file (symlinks are
// followed). Anything else is refused with a *NotRegularError, mostly
// without being opened at all: the path is stat'ed first, so a device
// whose open has effects is not touched. The open itself is non-blocking
// and the opened descriptor is checked again, so a FIFO swapped in after
// the stat is refused too, never waited on.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return openChecked(path, syscall.O_RDONLY)
}

// openChecked opens path non-blocking, refuses a descriptor that is not a
// regular file, and hands back a blocking one (as os.Open would have).
func openChecked(path string, mode int) (*os.File, error) {
	fd, err := sysOpen(path, mode)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if m := modeOf(uint32(st.Mode)); !m.IsRegular() {
		syscall.Close(fd)
		return nil, &NotRegularError{Path: path, Mode: m}
	}
	// O_NONBLOCK means nothing to a regular file's reads, but os.NewFile
	// would take a non-blocking descriptor for a pollable one.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// sysOpen opens path with flags, never blocking in the open and never
// making a terminal the controlling one.
func sysOpen(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// modeOf is the fs.FileMode type bits of a stat mode.
func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// ReadFile reads the regular file at path (as Open) whole, refusing one of
// more than max bytes with an error wrapping ErrTooLarge: never more than
// max+1 bytes are read, whatever the file's size says or becomes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, path, max)
}

// ReadAll reads r to its end, refusing more than max bytes (path names it
// in the error).
func ReadAll(r io.Reader, path string, max int64) ([]byte, error) {
	size := int64(512)
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			size = fi.Size() + 1 // one more, to see the end without growing
		}
	}
	if size > max+1 {
		return nil, tooLarge(path, max)
	}
	b := make([]byte, 0, size)
	lr := &io.LimitedReader{R: r, N: max + 1}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if int64(len(b)) > max {
		return nil, tooLarge(path, max)
	}
	return b, nil
}

func tooLarge(path string, max int64) error {
	return fmt.Errorf("%s: %w (over %d bytes)", path, ErrTooLarge, max)
}

// Dir opens the directory at path for listing without blocking: O_DIRECTORY
// refuses anything else (a FIFO swapped in for a directory among them)
// before it is opened.
func Dir(path string) (*os.File, error) {
	fd, err := sysOpen(path, syscall.O_RDONLY|syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// CheckReplace is nil when path does not exist or is a regular file: a
// path this program may write a new file over by renaming. A symlink, a
// FIFO, a device (a `checkpoint: /dev/null` run as root would have had the
// device replaced by a file), a directory or a socket is refused with a
// *NotRegularError naming it.
func CheckReplace(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return nil
}
