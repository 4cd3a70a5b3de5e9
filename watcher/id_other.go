//go:build !unix

package watcher

import "os"

// fileID is unknown here; identity rests on the path and the signature.
func fileID(os.FileInfo) (dev, ino uint64) { return 0, 0 }

// statPath returns a path's size; the inode is unknown here.
func statPath(path string) (size int64, ino uint64, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, err
	}
	return fi.Size(), 0, nil
}

func fdStat(fd *os.File) (size int64, dev, ino uint64, err error) {
	fi, err := fd.Stat()
	if err != nil {
		return 0, 0, 0, err
	}
	dev, ino = fileID(fi)
	return fi.Size(), dev, ino, nil
}
