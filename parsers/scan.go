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
type Head struct {
	Typ, TS, PTyp []byte
	// Exact: every wanted value was found as a string without escapes and no
	// key on the way had an escape, so the raw bytes are what fastjson's Get
	// would return. When it is false the caller parses the line instead.
	Exact bool
	// HasType, HasTS, HasPType: the key was present (its value may not be a
	// string: then the bytes are nil, as GetStringBytes returns).
	HasType, HasTS, HasPType bool
	// Payload: the first top-level "payload" key has an object value.
	Payload, HasPayload bool
	// Partial: the scan stopped at a type the agent's Member asked to stop
	// at (Member.Stop); the line is valid only as far as it was scanned.
	Partial bool
	m       Member
}

// Member is an agent's own part of the head scan: it reads, in the same
// pass, the top-level members its evidence needs beyond the type and
// timestamp. The scan calls Member for every other top-level key; Stop
// ends the scan at a top-level type the agent parses whole anyway (the
// parse validates the line, so scanning on would be work done twice).
type Member interface {
	// Member reads the value of key at b[i] (depth 2) and returns the
	// index after it, or -1 when the line is malformed.
	Member(b, key []byte, i int) int
	Stop(typ []byte) bool
}

// MaxDepth mirrors fastjson.MaxDepth: deeper documents are malformed.
const MaxDepth = 300

// The skip functions take the line and the index of the next byte and return
// the index after what they skipped, or -1 when the line is malformed. They
// keep the index in a register and touch each byte of a string's content
// only through bytes.IndexByte, which is where nearly all bytes are.

