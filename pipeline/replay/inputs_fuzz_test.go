package replay

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/logwatch/logwatch/relay"
)

// FuzzFromRecording: any recording lines turn into inputs and process
// answers without a panic (a registry line without its entry, a key before
// any tab process, unknown kinds).
func FuzzFromRecording(f *testing.F) {
	f.Add([]byte(`{"kind":"registry","start":5}` + "\n" + `{"kind":"tab_process","tab":"t","pid":7,"start":1}` + "\n" +
		`{"kind":"proc","op":"alive","pid":7,"start":1,"ok":true}` + "\n" + `{"kind":"timer","timer":3}` + "\n" + `{"kind":"key","tab":"t","key":"esc","at":"2026-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var lines []relay.RecordLine
		for _, ln := range bytes.Split(b, []byte("\n")) {
			var l relay.RecordLine
			if json.Unmarshal(ln, &l) == nil {
				lines = append(lines, l)
			}
		}
		inputs, _ := FromRecording(lines)
		Compare(Recorded(lines), nil)
		TimersRecorded(lines)
		fs := newFacts(inputs)
		for _, in := range inputs {
			fs.Alive(in.Pid, in.Start)
			fs.Descends(in.Pid, in.Ancestor)
			fs.Watch(in.Pid, in.Start)
		}
	})
}
