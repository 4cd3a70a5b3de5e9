package session

import (
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
)

// MaxText caps detail and reason text (SPEC §6).
const MaxText = 200

// Field groups read from a tool's input, in order (SPEC §6): what the agent
// acts on is found by field, never by tool name. The parsers pass on only
// these fields of a logged tool input.
var (
	commandFields = parsers.ToolCommandFields
	pathFields    = parsers.ToolPathFields
	targetFields  = parsers.ToolTargetFields
)

// parserPool keeps ToolDetail from allocating a parser per tool call.
var parserPool = sync.Pool{New: func() any { return new(fastjson.Parser) }}

// ToolDetail is the short text saying what a tool call acts on: its command,
// else its path (relative to cwd, or the base name outside it), else its URL
// or query. input is the tool input as a JSON object; "" when nothing fits.
func ToolDetail(tool string, input []byte, cwd string) string {
	if len(input) == 0 {
		return ""
	}
	p := parserPool.Get().(*fastjson.Parser)
	defer parserPool.Put(p)
	v, err := p.ParseBytes(input)
	if err != nil || v.Type() != fastjson.TypeObject {
		return ""
	}
	for _, f := range commandFields {
		c := v.Get(f)
		if c == nil {
			continue
		}
		cmd := commandText(c)
		if cmd == "" {
			continue
		}
		if tool == "apply_patch" || strings.HasPrefix(cmd, "*** Begin Patch") {
			return Cap(ShortPath(patchFile(cmd), cwd))
		}
		return Cap(cmd)
	}
	for _, f := range pathFields {
		if s := string(v.GetStringBytes(f)); s != "" {
			return Cap(ShortPath(s, cwd))
		}
	}
	for _, f := range targetFields {
		if s := string(v.GetStringBytes(f)); s != "" {
			return Cap(s)
		}
	}
	return ""
}

// commandText reads a command given as a string or as an argv array. A shell
// wrapper (["bash","-lc","ls"]) is shown as the script it runs.
func commandText(c *fastjson.Value) string {
	switch c.Type() {
	case fastjson.TypeString:
		return string(c.GetStringBytes())
	case fastjson.TypeArray:
		var argv []string
		for _, a := range c.GetArray() {
			if a.Type() == fastjson.TypeString {
				argv = append(argv, string(a.GetStringBytes()))
			}
		}
		if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") && isShell(argv[0]) {
			return argv[2]
		}
		return strings.Join(argv, " ")
	}
	return ""
}

func isShell(s string) bool {
	switch filepath.Base(s) {
	case "bash", "sh", "zsh", "dash", "fish":
		return true
	}
	return false
}

// patchFile is the file named on a patch's first Add/Update/Delete line.
func patchFile(patch string) string {
	for rest := patch; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		line = strings.TrimRight(line, "\r")
		for _, p := range []string{"*** Add File:", "*** Update File:", "*** Delete File:"} {
			if rest, ok := strings.CutPrefix(line, p); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}

// ShortPath shows path relative to cwd when it lies inside it, and only its
// base name when it lies outside.
func ShortPath(path, cwd string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return rel
		}
	}
	return filepath.Base(path)
}

// Cap shortens s to MaxText characters (runes), marking the cut with "…".
func Cap(s string) string {
	if len(s) <= MaxText || utf8.RuneCountInString(s) <= MaxText {
		return s
	}
	// Cut after MaxText-1 runes without decoding the rest.
	n := 0
	for i := range s {
		if n == MaxText-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
