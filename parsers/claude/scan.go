package claude

import "github.com/logwatch/logwatch/parsers"

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
// Stop implements parsers.Member: a system line is parsed whole.
func (c *claudeHead) Stop(typ []byte) bool { return string(typ) == "system" }

// Member implements parsers.Member.
func (c *claudeHead) Member(b []byte, key []byte, i int) int {
	str := func(bit uint8, dst *[]byte) int {
		if c.seen&bit != 0 {
			return parsers.SkipValue(b, i, 2)
		}
		c.seen |= bit
		if b[i] != '"' {
			return parsers.SkipValue(b, i, 2)
		}
		v, esc, end := parsers.RawStr(b, i)
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
		return parsers.SkipValue(b, i, 2)
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
	return parsers.SkipValue(b, i, 2)
}

// messageObject reads message.content, stop_reason and model (depth 2).
func messageObject(b []byte, i int, c *claudeHead) int {
	var content, stop, model bool
	return parsers.ObjectKeys(b, i, 2, &c.exact, func(key []byte, i int) int {
		switch {
		case string(key) == "content" && !content:
			content = true
			switch b[i] {
			case '"':
				v, esc, end := parsers.RawStr(b, i)
				c.content, c.text, c.textEsc = 's', v, esc
				return end
			case '[':
				c.content = 'a'
				return contentArray(b, i+1, c)
			}
		case string(key) == "stop_reason" && !stop:
			stop = true
			if b[i] == '"' {
				v, esc, end := parsers.RawStr(b, i)
				if esc {
					c.exact = false
				}
				c.stopStr, c.stopEnd = true, string(v) == "end_turn"
				return end
			}
		case string(key) == "model" && !model:
			model = true
			if b[i] == '"' {
				v, esc, end := parsers.RawStr(b, i)
				if esc {
					c.exact = false
				}
				c.synthetic = string(v) == "<synthetic>"
				return end
			}
		}
		return parsers.SkipValue(b, i, 3)
	})
}

// contentArray reads the blocks of message.content (depth 3; blocks 4).
func contentArray(b []byte, i int, c *claudeHead) int {
	i = parsers.WS(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		i = parsers.WS(b, i)
		if i >= len(b) {
			return -1
		}
		c.blocks++
		if b[i] == '{' {
			i = block(b, i+1, c)
		} else {
			c.last = nil
			i = parsers.SkipValue(b, i, 4)
		}
		if i < 0 {
			return -1
		}
		var again bool
		if i, again = parsers.Next(b, i, ']'); !again {
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
	i = parsers.ObjectKeys(b, i, 4, &c.exact, func(key []byte, i int) int {
		switch {
		case string(key) == "type" && !typSeen:
			typSeen = true
			if b[i] == '"' {
				v, esc, end := parsers.RawStr(b, i)
				if esc {
					c.exact = false
				}
				typ = v
				return end
			}
		case string(key) == "text" && !textSeen:
			textSeen = true
			if b[i] == '"' {
				v, esc, end := parsers.RawStr(b, i)
				text, textEsc = v, esc
				return end
			}
		case string(key) == "name" && !nameSeen:
			nameSeen = true
			if b[i] == '"' {
				v, esc, end := parsers.RawStr(b, i)
				name, nameEsc = v, esc
				return end
			}
		case string(key) == "input" && !inSeen:
			inSeen = true
			if b[i] == '{' {
				end := parsers.SkipValue(b, i, 5)
				in0, in1 = i, end
				return end
			}
		}
		return parsers.SkipValue(b, i, 5)
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
