package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/wire"
)

// The edge's requests: what hook clients, wrap and the host app ask over the
// socket, each checked (off the owner goroutine where it reads /proc or the
// file system), then recorded and run as one step of the machine.

// Hook reports one hook event. agent may be "" (detected from the payload);
// tab is the LOGWATCH_TAB the hook client ran with, "" when none.
func (r *Relay) Hook(ctx context.Context, agent, tab string, payload []byte) error {
	return r.HookFrom(ctx, agent, tab, AgentProcess{}, payload)
}

// AgentProcess is the agent's own process as its hook client named it
// (parsers.Hooks.Process): pid and start time (proctree.StartTime). The
// zero value names none.
type AgentProcess struct {
	Pid   int
	Start uint64
}

// HookFrom is Hook from a client that named the agent's process: the
// session is then followed through it as through a registry process
// (hookProc), and ends process_gone when it exits.
func (r *Relay) HookFrom(ctx context.Context, agent, tab string, proc AgentProcess, payload []byte) error {
	if agent != "" && parsers.Lookup(parsers.Agent(agent)) == nil {
		r.countBad()
		return fmt.Errorf("unknown agent %q (want one of %s)", agent, strings.Join(parsers.Names(), ", "))
	}
	h, err := parsers.ParseAgentHook(parsers.Agent(agent), payload)
	if err != nil {
		r.countBad()
		return err
	}
	if h.SessionID == "" {
		r.countBad()
		return errors.New("hook payload has no session_id")
	}
	h.SessionID = wire.BoundID(h.SessionID) // an over-long id is known by its short form
	if err := validID("session_id", h.SessionID); err != nil {
		r.countBad()
		return err
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return err
	}
	if h.Agent == parsers.AgentUnknown {
		h.Agent = parsers.HookAgent(&h)
		if h.Agent == parsers.AgentUnknown {
			r.countBad()
			return errors.New("hook payload names no agent, and no agent takes unnamed payloads")
		}
	}
	// The roots check touches the file system: here, off the owner
	// goroutine, for the machine to use if the path is new to the session.
	under := h.TranscriptPath != "" && r.underRoots(h.TranscriptPath)
	if proc.Pid <= 0 || proc.Start == 0 {
		proc = AgentProcess{} // a pid without its start time could be anyone's
	}
	return r.do(ctx, func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecHook, Agent: agent, Tab: tab, Pid: proc.Pid, Start: proc.Start,
				Payload: append(json.RawMessage(nil), payload...)})
		}
		r.m.hook(h, tab, under, proc)
	})
}

// MaxIDBytes bounds a session or tab id in a request: a session id is a
// UUID or a file name (at most 255 bytes, escaped), a tab id the host app's
// handle. Every pending key, submit and binding holds one. A longer session
// id (OpenCode's are not bounded) is taken as its short form
// (wire.BoundID); a longer tab is refused.
const MaxIDBytes = wire.MaxID

// validID refuses an id that is not valid UTF-8 (it would be published
// with U+FFFD in its place, and the published id would then name nothing)
// or longer than MaxIDBytes.
func validID(field, id string) error {
	if len(id) > MaxIDBytes {
		return fmt.Errorf("%w: %s is %d bytes, at most %d", ErrBadRequest, field, len(id), MaxIDBytes)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrBadRequest, field)
	}
	return nil
}

// underRoots reports whether path lies under a log root, lexically and once
// symlinks are resolved.
func (r *Relay) underRoots(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	p := filepath.Clean(path)
	in := func(p string) bool {
		for _, rt := range r.roots {
			if p != rt && strings.HasPrefix(p, rt+string(filepath.Separator)) || rt == string(filepath.Separator) {
				return true
			}
		}
		return false
	}
	return in(p) && in(resolvePath(p))
}

