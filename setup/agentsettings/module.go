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
// not write is refused either way, never overwritten or removed.

// MaxModuleBytes bounds a module read (logwatch's is a few KiB).
const MaxModuleBytes = 1 << 20

// ErrNotOurs is a file at the module's path that is not logwatch's.
var ErrNotOurs = errors.New("not logwatch's")

// ModuleStatus is what is at a module's path, for doctor.
type ModuleStatus struct {
	Exists bool
	Ours   bool   // the file is logwatch's module (of some release)
	Bin    string // the binary it runs
	// Current: the file is exactly what install would write for Bin.
	Current bool
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
	return st, nil
}

// editModule installs (writes whole) or uninstalls (removes) the module at
// t.Path, saying on w what it did, or with dryRun the diff it would apply.
func editModule(w io.Writer, t Target, install, dryRun bool) error {
	ext := t.Spec.ext
	old, err := safeopen.ReadFile(t.Path, MaxModuleBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", t.Path, err)
	}
	if exists {
		if _, ours := ext.BinOf(old); !ours {
			verb := "replace"
			if !install {
				verb = "remove"
			}
			return fmt.Errorf("%s: %w (it does not start with logwatch's first line): logwatch does not %s a file it did not write; move it aside and run again", t.Path, ErrNotOurs, verb)
		}
	}
	var updated []byte
	if install {
		if !filepath.IsAbs(t.Bin) {
			return fmt.Errorf("%s: the module needs the logwatch binary by absolute path, not %q", t.Spec.Agent, t.Bin)
		}
		updated = ext.Source(t.Bin)
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
	case install:
		if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		if err := atomicfile.Write(t.Path, updated, 0o644); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		fmt.Fprintf(w, "%s: installed logwatch's extension (forwarding %d events) as %s\n", t.Spec.Agent, len(t.Spec.Events), t.Path)
	default:
		if err := os.Remove(t.Path); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		fmt.Fprintf(w, "%s: removed logwatch's extension %s\n", t.Spec.Agent, t.Path)
	}
	if install {
		t.Spec.printNote(w)
	}
	return nil
}
