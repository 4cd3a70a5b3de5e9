package remote

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// What a link makes of every way a remote can answer. The remote side is
// played by a script standing in for ssh (Options.SSH, the seam the link
// owns): it prints what a remote would and exits as ssh would. The real
// ssh and a real remote daemon are cmd/logwatch's remote e2e tests.

// sink records what a link reports, as short strings; a snapshot's parts
// (how a pipe cut the remote's output) as one line once it ended.
type sink struct {
	mu   sync.Mutex
	got  []string
	all  []wire.RemoteUpdate
	ups  chan wire.RemoteUpdate
	snap []string // the parts of a snapshot so far
}

func (s *sink) ups0() []wire.RemoteUpdate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wire.RemoteUpdate(nil), s.all...)
}

func (s *sink) Remote(u wire.RemoteUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	line := u.Kind
	switch u.Kind {
	case wire.RemoteUp:
		line += fmt.Sprintf(" %s p%d", u.Version, u.Protocol)
	case wire.RemoteSnapshot:
		for _, ev := range u.Events {
			s.snap = append(s.snap, ev.Session+"="+ev.State)
		}
		line += " [" + strings.Join(s.snap, " ") + "]"
		if u.More {
			line = "" // its end says it
		} else {
			s.snap = nil
		}
	case wire.RemoteEvent:
		line += " " + u.Event.Session + "=" + u.Event.State
	case wire.RemoteDown, wire.RemoteUnusable, wire.RemoteSkipped:
		line += ": " + u.Error
		if u.Fix != "" {
			line += " | fix: " + u.Fix
		}
	}
	if line != "" {
		s.got = append(s.got, line)
	}
	s.all = append(s.all, u)
	if s.ups != nil {
		s.ups <- u
	}
}

