package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

// socketPath is the configured socket or the default one.
func (a *app) socketPath() string {
	if a.cfg.Socket != "" {
		return a.cfg.Socket
	}
	return relay.DefaultSocket()
}

// dial connects to the daemon; a missing daemon is a usage-class error with
// a hint.
func (a *app) dial(ctx context.Context) (*client.Client, error) {
	c, err := client.Dial(ctx, a.socketPath())
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%w\n(start it with `logwatch run`, or check --socket / LOGWATCH_SOCKET)", err))
	}
	return c, nil
}

// call runs f against the daemon with a short timeout.
func (a *app) call(f func(ctx context.Context, c *client.Client) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := a.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := f(ctx, c); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return withCode(exitFindings, err)
	}
	return nil
}

// follow opens a change stream that ends on SIGINT/SIGTERM and survives
// daemon restarts (client.Follow); done releases it. A daemon that is not
// running at start is an error, as for every other verb.
func (a *app) follow() (<-chan client.Update, func(), error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ups, err := client.Follow(ctx, a.socketPath(), client.FollowOptions{})
	if err != nil {
		stop()
		if errors.Is(err, client.ErrNoDaemon) {
			return nil, nil, withCode(exitUsage, fmt.Errorf("%w\n(start it with `logwatch run`, or check --socket / LOGWATCH_SOCKET)", err))
		}
		return nil, nil, withCode(exitFindings, err)
	}
	return ups, stop, nil
}

// reconnectNotice says on stderr, once per outage, that a stream was lost
// and is being resumed.
type reconnectNotice struct {
	w    io.Writer
	name string
	lost bool
}

// update reports u and whether a fresh snapshot starts with it.
func (n *reconnectNotice) update(u client.Update) (resumed bool) {
	switch u.Kind {
	case client.UpdateLost:
		if !n.lost {
			fmt.Fprintf(n.w, "logwatch %s: lost the daemon (%v); reconnecting with backoff\n", n.name, u.Err)
		}
		n.lost = true
	case client.UpdateConnected:
		if n.lost {
			fmt.Fprintf(n.w, "logwatch %s: reconnected; a fresh snapshot follows\n", n.name)
			n.lost = false
			return true
		}
	}
	return false
}

func newKeyCmd(a *app) *cobra.Command {
	var tab string
	var pid int
	cmd := &cobra.Command{
		Use:   "key --tab T [--pid P] esc|ctrl-c|enter",
		Short: "Report an Esc, Ctrl+C or Enter typed into a tab (a candidate interrupt, or a submit)",
		Long: `Reports a key press already decoded by a host app that owns the pty. The daemon
never acts on a key alone: for Esc and Ctrl+C it opens a confirmation window and
changes the session to ready only if the agent's log shows its interrupt marker in
time; an Enter binds a Codex session to the tab only when its turn starts right
after it and no other tab submitted too.
--pid names the tab's child process (the agent, or a shell above it): the
daemon then binds the tab to the session of an agent running at or under it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				tab = os.Getenv("LOGWATCH_TAB")
			}
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required (or LOGWATCH_TAB)"))
			}
			key := strings.ToLower(args[0])
			if key != relay.KeyEsc && key != relay.KeyCtrlC && key != relay.KeyEnter {
				return withCode(exitUsage, fmt.Errorf("unknown key %q: want esc, ctrl-c or enter", args[0]))
			}
			if pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", pid))
			}
			at := time.Now()
			return a.call(func(ctx context.Context, c *client.Client) error { return c.KeyPid(ctx, tab, pid, key, at) })
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab the key was typed into (default $LOGWATCH_TAB)")
	cmd.Flags().IntVar(&pid, "pid", 0, "the tab's child process, if known")
	return cmd
}

func newAckCmd(a *app) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "ack --session S",
		Short: "Acknowledge a finished turn: done → ready",
		Long: `Acknowledges a finished turn (done → ready). S is a session id or any unique
prefix of one, such as the short ids status and events show; a prefix that
matches several sessions is refused with the list.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if id == "" {
				return withCode(exitUsage, errors.New("--session is required"))
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				full, err := a.resolveSession(ctx, c, id)
				if err != nil {
					return err
				}
				return c.Ack(ctx, full)
			})
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "the session: its id or any unique prefix of it (as status shows)")
	return cmd
}

