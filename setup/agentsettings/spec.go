// Package agentsettings is the agents' own settings files, where their hooks
// are configured (each agent's parsers.Hooks names its file and events):
// installing, updating and removing exactly logwatch's handlers there, byte
// for byte around them.
package agentsettings

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/logwatch/logwatch/internal/jsonc"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/wire"
)

// Spec is what logwatch installs for one agent: the events SPEC §3 uses,
// the handler timeout, and which events take a tool matcher.
type Spec struct {
	Agent  string
	Events []string
	// Retired are events logwatch once installed that the agent's
	// known-good release (conformance/agents) does not have: install and
	// uninstall remove logwatch's handlers for them, doctor reports them.
	Retired []string
	timeout int
	name    string // the handler's "name", "" for none
	// matcher is written on the tool events (nil: no matcher key at all,
	// which every agent reads as "all").
	matcher   *string
	toolEvent map[string]bool
	// http, when set, makes install write Claude Code "http" handlers
	// that post to the loopback listener instead of command handlers.
	http *httpHook
	// drop are events whose logwatch handlers install removes.
	drop []string
	// httpOK: the agent can post hooks to a URL; note is printed after
	// an install (parsers.Hooks.InstallNote).
	httpOK bool
	note   string
	// ext: the agent takes a module logwatch writes whole (extension.go)
	// instead of handlers merged into a settings file.
	ext *parsers.Extension
	// flat: each event's array holds the handlers themselves, each
	// naming its event (parsers.Hooks.Flat: Copilot CLI).
	flat bool
}

// IsFile reports whether the agent's hooks are a module file logwatch
// writes whole rather than entries in a settings file.
func (h Spec) IsFile() bool { return h.ext != nil }

// WithHTTP is spec writing http handlers to url with secret. PermissionRequest
// is left out (and a logwatch handler there removed): Claude Code has been
// seen to deny the tool call when that http hook's endpoint is unreachable
// (anthropics/claude-code#46193), and a stopped daemon must never block an
// agent; its Notification permission_prompt still marks the session waiting.
func (h Spec) WithHTTP(url, secret string) Spec {
	h.http = &httpHook{url: url, secret: secret}
	h.Events = slices.DeleteFunc(slices.Clone(h.Events), func(ev string) bool { return ev == "PermissionRequest" })
	h.drop = []string{"PermissionRequest"}
	return h
}

