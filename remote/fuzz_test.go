package remote

import (
	"bytes"
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// FuzzRemoteStream feeds anything a remote could print to the link's
// reader: it never panics, reports every event it accepts with an id the
// daemon could acknowledge back, and always ends the link with a reason.
// Seeds: testdata/fuzz/FuzzRemoteStream.
func FuzzRemoteStream(f *testing.F) {
	f.Add([]byte(hello + `{"ok":true,"protocol":1,"snapshot":1}` + "\n" + ev("a", "done") + ev("a", "working")))
	f.Add([]byte(hello + `{"ok":true,"protocol":1,"snapshot":99}` + "\n" + ev("a", "done")))
	f.Add([]byte(hello + `{"ok":true,"protocol":1,"snapshot":-5}` + "\n" + `{"ok":false,"error":"relay stopped"}` + "\n"))
	f.Add([]byte(`{"ok":true,"protocol":1,"remote":7}` + "\n"))
	f.Add([]byte("\x1b]52;c;aGk=\x07\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &sink{}
		l := &Link{cfg: Config{Name: "box", Dest: "box", Command: "logwatch"}, opt: Options{}.withDefaults(), sink: s,
			send: make(chan wire.Request, 1), log: zerolog.Nop()}
		l.opt.Hello = time.Minute
		// Its end, with or without an error of its own (then ssh's exit
		// says why), is the caller's to report.
		_ = l.read(context.Background(), bytes.NewReader(data))
		for _, u := range s.ups0() {
			evs := u.Events
			if u.Event != nil {
				evs = append(evs, *u.Event)
			}
			for _, e := range evs {
				if e.Session == "" || len(e.Session) > wire.MaxID || !utf8.ValidString(e.Session) {
					t.Fatalf("accepted an event with session %q", e.Session)
				}
			}
		}
	})
}
