// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a mix: the agents' settings files and the service files
// are written this way.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// Write writes data to path through a temporary file in the same directory
// (fsync, then rename), with mode. A path that is there and is neither a
// regular file nor a symlink (a FIFO, a device, a directory) is refused
// with a *safeopen.NotRegularError and left as it is: run as root, the
// rename put a file in place of /dev/null. A symlink is replaced, its
// target untouched.
func Write(path string, data []byte, mode fs.FileMode) error {
	if err := safeopen.CheckReplace(path); err != nil {
		var nr *safeopen.NotRegularError
		if !errors.As(err, &nr) || nr.Mode&fs.ModeSymlink == 0 {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
