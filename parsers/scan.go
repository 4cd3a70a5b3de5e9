package parsers

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// A line's head is what the parsers need to classify it before any JSON
// parse: the raw bytes of its top-level "type" and "timestamp" strings and
// of the "type" inside a top-level "payload" object. Most bytes of a real log
// sit in lines whose type alone decides their evidence (tool results, API
// request blobs, token counts, compacted histories); those lines are only
// scanned, never parsed into values.
//
// The scan accepts exactly the lines fastjson.Parser accepts as an object, so
// that which lines count as malformed does not depend on whether they were
// parsed or only scanned (FuzzScanMatchesFastjson holds it to that).
type head struct {
	typ, ts, ptyp []byte
	// exact: every wanted value was found as a string without escapes and no
	// key on the way had an escape, so the raw bytes are what fastjson's Get
	// would return. When it is false the caller parses the line instead.
	exact bool
	// hasType, hasTS, hasPType: the key was present (its value may not be a
	// string: then the bytes are nil, as GetStringBytes returns).
	hasType, hasTS, hasPType bool
	// payload: the first top-level "payload" key has an object value.
	payload, hasPayload bool
	// stopContent (set by the caller) stops the scan at a top-level type
	// that a Claude parser parses whole anyway (user, assistant, system):
	// the parse validates the line, so scanning on would be work done twice.
	// partial then reports that the scan stopped there.
	stopContent, partial bool
}

// claudeContent reports the Claude line types whose evidence is in their
// content.
func claudeContent(t []byte) bool {
	switch string(t) {
	case "user", "assistant", "system":
		return true
	}
	return false
}

// maxDepth mirrors fastjson.MaxDepth: deeper documents are malformed.
const maxDepth = 300

// The skip functions take the line and the index of the next byte and return
// the index after what they skipped, or -1 when the line is malformed. They
// keep the index in a register and touch each byte of a string's content
// only through bytes.IndexByte, which is where nearly all bytes are.

// ws skips whitespace; the common case (none) is inlined at every call.
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return wsSlow(b, i)
}

func wsSlow(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// quoteOrSlash marks, in the high bit of each byte of w, the bytes that are
// '"' or '\\'; the lowest marked byte is exact (higher ones may be false).
func quoteOrSlash(w uint64) uint64 {
	q := w ^ ('"' * lsb)
	s := w ^ ('\\' * lsb)
	return ((q-lsb)&^q | (s-lsb)&^s) & msb
}

// skipString skips a string whose opening quote is at i-1. A quote closes
// it when an even number of backslashes precede it, as in fastjson. Most
// strings are short: their end is found 8 bytes at a time without a call.
// Only quotes are looked for: a backslash matters only right before one.
func skipString(b []byte, i int) int {
	k := i
	for ; k+8 <= len(b) && k-i < 32; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:]) ^ ('"' * lsb)
		// The lowest marked byte is a quote (higher ones may be false).
		if m := (w - lsb) &^ w & msb; m != 0 {
			e := k + bits.TrailingZeros64(m)/8
			if b[e-1] != '\\' { // b[i-1] is the opening quote
				return e + 1
			}
			return skipEscaped(b, i, e)
		}
	}
	// b[i:k] holds no quote: search on from k.
	return skipEscaped(b, i, k)
}

// skipEscaped finishes skipString from k (no closing quote before it).
func skipEscaped(b []byte, start, k int) int {
	i := k
	for {
		n := bytes.IndexByte(b[i:], '"')
		if n < 0 {
			return -1
		}
		q := i + n
		if b[q-1] != '\\' || q == start {
			return q + 1
		}
		j := q - 1
		for j > start && b[j-1] == '\\' {
			j--
		}
		i = q + 1
		if (q-j)%2 == 0 {
			return i
		}
	}
}

// skipKey is skipString that also tells whether the key has an escape.
func skipKey(b []byte, i int) (int, bool) {
	for k := i; k+8 <= len(b) && k-i < 32; k += 8 {
		if m := quoteOrSlash(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			e := k + bits.TrailingZeros64(m)/8
			if b[e] == '"' {
				return e + 1, false
			}
			return skipEscaped(b, i, e), true
		}
	}
	e := skipEscaped(b, i, i)
	return e, e > 0 && bytes.IndexByte(b[i:e-1], '\\') >= 0
}

