package tmux

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/wire"
)

// FocusChannel is the tmux wait-for channel the installed hooks signal
// when the pane a client shows may have changed. The signal runs inside
// the tmux server: no process per pane switch.
const FocusChannel = "logwatch-focus"

// shownEnd ends the pane list Watch's tmux invocation prints before it
// blocks: no pane id ("%N") is ".".
const shownEnd = "."

// maxShown bounds the lines read from one pane list (one per client).
const maxShown = 4096

// WatchShown calls shown with the panes the server's attached clients
// show (sorted, each once; none when no client is attached; a client whose
// terminal tmux knows to be out of focus shows none): at once, then
// after each signal of FocusChannel, until ctx ends or the server is gone.
// Each round is one tmux invocation that lists the clients' panes and then
// waits on the channel: tmux runs the two as one command list, so no
// signal falls between the listing and the wait. (A signal tmux takes
// while nobody waits is remembered only until the next one: in tmux 3.3a
// two signals without a waiter cancel out, so a listing apart from the
// wait could miss a switch.) Blocked, it costs no CPU.
func (s Server) WatchShown(ctx context.Context, shown func([]string)) error {
	out, err := s.Run(ctx, []string{"-V"})
	if err != nil {
		return err
	}
	focusFlag := KnowsFocus(string(out))
	for {
		cmd := s.command(ctx, []string{"list-clients", "-F", "#{pane_id} #{client_flags}"},
			[]string{"display-message", "-p", shownEnd}, []string{"wait-for", FocusChannel})
		out, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		var errb strings.Builder
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("tmux wait-for: %w", err)
		}
		panes, complete := readShown(out, focusFlag)
		if complete {
			shown(panes)
		}
		io.Copy(io.Discard, io.LimitReader(out, 1<<20)) // nothing more is printed; wait for the wake
		if err := s.check(cmd.Wait(), errb.String(), "wait-for", FocusChannel); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// readShown reads one list of clients ("PANE FLAGS") up to its end mark;
// complete is false when the invocation ended before it (its error says
// why). With focusFlag, a client whose flags lack "focused" shows nothing:
// its terminal reported losing focus (focus-events on).
func readShown(r io.Reader, focusFlag bool) (panes []string, complete bool) {
	sc := bufio.NewScanner(r)
	for n := 0; sc.Scan() && n < maxShown; n++ {
		l := strings.TrimSpace(sc.Text())
		if l == shownEnd {
			slices.Sort(panes)
			return slices.Compact(panes), true
		}
		pane, flags, _ := strings.Cut(l, " ")
		if !strings.HasPrefix(pane, "%") {
			continue
		}
		if focusFlag && !slices.Contains(strings.Split(flags, ","), "focused") {
			continue
		}
		panes = append(panes, pane)
	}
	return nil, false
}

// focusVersions matches the tmux versions (`#{version}`, `tmux -V`
// without "tmux ") that flag a client "focused" and have the
// client-focus-in and -out hooks: 3.3 and later. The conf's %if and
// KnowsFocus share it, so the hooks and the flag's use go together.
const focusVersions = `^(next-)?([4-9]|3[.]([3-9]|[1-9][0-9]))`

var focusVersionsRE = regexp.MustCompile(focusVersions)

// KnowsFocus says whether the tmux of `tmux -V` (version) flags its
// clients "focused": a client is from its start, and loses it only when
// its terminal says so (focus-events on). Before 3.3 no client has the
// flag, so its absence means nothing.
func KnowsFocus(version string) bool {
	return focusVersionsRE.MatchString(strings.TrimPrefix(strings.TrimSpace(version), "tmux "))
}

// SignalFocus wakes the follower's WatchShown.
func (s Server) SignalFocus(ctx context.Context) error {
	_, err := s.Run(ctx, []string{"wait-for", "-S", FocusChannel})
	return err
}

// Entered are the panes of cur that prev lacks: the ones a client has just
// come to. Both are sorted.
func Entered(prev, cur []string) []string {
	var out []string
	for _, p := range cur {
		if _, found := slices.BinarySearch(prev, p); !found {
			out = append(out, p)
		}
	}
	return out
}

// FinishedIn are the sessions whose finished turn (done: not acknowledged
// yet) is in one of panes: entering a pane is seeing it. A live agent's
// turn (working, waiting) is not one: it keeps its state.
func FinishedIn(sessions []wire.Event, pane Pane, panes []string) []wire.Event {
	var out []wire.Event
	for _, ev := range sessions {
		if ev.State != string(session.Done) {
			continue
		}
		if p := pane(ev); p != "" && slices.Contains(panes, p) {
			out = append(out, ev)
		}
	}
	slices.SortFunc(out, func(a, b wire.Event) int {
		return strings.Compare(a.Host+"\x00"+a.Session, b.Host+"\x00"+b.Session)
	})
	return out
}
