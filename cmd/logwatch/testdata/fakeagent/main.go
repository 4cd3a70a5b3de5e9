// Command fakeagent behaves like Claude Code or Codex as far as logwatch can
// tell, for the wrap end-to-end tests: it pushes the kitty keyboard protocol
// and bracketed paste, reads its tty raw, sends hooks through
// `logwatch hook`, writes a transcript (Claude) or rollout (Codex) under the
// given root, and on Esc or Ctrl+C while working appends the agent's real
// interrupt lines after a delay.
//
// Input: printable bytes edit the composer (echoed); Enter submits it. A
// line starting with "/" is a command: /exit sends SessionEnd and exits 0,
// /crash exits 1 without a hook. Any other line is a prompt: UserPromptSubmit,
// then the turn's first log lines. While the composer holds a "/" command
// being typed, its completion overlay is open and Esc only closes it, as in
// Claude Code: no interrupt, no log line. With -marker=false an interrupt
// writes no log line at all (a future log format logwatch does not know);
// with -unknown-marker it writes a line of a type logwatch does not know.
// With -silent it sends no hook and writes no log (a release whose logs
// moved). -screen is printed first (the prompt's words a driver waits for);
// a prompt holding SLOW shows the start of the fake model's slow answer.
//
// Screen: "ready", "prompt: TEXT", "overlay closed", "draft cleared", "interrupting",
// "interrupted", each on a line of its own.
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// exitClean, returned from the input loop, exits 0; 0 means go on.
const exitClean = -1

type agent struct {
	kind       string // claude or codex
	logwatch   string
	session    string
	cwd        string
	transcript string
	delay      time.Duration
	marker     bool
	unknown    bool
	silent     bool

	mu       sync.Mutex
	working  bool
	turn     string // Codex turn id
	composer []byte
	out      *os.File
}

func main() {
	a := &agent{out: os.Stdout}
	root := flag.String("root", "", "Claude projects root or Codex sessions root")
	flag.StringVar(&a.kind, "agent", "claude", "claude or codex")
	flag.StringVar(&a.logwatch, "logwatch", "logwatch", "the logwatch binary, for hooks")
	flag.StringVar(&a.session, "session", "", "session id (a uuid)")
	flag.DurationVar(&a.delay, "delay", 50*time.Millisecond, "key → interrupt marker delay")
	flag.BoolVar(&a.marker, "marker", true, "write the interrupt marker")
	flag.BoolVar(&a.unknown, "unknown-marker", false, "write a line of an unknown type instead of the interrupt marker")
	flag.BoolVar(&a.silent, "silent", false, "send no hook, write no log")
	screen := flag.String("screen", "", "text shown first")
	flag.Parse()
	a.cwd, _ = os.Getwd()
	if a.session == "" {
		a.session = uuid()
	}
	now := time.Now()
	if *screen != "" {
		a.print(*screen + "\r\n")
	}
	if a.kind == "codex" {
		a.transcript = filepath.Join(*root, now.Format("2006"), now.Format("01"), now.Format("02"),
			"rollout-"+now.Format("2006-01-02T15-04-05")+"-"+a.session+".jsonl")
		// Codex writes session_meta when the session starts.
		a.appendLog(map[string]any{"timestamp": ts(), "type": "session_meta", "payload": map[string]any{
			"id": a.session, "timestamp": ts(), "cwd": a.cwd, "originator": "codex-tui", "cli_version": "0.130.0", "source": "cli"}})
	} else {
		// Claude's project slug: the cwd with every non-alphanumeric byte as '-'.
		slug := []byte(a.cwd)
		for i, c := range slug {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				slug[i] = '-'
			}
		}
		a.transcript = filepath.Join(*root, string(slug), a.session+".jsonl")
	}

	// Like the real TUIs: kitty keyboard flags (Claude 1, Codex 7), bracketed paste.
	if a.kind == "codex" {
		a.print("\x1b[>7u\x1b[?2004h")
	} else {
		a.print("\x1b[>1u\x1b[?2004h")
	}
	old, err := term.MakeRaw(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeagent: stdin is not a terminal:", err)
		os.Exit(2)
	}
	code := a.run()
	if code == exitClean {
		code = 0
	}
	a.print("\x1b[<u\x1b[?2004l")
	term.Restore(0, old)
	os.Exit(code)
}

