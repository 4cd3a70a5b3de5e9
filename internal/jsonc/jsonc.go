// Package jsonc edits JSON files that belong to other programs without
// re-encoding them (JSONC: comments and a BOM allowed).
package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The hook installer edits other programs' settings files with it. It never
// re-encodes them: it parses the file into a tree that remembers where each
// value sits, and splices text in or out at those offsets, so key order,
// indentation, number spelling, string escapes and // or /* */ comments
// (JSONC, which some editors and tools add) are left byte for byte.

// Node is one JSON value and its byte span [start, end) in the source.
type Node struct {
	Kind    byte // '{', '[', '"' or 'v' (number, true, false, null)
	Start   int
	End     int
	Members []Member // objects
	Elems   []*Node  // arrays
	Str     string   // strings, decoded
}

type Member struct {
	Key   string
	Start int // the key's opening quote
	Val   *Node
}

// Get returns an object's member value by key (the last one, as JSON
// parsers do with duplicates), or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != '{' {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Val
		}
	}
	return nil
}

// Index is the position of key among an object's members (the last one
// with that key), or -1.
func (n *Node) Index(key string) int {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return i
		}
	}
	return -1
}

// Count is the number of members or elements of a container.
func (n *Node) Count() int {
	if n.Kind == '{' {
		return len(n.Members)
	}
	return len(n.Elems)
}

// ChildSpan is the span of a container's i-th member (key to value end) or
// element.
func (n *Node) ChildSpan(i int) (int, int) {
	if n.Kind == '{' {
		return n.Members[i].Start, n.Members[i].Val.End
	}
	return n.Elems[i].Start, n.Elems[i].End
}

// SyntaxError says where a file stops being JSON, in editor terms.
type SyntaxError struct {
	line, col int
	msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

type jparser struct {
	src []byte
	pos int
}

// Parse parses one JSON value, allowing comments and a UTF-8 BOM.
// Trailing commas are refused: splicing next to one would be guesswork.
func Parse(src []byte) (*Node, error) {
	p := &jparser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.pos = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		return nil, p.errf("unexpected %q after the end of the document", src[p.pos])
	}
	return n, nil
}

func (p *jparser) errf(format string, args ...any) error {
	line, col := 1, 1
	for _, c := range p.src[:min(p.pos, len(p.src))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{line: line, col: col, msg: fmt.Sprintf(format, args...)}
}

// space skips whitespace and comments.
func (p *jparser) space() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errf("unterminated /* comment")
			}
			p.pos += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value(depth int) (*Node, error) {
	if depth > 200 {
		return nil, p.errf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of file")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		start := p.pos
		for p.pos < len(p.src) && bytes.IndexByte([]byte("+-.0123456789eEtruefalsn"), p.src[p.pos]) >= 0 {
			p.pos++
		}
		var v any
		if json.Unmarshal(p.src[start:p.pos], &v) != nil {
			p.pos = start
			return nil, p.errf("invalid literal %q", p.src[start:min(start+10, len(p.src))])
		}
		return &Node{Kind: 'v', Start: start, End: p.pos}, nil
	default:
		return nil, p.errf("unexpected %q", c)
	}
}

func (p *jparser) string() (*Node, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '\n':
			return nil, p.errf("newline inside a string")
		case '"':
			p.pos++
			n := &Node{Kind: '"', Start: start, End: p.pos}
			if err := json.Unmarshal(p.src[start:p.pos], &n.Str); err != nil {
				p.pos = start
				return nil, p.errf("invalid string: %v", err)
			}
			return n, nil
		}
		p.pos++
	}
	p.pos = start
	return nil, p.errf("unterminated string")
}

