package session

import (
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
)

// TestTitle: the first prompt titles a session until the agent writes its
// own title, which wins and which a later one replaces; a title that comes
// with no change of state is published alone (a Retitled change), once the
// session is shown; a subagent's prompt never titles its parent.
func TestTitle(t *testing.T) {
	type step struct {
		hook  *parsers.Hook
		ev    parsers.Evidence
		title string
		rule  string // of the change published, "" none
	}
	prompt := func(text string) parsers.Evidence {
		return parsers.Evidence{Kind: parsers.KindTurnStart, Prompt: text}
	}
	titled := func(title string) parsers.Evidence { return parsers.Evidence{Type: "ai-title", Title: title} }
	renamed := func(title string) parsers.Evidence {
		return parsers.Evidence{Type: "custom-title", Title: title, TitleByUser: true}
	}
	submit := func(text, agentID string) *parsers.Hook {
		return &parsers.Hook{Event: "UserPromptSubmit", SessionID: "s", Prompt: text, AgentID: agentID}
	}
	stop := &parsers.Hook{Event: "Stop", SessionID: "s"}
	for name, steps := range map[string][]step{
		"log: prompt, then the agent's title, replaced": {
			{ev: titled("Before anything"), title: "Before anything"}, // not shown yet: nothing published
			{ev: prompt("second thoughts"), title: "Before anything", rule: "log.turn_start"},
			{ev: titled("Fix the bug"), title: "Fix the bug", rule: RuleLogTitle},
			{ev: titled("Fix the bug"), title: "Fix the bug"},
			{ev: titled("Fix the relay bug"), title: "Fix the relay bug", rule: RuleLogTitle},
			{ev: prompt("another prompt"), title: "Fix the relay bug"},
		},
		"log: the person's title holds against a generated one": {
			{ev: prompt("fix the bug"), title: "fix the bug", rule: "log.turn_start"},
			{ev: titled("Fix the bug"), title: "Fix the bug", rule: RuleLogTitle},
			{ev: renamed("relay work"), title: "relay work", rule: RuleLogTitle},
			{ev: titled("Fix the bug"), title: "relay work"}, // re-appended on a resume
			{ev: renamed("relay work, day 2"), title: "relay work, day 2", rule: RuleLogTitle},
		},
		"log: the first prompt is the fallback": {
			{ev: prompt("fix the bug"), title: "fix the bug", rule: "log.turn_start"},
			{ev: parsers.Evidence{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}, title: "fix the bug", rule: "log.turn_end"},
			{ev: prompt("and the tests"), title: "fix the bug", rule: "log.turn_start"},
		},
		"hooks: the prompt, its log echo, then the agent's title": {
			{hook: submit("fix the bug", ""), title: "fix the bug", rule: "hook.prompt"},
			{ev: prompt("fix the bug"), title: "fix the bug"},
			{hook: stop, title: "fix the bug", rule: "hook.stop"},
			{ev: titled("Fix the bug"), title: "Fix the bug", rule: RuleLogTitle},
		},
		"hooks: a subagent's prompt titles nothing": {
			{hook: &parsers.Hook{Event: "SessionStart", SessionID: "s"}, rule: "hook.session_start"},
			{hook: submit("subagent task", "a1")},
			{hook: submit("the real prompt", ""), title: "the real prompt", rule: "hook.prompt"},
		},
	} {
		s := New(claude.Name)
		s.ID = "s"
		for i, st := range steps {
			var ch Change
			var ok bool
			if st.hook != nil {
				ch, ok = s.Hook(*st.hook)
			} else {
				ch, ok = s.Log(st.ev)
			}
			if s.Title != st.title {
				t.Errorf("%s step %d: title %q, want %q", name, i, s.Title, st.title)
			}
			rule := ""
			if ok {
				rule = ch.Rule
			}
			if rule != st.rule || ok && ch.Retitled() != (st.rule == RuleLogTitle) {
				t.Errorf("%s step %d: change %+v %v, want rule %q", name, i, ch, ok, st.rule)
			}
			if ok && ch.Retitled() && (ch.State != s.State || s.Rule == ch.Rule) {
				t.Errorf("%s step %d: a title change %+v moved the state or its rule (%s)", name, i, ch, s.Rule)
			}
		}
	}
}