func (a *agent) run() int {
	a.hook("SessionStart", map[string]any{"source": "startup"})
	a.line("ready")
	buf := make([]byte, 4096)
	var pending []byte // an escape sequence split across reads
	paste := false
	for {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			return 3
		}
		in := append(pending, buf[:n]...)
		pending = nil
		for i := 0; i < len(in); {
			if paste {
				end := bytes.Index(in[i:], []byte("\x1b[201~"))
				if end < 0 {
					a.compose(in[i:]...)
					break
				}
				a.compose(in[i : i+end]...)
				i, paste = i+end+len("\x1b[201~"), false
				continue
			}
			c := in[i]
			switch {
			case c == 0x1b:
				if i+1 == len(in) {
					a.key("esc") // a lone ESC ends its write
					i++
					continue
				}
				seq, ok := escSeq(in[i:])
				if !ok {
					pending = append(pending, in[i:]...)
					i = len(in)
					continue
				}
				i += len(seq)
				if seq == "\x1b[200~" {
					paste = true
					continue
				}
				if code := a.decode(seq); code != 0 {
					return code
				}
			case c == 0x03:
				a.key("ctrl-c")
				i++
			case c == '\r' || c == '\n':
				if code := a.enter(); code != 0 {
					return code
				}
				i++
			case c == 0x7f:
				a.mu.Lock()
				if len(a.composer) > 0 {
					a.composer = a.composer[:len(a.composer)-1]
				}
				a.mu.Unlock()
				i++
			default:
				a.compose(c)
				i++
			}
		}
	}
}

// escSeq returns the escape sequence at the start of b: CSI, SS3, ESC ESC or
// Alt+key; ok is false when b ends inside it.
func escSeq(b []byte) (string, bool) {
	switch b[1] {
	case '[':
		for j := 2; j < len(b); j++ {
			if b[j] >= 0x40 && b[j] <= 0x7e {
				return string(b[:j+1]), true
			}
		}
		return "", false
	case 'O':
		if len(b) < 3 {
			return "", false
		}
		return string(b[:3]), true
	}
	return string(b[:2]), true
}

// decode acts on one escape sequence: kitty keys (CSI code[:alt];mods[:event] u),
// modifyOtherKeys Ctrl+C, ESC ESC; arrows and the rest are ignored.
func (a *agent) decode(seq string) int {
	switch {
	case seq == "\x1b\x1b":
		a.key("esc")
	case seq == "\x1b[27;5;99~":
		a.key("ctrl-c")
	case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "u"):
		var code, mods, event string
		fields := strings.Split(seq[2:len(seq)-1], ";")
		code = strings.Split(fields[0], ":")[0]
		mods, event = "1", "1"
		if len(fields) > 1 {
			m := strings.Split(fields[1], ":")
			mods = m[0]
			if len(m) > 1 {
				event = m[1]
			}
		}
		if event != "1" {
			return 0 // repeat or release
		}
		switch {
		case code == "27" && mods == "1":
			a.key("esc")
		case code == "99" && mods == "5":
			a.key("ctrl-c")
		case code == "13":
			return a.enter()
		}
	}
	return 0
}

func (a *agent) compose(b ...byte) {
	a.mu.Lock()
	a.composer = append(a.composer, b...)
	a.mu.Unlock()
	// A TUI draws what is typed, control bytes as symbols.
	shown := bytes.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, b)
	a.print(string(shown))
}