func (p *jparser) object(depth int) (*Node, error) {
	n := &Node{Kind: '{', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			if len(n.Members) > 0 {
				return nil, p.errf("trailing comma before '}'")
			}
			p.pos++
			n.End = p.pos
			return n, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errf("expected a quoted key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("expected ':' after key %q", k.Str)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Members = append(n.Members, Member{Key: k.Str, Start: k.Start, Val: v})
		if done, err := p.next('}'); err != nil || done {
			n.End = p.pos
			return n, err
		}
	}
}

func (p *jparser) array(depth int) (*Node, error) {
	n := &Node{Kind: '[', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			if len(n.Elems) > 0 {
				return nil, p.errf("trailing comma before ']'")
			}
			p.pos++
			n.End = p.pos
			return n, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		if done, err := p.next(']'); err != nil || done {
			n.End = p.pos
			return n, err
		}
	}
}

// next consumes the ',' or the closing bracket after a container's child.
func (p *jparser) next(close byte) (bool, error) {
	if err := p.space(); err != nil {
		return false, err
	}
	if p.pos >= len(p.src) {
		return false, p.errf("unexpected end of file, expected ',' or '%c'", close)
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		return false, nil
	case close:
		p.pos++
		return true, nil
	}
	return false, p.errf("expected ',' or '%c', found %q", close, p.src[p.pos])
}

// Splice is one edit: replace src[start:end] with text.
type Splice struct {
	Start, End int
	Text       string
}

// Apply returns src with the edit made.
func (s Splice) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(s.Text))
	out = append(out, src[:s.Start]...)
	out = append(out, s.Text...)
	return append(out, src[s.End:]...)
}

// Style is the formatting a file already uses, so inserted text looks as if
// the user wrote it: the indent unit ("" for a one-line file) and the text
// between a key and its value.
type Style struct {
	Indent string
	Colon  string
}

// DetectStyle reads the indent unit from the first member of the root
// object that starts its own line, and the key-value separator from it.
func DetectStyle(src []byte, root *Node) Style {
	st := Style{Indent: "  ", Colon: ": "}
	if root == nil || root.Kind != '{' || len(root.Members) == 0 {
		return st
	}
	m := root.Members[0]
	ind, ownLine := LineIndent(src, m.Start)
	if !ownLine {
		st.Indent = ""
	} else if base, _ := LineIndent(src, root.Start); strings.HasPrefix(ind, base) && len(ind) > len(base) {
		st.Indent = ind[len(base):]
	}
	// The separator is what lies between the key's end and the value,
	// unless a comment sits there.
	keyEnd := m.Start + 1
	for keyEnd < len(src) && src[keyEnd] != '"' {
		if src[keyEnd] == '\\' {
			keyEnd++
		}
		keyEnd++
	}
	if sep := string(src[keyEnd+1 : m.Val.Start]); strings.Trim(sep, " \t:") == "" && strings.Count(sep, ":") == 1 {
		st.Colon = sep
	}
	return st
}

// LineIndent returns the whitespace that starts the line holding pos, and
// whether only whitespace precedes pos on it.
func LineIndent(src []byte, pos int) (string, bool) {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	i := ls
	for i < pos && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i]), i == pos
}

// Render encodes v (scalars, []any, and ordered objects as OMap) at the
// given indentation: the first line is not indented (it follows a key or a
// comma), the following ones start at base.
func Render(v any, st Style, base string) string {
	var b strings.Builder
	renderTo(&b, v, st, base)
	return b.String()
}

// OMap is an object whose keys keep their order.
type OMap []KV

// KV is one member of an OMap.
type KV struct {
	K string
	V any
}

// Inline renders its value on one line whatever the file's style.
type Inline struct{ V any }

func renderTo(b *strings.Builder, v any, st Style, base string) {
	nl := func(ind string) {
		if st.Indent != "" {
			b.WriteString("\n" + ind)
		}
	}
	comma := ","
	if st.Indent == "" && strings.HasSuffix(st.Colon, " ") {
		comma = ", "
	}
	switch v := v.(type) {
	case Inline:
		renderTo(b, v.V, Style{Colon: st.Colon}, base)
	case OMap:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(base + st.Indent)
			k, _ := json.Marshal(m.K)
			b.Write(k)
			b.WriteString(st.Colon)
			renderTo(b, m.V, st, base+st.Indent)
		}
		nl(base)
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(base + st.Indent)
			renderTo(b, e, st, base+st.Indent)
		}
		nl(base)
		b.WriteByte(']')
	default:
		enc, _ := MarshalNoEscape(v)
		b.WriteString(enc)
	}
}

