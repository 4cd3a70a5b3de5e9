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
	// claude (set by the caller) also reads, in the same pass, what a Claude
	// user or assistant line's evidence needs (c), and stops the scan at a
	// system type, which is parsed whole: the parse validates the line, so
	// scanning on would be work done twice. partial then reports that the
	// scan stopped there.
	claude, partial bool
	c               claudeHead
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
// strings are short: their end is found 8 bytes at a time without a call,
// in four unrolled steps where the line has 32 bytes left (one bounds
// check for the four). Only quotes are looked for: a backslash matters
// only right before one.
func skipString(b []byte, i int) int {
	if i+32 <= len(b) {
		w := b[i : i+32 : i+32]
		if m := quotes(binary.LittleEndian.Uint64(w[0:])); m != 0 {
			return closeAt(b, i, i+bits.TrailingZeros64(m)/8)
		}
		if m := quotes(binary.LittleEndian.Uint64(w[8:])); m != 0 {
			return closeAt(b, i, i+8+bits.TrailingZeros64(m)/8)
		}
		if m := quotes(binary.LittleEndian.Uint64(w[16:])); m != 0 {
			return closeAt(b, i, i+16+bits.TrailingZeros64(m)/8)
		}
		if m := quotes(binary.LittleEndian.Uint64(w[24:])); m != 0 {
			return closeAt(b, i, i+24+bits.TrailingZeros64(m)/8)
		}
		return skipEscaped(b, i, i+32)
	}
	k := i
	for ; k+8 <= len(b); k += 8 {
		if m := quotes(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			return closeAt(b, i, k+bits.TrailingZeros64(m)/8)
		}
	}
	// b[i:k] holds no quote: search on from k.
	return skipEscaped(b, i, k)
}

// quotes marks, in the high bit of each byte of w, the bytes that are '"';
// the lowest marked byte is exact (higher ones may be false).
func quotes(w uint64) uint64 {
	q := w ^ ('"' * lsb)
	return (q - lsb) &^ q & msb
}

// closeAt finishes skipString at the quote at e, the first after start.
func closeAt(b []byte, start, e int) int {
	if b[e-1] != '\\' { // b[start-1] is the opening quote
		return e + 1
	}
	return skipEscaped(b, start, e)
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
	if i+32 <= len(b) {
		w := b[i : i+32 : i+32]
		if m := quoteOrSlash(binary.LittleEndian.Uint64(w[0:])); m != 0 {
			return keyAt(b, i, i+bits.TrailingZeros64(m)/8)
		}
		if m := quoteOrSlash(binary.LittleEndian.Uint64(w[8:])); m != 0 {
			return keyAt(b, i, i+8+bits.TrailingZeros64(m)/8)
		}
		if m := quoteOrSlash(binary.LittleEndian.Uint64(w[16:])); m != 0 {
			return keyAt(b, i, i+16+bits.TrailingZeros64(m)/8)
		}
		if m := quoteOrSlash(binary.LittleEndian.Uint64(w[24:])); m != 0 {
			return keyAt(b, i, i+24+bits.TrailingZeros64(m)/8)
		}
		// b[i:i+32] holds neither a quote nor a backslash.
		e := skipEscaped(b, i, i+32)
		return e, e > 0 && bytes.IndexByte(b[i+32:e-1], '\\') >= 0
	}
	for k := i; k+8 <= len(b); k += 8 {
		if m := quoteOrSlash(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			return keyAt(b, i, k+bits.TrailingZeros64(m)/8)
		}
	}
	e := skipEscaped(b, i, i)
	return e, e > 0 && bytes.IndexByte(b[i:e-1], '\\') >= 0
}