func (a *agent) enter() int {
	a.mu.Lock()
	text := string(a.composer)
	a.composer = nil
	a.mu.Unlock()
	a.print("\r\n")
	switch {
	case text == "/exit":
		a.hook("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
		return exitClean
	case text == "/crash":
		return 1
	case strings.HasPrefix(text, "/"):
		return 0
	case text == "":
		return 0
	}
	a.mu.Lock()
	a.working = true
	a.turn = uuid()
	turn := a.turn
	a.mu.Unlock()
	a.hook("UserPromptSubmit", map[string]any{"prompt": text, "turn_id": turn})
	if a.kind == "codex" {
		a.appendLog(
			map[string]any{"timestamp": ts(), "type": "event_msg", "payload": map[string]any{"type": "task_started", "turn_id": turn, "model_context_window": 258400}},
			map[string]any{"timestamp": ts(), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
				"content": []any{map[string]any{"type": "input_text", "text": text}}}},
			map[string]any{"timestamp": ts(), "type": "event_msg", "payload": map[string]any{"type": "user_message", "message": text}})
	} else {
		a.appendLog(a.claudeUser(text))
	}
	a.line("prompt: " + text)
	if strings.Contains(text, "SLOW") {
		a.line("word0 word1 word2 word3 word4 word5 word6 ") // as the fake model's slow answer starts
	}
	return 0
}

// key handles Esc or Ctrl+C the way the agents do.
func (a *agent) key(k string) {
	a.mu.Lock()
	overlay := len(a.composer) > 0 && a.composer[0] == '/'
	if overlay || k == "ctrl-c" && len(a.composer) > 0 {
		a.composer = nil
		a.mu.Unlock()
		if overlay {
			a.line("overlay closed")
		} else {
			a.line("draft cleared")
		}
		return
	}
	working, turn := a.working, a.turn
	a.working = false
	a.mu.Unlock()
	if !working {
		return
	}
	a.line("interrupting")
	time.AfterFunc(a.delay, func() {
		if a.unknown {
			a.appendLog(map[string]any{"type": "turn_cancelled_v9", "sessionId": a.session, "uuid": uuid(), "timestamp": ts()})
		} else if a.marker {
			if a.kind == "codex" {
				a.appendLog(
					map[string]any{"timestamp": ts(), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
						"content": []any{map[string]any{"type": "input_text", "text": "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running unified exec processes may still be running in the background. If any tools/commands were aborted, they may have partially executed.\n</turn_aborted>"}}}},
					map[string]any{"timestamp": ts(), "type": "event_msg", "payload": map[string]any{"type": "turn_aborted", "turn_id": turn, "reason": "interrupted", "duration_ms": 4011}})
			} else {
				a.appendLog(a.claudeUser([]any{map[string]any{"type": "text", "text": "[Request interrupted by user]"}}))
			}
		}
		a.line("interrupted")
	})
}

func (a *agent) claudeUser(content any) map[string]any {
	return map[string]any{"parentUuid": nil, "isSidechain": false, "type": "user",
		"message": map[string]any{"role": "user", "content": content}, "uuid": uuid(), "timestamp": ts(),
		"userType": "external", "entrypoint": "cli", "cwd": a.cwd, "sessionId": a.session, "version": "2.1.143"}
}

// hook runs `logwatch hook` with the event's payload on stdin, as the agents
// run their hook commands; LOGWATCH_TAB and LOGWATCH_SOCKET come from the
// environment.
func (a *agent) hook(event string, extra map[string]any) {
	if a.silent {
		return
	}
	p := map[string]any{"session_id": a.session, "transcript_path": a.transcript, "cwd": a.cwd, "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	cmd := exec.Command(a.logwatch, "hook", "--agent", a.kind)
	cmd.Stdin = bytes.NewReader(b)
	cmd.Run()
}

func (a *agent) appendLog(lines ...map[string]any) {
	if a.silent {
		return
	}
	if err := os.MkdirAll(filepath.Dir(a.transcript), 0o755); err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(l)
		buf.Write(append(b, '\n'))
	}
	f, err := os.OpenFile(a.transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	f.Write(buf.Bytes())
}

func (a *agent) print(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.out.WriteString(s)
}

func (a *agent) line(s string) { a.print(s + "\r\n") }

func ts() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func uuid() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x70 // version 7 shape, like Codex thread ids
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
