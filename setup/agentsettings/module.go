package agentsettings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/internal/udiff"
)

// A hook module (parsers.Extension) is a file logwatch owns whole: install
// writes it, uninstall removes it, and a file at its path that logwatch did
// not write, or that someone changed since (its header says it is then no
// longer logwatch's to update), is refused either way, never overwritten or
// removed; --force replaces or removes a changed one, keeping a backup. A
// module path that is a symlink (a dotfiles repository's file) is followed:
// its target is rewritten in place, the link kept.

// MaxModuleBytes bounds a module read (logwatch's is a few KiB).
const MaxModuleBytes = 1 << 20

// ErrNotOurs is a file at the module's path that is not logwatch's.
var ErrNotOurs = errors.New("not logwatch's")

// ErrChanged is logwatch's module changed since logwatch wrote it.
var ErrChanged = errors.New("changed since logwatch wrote it")

// ModuleStatus is what is at a module's path, for doctor.
type ModuleStatus struct {
	Exists bool
	Ours   bool   // the file is logwatch's module (of some release)
	Bin    string // the binary it runs
	// Current: the file is exactly what install would write for Bin.
	Current bool
	// Changed: logwatch's, but someone changed it since it was written.
	Changed bool
}

// Module reads the module at path. A path that is not a regular file, or
// cannot be read, is an error.
func (h Spec) Module(path string) (ModuleStatus, error) {
	var st ModuleStatus
	if h.ext == nil {
		return st, fmt.Errorf("%s: hooks are not a module", h.Agent)
	}
	src, err := safeopen.ReadFile(path, MaxModuleBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Exists = true
	st.Bin, st.Ours = h.ext.BinOf(src)
	st.Current = st.Ours && st.Bin != "" && bytes.Equal(src, h.ext.Source(st.Bin))
	st.Changed = st.Ours && !h.ext.Untouched(src)
	return st, nil
}

// modulePath is the file a module path names: the path, or the regular
// file a symlink there leads to (a dangling link, or one to anything else,
// is refused); link is set when it is a link.
func modulePath(path string) (real string, link bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, false, nil // a missing path, or another kind safeopen judges
	}
	real, err = filepath.EvalSymlinks(path)
	if err != nil {
		to, _ := os.Readlink(path)
		return "", true, fmt.Errorf("%s is a symlink to %s, which cannot be followed (%w): logwatch writes its module through a link, never in its place; fix or remove the link", path, to, err)
	}
	if fi, err = os.Stat(real); err != nil {
		return "", true, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", true, fmt.Errorf("%s is a symlink to %s, which is %s, not a regular file: logwatch does not replace it", path, real, safeopen.Kind(fi.Mode()))
	}
	return real, true, nil
}

// editModule installs (writes whole) or uninstalls (removes) the module at
// t.Path, saying on w what it did, or with dryRun the diff it would apply.
// A module someone changed is refused, its changes shown as a diff, unless
// t.Force (then kept as a backup first).
func editModule(w io.Writer, t Target, install, dryRun bool) error {
	ext := t.Spec.ext
	path, link, err := modulePath(t.Path)
	if err != nil {
		return err
	}
	old, err := safeopen.ReadFile(path, MaxModuleBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", t.Path, err)
	}
	verb := "replace"
	if !install {
		verb = "remove"
	}
	changed := false
	if exists {
		bin, ours := ext.BinOf(old)
		if !ours {
			return fmt.Errorf("%s: %w (it does not start with logwatch's first line): logwatch does not %s a file it did not write; move it aside and run again", t.Path, ErrNotOurs, verb)
		}
		if changed = !ext.Untouched(old); changed && !t.Force {
			// What was changed, against logwatch's module for the same
			// binary (of this release: an older one's differences show
			// too).
			if bin == "" {
				bin = t.Bin
			}
			fmt.Fprintf(w, "%s: %s differs from logwatch's module:\n", t.Spec.Agent, t.Path)
			udiff.Write(w, "logwatch's module", t.Path, ext.Source(bin), old)
			return fmt.Errorf("%s: logwatch's %s module, %w: logwatch does not %s a file you edited (diff above); keep your changes in a module of your own, or run again with --force to %s it (the file is kept as %s)",
				t.Path, t.Spec.Agent, ErrChanged, verb, verb, backupName(path))
		}
	}
	var updated []byte
	if install {
		if !filepath.IsAbs(t.Bin) {
			return fmt.Errorf("%s: the module needs the logwatch binary by absolute path, not %q", t.Spec.Agent, t.Bin)
		}
		updated = ext.Source(t.Bin)
	}
	backup := ""
	if changed {
		backup = backupName(path)
	}
	switch {
	case install && exists && bytes.Equal(old, updated):
		fmt.Fprintf(w, "%s: %s is logwatch's current extension; nothing to change\n", t.Spec.Agent, t.Path)
	case !install && !exists:
		fmt.Fprintf(w, "%s: %s does not exist; nothing to remove\n", t.Spec.Agent, t.Path)
	case dryRun:
		from, to := t.Path, t.Path
		if !exists {
			from = "/dev/null"
		}
		if !install {
			to = "/dev/null"
		}
		udiff.Write(w, from, to, old, updated)
		if backup != "" {
			fmt.Fprintf(w, "%s: the changed file would be kept as %s\n", t.Spec.Agent, backup)
		}
	default:
		if backup != "" {
			if err := atomicfile.Write(backup, old, fileMode(path)); err != nil {
				return fmt.Errorf("%s: backup: %w", t.Path, err)
			}
			fmt.Fprintf(w, "%s: %s was changed since logwatch wrote it: kept as %s\n", t.Spec.Agent, t.Path, backup)
		}
		if install {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return fmt.Errorf("%s: %w", t.Path, err)
			}
			if err := atomicfile.Write(path, updated, fileMode(path)); err != nil {
				return fmt.Errorf("%s: %w", t.Path, err)
			}
			fmt.Fprintf(w, "%s: installed logwatch's extension (forwarding %d events) as %s%s\n", t.Spec.Agent, len(t.Spec.Events), t.Path, through(link, path))
			break
		}
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		if link {
			// The link would lead nowhere: it goes too.
			if err := os.Remove(t.Path); err != nil {
				return fmt.Errorf("%s: %w", t.Path, err)
			}
		}
		fmt.Fprintf(w, "%s: removed logwatch's extension %s%s\n", t.Spec.Agent, t.Path, through(link, path))
	}
	if install {
		t.Spec.printNote(w)
	}
	return nil
}

// through names a link's target in a message.
func through(link bool, path string) string {
	if !link {
		return ""
	}
	return " (a link: its target " + path + ")"
}

// fileMode is the mode of the file at path, or 0644 for a new one.
func fileMode(path string) fs.FileMode {
	if fi, err := os.Stat(path); err == nil {
		return fi.Mode().Perm()
	}
	return 0o644
}

// backupName is where a changed module is kept: path.logwatch-bak, or the
// first of path.logwatch-bak.1, .2, … that is free, so that an earlier
// backup is never overwritten. (The name ends in neither .ts nor .js: the
// agent does not load it.)
func backupName(path string) string {
	name := path + BackupSuffix
	for i := 1; i < 1000; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s%s.%d", path, BackupSuffix, i)
	}
	return name
}
