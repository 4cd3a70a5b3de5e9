// Package hookmodule writes the hook modules (extensions, plugins) that
// agents which load JavaScript modules run: one whole file per agent, from
// the agent's template and the shared sender that reaches logwatch.
package hookmodule

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
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

// Source is the extension that runs bin, with its sum (SumLine) as its
// second line.
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
	first := bytes.IndexByte(out, '\n') + 1
	sum := sha256.Sum256(out)
	line := SumLine + hex.EncodeToString(sum[:]) + "\n"
	return append(append(append(make([]byte, 0, len(out)+len(line)), out[:first]...), line...), out[first:]...)
}

// SumLine starts a module's second line: what follows is the SHA-256 of
// the rest of the file as logwatch wrote it, so that a file someone
// changed since (the header says it is then no longer logwatch's to
// update) is told from one logwatch wrote, of any release.
const SumLine = "// logwatch wrote this file; sha256 of its other lines: "

// Untouched reports whether src is a module logwatch wrote, as it wrote
// it: its sum holds, or it is the module of a release from before modules
// carried one (legacySums), for whatever binary.
func (m Module) Untouched(src []byte) bool {
	if !bytes.HasPrefix(src, m.Marker) {
		return false
	}
	first := bytes.IndexByte(src, '\n') + 1
	rest, ok := bytes.CutPrefix(src[first:], []byte(SumLine))
	if !ok {
		return legacySums[legacySum(src)]
	}
	end := bytes.IndexByte(rest, '\n')
	if first == 0 || end != 2*sha256.Size {
		return false
	}
	want, err := hex.DecodeString(string(rest[:end]))
	if err != nil {
		return false
	}
	h := sha256.New()
	h.Write(src[:first])
	h.Write(rest[end+1:])
	return bytes.Equal(h.Sum(nil), want)
}

// legacySum is the hex SHA-256 of a module with its binary's name put back
// to the placeholder.
func legacySum(src []byte) string {
	const decl = "\nconst LOGWATCH = "
	if i := bytes.Index(src, []byte(decl)); i >= 0 {
		start := i + len(decl)
		end := len(src)
		if j := bytes.IndexByte(src[start:], '\n'); j >= 0 {
			end = start + j
		}
		src = append(append(append([]byte{}, src[:start]...), binPlaceholder+";"...), src[end:]...)
	}
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
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
