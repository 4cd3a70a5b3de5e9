package main

import (
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay"
)

// TestWriteStatusCounters: the text status shows what the README says it
// counts, interrupts with the key→marker latency included.
func TestWriteStatusCounters(t *testing.T) {
	var b strings.Builder
	st := relay.Status{Sessions: []relay.Event{}, Counters: relay.Counters{Keys: 3, InterruptCandidates: 2,
		InterruptsConfirmed: 1, InterruptsUnconfirmed: 1, KeyToMarkerLastMs: 261, KeyToMarkerMaxMs: 284, SubscriberResyncs: 4}}
	writeStatus(&b, st, false, time.Now())
	for _, want := range []string{"keys 3: 2 interrupt candidates, 1 confirmed, 1 unconfirmed", "key→marker last 261 ms, max 284 ms",
		"4 subscriber resyncs", "No session found"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, b.String())
		}
	}
}