// WS skips whitespace; the common case (none) is inlined at every call.
func WS(b []byte, i int) int {
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

// SkipString skips a string whose opening quote is at i-1. A quote closes
// it when an even number of backslashes precede it, as in fastjson. Most
// strings are short: their end is found 8 bytes at a time without a call,
// in four unrolled steps where the line has 32 bytes left (one bounds
// check for the four). Only quotes are looked for: a backslash matters
// only right before one.
func SkipString(b []byte, i int) int {
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

// closeAt finishes SkipString at the quote at e, the first after start.
func closeAt(b []byte, start, e int) int {
	if b[e-1] != '\\' { // b[start-1] is the opening quote
		return e + 1
	}
	return skipEscaped(b, start, e)
}

// skipEscaped finishes SkipString from k (no closing quote before it).
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

// SkipKey is SkipString that also tells whether the key has an escape.
func SkipKey(b []byte, i int) (int, bool) {
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

// keyAt finishes SkipKey at e, the first quote or backslash after start.
func keyAt(b []byte, start, e int) (int, bool) {
	if b[e] == '"' {
		return e + 1, false
	}
	return skipEscaped(b, start, e), true
}

// SkipValue skips one value at depth (the depth it has once entered, as
// fastjson counts it).
func SkipValue(b []byte, i, depth int) int {
	if i >= len(b) || depth > MaxDepth {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i+1)
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
	var open [MaxDepth/64 + 1]uint64
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
		if i = WS(b, i+1); i >= len(b) {
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
			if i = SkipString(b, i+1); i < 0 {
				return -1
			}
			if i = WS(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = WS(b, i+1)
		}
		// A member value at depth+level.
		if i >= len(b) || depth+level > MaxDepth {
			return -1
		}
		switch b[i] {
		case '"':
			i = SkipString(b, i+1)
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
		if i = WS(b, i); i >= len(b) {
			return -1
		}
		switch c := b[i]; {
		case c == ',':
			if i = WS(b, i+1); i >= len(b) {
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
func headObject(b []byte, i, depth int, h *Head, payload bool) int {
	i = WS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		i = WS(b, i)
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		ks := i + 1
		var kesc bool
		if i, kesc = SkipKey(b, ks); i < 0 {
			return -1
		}
		key := b[ks : i-1]
		if kesc {
			// fastjson may match an escaped key after unescaping it.
			h.Exact = false
		}
		i = WS(b, i)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = WS(b, i+1)
		var dst *[]byte
		var seen *bool
		switch {
		case payload:
			if string(key) == "type" {
				dst, seen = &h.PTyp, &h.HasPType
			}
		case string(key) == "type":
			dst, seen = &h.Typ, &h.HasType
		case string(key) == "timestamp":
			dst, seen = &h.TS, &h.HasTS
		case string(key) == "payload" && !h.HasPayload:
			// Only the first "payload" is the one fastjson's Get returns.
			h.HasPayload = true
			if i < len(b) && b[i] == '{' && depth+1 <= MaxDepth {
				h.Payload = true
				i = headObject(b, i+1, depth+1, h, true)
				goto Next
			}
		case h.m != nil:
			if i >= len(b) {
				return -1
			}
			i = h.m.Member(b, key, i)
			goto Next
		}
		if dst != nil && !*seen && i < len(b) && b[i] == '"' && depth+1 <= MaxDepth {
			// fastjson's Get returns the first; a nil value is "not a string".
			*seen = true
			vs := i + 1
			if i = SkipString(b, vs); i < 0 {
				return -1
			}
			v := b[vs : i-1]
			if bytes.IndexByte(v, '\\') >= 0 {
				h.Exact = false
			}
			*dst = v
			if h.m != nil && h.Exact && !payload && dst == &h.Typ && h.m.Stop(v) {
				h.Partial = true
				return stopped
			}
		} else {
			if dst != nil {
				*seen = true
			}
			i = SkipValue(b, i, depth+1)
		}
	Next:
		if i < 0 {
			return -1
		}
		var again bool
		if i, again = Next(b, i, '}'); !again {
			return i
		}
	}
}

// stopped is headObject's result when the Member ended the scan early.
const stopped = -2

// scanHead scans line, filling h; m (nil: none) reads the agent's own
// members. It reports whether line is a JSON object as fastjson.Parser
// accepts it; when it is not, the line is malformed. A line whose scan
// stopped (h.Partial) is valid only as far as it was scanned.
func scanHead(line []byte, h *Head, m Member) bool {
	*h = Head{Exact: true, m: m}
	i := WS(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = headObject(line, i+1, 1, h, false)
	return i == stopped || i >= 0 && WS(line, i) == len(line)
}

// Scanned is the stateless first half of a Parse: the validating scan of a
// line's head and, where the parser can, the evidence itself. A Preparer
// fills it on any goroutine, ahead of the parser; ParseScanned then
// finishes the lines in file order. Parse is the two in one, so every caller
// goes through the same code.
type Scanned struct {
	H  Head
	OK bool
	// Done: Ev and Err are the line's whole evidence (it needs no state).
	Done bool
	Ev   Evidence
	Err  error
	// X is the agent's Member for this line, kept with it so that a
	// Preparer on another goroutine can fill it; reused with the Scanned.
	X Member
}

// ScanLine scans line into s, with m reading the agent's own members
// (nil: none).
func ScanLine(line []byte, s *Scanned, m Member) {
	s.OK = scanHead(line, &s.H, m)
	s.Done, s.Ev, s.Err = false, Evidence{}, nil
}

// ScanParser is a Parser whose Parse splits into a Preparer's Prepare and
// ParseScanned. The JSONL agents' parsers are: verify uses it to read a long file on
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

// RawStr reads a string value at b[i] ('"'): its raw bytes and whether it
// has an escape.
func RawStr(b []byte, i int) (v []byte, esc bool, end int) {
	end = SkipString(b, i+1)
	if end < 0 {
		return nil, false, -1
	}
	v = b[i+1 : end-1]
	return v, bytes.IndexByte(v, '\\') >= 0, end
}

// ObjectKeys walks an object whose '{' is at i-1, calling val for each key
// with the index of its value; val returns the index after the value. It
// clears *exact for an escaped key.
func ObjectKeys(b []byte, i, depth int, exact *bool, val func(key []byte, i int) int) int {
	i = WS(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		i = WS(b, i)
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		ks := i + 1
		var kesc bool
		if i, kesc = SkipKey(b, ks); i < 0 {
			return -1
		}
		if kesc {
			*exact = false
		}
		key := b[ks : i-1]
		i = WS(b, i)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		i = WS(b, i+1)
		if i >= len(b) || depth+1 > MaxDepth {
			return -1
		}
		if i = val(key, i); i < 0 {
			return -1
		}
		var again bool
		if i, again = Next(b, i, '}'); !again {
			return i
		}
	}
}

// Next steps past the whitespace and separator after a member of an object
// or array that close ends: the index after a ',' (again: another member
// follows), after close (the container is done), or -1 for anything else.
func Next(b []byte, i int, close byte) (int, bool) {
	i = WS(b, i)
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
