package parsers

import "testing"

// TestSetRetry: a recorded retry decision turns a failed answer the parser
// took for final into the retried one and back; evidence of anything else
// stays as it is.
func TestSetRetry(t *testing.T) {
	final := Evidence{Kind: KindActivity, Type: "message/assistant", Final: true, End: EndAPIError}
	retried := Evidence{Kind: KindActivity, Type: "message/assistant", Retry: true}
	answer := Evidence{Kind: KindActivity, Type: "message/assistant", Final: true}
	prompt := Evidence{Kind: KindTurnStart, Type: "message/user"}
	for _, c := range []struct {
		name  string
		in    Evidence
		retry bool
		want  Evidence
	}{
		{"final, recorded retried", final, true, retried},
		{"retried, recorded final", retried, false, final},
		{"final, recorded final", final, false, final},
		{"retried, recorded retried", retried, true, retried},
		{"an answer", answer, true, answer},
		{"a prompt", prompt, true, prompt},
	} {
		ev := c.in
		ev.SetRetry(c.retry)
		if ev.Kind != c.want.Kind || ev.Final != c.want.Final || ev.End != c.want.End || ev.Retry != c.want.Retry {
			t.Errorf("%s: %+v, want %+v", c.name, ev, c.want)
		}
	}
}
