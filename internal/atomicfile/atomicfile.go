// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a mix: the agents' settings files and the service files
// are written this way.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same directory
// (fsync, then rename), with mode.
func Write(path string, data []byte, mode fs.FileMode) error {
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