// resolvePath resolves the symlinks of path's longest existing prefix (the
// rest may not exist yet).
func resolvePath(path string) string {
	rest := ""
	for q := path; ; q = filepath.Dir(q) {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(q) == q {
			return path
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

// Ack acknowledges a finished turn: done → ready.
func (r *Relay) Ack(ctx context.Context, id string) error { return r.AckHost(ctx, "", id) }

// AckHost is Ack of a session on a remote host ("": here, or the one
// remote that has it): the remote's daemon is asked, and its change brings
// the answer.
func (r *Relay) AckHost(ctx context.Context, host, id string) error {
	id = wire.BoundID(id) // the full id names its session too
	if err := validID("session", id); err != nil {
		r.countBad()
		return err
	}
	if err := validID("host", host); err != nil {
		r.countBad()
		return err
	}
	var err error
	if e := r.do(ctx, func() {
		r.record(RecordLine{Kind: RecAck, Session: id, Host: host})
		err = r.m.ack(host, id)
	}); e != nil {
		return e
	}
	return err
}

// TabClosed ends every session of a tab and unbinds it.
func (r *Relay) TabClosed(ctx context.Context, tab string) (int, error) {
	return r.TabClosedPid(ctx, tab, 0)
}

// TabClosedPid is TabClosed also naming the tab's process (0: not known), as
// TabProcess does.
func (r *Relay) TabClosedPid(ctx context.Context, tab string, pid int) (int, error) {
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return 0, err
	}
	proc, err := r.tabProcessStep(tab, pid)
	if err != nil {
		return 0, err
	}
	n := 0
	err = r.do(ctx, func() {
		_ = proc() // a table full of tabs: the close still ends this tab's sessions
		r.record(RecordLine{Kind: RecTabClosed, Tab: tab})
		n = r.m.tabClosed(tab)
	})
	return n, err
}

// Gone ends a session whose agent process is known to be gone (SPEC §2:
// ended). A host app that watches processes reports it; replay uses it for
// a recorded process exit.
func (r *Relay) Gone(ctx context.Context, id string) error {
	id = wire.BoundID(id)
	var err error
	if e := r.do(ctx, func() {
		r.record(RecordLine{Kind: RecGone, Session: id})
		err = r.m.gone(id)
	}); e != nil {
		return e
	}
	return err
}

// Status returns every session and the counters.
func (r *Relay) Status(ctx context.Context) (Status, error) {
	var st Status
	err := r.do(ctx, func() {
		st = r.m.status()
		st.Counters.Subscribers = int64(len(r.subs.set))
		if r.subs.conns != nil {
			st.Counters.ConnCounters = r.subs.conns()
		}
	})
	if err != nil {
		st = Status{Sessions: []Event{}, Worktrees: []WorktreeState{}, Roots: append([]string{}, r.m.cfg.Roots...), Remotes: []RemoteState{}}
	}
	return st, err
}

// LogOffset is the end of the last line received from path (0 if none):
// a replay waits on it to know the watcher delivered what it wrote.
func (r *Relay) LogOffset(ctx context.Context, path string) (int64, error) {
	var off int64
	err := r.do(ctx, func() {
		f, _ := r.m.store.file(path)
		off = f.offset
	})
	return off, err
}

// Key reports a key press (Esc, Ctrl+C or Enter) in a tab. at is when it
// was pressed; zero means now.
func (r *Relay) Key(ctx context.Context, tab, key string, at time.Time) error {
	return r.KeyPid(ctx, tab, 0, key, at)
}

// KeyPid is Key also naming the tab's process (0: not known), as
// TabProcess does.
func (r *Relay) KeyPid(ctx context.Context, tab string, pid int, key string, at time.Time) error {
	if key != KeyEsc && key != KeyCtrlC && key != KeyEnter {
		r.countBad()
		return fmt.Errorf("unknown key %q (want esc, ctrl-c or enter)", key)
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return err
	}
	if tab == "" {
		r.countBad()
		return fmt.Errorf("key report without a tab")
	}
	proc, err := r.tabProcessStep(tab, pid)
	if err != nil {
		return err
	}
	return r.do(ctx, func() {
		_ = proc() // a table full of tabs: the key still counts, unbound by pid
		if at.IsZero() {
			at = r.clock.Now()
		}
		r.record(RecordLine{Kind: RecKey, Tab: tab, Key: key, At: &at})
		r.m.key(tab, key, at)
	})
}

// TabProcess records that tab runs process pid (`logwatch wrap` reports its
// child when the tab opens; a host app may send its child's pid with a key
// or a tab close). The pid binds the tab to the session of an agent process
// it is or is an ancestor of.
func (r *Relay) TabProcess(ctx context.Context, tab string, pid int) error {
	if pid == 0 {
		r.countBad()
		return fmt.Errorf("%w: a tab process needs a tab and a pid > 0", ErrBadRequest)
	}
	step, err := r.tabProcessStep(tab, pid)
	if err != nil {
		return err
	}
	if e := r.do(ctx, func() { err = step() }); e != nil {
		return e
	}
	return err
}

// tabProcessStep checks a reported tab process and returns what records it,
// to run on the relay goroutine: with a key or a close it runs in the same
// hop as the request it came with (wrap sends its pid with every key). pid
// 0 reports nothing.
func (r *Relay) tabProcessStep(tab string, pid int) (func() error, error) {
	if pid == 0 {
		return func() error { return nil }, nil
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return nil, err
	}
	if tab == "" || pid < 0 {
		r.countBad()
		return nil, fmt.Errorf("%w: a tab process needs a tab and a pid > 0", ErrBadRequest)
	}
	// Read outside the relay goroutine: /proc is a file system.
	if pid == 1 || pid == os.Getpid() {
		r.countBad()
		return nil, fmt.Errorf("%w: pid %d is not a tab's process (it runs every process, or is this daemon)", ErrBadRequest, pid)
	}
	if up, _ := proctree.Descends(os.Getpid(), pid); up {
		// init, systemd --user, the host app or a shell that started this
		// daemon: an ancestor of everything would capture every agent.
		r.countBad()
		return nil, fmt.Errorf("%w: pid %d is an ancestor of this daemon, so of every process, not one tab's: report the process started for the tab", ErrBadRequest, pid)
	}
	start, _ := proctree.StartTime(pid)
	return func() error { return r.tabProcessRecorded(tab, pid, start) }, nil
}

// TabPID returns the process recorded for tab (0 if none).
func (r *Relay) TabPID(ctx context.Context, tab string) (int, error) {
	pid := 0
	err := r.do(ctx, func() { pid = r.m.bind.tabProcs[tab].Pid })
	return pid, err
}

// TabProcessStarted is TabProcess with the process's start time read
// already and the checks done (a replay feeds the recorded reports).
func (r *Relay) TabProcessStarted(ctx context.Context, tab string, pid int, start uint64) error {
	var err error
	if e := r.do(ctx, func() { err = r.tabProcessRecorded(tab, pid, start) }); e != nil {
		return e
	}
	return err
}

func (r *Relay) tabProcessRecorded(tab string, pid int, start uint64) error {
	r.record(RecordLine{Kind: RecTabProcess, Tab: tab, Pid: pid, Start: start})
	if err := r.m.tabProcess(tab, tabProc{Pid: pid, Start: start}); err != nil {
		r.m.counters.BadRequests++
		return err
	}
	return nil
}