func newTabClosedCmd(a *app) *cobra.Command {
	var tab string
	var pid int
	cmd := &cobra.Command{
		Use:   "tab-closed --tab T [--pid P]",
		Short: "Report a tab closed: its sessions become ended",
		Long: `Reports a tab closed: its sessions become ended. --pid names the tab's child
process, which binds the tab to its agent's session if nothing had yet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if tab == "" {
				return withCode(exitUsage, errors.New("--tab is required"))
			}
			if pid < 0 {
				return withCode(exitUsage, fmt.Errorf("--pid %d is not a process id", pid))
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				_, err := c.TabClosedPid(ctx, tab, pid)
				return err
			})
		},
	}
	cmd.Flags().StringVar(&tab, "tab", "", "the tab that closed")
	cmd.Flags().IntVar(&pid, "pid", 0, "the tab's child process, if known")
	return cmd
}

func newStatusCmd(a *app) *cobra.Command {
	var asJSON, all, watch bool
	cmd := &cobra.Command{
		Use:   "status [--json] [--all] [--watch]",
		Short: "Show every session's state and the daemon's counters",
		Long: `Shows the sessions that have a live process (Claude Code's registry says
which) or changed in the last 10 minutes, or, where nothing tells the
process, have not ended and changed within a day; --all shows every one.
Then the daemon's counters. --watch keeps a live view
instead: sessions grouped by worktree, most urgent first, redrawn in place as
changes arrive (plain lines, one per change, when stdout is not a terminal;
NO_COLOR turns colours off).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if watch {
				if asJSON {
					return withCode(exitUsage, errors.New("--watch and --json do not mix: `logwatch events --json` is the stream for tools"))
				}
				return a.watchStatus(all)
			}
			return a.call(func(ctx context.Context, c *client.Client) error {
				st, err := c.Status(ctx)
				if err != nil {
					return err
				}
				if st.Sessions == nil { // a daemon from before empty lists were []
					st.Sessions = []relay.Event{}
				}
				if st.Worktrees == nil {
					st.Worktrees = []relay.WorktreeState{}
				}
				if st.Roots == nil {
					st.Roots = a.roots()
				}
				if asJSON {
					enc := json.NewEncoder(a.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				writeStatus(a.stdout, st, all, time.Now())
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	cmd.Flags().BoolVar(&all, "all", false, "include the history: sessions with no live process and no recent change")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "a live view, updated on every change (Ctrl+C ends it)")
	return cmd
}

// writeStatus prints sessions, most urgent first, then the counters.
func writeStatus(w io.Writer, st relay.Status, all bool, now time.Time) {
	sessions := st.Sessions
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Since.After(sessions[j].Since) })
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.Session
	}
	shortID := shortIDs(ids)
	if len(sessions) == 0 {
		writeNoSession(w, st.Roots)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(sessions) > 0 {
		fmt.Fprintln(tw, "STATE\tAGENT\tSESSION\tTAB\tPROCESS\tWHERE\tREASON\tDETAIL\tAGE")
	}
	hidden := 0
	for _, s := range sessions {
		age := now.Sub(s.Since)
		if !all && !shown(s, now) {
			hidden++
			continue
		}
		where := s.Worktree
		if where == "" {
			where = s.Cwd
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.State, s.Agent, shortID[s.Session], orDash(s.Tab),
			process(s), orDash(where), orDash(s.Reason), orDash(short(s.Detail, 40)), age.Round(time.Second))
	}
	tw.Flush()
	if hidden > 0 {
		fmt.Fprintf(w, "(%d sessions of the history not shown: no live process, no change in the last %s; --all shows them)\n",
			hidden, shortAge(recentChange))
	}
	c := st.Counters
	fmt.Fprintf(w, "\nhooks %d received, %d dropped, %d unknown; lines %d, %d malformed, %d oversized\n",
		c.HooksReceived, c.HooksDropped, c.HooksUnknown, c.Lines, c.Malformed, c.Oversized)
	fmt.Fprintf(w, "keys %d: %d interrupt candidates, %d confirmed, %d unconfirmed (key→marker last %d ms, max %d ms); %d bad requests\n",
		c.Keys, c.InterruptCandidates, c.InterruptsConfirmed, c.InterruptsUnconfirmed, c.KeyToMarkerLastMs, c.KeyToMarkerMaxMs, c.BadRequests)
	fmt.Fprintf(w, "connections %d/%d requests, %d/%d subscribers; %d evicted idle, %d refused, %d accept errors; %d subscriber resyncs\n",
		c.Conns, c.ConnsMax, c.Subscribers, c.SubscribersMax, c.ConnsEvicted, c.ConnsRefused, c.AcceptErrors, c.SubscriberResyncs)
	if c.HTTPRefused > 0 || c.TranscriptsRefused > 0 {
		fmt.Fprintf(w, "refused: %d http requests (foreign Host or Origin, no secret, not JSON), %d transcript paths outside the log roots\n",
			c.HTTPRefused, c.TranscriptsRefused)
	}
}

// writeNoSession says that no session was found and where logwatch looks.
func writeNoSession(w io.Writer, roots []string) {
	fmt.Fprintln(w, "No session found. logwatch looks for agent logs in:")
	for _, r := range roots {
		note := ""
		if _, err := os.Stat(r); err != nil {
			note = "  (does not exist yet: waited for)"
		}
		fmt.Fprintf(w, "  %s%s\n", r, note)
	}
	fmt.Fprintln(w, "and for hook events (`logwatch hooks install --agent claude` sets them up).")
}

// roots are the configured log roots, for the CLI's own views when the
// daemon does not report them.
func (a *app) roots() []string {
	return append(append([]string{}, a.cfg.Agents.Claude.Roots...), a.cfg.Agents.Codex.Roots...)
}

// daemonRoots asks the daemon where it looks; the configured roots if it
// cannot say.
func (a *app) daemonRoots() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c, err := client.Dial(ctx, a.socketPath()); err == nil {
		defer c.Close()
		if st, err := c.Status(ctx); err == nil && st.Roots != nil {
			return st.Roots
		}
	}
	return a.roots()
}

// resolveSession turns a session id or unique prefix into the full id.
func (a *app) resolveSession(ctx context.Context, c *client.Client, arg string) (string, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(st.Sessions))
	for i, s := range st.Sessions {
		ids[i] = s.Session
	}
	full, err := resolveSession(ids, arg)
	if err != nil {
		return "", withCode(exitUsage, err)
	}
	return full, nil
}

