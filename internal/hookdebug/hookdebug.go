// Package hookdebug is the hook client's record of the events it dropped:
// the hook prints nothing (its output and exit code are decisions to the
// agent), so each dropped event's reason is appended to a file, bounded,
// and doctor shows the last ones. The file is the one $LOGWATCH_HOOK_DEBUG
// names (every drop), else the one beside the daemon's socket (Beside).
package hookdebug

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// Env names the file that takes every drop.
const Env = "LOGWATCH_HOOK_DEBUG"

// Beside is the file beside the daemon's socket, in its private run
// directory. The hook client writes there only while the socket exists (a
// daemon runs or crashed): such a drop is an event a daemon never got,
// while one stopped on purpose removed its socket and is no news to record.
func Beside(socket string) string {
	return filepath.Join(filepath.Dir(socket), "hook-drops.log")
}

// MaxBytes bounds the file: past it, the older half is dropped.
const MaxBytes = 64 << 10

// Record appends one line, "TIME AGENT took DURATION: REASON", to path.
// Its errors are the caller's to ignore: the hook reports nothing.
func Record(path string, at time.Time, agent, reason string, took time.Duration) error {
	if agent == "" {
		agent = "-"
	}
	line := fmt.Sprintf("%s %s took %s: %s\n", at.UTC().Format(time.RFC3339Nano), agent,
		took.Round(100*time.Microsecond), strings.ReplaceAll(reason, "\n", " "))
	f, err := openAppend(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size()+int64(len(line)) > MaxBytes {
		return trim(path, line)
	}
	if _, err := f.WriteString(line); err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	return nil
}

// trim rewrites path with the newer half of its whole lines, then line.
func trim(path, line string) error {
	old, err := safeopen.ReadFile(path, 2*MaxBytes)
	if err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	if len(old) > MaxBytes/2 {
		old = old[len(old)-MaxBytes/2:]
		if i := bytes.IndexByte(old, '\n'); i >= 0 {
			old = old[i+1:]
		}
	}
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	_, err = f.Write(append(old, line...))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("hookdebug: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	return nil
}

// openAppend opens path to append, creating it, if it is a regular file:
// never through a symlink, never waiting on a FIFO (a writer's open of one
// with no reader fails at once; with one, the type check refuses it).
func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hookdebug: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("hookdebug: %s: %w", path, safeopen.ErrNotRegular)
	}
	return f, nil
}

// At is the time a line of the file was recorded.
func At(line string) (time.Time, bool) {
	stamp, _, _ := strings.Cut(line, " ")
	t, err := time.Parse(time.RFC3339Nano, stamp)
	return t, err == nil
}

// Last returns the last n lines of path (at most MaxBytes of it read).
func Last(path string, n int) ([]string, error) {
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hookdebug: %w", err)
	}
	defer f.Close()
	seeked := false
	if fi, err := f.Stat(); err == nil && fi.Size() > MaxBytes {
		if _, err := f.Seek(fi.Size()-MaxBytes, io.SeekStart); err != nil {
			return nil, fmt.Errorf("hookdebug: %w", err)
		}
		seeked = true
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes))
	if err != nil {
		return nil, fmt.Errorf("hookdebug: %w", err)
	}
	if i := bytes.IndexByte(b, '\n'); seeked && i >= 0 {
		b = b[i+1:] // a line's end
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil, nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
