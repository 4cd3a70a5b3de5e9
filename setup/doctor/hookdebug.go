package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/logwatch/logwatch/internal/hookdebug"
)

// hookDrops is how many of the hook client's last drops doctor shows.
const hookDrops = 5

// checkHookDebug shows the last events the hook client dropped, and why,
// from the file $LOGWATCH_HOOK_DEBUG names (the hook itself prints nothing).
func checkHookDebug(env Env) Finding {
	f := Finding{Check: "hook-drops", Status: OK}
	lines, err := hookdebug.Last(env.HookDebug, hookDrops)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.Summary = fmt.Sprintf("no hook event dropped (%s does not exist)", env.HookDebug)
		return f
	case err != nil:
		f.Status = Warn
		f.Summary = fmt.Sprintf("cannot read the hook's drops: %v", err)
		f.Fix = fmt.Sprintf("check %s is a readable file, or unset %s", env.HookDebug, hookdebug.Env)
		return f
	case len(lines) == 0:
		f.Summary = "no hook event dropped"
		return f
	}
	f.Status = Warn
	f.Summary = fmt.Sprintf("the hook client dropped events (the last %d in %s)", len(lines), env.HookDebug)
	f.Details = lines
	fix := "each line is one agent event the daemon never got, so a state it never showed"
	if strings.Contains(lines[len(lines)-1], "no daemon") {
		fix = "start the daemon (`logwatch run`, or `logwatch service install`) on the socket the hooks use; " + fix
	}
	f.Fix = fix + "; empty the file once read"
	return f
}
