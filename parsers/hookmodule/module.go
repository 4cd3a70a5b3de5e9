// Package hookmodule writes the hook modules (extensions, plugins) that
// agents which load JavaScript modules run: one whole file per agent, from
// the agent's template and the shared sender that reaches logwatch.
package hookmodule

import (
	"bytes"
	_ "embed"
	"encoding/json"
)

// Module is a hook module logwatch writes whole from a template: the
// template starts with Marker, and its line starting senderLine becomes
// sender.ts (how a module reaches logwatch: the same for every agent),
// which names the binary on the line `const LOGWATCH = "__LOGWATCH_BIN__";`.
type Module struct {
	Template, Marker []byte
	Agent            string // what `logwatch hook --agent` is told
}

// sender is the extensions' shared part.
//
//go:embed sender.ts
var sender []byte

const (
	senderLine = "// __LOGWATCH_SENDER__"
	// Where sender.ts names the binary and the agent, as JS strings.
	binPlaceholder   = `"__LOGWATCH_BIN__"`
	agentPlaceholder = `"__LOGWATCH_AGENT__"`
)

// Source is the extension that runs bin.
func (m Module) Source(bin string) []byte {
	q, _ := json.Marshal(bin) // a JSON string is a JS string literal
	a, _ := json.Marshal(m.Agent)
	s := bytes.Replace(sender, []byte(binPlaceholder), q, 1)
	s = bytes.Replace(s, []byte(agentPlaceholder), a, 1)
	out := m.Template
	if i := bytes.Index(out, []byte(senderLine)); i >= 0 {
		end := len(out)
		if j := bytes.IndexByte(out[i:], '\n'); j >= 0 {
			end = i + j + 1
		}
		out = append(append(append([]byte{}, out[:i]...), s...), out[end:]...)
	}
	return out
}

// Bin reads the binary back from an extension logwatch wrote, and whether
// src is one at all.
func (m Module) Bin(src []byte) (string, bool) {
	if !bytes.HasPrefix(src, m.Marker) {
		return "", false
	}
	const decl = "\nconst LOGWATCH = "
	i := bytes.Index(src, []byte(decl))
	if i < 0 {
		return "", true
	}
	rest := src[i+len(decl):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	var bin string
	if json.Unmarshal(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(";")), &bin) != nil {
		return "", true
	}
	return bin, true
}
