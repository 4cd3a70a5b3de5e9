package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The hook installer edits other programs' settings files. It never
// re-encodes them: it parses the file into a tree that remembers where each
// value sits, and splices text in or out at those offsets, so key order,
// indentation, number spelling, string escapes and // or /* */ comments
// (JSONC, which some editors and tools add) are left byte for byte.

// jnode is one JSON value and its byte span [start, end) in the source.
type jnode struct {
	kind    byte // '{', '[', '"' or 'v' (number, true, false, null)
	start   int
	end     int
	members []jmember // objects
	elems   []*jnode  // arrays
	str     string    // strings, decoded
}

type jmember struct {
	key   string
	start int // the key's opening quote
	val   *jnode
}

// get returns an object's member value by key (the last one, as JSON
// parsers do with duplicates), or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

func (n *jnode) index(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// count is the number of members or elements of a container.
func (n *jnode) count() int {
	if n.kind == '{' {
		return len(n.members)
	}
	return len(n.elems)
}

// childSpan is the span of a container's i-th member (key to value end) or
// element.
func (n *jnode) childSpan(i int) (int, int) {
	if n.kind == '{' {
		return n.members[i].start, n.members[i].val.end
	}
	return n.elems[i].start, n.elems[i].end
}

// jsonSyntaxError says where a file stops being JSON, in editor terms.
type jsonSyntaxError struct {
	line, col int
	msg       string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

type jparser struct {
	src []byte
	pos int
}

// parseJSONC parses one JSON value, allowing comments and a UTF-8 BOM.
// Trailing commas are refused: splicing next to one would be guesswork.
func parseJSONC(src []byte) (*jnode, error) {
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
	return &jsonSyntaxError{line: line, col: col, msg: fmt.Sprintf(format, args...)}
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

func (p *jparser) value(depth int) (*jnode, error) {
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
		return &jnode{kind: 'v', start: start, end: p.pos}, nil
	default:
		return nil, p.errf("unexpected %q", c)
	}
}

func (p *jparser) string() (*jnode, error) {
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
			n := &jnode{kind: '"', start: start, end: p.pos}
			if err := json.Unmarshal(p.src[start:p.pos], &n.str); err != nil {
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

func (p *jparser) object(depth int) (*jnode, error) {
	n := &jnode{kind: '{', start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			if len(n.members) > 0 {
				return nil, p.errf("trailing comma before '}'")
			}
			p.pos++
			n.end = p.pos
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
			return nil, p.errf("expected ':' after key %q", k.str)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: k.str, start: k.start, val: v})
		if done, err := p.next('}'); err != nil || done {
			n.end = p.pos
			return n, err
		}
	}
}

func (p *jparser) array(depth int) (*jnode, error) {
	n := &jnode{kind: '[', start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			if len(n.elems) > 0 {
				return nil, p.errf("trailing comma before ']'")
			}
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		if done, err := p.next(']'); err != nil || done {
			n.end = p.pos
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

// splice is one edit: replace src[start:end] with text.
type splice struct {
	start, end int
	text       string
}

func (s splice) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(s.text))
	out = append(out, src[:s.start]...)
	out = append(out, s.text...)
	return append(out, src[s.end:]...)
}

// jstyle is the formatting a file already uses, so inserted text looks as if
// the user wrote it: the indent unit ("" for a one-line file) and the text
// between a key and its value.
type jstyle struct {
	indent string
	colon  string
}

// detectStyle reads the indent unit from the first member of the root
// object that starts its own line, and the key-value separator from it.
func detectStyle(src []byte, root *jnode) jstyle {
	st := jstyle{indent: "  ", colon: ": "}
	if root == nil || root.kind != '{' || len(root.members) == 0 {
		return st
	}
	m := root.members[0]
	ind, ownLine := lineIndent(src, m.start)
	if !ownLine {
		st.indent = ""
	} else if base, _ := lineIndent(src, root.start); strings.HasPrefix(ind, base) && len(ind) > len(base) {
		st.indent = ind[len(base):]
	}
	// The separator is what lies between the key's end and the value,
	// unless a comment sits there.
	keyEnd := m.start + 1
	for keyEnd < len(src) && src[keyEnd] != '"' {
		if src[keyEnd] == '\\' {
			keyEnd++
		}
		keyEnd++
	}
	if sep := string(src[keyEnd+1 : m.val.start]); strings.Trim(sep, " \t:") == "" && strings.Count(sep, ":") == 1 {
		st.colon = sep
	}
	return st
}

// lineIndent returns the whitespace that starts the line holding pos, and
// whether only whitespace precedes pos on it.
func lineIndent(src []byte, pos int) (string, bool) {
	ls := bytes.LastIndexByte(src[:pos], '\n') + 1
	i := ls
	for i < pos && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return string(src[ls:i]), i == pos
}

// render encodes v (scalars, []any, and ordered objects as omap) at the
// given indentation: the first line is not indented (it follows a key or a
// comma), the following ones start at base.
func render(v any, st jstyle, base string) string {
	var b strings.Builder
	renderTo(&b, v, st, base)
	return b.String()
}

// omap is an object whose keys keep their order.
type omap []kv

type kv struct {
	k string
	v any
}

// inline renders its value on one line whatever the file's style.
type inline struct{ v any }

func renderTo(b *strings.Builder, v any, st jstyle, base string) {
	nl := func(ind string) {
		if st.indent != "" {
			b.WriteString("\n" + ind)
		}
	}
	comma := ","
	if st.indent == "" && strings.HasSuffix(st.colon, " ") {
		comma = ", "
	}
	switch v := v.(type) {
	case inline:
		renderTo(b, v.v, jstyle{colon: st.colon}, base)
	case omap:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(base + st.indent)
			k, _ := json.Marshal(m.k)
			b.Write(k)
			b.WriteString(st.colon)
			renderTo(b, m.v, st, base+st.indent)
		}
		nl(base)
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(comma)
			}
			nl(base + st.indent)
			renderTo(b, e, st, base+st.indent)
		}
		nl(base)
		b.WriteByte(']')
	default:
		enc, _ := marshalNoEscape(v)
		b.WriteString(enc)
	}
}

