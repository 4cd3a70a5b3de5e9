package config

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// Values is the effective value of every key, as the daemon uses it;
// socket is the one it listens on (the default when none is set).
func (c Config) Values(socket string) map[string]any {
	v := map[string]any{
		"socket":                socket,
		"interrupt.window":      c.Interrupt.Window.String(),
		"interrupt.esc_timeout": c.Interrupt.EscTimeout.String(),
		"max_line_bytes":        c.MaxLineBytes,
		"worktrees":             c.Worktrees,
		"turn_quiet":            c.TurnQuiet.String(),
		"record_max_bytes":      c.RecordMaxBytes,
		"line_buffer_bytes":     c.LineBufferBytes,
		"http":                  c.HTTP,
		"checkpoint":            c.Checkpoint,
		"log.level":             c.Log.Level,
		"log.format":            c.Log.Format,
		"remotes":               remoteValues(c.Remotes),
		"notify.done":           c.Notify.Done,
		"notify.rate":           c.Notify.Rate.String(),
		"notify.timeout":        c.Notify.Timeout.String(),
		"notify.sinks":          sinkValues(c.Notify.Sinks),
	}
	for _, s := range parsers.All() {
		a := c.Agents[string(s.Name)]
		v["agents."+string(s.Name)+".roots"] = a.Roots
		v["agents."+string(s.Name)+".registry"] = a.RegistryDirs()
	}
	return v
}

// remoteValues shows each remote as "name=dest", with its command and ssh
// arguments when set.
func remoteValues(rs []RemoteConfig) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		s := r.Name + "=" + r.Dest
		if r.Command != "" {
			s += " (command " + r.Command + ")"
		}
		if len(r.SSH) > 0 {
			s += " (ssh " + strings.Join(r.SSH, " ") + ")"
		}
		out = append(out, s)
	}
	return out
}

// sinkValues shows each sink by type, with a webhook's URL masked (an
// ntfy topic is its password) and a token only by where it comes from.
func sinkValues(ss []SinkConfig) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		d := MaskURL(describeSink(s))
		if s.Type == SinkWebhook {
			d += " (" + cmp.Or(s.Format, "ntfy") + ")"
		}
		if s.TokenEnv != "" {
			d += " (token from $" + s.TokenEnv + ")"
		}
		if s.TokenFile != "" {
			d += " (token from " + s.TokenFile + ")"
		}
		if s.Withdraw {
			d += " (on withdraw too)"
		}
		out = append(out, d)
	}
	return out
}

// ShowValue is a value as `logwatch config` prints it.
func ShowValue(v any) string {
	switch v := v.(type) {
	case []string:
		if len(v) == 0 {
			return "[]"
		}
		return "[" + strings.Join(v, ", ") + "]"
	case string:
		if v == "" {
			return `""`
		}
		return v
	case time.Duration:
		return v.String()
	}
	return fmt.Sprint(v)
}
