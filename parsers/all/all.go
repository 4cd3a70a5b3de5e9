// Package all registers every agent logwatch knows. Adding an agent is its
// package under parsers/ and one line here. The order is the order agents
// are asked to recognise a log line and the order of their roots: an agent
// whose line test is broader goes after those it could take lines from.
package all

import (
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
	"github.com/logwatch/logwatch/parsers/copilot"
	"github.com/logwatch/logwatch/parsers/gemini"
	"github.com/logwatch/logwatch/parsers/omp"
	"github.com/logwatch/logwatch/parsers/opencode"
	"github.com/logwatch/logwatch/parsers/pi"
)

func init() {
	parsers.Register(claude.Spec())
	parsers.Register(copilot.Spec())  // its typed events linked by parentId, with a data object, are like no other agent's line
	parsers.Register(opencode.Spec()) // its rows (rowid, seq, session, data) are like no other agent's line
	parsers.Register(omp.Spec())      // before pi, whose lines omp's share: only omp's own lines say omp
	parsers.Register(pi.Spec())       // before Codex, whose bare items share pi's "message" type
	parsers.Register(codex.Spec())
	parsers.Register(gemini.Spec()) // its line test goes first all the same (Spec.DetectFirst)
}
