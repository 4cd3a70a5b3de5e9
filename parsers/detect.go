package parsers

import (
	"github.com/valyala/fastjson"
)

// claudeTypes are line types only Claude Code writes.
var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true}

// Detector decides which agent wrote a log from its first lines. It looks at
// the content, never the path: a file copied elsewhere is still recognised.
type Detector struct {
	p fastjson.Parser
}

// Line returns the agent a line identifies, or AgentUnknown when the line
// does not tell (malformed, or a shape both formats could have).
func (d *Detector) Line(line []byte) Agent {
	v, err := d.p.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return AgentUnknown
	}
	typ := string(v.GetStringBytes("type"))
	if p := v.Get("payload"); p != nil && p.Type() == fastjson.TypeObject && codexOuter[typ] {
		return AgentCodex
	}
	switch {
	case v.Get("record_type") != nil:
		return AgentCodex
	case typ == "" && v.Get("id") != nil && v.Get("instructions") != nil:
		return AgentCodex
	case codexItems[typ] && v.Get("payload") == nil:
		return AgentCodex
	case claudeTypes[typ] || claudeMeta[typ]:
		return AgentClaude
	case v.Get("sessionId") != nil || v.Get("parentUuid") != nil || v.Get("leafUuid") != nil:
		return AgentClaude
	}
	return AgentUnknown
}
