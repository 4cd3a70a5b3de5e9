// Package hookdebug is the hook client's record of the events it dropped:
// the hook prints nothing (its output and exit code are decisions to the
// agent), so when $LOGWATCH_HOOK_DEBUG names a file each dropped event's
// reason is appended there, bounded, and doctor shows the last ones.
package hookdebug

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// Env names the file; unset, nothing is written.
const Env = "LOGWATCH_HOOK_DEBUG"

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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("hookdebug: %w", err)
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
	if err := os.WriteFile(tmp, append(old, line...), 0o600); err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("hookdebug: %w", err)
	}
	return nil
}

// Last returns the last n lines of path (at most MaxBytes of it read).
func Last(path string, n int) ([]string, error) {
	f, err := os.Open(path)
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
