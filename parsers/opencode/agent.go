// Package opencode is everything logwatch knows about OpenCode (the
// opencode-ai package): its store, a SQLite database in WAL mode whose
// event rows are its log, the plugin that forwards its bus events as hooks,
// and its known-good release (formats/opencode.md in this folder).
package opencode

import (
	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Name is OpenCode's agent name.
const Name parsers.Agent = "opencode"

// configDir is OpenCode's configuration directory (a configuration path).
const configDir = "${XDG_CONFIG_HOME:-~/.config}/opencode"

// Spec is OpenCode as parsers.Register takes it.
func Spec() parsers.Spec {
	return parsers.Spec{
		Name:      Name,
		Bin:       "opencode",
		Title:     "OpenCode",
		NewParser: func() parsers.Parser { return NewParser() },
		Detect:    detect,
		Home:      configDir,
		KnownGood: agents.KnownGood(string(Name)),
	}
}

// detect recognises a line of the store reader's (store.Row.Line): an event
// row, with its rowid and session.
func detect(v *fastjson.Value) bool {
	return v.Exists("rowid") && v.Exists("seq") && v.Exists("session") && v.Exists("data")
}
