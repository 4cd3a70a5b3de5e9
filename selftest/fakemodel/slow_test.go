package fakemodel

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSlowAnswered: each fake says whether the latest SLOW answer was
// streamed to its end: not before it is asked, yes once read to its end
// (Anthropic's sped up; the others take OpenAISlowStream), and no again
// when the next one's client walks away mid-stream (an interrupt the agent
// took).
func TestSlowAnswered(t *testing.T) {
	for _, c := range []struct{ api, path, body string }{
		{APIAnthropic, "/v1/messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"SLOW please"}]}]}`},
		{APIOpenAI, "/responses", `{"model":"m","tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"SLOW stream please"}]}]}`},
		{APIGemini, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"SLOW stream please"}]}]}`},
	} {
		t.Run(c.api, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var s *Server
			if c.api == APIAnthropic {
				a, err := StartAnthropic(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				a.SlowChunks, a.SlowDelay = 20, 10*time.Millisecond
				s = anthropicServer(ctx, a)
			} else {
				var err error
				if s, err = Start(ctx, c.api, t.TempDir()); err != nil {
					t.Fatal(err)
				}
			}
			defer s.Close()
			if s.SlowAnswered() {
				t.Fatal("answered before it was asked")
			}
			ask := func(cut bool) {
				t.Helper()
				rctx, rcancel := context.WithCancel(ctx)
				defer rcancel()
				req, _ := http.NewRequestWithContext(rctx, http.MethodPost, s.URL+c.path, strings.NewReader(c.body))
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				br := bufio.NewReader(resp.Body)
				for lines := 0; ; lines++ {
					if _, err := br.ReadString('\n'); err != nil || cut && lines > 2 {
						return
					}
				}
			}
			ask(false)
			// Noted as its last write returns: a bound on a hang, not a timing.
			for end := time.Now().Add(10 * time.Second); !s.SlowAnswered(); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatal("an answer read to its end does not count as answered")
				}
			}
			ask(true)
			if s.SlowAnswered() {
				t.Fatal("an answer cut mid-stream counts as answered")
			}
		})
	}
}
