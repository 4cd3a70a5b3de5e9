// Package fakemodel is the local fake model servers agents are pointed at
// when logwatch drives them offline (selftest, the live conformance suite):
// a Messages API for Claude Code, a Responses API for Codex, chat
// completions for pi, omp, OpenCode and Copilot CLI and a Gemini API for
// Gemini CLI, on a free
// loopback port, scripted by keywords in the prompt, answering every
// request from their script and never reaching the network.
package fakemodel

import (
	"context"
	"fmt"
	"strings"
)

// The APIs, by the names an agent's parsers.Offline gives them.
const (
	APIAnthropic = "anthropic-messages"
	APIOpenAI    = "openai-responses"
	// APIOpenAIChat is chat completions (POST /v1/chat/completions), which
	// pi, omp, OpenCode and Copilot CLI speak.
	APIOpenAIChat = "openai-chat"
	APIGemini     = "gemini-generate-content"
)

// What the slow answers show on the screen once they are streaming.
const (
	AnthSlowScreen   = "word5 "
	OpenAISlowScreen = "streaming slowly"
)

// Server is one running fake, whichever its API, with the prompts its
// script understands.
type Server struct {
	URL string // the base URL the agent is given
	// SlowPrompt streams a long answer, which SlowScreen shows once it is
	// underway; ToolPrompt asks for a tool that needs the user's approval;
	// any other prompt gets a short answer.
	SlowPrompt, SlowScreen, ToolPrompt string
	// SlowAnswered says whether the latest SlowPrompt's answer was
	// streamed to its end: the agent never cut it (an interrupt does).
	SlowAnswered func() bool
	Close        func()
}

// lastAnswered is SlowAnswered over a fake's requests: the last one whose
// prompt holds keyword, and whether it was answered to its end.
func lastAnswered[R any](reqs []R, keyword string, prompt func(R) string, answered func(R) bool) bool {
	for i := len(reqs) - 1; i >= 0; i-- {
		if strings.Contains(prompt(reqs[i]), keyword) {
			return answered(reqs[i])
		}
	}
	return false
}

// Start starts the fake speaking api, logging its requests into dir,
// until Close or ctx ends.
func Start(ctx context.Context, api, dir string) (*Server, error) {
	switch api {
	case APIAnthropic:
		a, err := StartAnthropic(dir)
		if err != nil {
			return nil, err
		}
		return anthropicServer(ctx, a), nil
	case APIOpenAI:
		o, err := StartOpenAI(ctx, dir, nil)
		if err != nil {
			return nil, err
		}
		return openAIServer(o), nil
	case APIOpenAIChat:
		o, err := StartOpenAI(ctx, dir, DefaultChatScript)
		if err != nil {
			return nil, err
		}
		return openAIServer(o), nil
	case APIGemini:
		g, err := StartGemini(ctx, dir, nil)
		if err != nil {
			return nil, err
		}
		return &Server{URL: g.URL, SlowPrompt: GeminiSlow + " stream please", SlowScreen: GeminiSlowScreen,
			ToolPrompt: "run " + GeminiTool + " please", Close: g.Close,
			SlowAnswered: func() bool {
				return lastAnswered(g.Requests(), GeminiSlow, func(r GeminiRequest) string { return r.LastUser },
					func(r GeminiRequest) bool { return r.Outcome == "complete" })
			}}, nil
	}
	return nil, fmt.Errorf("fakemodel: no fake speaks %q", api)
}

// anthropicServer is a with the prompts its script understands, closed
// when ctx ends.
func anthropicServer(ctx context.Context, a *Anthropic) *Server {
	stop := context.AfterFunc(ctx, a.Close)
	return &Server{URL: a.URL, SlowPrompt: AnthSlow + " please", SlowScreen: AnthSlowScreen,
		ToolPrompt: AnthTool + " please run it", Close: func() { stop(); a.Close() },
		SlowAnswered: func() bool {
			return lastAnswered(a.Requests(), AnthSlow, func(r AnthropicRequest) string { return r.Last },
				func(r AnthropicRequest) bool { return !r.Finished.IsZero() })
		}}
}

// openAIServer is o with the prompts its scripts share (Responses and chat
// completions).
func openAIServer(o *OpenAI) *Server {
	return &Server{URL: o.URL, SlowPrompt: OpenAISlow + " stream please", SlowScreen: OpenAISlowScreen,
		ToolPrompt: "run " + OpenAITool + " please", Close: o.Close,
		SlowAnswered: func() bool {
			return lastAnswered(o.Requests(), OpenAISlow, func(r OpenAIRequest) string { return r.LastUser },
				func(r OpenAIRequest) bool { return r.Outcome == "complete" })
		}}
}
