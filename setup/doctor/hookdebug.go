package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/hookdebug"
)

// hookDrops is how many of the hook client's last drops doctor shows.
const hookDrops = 5

// dropsRecent is how far back a drop recorded beside the socket is news: a
// drop there stays until the run directory is emptied, and one from last
// week's crash says nothing of today.
const dropsRecent = 24 * time.Hour

// checkHookDebug shows the last events the hook client dropped, and why
// (the hook itself prints nothing): from the file $LOGWATCH_HOOK_DEBUG
// names, every one; else from the file beside the socket, the last day's.
func checkHookDebug(env Env) Finding {
	f := Finding{Check: "hook-drops", Status: OK}
	path, since := env.HookDebug, time.Time{}
	if path == "" {
		path, since = hookdebug.Beside(env.Socket), env.Now.Add(-dropsRecent)
	}
	all, err := hookdebug.Last(path, hookdebug.MaxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Summary = "no hook event dropped"
		return f
	case err != nil:
		f.Status = Warn
		f.Summary = fmt.Sprintf("cannot read the hook's drops: %v", err)
		f.Fix = fmt.Sprintf("check %s is a readable file, or remove it", path)
		if env.HookDebug != "" {
			f.Fix = fmt.Sprintf("check %s is a readable file, or unset %s", path, hookdebug.Env)
		}
		return f
	}
	lines := all
	if !since.IsZero() {
		lines = nil
		for _, l := range all {
			if at, ok := hookdebug.At(l); ok && !at.Before(since) {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 {
		f.Summary = "no hook event dropped"
		if len(all) > 0 {
			f.Summary = fmt.Sprintf("no hook event dropped in the last day (%d before, in %s)", len(all), path)
		}
		return f
	}
	f.Status = Warn
	n, when := fmt.Sprintf("%d events", len(lines)), ""
	if len(lines) == 1 {
		n = "1 event"
	}
	if !since.IsZero() {
		when = " in the last day"
	}
	f.Summary = fmt.Sprintf("the hook client dropped %s%s (the last %d in %s)", n, when, min(len(lines), hookDrops), path)
	f.Details = lines[max(0, len(lines)-hookDrops):]
	fix := "each line is one agent event the daemon never got, so a state it never showed"
	if strings.Contains(lines[len(lines)-1], "no daemon") {
		fix = "start the daemon (`logwatch run`, or `logwatch service install`) on the socket the hooks use; " + fix
	}
	f.Fix = fix + "; empty the file once read"
	return f
}
