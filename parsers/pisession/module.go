package pisession

import (
	"bytes"
	"encoding/json"
)

// Module is an extension logwatch writes whole from a template (pi and omp
// load the same kind of TypeScript module): the template starts with
// Marker and names the binary on the line
// `const LOGWATCH = "__LOGWATCH_BIN__";`.
type Module struct {
	Template, Marker []byte
}

// binPlaceholder is where the template names the binary, as a JS string.
const binPlaceholder = `"__LOGWATCH_BIN__"`

// Source is the extension that runs bin.
func (m Module) Source(bin string) []byte {
	q, _ := json.Marshal(bin) // a JSON string is a JS string literal
	return bytes.Replace(m.Template, []byte(binPlaceholder), q, 1)
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
