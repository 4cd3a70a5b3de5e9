package parsers

import "github.com/valyala/fastjson"

// bigLine is the longest line whose copy a parser keeps for reuse: fastjson
// copies every line it parses into a buffer it keeps, so after a huge tool
// result the parser is replaced and the copy is freed with the line.
const bigLine = 1 << 20

func DropBig(p *fastjson.Parser, n int) {
	if n > bigLine {
		*p = fastjson.Parser{}
	}
}
