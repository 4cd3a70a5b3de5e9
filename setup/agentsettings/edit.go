package agentsettings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/jsonc"
	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/internal/udiff"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/secret"
)

// Target is one agent's settings file (or hook module) to edit.
type Target struct {
	Spec Spec
	Path string
	// Bin is the logwatch binary the hooks run, by absolute path: a hook
	// module names it in its source.
	Bin string
	// Force replaces or removes a hook module someone changed since
	// logwatch wrote it (kept as a backup first).
	Force bool
}

// SettingsPath is where an agent reads hooks for a scope: the user's file
// or the project's (relative to the working directory); for an agent that
// loads a module, the module's path in the user's or the project's
// directory.
func SettingsPath(agent, scope string) (string, error) {
	ag := parsers.Lookup(parsers.Agent(agent))
	ext := (*parsers.Extension)(nil)
	if ag != nil {
		ext = ag.Hooks.Extension
	}
	if ag == nil || ag.Hooks.Settings == "" && ext == nil {
		return "", fmt.Errorf("unknown --agent %q: want %s", agent, strings.Join(Agents(), " or "))
	}
	user, project := ag.Hooks.Settings, ag.Hooks.ProjectSettings
	if ext != nil {
		user, project = filepath.Join(ext.Dir, ext.File), filepath.Join(ext.ProjectDir, ext.File)
	}
	switch scope {
	case "user", "":
		return config.ExpandPath(user), nil
	case "project":
		if project == "" {
			return "", fmt.Errorf("--agent %s has no project scope: its hooks are the user's (--scope user)", agent)
		}
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, project), nil
	}
	return "", fmt.Errorf("unknown --scope %q: want user or project", scope)
}

// HTTPSpec turns spec into its http-handler variant for the listener at
// addr (the http key): its URL and the secret the daemon on socket requires
// (created now if the daemon has not run yet: it is the same file).
func HTTPSpec(spec Spec, addr, socket string) (Spec, error) {
	if addr == "" {
		return spec, errors.New("--http needs the http listener configured (the `http` key, e.g. http: 127.0.0.1:8765)")
	}
	if !spec.httpOK {
		return spec, fmt.Errorf("--http: %s has no http hooks; install its command hooks (without --http)", spec.Agent)
	}
	key, err := secret.LoadOrCreate(secret.File(socket))
	if err != nil {
		return spec, err
	}
	return spec.WithHTTP("http://"+addr+"/hook?agent="+spec.Agent, key), nil
}

// MaxSettingsBytes bounds a settings file read (they are a few KiB).
const MaxSettingsBytes = 16 << 20

// Edit applies install or uninstall to one settings file, saying on w what
// it did (with dryRun, the diff it would apply).
func Edit(w io.Writer, t Target, command string, install, dryRun bool) error {
	if t.Spec.ext != nil {
		return editModule(w, t, install, dryRun)
	}
	// Write through a symlink (dotfile managers link settings files), not
	// over it.
	path := t.Path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := safeopen.ReadFile(path, MaxSettingsBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", t.Path, err)
	}
	if !exists && !install {
		fmt.Fprintf(w, "%s: %s does not exist; nothing to remove\n", t.Spec.Agent, t.Path)
		return nil
	}
	updated, err := t.Spec.Plan(old, command, install)
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: cannot parse it as JSON (%v); logwatch does not rewrite a file it cannot read: fix it, or move it aside and run again", t.Path, err)
		}
		return fmt.Errorf("%s: %v; edit the hooks by hand (see `logwatch hooks --help`)", t.Path, err)
	}
	verb := "installed"
	if !install {
		verb = "removed"
	}
	switch {
	case bytes.Equal(old, updated):
		if install {
			fmt.Fprintf(w, "%s: %s already has logwatch's hooks; nothing to change\n", t.Spec.Agent, t.Path)
		} else {
			fmt.Fprintf(w, "%s: %s has no logwatch hooks; nothing to change\n", t.Spec.Agent, t.Path)
		}
	case dryRun:
		oldName := t.Path
		if !exists {
			oldName = "/dev/null"
		}
		udiff.Write(w, oldName, t.Path, old, updated)
	default:
		if err := writeWithBackup(path, old, updated, exists, t.Spec.http != nil); err != nil {
			return fmt.Errorf("%s: %w", t.Path, err)
		}
		backup := ""
		if exists {
			backup = " (previous file: " + path + BackupSuffix + ")"
		}
		what := "hooks for " + fmt.Sprint(len(t.Spec.Events)) + " events"
		fmt.Fprintf(w, "%s: %s logwatch %s in %s%s\n", t.Spec.Agent, verb, what, t.Path, backup)
	}
	if install {
		t.Spec.printNote(w)
	}
	return nil
}

// printNote prints what else must happen before installed hooks run.
func (h Spec) printNote(w io.Writer) {
	if h.note == "" {
		return
	}
	prefix := h.Agent + ": "
	indent := "\n" + strings.Repeat(" ", len(prefix))
	fmt.Fprint(w, prefix+strings.ReplaceAll(h.note, "\n", indent)+"\n")
}

// BackupSuffix names the copy of the previous file Edit keeps beside it.
const BackupSuffix = ".logwatch-bak"

// writeWithBackup keeps the old content as path.logwatch-bak, then replaces
// path atomically (temp file in the same directory, fsync, rename) with the
// old file's mode.
func writeWithBackup(path string, old, updated []byte, exists, private bool) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	backupMode := mode
	if private {
		// The file now holds the listener's secret: for this user only.
		mode &^= 0o077
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if exists {
		if err := atomicfile.Write(path+BackupSuffix, old, backupMode); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	return atomicfile.Write(path, updated, mode)
}