func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newEventsCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "events [--json]",
		Short: "Stream state changes: a snapshot of every session, then each change",
		Long: `Streams a snapshot of every session, then each change as it happens (--json:
one relay Event per line, the socket protocol's stream). When the daemon
restarts, events says so on stderr,
reconnects with backoff and goes on with a fresh snapshot. Ctrl+C ends it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ups, done, err := a.follow()
			if err != nil {
				return err
			}
			defer done()
			enc := json.NewEncoder(a.stdout)
			notice := reconnectNotice{w: a.stderr, name: "events"}
			known := map[string]bool{}
			for u := range ups {
				notice.update(u)
				if u.Kind == client.UpdateConnected && u.Snapshot == 0 && !asJSON {
					writeNoSession(a.stdout, a.daemonRoots())
					fmt.Fprintln(a.stdout, "Waiting for changes (Ctrl+C ends).")
				}
				if u.Kind != client.UpdateEvent {
					continue
				}
				ev := u.Event
				if asJSON {
					if err := enc.Encode(ev); err != nil {
						return withCode(exitFindings, err)
					}
					continue
				}
				known[ev.Session] = true
				tag := ""
				if ev.Snapshot {
					tag = " (snapshot)"
				}
				fmt.Fprintf(a.stdout, "%s %-10s %s %s %s %s %s [%s %s]%s\n", ev.Since.Format("15:04:05.000"), ev.State,
					shortIDs(keys(known))[ev.Session], ev.Agent, orDash(ev.Tab), orDash(ev.Reason), short(ev.Detail, 60), ev.Source, ev.Rule, tag)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line")
	return cmd
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// recentChange is how long a session with no live process stays in the
// default views after its last change.
const recentChange = 10 * time.Minute

// shown says whether the default views show a session: its process runs
// (Claude Code's registry says so), or it changed recently; where nothing
// tells its process (Codex, a Claude without a registry), it has not ended
// and changed within a day.
func shown(s relay.Event, now time.Time) bool {
	age := now.Sub(s.Since)
	switch {
	case s.Live || age <= recentChange:
		return true
	case s.Pid == 0:
		return s.State != "ended" && age <= 24*time.Hour
	}
	return false
}

// process is the PROCESS column: the live pid, "gone", or "-" when unknown.
func process(s relay.Event) string {
	switch {
	case s.Live:
		return strconv.Itoa(s.Pid)
	case s.Pid != 0:
		return "gone"
	}
	return "-"
}