// MarshalNoEscape is json.Marshal without HTML escaping: a command line with
// & or > stays readable in the file.
func MarshalNoEscape(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// AppendChild adds text (an element, or `"key": value` for objects) at the
// end of container n, with the separator its existing children use.
// Rendered values must be produced with ChildIndent(n) as their base.
func AppendChild(src []byte, n *Node, text string) Splice {
	cnt := n.Count()
	if cnt == 0 {
		// An empty container: open it onto lines of its own (unless the
		// file is one line), replacing any whitespace between the brackets.
		inner := string(src[n.Start+1 : n.End-1])
		base, _ := LineIndent(src, n.Start)
		ins := text
		if strings.TrimSpace(inner) == "" {
			if ci, multi := ChildIndent(src, n); multi {
				ins = "\n" + ci + text + "\n" + base
			}
			return Splice{n.Start + 1, n.End - 1, ins}
		}
		return Splice{n.End - 1, n.End - 1, ins}
	}
	// The separator before the new child copies the whitespace before the
	// last one (after any comment), or before the first.
	var gap string
	s, _ := n.ChildSpan(cnt - 1)
	if cnt >= 2 {
		_, pe := n.ChildSpan(cnt - 2)
		gap = string(src[pe:s])
		gap = gap[strings.IndexByte(gap, ',')+1:]
	} else {
		gap = string(src[n.Start+1 : s])
	}
	ws := len(gap)
	for ws > 0 && strings.IndexByte(" \t\r\n", gap[ws-1]) >= 0 {
		ws--
	}
	gap = gap[ws:]
	_, e := n.ChildSpan(cnt - 1)
	// A // comment closing the last child's line stays with that child.
	if rest := src[e:]; true {
		eol := bytes.IndexByte(rest, '\n')
		if eol < 0 {
			eol = len(rest)
		}
		if line := bytes.TrimLeft(rest[:eol], " \t"); bytes.HasPrefix(line, []byte("//")) {
			return Splice{e, e + eol, "," + string(rest[:eol]) + gap + text}
		}
	}
	return Splice{e, e, "," + gap + text}
}

// ChildIndent is the indentation children of n have (or would have), and
// whether they go on lines of their own.
func ChildIndent(src []byte, n *Node) (string, bool) {
	if n.Count() > 0 {
		s, _ := n.ChildSpan(n.Count() - 1)
		return LineIndent(src, s)
	}
	st := DetectStyle(src, nil)
	if root, err := Parse(src); err == nil {
		st = DetectStyle(src, root)
	}
	base, _ := LineIndent(src, n.Start)
	return base + st.Indent, st.Indent != ""
}

// RemoveChild deletes container n's i-th child and the comma that joined it,
// so that AppendChild followed by RemoveChild gives back the same bytes.
func RemoveChild(src []byte, n *Node, i int) Splice {
	cnt := n.Count()
	s, e := n.ChildSpan(i)
	switch {
	case cnt == 1:
		return Splice{n.Start + 1, n.End - 1, ""}
	case i == cnt-1:
		// Comments between the two children stay, without the comma and
		// the line break that led to the removed one.
		_, pe := n.ChildSpan(i - 1)
		gap := strings.Replace(string(src[pe:s]), ",", "", 1)
		if strings.Contains(gap, "//") || strings.Contains(gap, "/*") {
			return Splice{pe, e, strings.TrimRight(gap, " \t\r\n")}
		}
		return Splice{pe, e, ""}
	default:
		ns, _ := n.ChildSpan(i + 1)
		return Splice{s, ns, ""}
	}
}