// touched are the events whose handlers install and uninstall look at: the
// agent's, then the retired and dropped ones whose handlers go.
func (h Spec) touched() []string {
	out := slices.Clone(h.Events)
	for _, ev := range append(slices.Clone(h.Retired), h.drop...) {
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out
}

// httpHook is an http handler's target: the listener's hook URL and the
// per-user secret it requires.
type httpHook struct{ url, secret string }

// handler is the one handler logwatch writes for an event.
func (h Spec) handler(command string) jsonc.OMap {
	if h.http != nil {
		return jsonc.OMap{{K: "type", V: "http"}, {K: "url", V: h.http.url},
			{K: "headers", V: jsonc.OMap{{K: wire.SecretHeader, V: h.http.secret}, {K: wire.TabHeader, V: "$LOGWATCH_TAB"}}},
			{K: "allowedEnvVars", V: []any{"LOGWATCH_TAB"}}, {K: "timeout", V: h.timeout}}
	}
	if h.flat {
		return jsonc.OMap{{K: "type", V: "command"}, {K: "bash", V: command}, {K: "timeoutSec", V: h.timeout}}
	}
	hd := jsonc.OMap{{K: "type", V: "command"}, {K: "command", V: command}}
	if h.name != "" {
		hd = append(hd, jsonc.KV{K: "name", V: h.name})
	}
	return append(hd, jsonc.KV{K: "timeout", V: h.timeout})
}

// eventCommand is the command event's handler runs: in the flat shape
// it names the event, which the agent's payloads do not.
func (h Spec) eventCommand(event, command string) string {
	if h.flat && command != "" {
		return command + " --event " + event
	}
	return command
}

// commandKey is the handler's key that holds its command.
func (h Spec) commandKey() string {
	if h.flat {
		return "bash"
	}
	return "command"
}

// isOurURL recognises a logwatch http handler whatever port or secret it
// had: a POST to /hook on a loopback address carrying the secret header.
func isOurURL(hd *jsonc.Node) bool {
	typ, u, hs := hd.Get("type"), hd.Get("url"), hd.Get("headers")
	if typ == nil || typ.Str != "http" || u == nil || u.Kind != '"' || hs == nil || hs.Kind != '{' || hs.Get(wire.SecretHeader) == nil {
		return false
	}
	pu, err := url.Parse(u.Str)
	if err != nil || pu.Path != "/hook" || pu.Query().Get("agent") == "" {
		return false
	}
	return wire.CheckHTTPAddr(pu.Host) == nil
}

// Lookup is the spec of an agent, from its parsers.Spec; false for an agent
// that is not registered or has no hooks.
func Lookup(agent string) (Spec, bool) {
	ag := parsers.Lookup(parsers.Agent(agent))
	if ag == nil || len(ag.Hooks.Events) == 0 {
		return Spec{}, false
	}
	h := ag.Hooks
	sp := Spec{Agent: agent, Events: slices.Clone(h.Events), Retired: slices.Clone(h.Retired), timeout: h.Timeout,
		toolEvent: map[string]bool{}, httpOK: h.HTTP, note: h.InstallNote, ext: h.Extension, flat: h.Flat, name: h.HandlerName}
	if h.TimeoutMillis {
		sp.timeout *= 1000
	}
	if h.Matcher != "" {
		m := h.Matcher
		sp.matcher = &m
	}
	for _, ev := range h.ToolEvents {
		sp.toolEvent[ev] = true
	}
	return sp, true
}

// Agents are the registered agents that have hooks.
func Agents() []string {
	var out []string
	for _, s := range parsers.All() {
		if len(s.Hooks.Events) > 0 {
			out = append(out, string(s.Name))
		}
	}
	return out
}

// Command is the command line the agents run: the binary by absolute
// path, quoted for the shell when it needs to be.
func Command(bin, agent string) string {
	return shellQuote(bin) + " hook --agent " + agent
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// IsOurCommand recognises a logwatch hook handler whatever path the binary
// had: its first word is a program named logwatch and its second is "hook".
// A moved binary is then updated in place rather than installed twice.
func IsOurCommand(cmd string) bool {
	f := ShellFields(cmd)
	if len(f) < 2 || f[1] != "hook" {
		return false
	}
	name := f[0][strings.LastIndexAny(f[0], `/\`)+1:]
	return name == "logwatch" || name == "logwatch.exe"
}

// ShellFields splits a command line into words, honouring simple quotes.
func ShellFields(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// group is the matcher group logwatch owns for one event, on one line as
// the agents' documentation writes them.
func (h Spec) group(event, command string) jsonc.Inline {
	if h.flat {
		return jsonc.Inline{V: h.handler(h.eventCommand(event, command))}
	}
	var g jsonc.OMap
	if h.matcher != nil && h.toolEvent[event] {
		g = append(g, jsonc.KV{K: "matcher", V: *h.matcher})
	}
	return jsonc.Inline{V: append(g, jsonc.KV{K: "hooks", V: []any{h.handler(command)}})}
}

// errUnsupportedShape is a settings file that parses but is not laid out as
// the agent documents (hooks not an object, an event not an array).
var errUnsupportedShape = errors.New("unexpected layout")

// ourHandler is one logwatch handler found in an event's array.
type ourHandler struct {
	group, handler int
	alone          bool // the only handler of its group
	exact          bool // alone, and the group is exactly what we would write
}

// findOurs lists the logwatch handlers in an event's array of groups.
func (h Spec) findOurs(event string, arr *jsonc.Node, command string) []ourHandler {
	var out []ourHandler
	if h.flat {
		want := h.eventCommand(event, command)
		for i, hd := range arr.Elems {
			c := hd.Get("bash")
			if hd.Kind != '{' || c == nil || c.Kind != '"' || !IsOurCommand(c.Str) && (command == "" || c.Str != want) {
				continue
			}
			typ, to := hd.Get("type"), hd.Get("timeoutSec")
			exact := typ != nil && typ.Str == "command" && c.Str == want && to != nil && to.Kind == 'v'
			out = append(out, ourHandler{group: i, alone: true, exact: exact})
		}
		return out
	}
	for gi, g := range arr.Elems {
		hs := g.Get("hooks")
		if g.Kind != '{' || hs == nil || hs.Kind != '[' {
			continue
		}
		for hi, hd := range hs.Elems {
			if hd.Kind != '{' {
				continue
			}
			c := hd.Get("command")
			ourCmd := c != nil && c.Kind == '"' && (IsOurCommand(c.Str) || command != "" && c.Str == command)
			if !ourCmd && !isOurURL(hd) {
				continue
			}
			o := ourHandler{group: gi, handler: hi, alone: len(hs.Elems) == 1}
			o.exact = o.alone && h.isExact(event, g, hd, command)
			out = append(out, o)
		}
	}
	return out
}

// isExact reports whether a group holds exactly what install would write
// (other keys the user added to it are kept and do not count).
func (h Spec) isExact(event string, g, hd *jsonc.Node, command string) bool {
	m := g.Get("matcher")
	switch {
	case h.matcher != nil && h.toolEvent[event]:
		if m == nil || m.Kind != '"' || m.Str != *h.matcher {
			return false
		}
	case m != nil && !(m.Kind == '"' && (m.Str == "" || m.Str == "*")):
		return false
	}
	typ, c, to := hd.Get("type"), hd.Get("command"), hd.Get("timeout")
	if to == nil || to.Kind != 'v' || typ == nil {
		return false
	}
	if n := hd.Get("name"); h.name != "" && (n == nil || n.Str != h.name) {
		return false
	}
	if h.http == nil {
		return typ.Str == "command" && c != nil && c.Str == command
	}
	u, hs, env := hd.Get("url"), hd.Get("headers"), hd.Get("allowedEnvVars")
	if typ.Str != "http" || u == nil || u.Str != h.http.url || hs == nil || hs.Kind != '{' || env == nil || env.Kind != '[' {
		return false
	}
	sec, tab := hs.Get(wire.SecretHeader), hs.Get(wire.TabHeader)
	return sec != nil && sec.Str == h.http.secret && tab != nil && tab.Str == "$LOGWATCH_TAB" &&
		slices.ContainsFunc(env.Elems, func(e *jsonc.Node) bool { return e.Str == "LOGWATCH_TAB" })
}

// Plan returns the edited file: install puts exactly one logwatch
// group per event (updating a stale one in place), uninstall removes every
// logwatch handler and the arrays and objects left empty by that. Each step
// re-parses the result, so every splice works on true offsets.
func (h Spec) Plan(src []byte, command string, install bool) ([]byte, error) {
	if strings.TrimSpace(strings.TrimPrefix(string(src), "\xef\xbb\xbf")) == "" {
		if !install {
			return src, nil
		}
		src = []byte("{}\n")
	}
	for step := 0; ; step++ {
		root, err := jsonc.Parse(src)
		if err != nil {
			return nil, err
		}
		if step > 4*len(h.Events)+64 {
			return nil, errors.New("internal error: hook edits do not converge")
		}
		// Uninstall drops a "hooks" object left empty only when it
		// removed something from it: an empty one the user keeps stays.
		sp, err := h.nextEdit(src, root, command, install, step > 0)
		if err != nil || sp == nil {
			return src, err
		}
		src = sp.Apply(src)
	}
}

// nextEdit finds the first change still needed, or nil when the file is as
// it should be.
func (h Spec) nextEdit(src []byte, root *jsonc.Node, command string, install, removed bool) (*jsonc.Splice, error) {
	if root.Kind != '{' {
		return nil, fmt.Errorf("%w: the file is not a JSON object", errUnsupportedShape)
	}
	st := jsonc.DetectStyle(src, root)
	hooks := root.Get("hooks")
	if hooks == nil {
		if !install {
			return nil, nil
		}
		var events jsonc.OMap
		for _, ev := range h.Events {
			events = append(events, jsonc.KV{K: ev, V: []any{h.group(ev, command)}})
		}
		return h.insertMember(src, root, st, "hooks", events), nil
	}
	if hooks.Kind != '{' {
		return nil, fmt.Errorf("%w: \"hooks\" is not an object", errUnsupportedShape)
	}
	for _, ev := range h.touched() {
		// A retired or dropped event's handler goes, even on install.
		install := install && !slices.Contains(h.Retired, ev) && !slices.Contains(h.drop, ev)
		arr := hooks.Get(ev)
		if arr == nil {
			if !install {
				continue
			}
			return h.insertMember(src, hooks, st, ev, []any{h.group(ev, command)}), nil
		}
		if arr.Kind != '[' {
			return nil, fmt.Errorf("%w: \"hooks\".%q is not an array", errUnsupportedShape, ev)
		}
		ours := h.findOurs(ev, arr, command)
		keep := -1 // the one group install keeps
		if install {
			for i, o := range ours {
				if o.exact {
					keep = i
					break
				}
			}
			if keep < 0 {
				for _, o := range ours {
					if o.alone {
						// A moved binary or another timeout: rewrite
						// the group where it stands.
						g := arr.Elems[o.group]
						ci, _ := jsonc.LineIndent(src, g.Start)
						sp := jsonc.Splice{Start: g.Start, End: g.End, Text: jsonc.Render(h.group(ev, command), h.childStyle(src, arr, st), ci)}
						return &sp, nil
					}
				}
				sp := h.appendTo(src, arr, st, h.group(ev, command))
				return &sp, nil
			}
		}
		for i, o := range ours {
			if i == keep {
				continue
			}
			g := arr.Elems[o.group]
			if o.alone {
				if arr.Count() == 1 && !install {
					// The event's array would be left empty: drop the key.
					sp := jsonc.RemoveChild(src, hooks, hooks.Index(ev))
					return &sp, nil
				}
				sp := jsonc.RemoveChild(src, arr, o.group)
				return &sp, nil
			}
			sp := jsonc.RemoveChild(src, g.Get("hooks"), o.handler)
			return &sp, nil
		}
	}
	if !install && removed && hooks.Count() == 0 {
		// Ours was the last event: the "hooks" object goes too.
		sp := jsonc.RemoveChild(src, root, root.Index("hooks"))
		return &sp, nil
	}
	return nil, nil
}

// childStyle is the style for a new child of n: one line when n's children
// share a line.
func (h Spec) childStyle(src []byte, n *jsonc.Node, st jsonc.Style) jsonc.Style {
	if _, multi := jsonc.ChildIndent(src, n); !multi {
		st.Indent = ""
	}
	return st
}

func (h Spec) insertMember(src []byte, obj *jsonc.Node, st jsonc.Style, key string, v any) *jsonc.Splice {
	ci, _ := jsonc.ChildIndent(src, obj)
	k, _ := jsonc.MarshalNoEscape(key)
	sp := jsonc.AppendChild(src, obj, k+st.Colon+jsonc.Render(v, h.childStyle(src, obj, st), ci))
	return &sp
}

func (h Spec) appendTo(src []byte, arr *jsonc.Node, st jsonc.Style, v any) jsonc.Splice {
	ci, _ := jsonc.ChildIndent(src, arr)
	return jsonc.AppendChild(src, arr, jsonc.Render(v, h.childStyle(src, arr, st), ci))
}

// Status summarises a settings file for doctor: the events that have a
// logwatch handler (retired ones included) and the commands those run
// (none for http handlers).
func (h Spec) Status(src []byte) (installed []string, commands []string, err error) {
	if strings.TrimSpace(string(src)) == "" {
		return nil, nil, nil
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		return nil, nil, err
	}
	hooks := root.Get("hooks")
	if hooks == nil || hooks.Kind != '{' {
		return nil, nil, nil
	}
	seen := map[string]bool{}
	for _, ev := range h.touched() {
		arr := hooks.Get(ev)
		if arr == nil || arr.Kind != '[' {
			continue
		}
		ours := h.findOurs(ev, arr, "")
		if len(ours) == 0 {
			continue
		}
		installed = append(installed, ev)
		for _, o := range ours {
			hd := arr.Elems[o.group]
			if !h.flat {
				hd = hd.Get("hooks").Elems[o.handler]
			}
			cn := hd.Get(h.commandKey())
			if cn == nil {
				continue // an http handler: no binary to check
			}
			c := cn.Str
			if !seen[c] {
				seen[c] = true
				commands = append(commands, c)
			}
		}
	}
	return installed, commands, nil
}