// marshalNoEscape is json.Marshal without HTML escaping: a command line with
// & or > stays readable in the file.
func marshalNoEscape(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// appendChild adds text (an element, or `"key": value` for objects) at the
// end of container n, with the separator its existing children use.
// Rendered values must be produced with childIndent(n) as their base.
func appendChild(src []byte, n *jnode, text string) splice {
	cnt := n.count()
	if cnt == 0 {
		// An empty container: open it onto lines of its own (unless the
		// file is one line), replacing any whitespace between the brackets.
		inner := string(src[n.start+1 : n.end-1])
		base, _ := lineIndent(src, n.start)
		ins := text
		if strings.TrimSpace(inner) == "" {
			if ci, multi := childIndent(src, n); multi {
				ins = "\n" + ci + text + "\n" + base
			}
			return splice{n.start + 1, n.end - 1, ins}
		}
		return splice{n.end - 1, n.end - 1, ins}
	}
	// The separator before the new child copies the whitespace before the
	// last one (after any comment), or before the first.
	var gap string
	s, _ := n.childSpan(cnt - 1)
	if cnt >= 2 {
		_, pe := n.childSpan(cnt - 2)
		gap = string(src[pe:s])
		gap = gap[strings.IndexByte(gap, ',')+1:]
	} else {
		gap = string(src[n.start+1 : s])
	}
	ws := len(gap)
	for ws > 0 && strings.IndexByte(" \t\r\n", gap[ws-1]) >= 0 {
		ws--
	}
	gap = gap[ws:]
	_, e := n.childSpan(cnt - 1)
	// A // comment closing the last child's line stays with that child.
	if rest := src[e:]; true {
		eol := bytes.IndexByte(rest, '\n')
		if eol < 0 {
			eol = len(rest)
		}
		if line := bytes.TrimLeft(rest[:eol], " \t"); bytes.HasPrefix(line, []byte("//")) {
			return splice{e, e + eol, "," + string(rest[:eol]) + gap + text}
		}
	}
	return splice{e, e, "," + gap + text}
}

// childIndent is the indentation children of n have (or would have), and
// whether they go on lines of their own.
func childIndent(src []byte, n *jnode) (string, bool) {
	if n.count() > 0 {
		s, _ := n.childSpan(n.count() - 1)
		return lineIndent(src, s)
	}
	st := detectStyle(src, nil)
	if root, err := parseJSONC(src); err == nil {
		st = detectStyle(src, root)
	}
	base, _ := lineIndent(src, n.start)
	return base + st.indent, st.indent != ""
}

// removeChild deletes container n's i-th child and the comma that joined it,
// so that appendChild followed by removeChild gives back the same bytes.
func removeChild(src []byte, n *jnode, i int) splice {
	cnt := n.count()
	s, e := n.childSpan(i)
	switch {
	case cnt == 1:
		return splice{n.start + 1, n.end - 1, ""}
	case i == cnt-1:
		// Comments between the two children stay, without the comma and
		// the line break that led to the removed one.
		_, pe := n.childSpan(i - 1)
		gap := strings.Replace(string(src[pe:s]), ",", "", 1)
		if strings.Contains(gap, "//") || strings.Contains(gap, "/*") {
			return splice{pe, e, strings.TrimRight(gap, " \t\r\n")}
		}
		return splice{pe, e, ""}
	default:
		ns, _ := n.childSpan(i + 1)
		return splice{s, ns, ""}
	}
}