// keyAt finishes skipKey at e, the first quote or backslash after start.
func keyAt(b []byte, start, e int) (int, bool) {
	if b[e] == '"' {
		return e + 1, false
	}
	return skipEscaped(b, start, e), true
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
		case h.claude:
			if i >= len(b) {
				return -1
			}
			i = h.c.member(b, key, i)
			goto next
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
			if h.claude && h.exact && !payload && dst == &h.typ && string(v) == "system" {
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

// stopped is headObject's result when h.claude ended the scan early.
const stopped = -2

// scanHead scans line, filling h. It reports whether line is a JSON object
// as fastjson.Parser accepts it; when it is not, the line is malformed.
// With claude, a line whose scan stopped (h.partial) is valid only as far
// as it was scanned.
func scanHead(line []byte, h *head, claude bool) bool {
	*h = head{exact: true, claude: claude}
	h.c.exact = true
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

// scanLine scans line into s; claude also reads the Claude fields (see head).
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

// claudeHead is what a Claude user or assistant line's evidence depends on,
// read by the head scan in the same pass: most user lines carry a tool
// result (often a whole file) that is only ever "activity", and an assistant
// line's evidence is its last block, its stop reason and its tool.
type claudeHead struct {
	sid, cwd, ver                      []byte // nil: absent or not a string
	sidechain, meta, compact, apiError bool
	seen                               uint8 // top-level keys met, by claudeKey bit

	// message.content: 's' a string (text), 'a' an array, 0 anything else
	// or absent.
	content    byte
	text       []byte // the string, or the first text block's text
	blocks     int
	texts      int
	toolResult bool // a block of type tool_result
	// prompts counts the blocks a prompt is made of (text, image,
	// document); odd is the first block of a type a user line is not known
	// to carry, nil if none.
	prompts int
	odd     []byte
	oddSeen bool

	// Assistant: message.stop_reason a string (and "end_turn"), model
	// "<synthetic>", the last block's type, and the last tool block's name
	// and object input (its extent in the line; in1 0: none).
	stopStr, stopEnd, synthetic bool
	last                        []byte
	tool                        bool // a tool_use or server_tool_use block
	toolName                    []byte
	in0, in1                    int

	// exact: no escape in any key on the way or any value read, except a
	// text that is never looked at (textEsc).
	exact   bool
	textEsc bool
}

// The top-level keys a claudeHead reads, as bits of seen: fastjson's Get
// returns the first of duplicate keys.
const (
	ckSession = 1 << iota
	ckCwd
	ckVersion
	ckSidechain
	ckMeta
	ckCompact
	ckAPIError
	ckMessage
)

// member reads a top-level member's value at b[i] (depth 2) if the
// evidence needs it, and returns the index after it.
func (c *claudeHead) member(b []byte, key []byte, i int) int {
	str := func(bit uint8, dst *[]byte) int {
		if c.seen&bit != 0 {
			return skipValue(b, i, 2)
		}
		c.seen |= bit
		if b[i] != '"' {
			return skipValue(b, i, 2)
		}
		v, esc, end := rawStr(b, i)
		if esc {
			c.exact = false
		}
		*dst = v
		return end
	}
	flag := func(bit uint8, dst *bool) int {
		if c.seen&bit == 0 {
			c.seen |= bit
			*dst = len(b)-i >= 4 && string(b[i:i+4]) == "true"
		}
		return skipValue(b, i, 2)
	}
	switch string(key) {
	case "sessionId":
		return str(ckSession, &c.sid)
	case "cwd":
		return str(ckCwd, &c.cwd)
	case "version":
		return str(ckVersion, &c.ver)
	case "isSidechain":
		return flag(ckSidechain, &c.sidechain)
	case "isMeta":
		return flag(ckMeta, &c.meta)
	case "isCompactSummary":
		return flag(ckCompact, &c.compact)
	case "isApiErrorMessage":
		return flag(ckAPIError, &c.apiError)
	case "message":
		first := c.seen&ckMessage == 0
		c.seen |= ckMessage
		if first && b[i] == '{' {
			return messageObject(b, i+1, c)
		}
	}
	return skipValue(b, i, 2)
}

// rawStr reads a string value at b[i] ('"'): its raw bytes and whether it
// has an escape.
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
// clears *exact for an escaped key.
func objectKeys(b []byte, i, depth int, exact *bool, val func(key []byte, i int) int) int {
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
			*exact = false
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

// messageObject reads message.content, stop_reason and model (depth 2).
func messageObject(b []byte, i int, c *claudeHead) int {
	var content, stop, model bool
	return objectKeys(b, i, 2, &c.exact, func(key []byte, i int) int {
		switch {
		case string(key) == "content" && !content:
			content = true
			switch b[i] {
			case '"':
				v, esc, end := rawStr(b, i)
				c.content, c.text, c.textEsc = 's', v, esc
				return end
			case '[':
				c.content = 'a'
				return contentArray(b, i+1, c)
			}
		case string(key) == "stop_reason" && !stop:
			stop = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				if esc {
					c.exact = false
				}
				c.stopStr, c.stopEnd = true, string(v) == "end_turn"
				return end
			}
		case string(key) == "model" && !model:
			model = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				if esc {
					c.exact = false
				}
				c.synthetic = string(v) == "<synthetic>"
				return end
			}
		}
		return skipValue(b, i, 3)
	})
}

// contentArray reads the blocks of message.content (depth 3; blocks 4).
func contentArray(b []byte, i int, c *claudeHead) int {
	i = ws(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		i = ws(b, i)
		if i >= len(b) {
			return -1
		}
		c.blocks++
		if b[i] == '{' {
			i = block(b, i+1, c)
		} else {
			c.last = nil
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

// block reads one content block's type, text, name and input (depth 4;
// values 5).
func block(b []byte, i int, c *claudeHead) int {
	var typ, text, name []byte
	var typSeen, textSeen, nameSeen, inSeen, textEsc, nameEsc bool
	in0, in1 := 0, 0
	i = objectKeys(b, i, 4, &c.exact, func(key []byte, i int) int {
		switch {
		case string(key) == "type" && !typSeen:
			typSeen = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				if esc {
					c.exact = false
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
		case string(key) == "name" && !nameSeen:
			nameSeen = true
			if b[i] == '"' {
				v, esc, end := rawStr(b, i)
				name, nameEsc = v, esc
				return end
			}
		case string(key) == "input" && !inSeen:
			inSeen = true
			if b[i] == '{' {
				end := skipValue(b, i, 5)
				in0, in1 = i, end
				return end
			}
		}
		return skipValue(b, i, 5)
	})
	if i < 0 {
		return i
	}
	c.last = typ
	switch string(typ) {
	case "tool_result":
		c.toolResult = true
	case "text":
		c.texts++
		c.prompts++
		if c.texts == 1 {
			c.text, c.textEsc = text, textEsc
		}
	case "image", "document":
		c.prompts++
	default:
		if !c.oddSeen {
			c.odd, c.oddSeen = typ, true
		}
	}
	switch string(typ) {
	case "tool_use", "server_tool_use":
		c.tool = true
		if nameEsc {
			c.exact = false
		}
		c.toolName = name
		if in1 > 0 {
			c.in0, c.in1 = in0, in1
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
