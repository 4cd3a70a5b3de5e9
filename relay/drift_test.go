package relay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// Unknown drift never lies: a line type, a subtype, a content block or a
// payload type a new agent release writes and the parsers do not know,
// inserted at every position of a turn, changes nothing that is published
// (the turn's states, in order, and nothing after its end) beyond what a
// known line that says nothing would, and is counted by agent and version.
func TestUnknownDriftNeverLies(t *testing.T) {
	type agentTurn struct {
		agent    parsers.Agent
		session  string
		turn     []string
		quiet    string // a known line that says nothing
		unknowns []string
	}
	const cs, xs = "c1", "x1"
	at := func(typ, extra string) string {
		return xAt(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), typ, extra)
	}
	turns := []agentTurn{
		{claude, cs,
			[]string{cPrompt(cs, "hi"), cTool(cs, "ls"), cToolResult(cs, "a b"), cFinal(cs), cTurnDuration(cs, 0)},
			cMeta(cs),
			[]string{
				fmt.Sprintf(`{"type":"zz-hologram","sessionId":%q}`, cs),
				fmt.Sprintf(`{"type":"system","subtype":"zz_subtype","sessionId":%q,"level":"info"}`, cs),
				fmt.Sprintf(`{"type":"user","sessionId":%q,"message":{"role":"user","content":[{"type":"zz_block","data":"x"}]}}`, cs),
			}},
		{codex, xs,
			[]string{xMeta(xs), at("task_started", `,"turn_id":"t1"`),
				`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c"}}`,
				at("agent_message", `,"message":"ok"`), at("task_complete", `,"turn_id":"t1"`)},
			`{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w/app"}}`,
			[]string{
				`{"timestamp":"t","type":"zz_item","payload":{"type":"x"}}`,
				at("zz_event", `,"turn_id":"t1"`),
				`{"timestamp":"t","type":"response_item","payload":{"type":"zz_response"}}`,
			}},
	}
	run := func(t *testing.T, a agentTurn, lines []string) ([]string, Counters) {
		h := newHarness(t, Config{TurnQuiet: time.Second})
		for _, l := range lines {
			h.line(a.agent, a.session, l, false)
			h.clock.Advance(100 * time.Millisecond)
		}
		h.clock.Advance(time.Minute) // any quiet period is over
		return h.changes(), h.sync().Counters
	}
	for _, a := range turns {
		want, _ := run(t, a, a.turn)
		if len(want) < 2 || !strings.HasPrefix(want[len(want)-1], "done/") {
			t.Fatalf("%s: the plain turn publishes %q: not a finished turn", a.agent, want)
		}
		with := func(i int, l string) []string {
			return append(append(append([]string{}, a.turn[:i]...), l), a.turn[i:]...)
		}
		for i := 0; i <= len(a.turn); i++ {
			// What a line that says nothing does at i (first: a new log,
			// announced), an unknown one must do, no more.
			want, _ := run(t, a, with(i, a.quiet))
			for _, u := range a.unknowns {
				got, c := run(t, a, with(i, u))
				if strings.Join(got, " | ") != strings.Join(want, " | ") {
					t.Errorf("%s: %s at position %d:\n got  %q\n want %q", a.agent, u, i, got, want)
				}
				if c.LinesUnknown != 1 || len(c.Drift) != 1 {
					t.Errorf("%s: %s at position %d: lines_unknown %d, drift %v, want one", a.agent, u, i, c.LinesUnknown, c.Drift)
				}
			}
		}
	}
}
