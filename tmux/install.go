package tmux

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// The user's tmux.conf gets one line, marked so uninstall removes exactly
// it: the marker also records what else install did to the file (a line
// break put before it, or the file created), so the file comes back byte
// for byte.
const (
	marker        = "# logwatch tmux install"
	markerNewline = marker + " +nl"  // install ended the user's last line
	markerCreated = marker + " +new" // install created the file
)

// HookIndex is the index logwatch's tmux hooks take in each hook's array,
// so they sit beside the user's own hooks and re-sourcing replaces them.
const HookIndex = 73

// focusHooks are the tmux hooks after which the pane a client shows may
// have changed, or a client come or gone; terminalHooks, those after which
// a client's terminal gained or lost focus (tmux 3.3 and later).
var (
	focusHooks    = []string{"after-select-pane", "after-select-window", "client-session-changed", "client-attached", "session-window-changed", "client-detached"}
	terminalHooks = []string{"client-focus-in", "client-focus-out"}
)

// safeWord is what a path in Conf may hold: it is quoted through tmux's
// parser twice and then the shell, so only plain characters pass.
const safeWord = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%="

// CheckPath refuses a path Conf cannot quote.
func CheckPath(p string) error {
	if p == "" || strings.Trim(p, safeWord) != "" {
		return fmt.Errorf("%q: the tmux configuration can name only paths of letters, digits and /._-+,:@%%= (install logwatch or set HOME elsewhere)", p)
	}
	return nil
}

// Conf is logwatch's own tmux configuration: the dot before each window's
// name and the summary before status-right (added to the user's formats
// once, whatever they are), the focus hooks (each wakes the follower from
// inside the tmux server: no process per pane switch), the jump key, and
// the follower (one per server: it exits if another runs). bin is logwatch's
// absolute path, key the jump key's (both passed CheckPath).
func Conf(bin, key string) []byte {
	q := bin
	var b strings.Builder
	b.WriteString("# logwatch: agent session states in tmux. Written by `logwatch tmux install`,\n")
	b.WriteString("# replaced by it and removed by `logwatch tmux uninstall` (docs/tmux.md).\n")
	for _, f := range []struct{ opt, val string }{
		{"window-status-format", DotOption},
		{"window-status-current-format", DotOption},
		{"status-right", SummaryOption},
	} {
		// Prefixed once: the check keeps a re-source from adding it twice.
		fmt.Fprintf(&b, "if-shell -F '#{m:*%s*,#{%s}}' '' \"set-option -gF %s '##{?%s,##{%s} ,}#{%s}'\"\n",
			f.val, f.opt, f.opt, f.val, f.val, f.opt)
	}
	for _, h := range focusHooks {
		fmt.Fprintf(&b, "set-hook -g '%s[%d]' 'wait-for -S %s'\n", h, HookIndex, FocusChannel)
	}
	// An older tmux refuses a hook it does not know.
	fmt.Fprintf(&b, "%%if \"#{m/r:%s,#{version}}\"\n", focusVersions)
	for _, h := range terminalHooks {
		fmt.Fprintf(&b, "set-hook -g '%s[%d]' 'wait-for -S %s'\n", h, HookIndex, FocusChannel)
	}
	// Without focus-events a terminal in the background still counts as
	// looked at, and its pane's waits never alert. Turned on only if off,
	// marked so uninstall turns off only what install turned on.
	fmt.Fprintf(&b, "if-shell -F '#{focus-events}' '' 'set-option -g focus-events on ; set-option -g %s on'\n", focusEventsMark)
	b.WriteString("%endif\n")
	// The client that pressed the key is the one to switch.
	fmt.Fprintf(&b, "bind-key %s run-shell -b '%s next --switch --client \"#{client_name}\"'\n", key, q)
	// Its output would pile up in tmux's job buffer and show in a pane.
	fmt.Fprintf(&b, "run-shell -b '%s tmux follow >/dev/null 2>&1'\n", q)
	return []byte(b.String())
}

// UnsetCommands undo Conf in a running server (the formats' prefixes are
// the caller's: it needs their values).
func UnsetCommands(key string) [][]string {
	var cmds [][]string
	for _, h := range slices.Concat(focusHooks, terminalHooks) {
		cmds = append(cmds, []string{"set-hook", "-gu", fmt.Sprintf("%s[%d]", h, HookIndex)})
	}
	cmds = append(cmds, []string{"unbind-key", key}, []string{"set-option", "-gu", SummaryOption},
		[]string{"if-shell", "-F", "#{" + focusEventsMark + "}", "set-option -gu focus-events ; set-option -gu " + focusEventsMark})
	return cmds
}

// focusEventsMark is set when Conf turned focus-events on.
const focusEventsMark = "@logwatch-focus-events"

// FormatPrefixes are the prefixes Conf adds to the user's formats, by
// option.
var FormatPrefixes = map[string]string{
	"window-status-format":         "#{?" + DotOption + ",#{" + DotOption + "} ,}",
	"window-status-current-format": "#{?" + DotOption + ",#{" + DotOption + "} ,}",
	"status-right":                 "#{?" + SummaryOption + ",#{" + SummaryOption + "} ,}",
}

// sourceLine is the line the user's tmux.conf gets.
func sourceLine(conf, mark string) string {
	return "source-file -q " + conf + " " + mark + "\n"
}

// AddSource returns the user's tmux.conf (nil: there is none) with the
// line sourcing conf, and whether it changed: a file that already has one
// is kept as it is.
func AddSource(user []byte, exists bool, conf string) ([]byte, bool) {
	if _, _, ok := findSource(user); ok {
		return user, false
	}
	switch {
	case !exists:
		return []byte(sourceLine(conf, markerCreated)), true
	case len(user) > 0 && user[len(user)-1] != '\n':
		return append(append(bytes.Clone(user), '\n'), sourceLine(conf, markerNewline)...), true
	}
	return append(bytes.Clone(user), sourceLine(conf, marker)...), true
}

// RemoveSource undoes AddSource: the file as it was before, whether it is
// to be removed (install created it), and whether anything changed.
func RemoveSource(user []byte) (out []byte, remove, changed bool) {
	start, end, ok := findSource(user)
	if !ok {
		return user, false, false
	}
	line := string(user[start:end])
	out = append(bytes.Clone(user[:start]), user[end:]...)
	switch {
	case strings.HasSuffix(strings.TrimSpace(line), markerCreated):
		return out, len(out) == 0, true
	case strings.HasSuffix(strings.TrimSpace(line), markerNewline) && start > 0 && end == len(user):
		out = out[:len(out)-1] // the line break install put before its line
	}
	return out, false, true
}

// findSource finds logwatch's line in a tmux.conf: [start, end) with its
// line break.
func findSource(user []byte) (start, end int, ok bool) {
	for off := 0; off < len(user); {
		e := bytes.IndexByte(user[off:], '\n')
		next := len(user)
		if e >= 0 {
			next = off + e + 1
		}
		l := strings.TrimSpace(string(user[off:next]))
		if strings.HasPrefix(l, "source-file ") && (strings.HasSuffix(l, marker) || strings.HasSuffix(l, markerNewline) || strings.HasSuffix(l, markerCreated)) {
			return off, next, true
		}
		off = next
	}
	return 0, 0, false
}