// skipValue skips one value at depth (the depth it has once entered, as
// fastjson counts it).
func skipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > maxDepth {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i+1)
	case '{', '[':
		return skipNested(b, i, depth)
	case 't':
		return skipLit(b, i, "true")
	case 'f':
		return skipLit(b, i, "false")
	case 'n':
		return skipNull(b, i)
	}
	return skipNumber(b, i)
}

// skipNull skips null or, as fastjson's number parser takes it, nan.
func skipNull(b []byte, i int) int {
	if len(b)-i >= 4 && string(b[i:i+4]) == "null" {
		return i + 4
	}
	if len(b)-i >= 3 && bytes.EqualFold(b[i:i+3], []byte("nan")) {
		return i + 3
	}
	return -1
}

func skipLit(b []byte, i int, w string) int {
	if len(b)-i < len(w) || string(b[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// skipNumber mirrors fastjson's parseRawNumber, which is lenient: any run of
// digits, signs, dots and exponents, or an optionally signed inf/nan.
func skipNumber(b []byte, i int) int {
	k := i
	for ; k < len(b); k++ {
		ch := b[k]
		if numberByte[ch] {
			continue
		}
		if k == i || k == i+1 && (b[i] == '-' || b[i] == '+') {
			if len(b)-k >= 3 && (bytes.EqualFold(b[k:k+3], []byte("inf")) || bytes.EqualFold(b[k:k+3], []byte("nan"))) {
				return k + 3
			}
			return -1
		}
		return k
	}
	return len(b)
}

// numberByte marks the bytes of a raw number: digits, signs, dots, exponents.
var numberByte = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true,
	'6': true, '7': true, '8': true, '9': true, '.': true, '-': true, '+': true, 'e': true, 'E': true}

// skipNested skips the object or array at b[i], a value at depth, in one
// loop rather than a call per member: most of a line's values are nested
// inside the ones the head scan skips. open holds, per nesting level below
// the first, whether it is an object.
func skipNested(b []byte, i, depth int) int {
	var open [maxDepth/64 + 1]uint64
	level := 0 // containers open; their members are at depth+level
	obj := false
	for {
		// b[i] opens a container.
		obj = b[i] == '{'
		if obj {
			open[level/64] |= 1 << (level % 64)
		} else {
			open[level/64] &^= 1 << (level % 64)
		}
		level++
		if i = ws(b, i+1); i >= len(b) {
			return -1
		}
		if b[i] == '}' && obj || b[i] == ']' && !obj {
			i++
			goto closed
		}
	member:
		if obj {
			if b[i] != '"' {
				return -1
			}
			if i = skipString(b, i+1); i < 0 {
				return -1
			}
			if i = ws(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = ws(b, i+1)
		}
		// A member value at depth+level.
		if i >= len(b) || depth+level > maxDepth {
			return -1
		}
		switch b[i] {
		case '"':
			i = skipString(b, i+1)
		case '{', '[':
			continue
		case 't':
			i = skipLit(b, i, "true")
		case 'f':
			i = skipLit(b, i, "false")
		case 'n':
			i = skipNull(b, i)
		default:
			i = skipNumber(b, i)
		}
		if i < 0 {
			return -1
		}
	after: // a member of the innermost open container ends at i
		if i = ws(b, i); i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == ',':
			if i = ws(b, i+1); i >= len(b) {
				return -1
			}
			goto member
		case c == '}' && obj || c == ']' && !obj:
			i++
		default:
			return -1
		}
	closed:
		if level--; level == 0 {
			return i
		}
		l := level - 1
		obj = open[l/64]&(1<<(l%64)) != 0
		goto after
	}
}

// headObject is skipObject for the top level (payload false) or the
// payload object (payload true), recording the wanted keys into h.
func headObject(b []byte, i, depth int, h *head, payload bool) int {
	i = ws(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		i = ws(b, i)
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		ks := i + 1
		var kesc bool
		if i, kesc = skipKey(b, ks); i < 0 {
			return -1
		}
		key := b[ks : i-1]
		if kesc {
			// fastjson may match an escaped key after unescaping it.
			h.exact = false
		}
		i = ws(b, i)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = ws(b, i+1)
		var dst *[]byte
		var seen *bool
		switch {
		case payload:
			if string(key) == "type" {
				dst, seen = &h.ptyp, &h.hasPType
			}
		case string(key) == "type":
			dst, seen = &h.typ, &h.hasType
		case string(key) == "timestamp":
			dst, seen = &h.ts, &h.hasTS
		case string(key) == "payload" && !h.hasPayload:
			// Only the first "payload" is the one fastjson's Get returns.
			h.hasPayload = true
			if i < len(b) && b[i] == '{' && depth+1 <= maxDepth {
				h.payload = true
				i = headObject(b, i+1, depth+1, h, true)
				goto next
			}
		}
		if dst != nil && !*seen && i < len(b) && b[i] == '"' && depth+1 <= maxDepth {
			// fastjson's Get returns the first; a nil value is "not a string".
			*seen = true
			vs := i + 1
			if i = skipString(b, vs); i < 0 {
				return -1
			}
			v := b[vs : i-1]
			if bytes.IndexByte(v, '\\') >= 0 {
				h.exact = false
			}
			*dst = v
			if h.stopContent && h.exact && !payload && dst == &h.typ && claudeContent(v) {
				h.partial = true
				return stopped
			}
		} else {
			if dst != nil {
				*seen = true
			}
			i = skipValue(b, i, depth+1)
		}
	next:
		if i < 0 {
			return -1
		}
		var again bool
		if i, again = next(b, i, '}'); !again {
			return i
		}
	}
}

// stopped is headObject's result when h.stopContent ended the scan early.
const stopped = -2

// scanHead scans line, filling h. It reports whether line is a JSON object
// as fastjson.Parser accepts it; when it is not, the line is malformed.
// With stopContent, a line whose scan stopped (h.partial) is valid only as
// far as it was scanned.
func scanHead(line []byte, h *head, stopContent bool) bool {
	*h = head{exact: true, stopContent: stopContent}
	i := ws(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = headObject(line, i+1, 1, h, false)
	return i == stopped || i >= 0 && ws(line, i) == len(line)
}

// Scanned is the stateless first half of a Parse: the validating scan of a
// line's head and, where the parser can, the evidence itself. A Preparer
// fills it on any goroutine, ahead of the parser; ParseScanned then
// finishes the lines in file order. Parse is the two in one, so every caller
// goes through the same code.
type Scanned struct {
	h  head
	ok bool
	// done: ev and err are the line's whole evidence (it needs no state).
	done bool
	ev   Evidence
	err  error
}

// scanLine scans line into s; claude stops at a content type (see head).
func scanLine(line []byte, s *Scanned, claude bool) {
	s.ok = scanHead(line, &s.h, claude)
	s.done, s.ev, s.err = false, Evidence{}, nil
}

// ScanParser is a Parser whose Parse splits into a Preparer's Prepare and
// ParseScanned. Both parsers are: verify uses it to read a long file on
// several cores.
type ScanParser interface {
	Parser
	// NewPreparer returns a Preparer for one goroutine.
	NewPreparer() Preparer
	// ParseScanned is Parse for a line a Preparer has prepared into s.
	ParseScanned(line []byte, s *Scanned) (Evidence, error)
}

// Preparer does the part of parsing a line that needs nothing from the
// lines before it. It is not safe for concurrent use: one per goroutine.
type Preparer interface {
	Prepare(line []byte, s *Scanned)
}

// userHead is what a Claude user line's evidence depends on, scanned
// without a parse: most user lines carry a tool result (often a whole file)
// that is only ever "activity".
type userHead struct {
	sid, cwd, ver, ts        []byte // nil: absent or not a string
	sidechain, meta, compact bool
	// content: 's' a string (text), 'a' an array, 0 anything else or absent.
	content    byte
	text       []byte // the string, or the first text block's text
	blocks     int
	texts      int
	toolResult bool // a block of type tool_result
	// exact: no escape in any key on the way or any value read, except a
	// text that is never looked at.
	exact   bool
	textEsc bool
}

// scanUser scans a whole line into u with the same acceptance as scanHead.
func scanUser(b []byte, u *userHead) bool {
	*u = userHead{exact: true}
	i := ws(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = userObject(b, i+1, u)
	return i >= 0 && ws(b, i) == len(b)
}

// rawStr reads a string value at b[i] ('"'): its raw bytes and whether it
// has an escape. ok is false when the value is not a string (it is then
// skipped by the caller).
func rawStr(b []byte, i int) (v []byte, esc bool, end int) {
	end = skipString(b, i+1)
	if end < 0 {
		return nil, false, -1
	}
	v = b[i+1 : end-1]
	return v, bytes.IndexByte(v, '\\') >= 0, end
}

// objectKeys walks an object whose '{' is at i-1, calling val for each key
// with the index of its value; val returns the index after the value. It
// marks u inexact for an escaped key.
func objectKeys(b []byte, i, depth int, u *userHead, val func(key []byte, i int) int) int {
	i = ws(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		i = ws(b, i)
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		ks := i + 1
		var kesc bool
		if i, kesc = skipKey(b, ks); i < 0 {
			return -1
		}
		if kesc {
			u.exact = false
		}
		key := b[ks : i-1]
		i = ws(b, i)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = ws(b, i+1)
		if i >= len(b) || depth+1 > maxDepth {
			return -1
		}
		if i = val(key, i); i < 0 {
			return -1
		}
		var again bool
		if i, again = next(b, i, '}'); !again {
			return i
		}
	}
}

func userObject(b []byte, i int, u *userHead) int {
	var seen [8]bool // sessionId cwd version timestamp isSidechain isMeta isCompactSummary message
	str := func(k int, dst *[]byte, i int) int {
		if seen[k] {
			return skipValue(b, i, 2)
		}
		seen[k] = true
		if b[i] != '"' {
			return skipValue(b, i, 2)
		}
		v, esc, end := rawStr(b, i)
		if esc {
			u.exact = false
		}
		*dst = v
		return end
	}
	flag := func(k int, dst *bool, i int) int {
		if !seen[k] {
			seen[k] = true
			*dst = len(b)-i >= 4 && string(b[i:i+4]) == "true"
		}
		return skipValue(b, i, 2)
	}
	return objectKeys(b, i, 1, u, func(key []byte, i int) int {
		switch string(key) {
		case "sessionId":
			return str(0, &u.sid, i)
		case "cwd":
			return str(1, &u.cwd, i)
		case "version":
			return str(2, &u.ver, i)
		case "timestamp":
			return str(3, &u.ts, i)
		case "isSidechain":
			return flag(4, &u.sidechain, i)
		case "isMeta":
			return flag(5, &u.meta, i)
		case "isCompactSummary":
			return flag(6, &u.compact, i)
		case "message":
			if seen[7] || b[i] != '{' {
				seen[7] = true
				return skipValue(b, i, 2)
			}
			seen[7] = true
			return messageObject(b, i+1, u)
		}
		return skipValue(b, i, 2)
	})
}

// messageObject reads message.content (depth 2).
func messageObject(b []byte, i int, u *userHead) int {
	seen := false
	return objectKeys(b, i, 2, u, func(key []byte, i int) int {
		if seen || string(key) != "content" {
			return skipValue(b, i, 3)
		}
		seen = true
		switch b[i] {
		case '"':
			v, esc, end := rawStr(b, i)
			u.content, u.text, u.textEsc = 's', v, esc
			return end
		case '[':
			u.content = 'a'
			return contentArray(b, i+1, u)
		}
		return skipValue(b, i, 3)
	})
}

// contentArray reads the blocks of message.content (depth 3; blocks 4).
func contentArray(b []byte, i int, u *userHead) int {
	i = ws(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		i = ws(b, i)
		if i >= len(b) {
			return -1
		}
		u.blocks++
		if b[i] == '{' {
			i = block(b, i+1, u)
		} else {
			i = skipValue(b, i, 4)
		}
		if i < 0 {
			return -1
		}
		var again bool
		if i, again = next(b, i, ']'); !again {
			return i
		}
	}
}

// block reads one content block's type and text (depth 4; values 5).
func block(b []byte, i int, u *userHead) int {
	var typ, text []byte
	var typSeen, textSeen, textEsc bool
	i = objectKeys(b, i, 4, u, func(key []byte, i int) int {
		switch {
		case string(key) == "type" && !typSeen:
			typSeen = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				if esc {
					u.exact = false
				}
				typ = v
				return end
			}
		case string(key) == "text" && !textSeen:
			textSeen = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				text, textEsc = v, esc
				return end
			}
		}
		return skipValue(b, i, 5)
	})
	switch string(typ) {
	case "tool_result":
		u.toolResult = true
	case "text":
		u.texts++
		if u.texts == 1 {
			u.text, u.textEsc = text, textEsc
		}
	}
	return i
}

// next steps past the whitespace and separator after a member of an object
// or array that close ends: the index after a ',' (again: another member
// follows), after close (the container is done), or -1 for anything else.
func next(b []byte, i int, close byte) (int, bool) {
	i = ws(b, i)
	if i >= len(b) {
		return -1, false
	}
	switch b[i] {
	case ',':
		return i + 1, true
	case close:
		return i + 1, false
	}
	return -1, false
}
