package parsers

import (
	"github.com/valyala/fastjson"
)

// Detector decides which agent wrote a log from its first lines. It looks at
// the content, never the path: a file copied elsewhere is still recognised.
type Detector struct {
	p fastjson.Parser
}

// Line returns the agent a line identifies, or AgentUnknown when the line
// does not tell (malformed, or a shape no agent claims). Agents are asked
// in registration order, those with DetectFirst before the rest.
func (d *Detector) Line(line []byte) Agent {
	v, err := d.p.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return AgentUnknown
	}
	for _, first := range []bool{true, false} {
		for _, s := range All() {
			if s.DetectFirst == first && s.Detect != nil && s.Detect(v) {
				return s.Name
			}
		}
	}
	return AgentUnknown
}
