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
	Close                              func()
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
		stop := context.AfterFunc(ctx, a.Close)
		return &Server{URL: a.URL, SlowPrompt: AnthSlow + " please", SlowScreen: AnthSlowScreen,
			ToolPrompt: AnthTool + " please run it", Close: func() { stop(); a.Close() }}, nil
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
			ToolPrompt: "run " + GeminiTool + " please", Close: g.Close}, nil
	}
	return nil, fmt.Errorf("fakemodel: no fake speaks %q", api)
}

// openAIServer is o with the prompts its scripts share (Responses and chat
// completions).
func openAIServer(o *OpenAI) *Server {
	return &Server{URL: o.URL, SlowPrompt: OpenAISlow + " stream please", SlowScreen: OpenAISlowScreen,
		ToolPrompt: "run " + OpenAITool + " please", Close: o.Close}
}
