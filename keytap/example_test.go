package keytap_test

import (
	"fmt"
	"time"

	"github.com/logwatch/logwatch/keytap"
)

// A pty proxy or host app forwards each chunk first, then feeds it to the
// decoder with its arrival time, and arms a timer from Deadline for a lone
// ESC that waits. Times are passed in, so this runs the same every time.
func Example() {
	d := keytap.New(keytap.DefaultEscTimeout)
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

	// The agent's output switches the terminal to the kitty protocol.
	d.ObserveOutput([]byte("\x1b[>1u\x1b[?2004h"))

	report := func(ps []keytap.Press) {
		for _, p := range ps {
			fmt.Println(p.Key, p.At.Sub(t0))
		}
	}
	report(d.Feed([]byte("hello"), at(0)))
	report(d.Feed([]byte("\x1b[200~rm -rf \x03\x1b[201~"), at(5))) // pasted: no key
	report(d.Feed([]byte("\x1b[99;5u"), at(10)))                   // kitty Ctrl+C
	report(d.Feed([]byte("\x1b"), at(20)))                         // raw ESC under kitty: waits
	if dl, ok := d.Deadline(); ok {
		report(d.Flush(dl)) // the timer fired: nothing followed
	}
	// Output:
	// CtrlC 10ms
	// Esc 20ms
}
