package watcher

import (
	"fmt"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// dirWatcher is the part of fsnotify the watcher uses: directories only,
// one instance per Watcher. It is the seam where tests simulate an exhausted
// watch limit.
type dirWatcher interface {
	Add(dir string) error
	Remove(dir string) error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
	Close() error
}

type fsnotifyWatcher struct{ w *fsnotify.Watcher }

func newFsnotify() (dirWatcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsnotifyWatcher{w}, nil
}

func (f fsnotifyWatcher) Add(dir string) error          { return f.w.Add(dir) }
func (f fsnotifyWatcher) Remove(dir string) error       { return f.w.Remove(dir) }
func (f fsnotifyWatcher) Events() <-chan fsnotify.Event { return f.w.Events }
func (f fsnotifyWatcher) Errors() <-chan error          { return f.w.Errors }
func (f fsnotifyWatcher) Close() error                  { return f.w.Close() }

// limitedWatcher refuses watches beyond max with the kernel's own error for
// an exhausted fs.inotify.max_user_watches, so the fallback path is the same.
type limitedWatcher struct {
	dirWatcher
	max  int
	used map[string]bool
}

func (l *limitedWatcher) Add(dir string) error {
	if !l.used[dir] && len(l.used) >= l.max {
		return fmt.Errorf("watch %s: %w", dir, syscall.ENOSPC)
	}
	if err := l.dirWatcher.Add(dir); err != nil {
		return err
	}
	l.used[dir] = true
	return nil
}

func (l *limitedWatcher) Remove(dir string) error {
	delete(l.used, dir)
	return l.dirWatcher.Remove(dir)
}