func (s *sink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// fakeSSH writes a script that plays ssh: it prints out and exits with code.
func fakeSSH(t *testing.T, out string, code int) string {
	t.Helper()
	dir := t.TempDir()
	data := filepath.Join(dir, "out")
	if err := os.WriteFile(data, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "ssh")
	body := fmt.Sprintf("#!/bin/sh\ncat %q\n", data)
	if strings.Contains(out, "STDERR:") {
		body = fmt.Sprintf("#!/bin/sh\nsed -n 's/^STDERR://p' %q >&2\n", data)
	}
	if strings.Contains(out, "HANG") {
		body += "exec sleep 30\n"
	}
	body += fmt.Sprintf("exit %d\n", code)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

const hello = `{"ok":true,"protocol":1,"remote":1,"logwatch":"v9"}` + "\n"

// ev is a change; snap the same state as a snapshot line.
func ev(id, state string) string {
	return fmt.Sprintf(`{"seq":1,"session":%q,"agent":"claude","tab":"","cwd":"/w","worktree":"","state":%q,"reason":"","detail":"","source":"log","rule":"r","since":"2026-12-02T10:00:00Z"}`+"\n", id, state)
}

func snap(id, state string) string { return `{"snapshot":true,` + ev(id, state)[1:] }

func TestLinkOutcomes(t *testing.T) {
	long := `{"seq":1,"session":"` + strings.Repeat("x", maxLine) + `"}` + "\n"
	for _, c := range []struct {
		name string
		out  string
		code int
		want []string
	}{
		{"a stream: snapshot, changes, then the remote daemon stops",
			hello + `{"ok":true,"protocol":1,"snapshot":2}` + "\n" + snap("a", "done") + snap("b", "working") + ev("b", "ready") +
				`{"ok":false,"protocol":1,"error":"relay stopped"}` + "\n", 0,
			[]string{"up v9 p1", "snapshot [a=done b=working]", "event b=ready", "down: the remote's daemon: relay stopped"}},
		{"no logwatch there", "STDERR:Authenticated to box ([10.0.0.7]:22) using \"publickey\".\nSTDERR:sh: 1: logwatch: not found\n" +
			"STDERR:Transferred: sent 3504, received 3356 bytes, in 0.0 seconds\nSTDERR:Bytes per second: sent 72615.5, received 69548.4\n", 127,
			[]string{"unusable: logwatch is not found on box: sh: 1: logwatch: not found | fix: install logwatch there (from a checkout: go install ./cmd/logwatch), or set the remote's command to its path"}},
		{"a logwatch from before remotes", "STDERR:logwatch: unknown command \"remote\" for \"logwatch\"\nSTDERR:\nSTDERR:Did you mean this?\nSTDERR:\treplay\n", 2,
			[]string{`unusable: the logwatch on box predates remote hosts: logwatch: unknown command "remote" for "logwatch" | fix: update logwatch there to this release`}},
		{"another protocol", `{"ok":true,"protocol":2,"remote":1,"logwatch":"v10"}` + "\n", 0,
			[]string{"unusable: logwatch v10 there speaks protocol 2 (remote mode 1); this one speaks 1 (1) | fix: install the same logwatch release on both hosts"}},
		{"a shell that prints a banner first", "Welcome to the box\n" + hello, 0,
			[]string{`unusable: logwatch answered something that is not logwatch's remote mode: "Welcome to the box" | fix: check remotes[].command names logwatch there`}},
		{"no daemon there", hello + `{"ok":false,"protocol":1,"error":"no logwatch daemon at /run/lw.sock"}` + "\n", 1,
			[]string{"down: the remote's daemon: no logwatch daemon at /run/lw.sock | fix: start logwatch there (logwatch run, or logwatch service install)"}},
		{"ssh cannot connect", "STDERR:ssh: connect to host box port 22: Connection refused\n", 255,
			[]string{"down: ssh box: ssh: connect to host box port 22: Connection refused"}},
		// One bad line costs itself only: skipped, counted, the stream goes on.
		{"a line over the bound, then an event", hello + `{"ok":true,"protocol":1,"snapshot":2}` + "\n" + long + snap("a", "done") + ev("a", "ready"), 0,
			[]string{"up v9 p1", fmt.Sprintf("skipped: bad event from the remote: a line from the remote is longer than %d bytes", maxLine),
				"snapshot [a=done]", "event a=ready", "down: ssh box: the remote ended the link"}},
		{"an event that names no session, or no JSON", hello + `{"ok":true,"protocol":1,"snapshot":0}` + "\n" + `{"seq":3,"state":"working"}` + "\n" +
			"\x1b]52;c;aGk=\x07\n" + ev("a", "working"), 0,
			[]string{"up v9 p1", "snapshot []", "skipped: bad event from the remote: no session id",
				"skipped: bad event from the remote: invalid character '\\x1b' looking for beginning of value", "event a=working", "down: ssh box: the remote ended the link"}},
		{"an id over the bound is known by its short form", hello + `{"ok":true,"protocol":1,"snapshot":1}` + "\n" + snap(strings.Repeat("i", 5000), "working") + ev("b", "done"), 0,
			[]string{"up v9 p1", "snapshot [" + wire.BoundID(strings.Repeat("i", 5000)) + "=working]", "event b=done", "down: ssh box: the remote ended the link"}},
		// A count that is no truth: the snapshot ends at the first change.
		{"a snapshot shorter than announced", hello + `{"ok":true,"protocol":1,"snapshot":1000000000}` + "\n" + snap("a", "done") + ev("b", "working"), 0,
			[]string{"up v9 p1", "snapshot [a=done]", "event b=working", "down: ssh box: the remote ended the link"}},
		{"a remote that never answers, no login said", "HANG", 0,
			[]string{"down: ssh box: no answer within 300ms, and ssh reported no login | fix: check that `ssh box` reaches the host and logs in without a prompt (keys or agent; BatchMode)"}},
		{"a remote that logs in and never answers", "STDERR:Authenticated to box ([10.0.0.7]:22) using \"publickey\".\nHANG", 0,
			[]string{"down: ssh box: logged in, but logwatch remote serve printed nothing within 300ms | fix: run `ssh box logwatch remote serve` by hand: it must print a line at once (a login script there that waits, or a logwatch that hangs, keeps it silent)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &sink{ups: make(chan wire.RemoteUpdate, 16)}
			ls := New([]Config{{Name: "box", Dest: "box"}}, Options{SSH: fakeSSH(t, c.out, c.code), Hello: 300 * time.Millisecond,
				Retry: time.Hour, Unusable: time.Hour}, s, zerolog.Nop())
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { ls.Run(ctx); close(done) }()
			// connecting, then the outcome: its last line is a down or unusable.
			deadline := time.After(20 * time.Second)
			for ended := false; !ended; {
				select {
				case u := <-s.ups:
					ended = u.Kind == wire.RemoteDown || u.Kind == wire.RemoteUnusable
				case <-deadline:
					t.Fatalf("no end within 20s: %q", s.lines())
				}
			}
			// One attempt only: the next waits an hour (no tight loop).
			time.Sleep(100 * time.Millisecond)
			cancel()
			<-done
			got := s.lines()
			if got[0] != "connecting" {
				t.Fatalf("first %q", got[0])
			}
			if strings.Join(got[1:], "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got[1:], "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// A link whose remote goes away is asked again with backoff: quickly at
// first, then less and less often.
func TestLinkBackoff(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	script := filepath.Join(dir, "ssh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho x >> "+count+"\necho 'ssh: Connection refused' >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &sink{}
	ls := New([]Config{{Name: "box", Dest: "box"}}, Options{SSH: script, Retry: 20 * time.Millisecond, RetryMax: 10 * time.Second}, s, zerolog.Nop())
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	ls.Run(ctx)
	b, _ := os.ReadFile(count)
	// 20, 40, 80, 160, 320, 640 ms: at most 7 tries in 1.5 s (not 75).
	if n := bytes.Count(b, []byte("x")); n < 3 || n > 7 {
		t.Fatalf("%d tries in 1.5 s", n)
	}
	if err := ls.Send("box", wire.Request{Op: wire.OpAck, Session: "s"}); err == nil {
		t.Fatal("a request through a link that is down was taken")
	}
	if err := ls.Send("nope", wire.Request{Op: wire.OpAck}); err == nil {
		t.Fatal("a request for an unknown remote was taken")
	}
}

// A request sent up a link reaches the remote's stdin as one JSON line.
func TestLinkSend(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "stdin")
	script := filepath.Join(dir, "ssh")
	body := "#!/bin/sh\nprintf '%s\\n' '" + strings.TrimSpace(hello) + "' '{\"ok\":true,\"protocol\":1,\"snapshot\":0}'\n" +
		"head -n 1 > " + got + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &sink{ups: make(chan wire.RemoteUpdate, 16)}
	ls := New([]Config{{Name: "box", Dest: "box"}}, Options{SSH: script, Retry: time.Hour}, s, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ls.Run(ctx)
	for u := range s.ups {
		if u.Kind == wire.RemoteSnapshot {
			break
		}
	}
	if err := ls.Send("box", wire.Request{Op: wire.OpAck, Session: "s1"}); err != nil {
		t.Fatal(err)
	}
	for u := range s.ups {
		if u.Kind == wire.RemoteDown {
			break
		}
	}
	b, err := os.ReadFile(got)
	if err != nil || strings.TrimSpace(string(b)) != `{"op":"ack","session":"s1"}` {
		t.Fatalf("the remote read %q (%v)", b, err)
	}
}

// A snapshot is passed on in parts of at most snapPart as it arrives, never
// held whole: every part but the last says more follow, and one that
// announced a billion and sent 600 shows its 600 without ending.
func TestLinkSnapshotParts(t *testing.T) {
	var lines strings.Builder
	for i := range 600 {
		lines.WriteString(snap(fmt.Sprintf("s%04d", i), "working"))
	}
	for _, c := range []struct {
		name      string
		announced int
		ended     bool
	}{
		{"as announced", 600, true},
		{"a billion announced", 1_000_000_000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &sink{}
			l := &Link{cfg: Config{Name: "box", Dest: "box", Command: "logwatch"}, opt: Options{Hello: time.Minute}.withDefaults(), sink: s,
				log: zerolog.Nop()}
			in := hello + fmt.Sprintf(`{"ok":true,"protocol":1,"snapshot":%d}`, c.announced) + "\n" + lines.String()
			l.read(context.Background(), strings.NewReader(in))
			n, ended := 0, false
			for _, u := range s.ups0() {
				if u.Kind != wire.RemoteSnapshot {
					continue
				}
				if ended || len(u.Events) > snapPart {
					t.Fatalf("a part of %d after the end (%v)", len(u.Events), ended)
				}
				for _, ev := range u.Events {
					if ev.Session != fmt.Sprintf("s%04d", n) {
						t.Fatalf("part holds %s, want s%04d", ev.Session, n)
					}
					n++
				}
				ended = !u.More
			}
			if n != 600 || ended != c.ended {
				t.Fatalf("%d sessions passed on, ended %v", n, ended)
			}
		})
	}
}
