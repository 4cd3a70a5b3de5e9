// Package doctor checks this machine's setup for logwatch: the daemon and
// its socket, the log roots, inotify limits, the agents' hooks, format drift
// in recent logs and the clock. Each check returns a Finding that says what
// it saw and how to fix it.
package doctor

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
	"github.com/logwatch/logwatch/setup/agentsettings"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// Check statuses. Warn and Fail are findings (exit 1); Skip is a check
// that does not apply here (an agent that is not installed).
const (
	OK   = "ok"
	Skip = "skip"
	Warn = "warn"
	Fail = "fail"
)

// Finding is one doctor check's result: what it saw, and how to fix it.
type Finding struct {
	Check   string   `json:"check"`
	Status  string   `json:"status"`
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
	Fix     string   `json:"fix,omitempty"`
}

// knownGood is the release of an agent the live conformance suite last
// passed with (conformance/agents). A newer release, even a patch within the
// same minor, may write lines or fire hooks differently: it is drift until
// the suite passes with it.
func knownGood(agent string) string {
	if s := parsers.Lookup(parsers.Agent(agent)); s != nil && s.KnownGood != nil {
		return s.KnownGood()
	}
	return ""
}

// Env is what the checks look at; tests point it at fakes.
type Env struct {
	Roots  []config.AgentRoot // the configured log roots
	Socket string
	Proc   string // /proc, for inotify limits and usage
	Now    time.Time
	// Path is where installed agents are looked for (PATH's syntax);
	// KnownGood the releases selftest passed with on this machine.
	Path      string
	KnownGood knowngood.Record
	// Remotes are the configured remote hosts; ProbeRemote links to one
	// once, as the daemon would (remote.Probe).
	Remotes     []config.RemoteConfig
	ProbeRemote func(config.RemoteConfig) RemoteProbe
	// Sinks are the configured notification sinks (notify.sinks); Sink
	// builds one as the daemon would (its error: it cannot be made).
	Sinks []config.SinkConfig
	Sink  func(config.SinkConfig) (Prober, error)
	// Progress, when set, gets a line before each slow step.
	Progress io.Writer
	// ConfigErr is why the configuration could not be read; the checks
	// then run on the defaults.
	ConfigErr error
	// ConfigFile is the configuration file read ("" none: the defaults).
	ConfigFile string
	// HookDebug is the file of dropped events $LOGWATCH_HOOK_DEBUG names;
	// "": the one beside Socket (hookdebug.Beside).
	HookDebug string
}

// Prober is a notification sink that can tell, without alerting anyone,
// whether it would work: the desktop's notification service reachable, a
// command executable, a webhook's server answering. found names what
// answered, where that helps ("dunst 1.9.0 …"), or is "".
type Prober interface {
	Probe(ctx context.Context) (found string, err error)
}

// RemoteProbe is what a one-off link to a remote found.
type RemoteProbe struct {
	Version  string
	Protocol int
	Sessions int
	Err      error
	Fix      string
}

// Run runs every check that applies on this OS, in order.
func Run(env Env) []Finding {
	daemon, st := checkDaemon(env)
	out := []Finding{checkConfig(env), daemon, checkSocket(env), checkRoots(env)}
	if f, ok := checkStores(env); ok {
		out = append(out, f)
	}
	if runtime.GOOS == "linux" {
		out = append(out, checkInotify(env))
	}
	scan := scanRecentLogs(env)
	for _, agent := range agentsettings.Agents() {
		out = append(out, checkHooks(env, agent, scan))
	}
	out = append(out, checkInstalled(env), checkFormats(env, scan), checkClock(env, scan))
	if len(env.Remotes) > 0 && env.ProbeRemote != nil {
		out = append(out, checkRemotes(env, st))
	}
	if env.Sink != nil {
		out = append(out, checkNotify(env, st))
	}
	return append(out, checkHookDebug(env))
}

// progress says on Progress, when set, what a slow step is doing.
func (env Env) progress(format string, args ...any) {
	if env.Progress != nil {
		fmt.Fprintf(env.Progress, format+"\n", args...)
	}
}

// probeTimeout bounds each sink's probe.
const probeTimeout = 10 * time.Second

// checkNotify checks each configured sink, all at once, and says how to
// fix the ones that would not work; a sink that works now but whose calls
// failed (or were dropped) in the running daemon (st, nil without one) is
// a warning with its last error: the person's alerts did not all go out.
func checkNotify(env Env, st *wire.Status) Finding {
	f := Finding{Check: "notify", Status: OK}
	if len(env.Sinks) == 0 {
		f.Status = Skip
		f.Summary = "no notification sink configured (alerts are off)"
		f.Fix = "to be told when a session waits: logwatch notify install --desktop (or --command ARG..., or --ntfy URL for a phone)"
		return f
	}
	env.progress("probing %d notification sink(s) (at most %s)…", len(env.Sinks), probeTimeout)
	errs := make([]error, len(env.Sinks))
	found := make([]string, len(env.Sinks))
	var wg sync.WaitGroup
	for i, s := range env.Sinks {
		wg.Go(func() {
			p, err := env.Sink(s)
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
				defer cancel()
				found[i], err = p.Probe(ctx)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	var fixes []string
	bad := 0
	for i, s := range env.Sinks {
		name := fmt.Sprintf("sinks[%d] %s", i, s.Type)
		if errs[i] == nil {
			if found[i] != "" {
				name += ": " + found[i]
			}
			f.Details = append(f.Details, name+": works")
			continue
		}
		bad++
		f.Details = append(f.Details, name+": "+config.MaskURL(errs[i].Error()))
		fixes = append(fixes, name+": "+sinkFix(s.Type))
	}
	f.Summary = fmt.Sprintf("%d of %d notification sinks work", len(env.Sinks)-bad, len(env.Sinks))
	troubled := 0
	if st != nil {
		for _, s := range st.Notify {
			if s.Failed == 0 && s.Dropped == 0 {
				continue
			}
			troubled++
			line := fmt.Sprintf("the daemon's %s sink since it started: %d shown, %d failed, %d dropped (queue full)", s.Name, s.Shown, s.Failed, s.Dropped)
			if s.LastError != "" && s.LastErrorAt != nil {
				line += fmt.Sprintf("; last error at %s: %s", s.LastErrorAt.Local().Format(time.TimeOnly), config.MaskURL(s.LastError))
			}
			f.Details = append(f.Details, line)
			fix := s.Name + " in the daemon: "
			if s.Failed > 0 {
				fix += sinkFix(s.Name)
			} else {
				fix += "alerts came faster than the sink took them; a sink that answers slowly (a command that hangs, a far webhook) is cut at notify.timeout"
			}
			fixes = append(fixes, fix)
		}
	}
	switch {
	case bad > 0:
		f.Status = Fail
	case troubled > 0:
		f.Status = Warn
		f.Summary += fmt.Sprintf(", but %d failed in the running daemon", troubled)
	}
	f.Fix = strings.Join(fixes, "; ")
	return f
}

// sinkFix is how to make a sink of this type work.
func sinkFix(typ string) string {
	switch typ {
	case config.SinkDesktop:
		return "run the daemon in your desktop session (DBUS_SESSION_BUS_ADDRESS set, a notification service running), or drop this sink on a headless machine"
	case config.SinkCommand:
		return "name an executable command (an absolute path, or one on the daemon's PATH) that exits 0 within notify.timeout"
	case config.SinkWebhook:
		return "check the URL answers from this machine and the token (token_env set for the daemon, or token_file readable)"
	}
	return "see docs/notify.md"
}

// checkConfig says which configuration the checks ran on: a file that
// does not read is a failure, and the rest is checked on the defaults.
func checkConfig(env Env) Finding {
	f := Finding{Check: "config", Status: OK, Summary: "defaults (no configuration file)"}
	if env.ConfigFile != "" {
		f.Summary = env.ConfigFile + " read"
	}
	if env.ConfigErr != nil {
		f.Status, f.Summary = Fail, "the configuration cannot be used; the other checks ran on the defaults"
		f.Details = []string{env.ConfigErr.Error()}
		f.Fix = "correct it (the error names the key and the line); `logwatch config` shows what it resolves to"
	}
	return f
}

// checkRemotes links to each remote once: reachable through ssh, its
// logwatch there and speaking this protocol, its daemon running. A remote
// the running daemon shows as not up fails too, with the daemon's reason:
// a one-off link that works does not mean the daemon's does.
func checkRemotes(env Env, st *wire.Status) Finding {
	f := Finding{Check: "remotes", Status: OK}
	var fixes []string
	bad := 0
	names := make([]string, len(env.Remotes))
	for i, r := range env.Remotes {
		names[i] = r.Name
	}
	env.progress("linking to %s over ssh…", strings.Join(names, ", "))
	// All at once: one slow host must not make the others wait.
	probes := make([]RemoteProbe, len(env.Remotes))
	var wg sync.WaitGroup
	for i, r := range env.Remotes {
		wg.Go(func() { probes[i] = env.ProbeRemote(r) })
	}
	wg.Wait()
	for i, r := range env.Remotes {
		p := probes[i]
		if p.Err != nil {
			bad++
			f.Details = append(f.Details, fmt.Sprintf("%s (%s): %v", r.Name, r.Dest, p.Err))
			if p.Fix != "" {
				fixes = append(fixes, r.Name+": "+p.Fix)
			} else {
				fixes = append(fixes, r.Name+": check `ssh "+r.Dest+"` works without a prompt (keys or agent; BatchMode)")
			}
			continue
		}
		if d := daemonRemote(st, r.Name); d != nil && d.State != wire.RemoteUp && (d.State != wire.RemoteConnecting || d.Error != "") {
			bad++
			f.Details = append(f.Details, fmt.Sprintf("%s (%s): answers here, but the daemon's link is %s since %s: %s",
				r.Name, r.Dest, d.State, d.Since.Format(time.RFC3339), d.Error))
			fix := d.Fix
			if fix == "" {
				fix = "the daemon retries with backoff; if its configuration changed since it started, restart it (`logwatch status` shows its link)"
			}
			fixes = append(fixes, r.Name+": "+fix)
			continue
		}
		f.Details = append(f.Details, fmt.Sprintf("%s (%s): logwatch %s, protocol %d, %d sessions", r.Name, r.Dest, p.Version, p.Protocol, p.Sessions))
	}
	f.Summary = fmt.Sprintf("%d of %d remotes answer", len(env.Remotes)-bad, len(env.Remotes))
	if bad > 0 {
		f.Status = Fail
		f.Fix = strings.Join(fixes, "; ")
	}
	return f
}

// daemonRemote is the running daemon's link to the remote named name, or
// nil (no daemon, or it does not know the remote).
func daemonRemote(st *wire.Status, name string) *wire.RemoteState {
	if st == nil {
		return nil
	}
	for i := range st.Remotes {
		if st.Remotes[i].Name == name {
			return &st.Remotes[i]
		}
	}
	return nil
}

// HasFindings reports whether any check warned or failed.
func HasFindings(fs []Finding) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool { return f.Status == Warn || f.Status == Fail })
}

// WriteJSON prints {"healthy": bool, "checks": [...]} for tools.
func WriteJSON(w io.Writer, fs []Finding) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Healthy bool      `json:"healthy"`
		Checks  []Finding `json:"checks"`
	}{!HasFindings(fs), fs})
}

// Width is the width doctor's text fits in.
const Width = 80

// statusColor is each status's colour on a terminal.
var statusColor = map[string]string{OK: statusview.Green, Warn: statusview.Amber, Fail: statusview.Red, Skip: statusview.Dim}

// WriteText prints the findings for a terminal, aligned and wrapped to
// Width, with the fixes of those that warned or failed; color paints the
// statuses. Findings quote paths, versions and line types from the logs:
// each is escaped, one line.
func WriteText(w io.Writer, fs []Finding, color bool) {
	l := termsafe.Line
	checkW := 12
	for _, f := range fs {
		checkW = max(checkW, len(l(f.Check)))
	}
	indent := 7 + checkW + 2
	pad := strings.Repeat(" ", indent)
	wrapped := func(first, s string, hang int) {
		for i, line := range statusview.Wrap(s, Width-indent-hang) {
			if i == 0 {
				fmt.Fprintln(w, first+line)
			} else {
				fmt.Fprintln(w, pad+strings.Repeat(" ", hang)+line)
			}
		}
	}
	n := 0
	for _, f := range fs {
		st := "[" + l(f.Status) + "]"
		head := statusview.Paint(color, statusColor[f.Status], st) + strings.Repeat(" ", max(7-len(st), 1)) +
			fmt.Sprintf("%-*s  ", checkW, l(f.Check))
		wrapped(head, l(f.Summary), 0)
		for _, d := range f.Details {
			wrapped(pad+"  ", l(d), 2)
		}
		if f.Fix != "" && (f.Status == Warn || f.Status == Fail) {
			n++
			wrapped(pad+"fix: ", l(f.Fix), 5)
		} else if f.Status == Warn || f.Status == Fail {
			n++
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "\n"+statusview.Paint(color, statusview.Green, "all checks passed"))
	} else {
		fmt.Fprintf(w, "\n%s\n", statusview.Paint(color, statusview.Red, fmt.Sprintf("%d finding(s)", n)))
	}
}

// checkDaemon asks the daemon for its status; the status is nil when it
// does not answer.
func checkDaemon(env Env) (Finding, *wire.Status) {
	f := Finding{Check: "daemon"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, env.Socket)
	if err == nil {
		defer c.Close()
		var st wire.Status
		st, err = c.Status(ctx)
		if err == nil {
			f.Status, f.Summary = OK, fmt.Sprintf("running on %s (%d sessions)", env.Socket, len(st.Sessions))
			return f, &st
		}
	}
	f.Status = Fail
	f.Summary = "not reachable on " + env.Socket
	f.Details = []string{err.Error()}
	f.Fix = "start it: `logwatch run` (or `logwatch service install`); if it runs, give both the same --socket / LOGWATCH_SOCKET"
	return f, nil
}

// checkSocket checks what SPEC §8 promises: the directory 0700, the socket
// 0600, both the user's own.
func checkSocket(env Env) Finding {
	f := Finding{Check: "socket"}
	fi, err := os.Lstat(env.Socket)
	if err != nil {
		f.Status, f.Summary = Fail, "no socket at "+env.Socket
		f.Details = []string{"the daemon is not running, or it serves another socket"}
		f.Fix = "start `logwatch run`; `logwatch config` shows which socket this machine's configuration names"
		return f
	}
	var problems []string
	foreign := false
	if fi.Mode()&fs.ModeSocket == 0 {
		problems = append(problems, env.Socket+" is not a socket")
	}
	if p := fi.Mode().Perm(); p&0o077 != 0 {
		problems = append(problems, fmt.Sprintf("socket mode is %04o: other users can connect", p))
	}
	dir := filepath.Dir(env.Socket)
	if di, err := os.Stat(dir); err == nil {
		if p := di.Mode().Perm(); p&0o077 != 0 {
			problems = append(problems, fmt.Sprintf("directory %s mode is %04o, want 0700", dir, p))
		}
		if st, ok := di.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			problems = append(problems, fmt.Sprintf("directory %s belongs to uid %d, not you (%d)", dir, st.Uid, os.Getuid()))
			foreign = true
		}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		problems = append(problems, fmt.Sprintf("socket belongs to uid %d, not you (%d)", st.Uid, os.Getuid()))
	}
	if len(problems) > 0 {
		f.Status, f.Summary, f.Details = Fail, env.Socket+" is not private", problems
		f.Fix = "stop the daemon, `chmod 700 " + dir + "`, and start it again (it recreates the socket 0600)"
		if foreign {
			// Another user made it: it may be a squatter serving its own
			// socket. The daemon refuses it; so should the fix.
			f.Fix = "do not use it: have " + dir + " removed, or set XDG_RUNTIME_DIR or socket to a directory of your own"
		}
		return f
	}
	f.Status, f.Summary = OK, env.Socket+" is private (0700 directory, 0600 socket, yours)"
	return f
}

func checkRoots(env Env) Finding {
	f := Finding{Check: "roots"}
	var bad, present int
	for _, r := range env.Roots {
		err := config.RootReadable(r.Path)
		_, statErr := os.Stat(r.Path)
		switch {
		case err != nil:
			bad++
			f.Details = append(f.Details, r.Agent+": "+err.Error())
		case statErr != nil:
			f.Details = append(f.Details, r.Agent+": "+r.Path+" does not exist yet (waited for)")
		default:
			present++
			f.Details = append(f.Details, r.Agent+": "+r.Path+" readable")
		}
	}
	switch {
	case bad > 0:
		f.Status, f.Summary = Fail, fmt.Sprintf("%d log root(s) cannot be read: sessions there are invisible", bad)
		f.Fix = "give yourself read and execute permission on them (chmod u+rx DIR), or change agents.*.roots in the configuration"
	case present == 0:
		// Day one: the agent makes its root when it first runs, and the
		// daemon waits for it. Not a finding.
		f.Status, f.Summary = Skip, "no configured log root exists yet (waited for: an agent makes its own when it first runs)"
		f.Fix = "if an agent has run here, its logs are elsewhere: set " + rootKeys() + " (see `logwatch config`)"
	default:
		f.Status, f.Summary = OK, fmt.Sprintf("%d log root(s) readable", present)
	}
	return f
}

// checkStores opens the session databases of the agents that keep one
// (parsers.Store) as the daemon does, read-only: found, readable, of a
// schema logwatch reads. It is false when no such agent has a root.
func checkStores(env Env) (Finding, bool) {
	f := Finding{Check: "databases"}
	var found, bad, busy, damaged int
	for _, r := range env.Roots {
		s := parsers.Lookup(parsers.Agent(r.Agent))
		if s == nil || s.Store == nil {
			continue
		}
		for _, name := range s.Store.Files {
			path := filepath.Join(r.Path, name)
			if _, err := os.Stat(path); err != nil {
				f.Details = append(f.Details, r.Agent+": "+path+" does not exist yet (waited for)")
				continue
			}
			found++
			db, err := s.Store.Open(path)
			if err == nil {
				_, err = db.Current(env.Now, 1, func([]parsers.StoreRow) error { return nil })
				db.Close()
			}
			switch {
			case errors.Is(err, parsers.ErrStoreDamaged):
				damaged++
				f.Details = append(f.Details, r.Agent+": "+path+" is damaged: "+err.Error())
			case errors.Is(err, parsers.ErrStoreBusy):
				busy++
				f.Details = append(f.Details, r.Agent+": "+path+" is busy now: "+err.Error())
			case err != nil:
				bad++
				f.Details = append(f.Details, r.Agent+": "+path+": "+err.Error())
			default:
				f.Details = append(f.Details, r.Agent+": "+path+" readable")
			}
		}
	}
	if len(f.Details) == 0 {
		return f, false
	}
	switch {
	case damaged > 0:
		f.Status, f.Summary = Fail, fmt.Sprintf("%d session database(s) damaged (not a database, or corrupt): their sessions have no dot unless the agent's hooks report them", damaged)
		f.Fix = "quit the agent and move the damaged file aside (the agent starts a new one), or restore it from a backup; `sqlite3 FILE .recover` may save its sessions"
	case bad > 0:
		f.Status, f.Summary = Fail, fmt.Sprintf("%d session database(s) cannot be read: their sessions have no dot unless the agent's hooks report them", bad)
		f.Fix = "a schema logwatch does not know means a newer agent: run `logwatch selftest`, and update logwatch; a permission error: chmod u+r the file"
	case busy > 0:
		f.Status, f.Summary = Warn, fmt.Sprintf("%d session database(s) busy (being created or migrated): the daemon reads them once they answer", busy)
	case found == 0:
		f.Status, f.Summary = OK, "no session database exists yet (waited for)"
	default:
		f.Status, f.Summary = OK, fmt.Sprintf("%d session database(s) readable", found)
	}
	return f, true
}

// watchedDirs counts the directories the watcher would watch: the layout
// levels below each existing root (SPEC §4 layouts, three levels deep).
func watchedDirs(roots []config.AgentRoot) int {
	n := 0
	for _, r := range roots {
		root := filepath.Clean(r.Path)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			depth := strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator))
			if depth > 3 {
				return filepath.SkipDir
			}
			n++
			return nil
		})
	}
	return n
}

// checkInotify compares the user's inotify limits with what is used now
// plus what the daemon needs (one instance, a watch per directory).
func checkInotify(env Env) Finding {
	f := Finding{Check: "inotify"}
	maxWatches, err1 := readInt(filepath.Join(env.Proc, "sys/fs/inotify/max_user_watches"))
	maxInst, err2 := readInt(filepath.Join(env.Proc, "sys/fs/inotify/max_user_instances"))
	if err1 != nil || err2 != nil {
		f.Status, f.Summary = Skip, "inotify limits not readable: "+errors.Join(err1, err2).Error()
		return f
	}
	dirs := watchedDirs(env.Roots)
	usedInst, usedWatches := inotifyUsage(env.Proc, os.Getuid())
	needInst, needWatches := usedInst, usedWatches
	if !daemonUp(env.Socket) {
		// Its own instance and watches are not counted yet.
		needInst, needWatches = needInst+1, needWatches+dirs
	}
	f.Details = []string{
		fmt.Sprintf("watches: %d in use by your processes, %d directories to watch, limit %d (fs.inotify.max_user_watches)", usedWatches, dirs, maxWatches),
		fmt.Sprintf("instances: %d in use by your processes, limit %d (fs.inotify.max_user_instances)", usedInst, maxInst),
	}
	var over []string
	if needWatches > maxWatches {
		over = append(over, fmt.Sprintf("fs.inotify.max_user_watches=%d", max(2*needWatches, 65536)))
	}
	if needInst > maxInst {
		over = append(over, fmt.Sprintf("fs.inotify.max_user_instances=%d", max(2*needInst, 256)))
	}
	if len(over) > 0 {
		f.Status, f.Summary = Fail, "the inotify limits are too low: directories beyond them are only polled, and changes show late"
		f.Fix = "raise them: `sudo sysctl " + strings.Join(over, " ") + "` (and the same lines in /etc/sysctl.d/90-logwatch.conf to keep them)"
		return f
	}
	f.Status, f.Summary = OK, fmt.Sprintf("limits cover the %d directories to watch", dirs)
	return f
}

func daemonUp(socket string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// inotifyUsage counts the inotify instances (fds) and watches ("inotify wd:"
// lines in their fdinfo) of the processes a user owns.
func inotifyUsage(proc string, uid int) (instances, watches int) {
	pids, _ := os.ReadDir(proc)
	for _, p := range pids {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		pdir := filepath.Join(proc, p.Name())
		if fi, err := os.Stat(pdir); err != nil || fi.Sys() == nil || int(fi.Sys().(*syscall.Stat_t).Uid) != uid {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join(pdir, "fd"))
		for _, fd := range fds {
			if l, _ := os.Readlink(filepath.Join(pdir, "fd", fd.Name())); l != "anon_inode:inotify" {
				continue
			}
			instances++
			if b, err := os.ReadFile(filepath.Join(pdir, "fdinfo", fd.Name())); err == nil {
				watches += strings.Count(string(b), "inotify wd:")
			}
		}
	}
	return instances, watches
}

// rootKeys names the configuration keys of every agent's roots.
func rootKeys() string {
	var keys []string
	for _, s := range parsers.All() {
		keys = append(keys, "agents."+string(s.Name)+".roots")
	}
	return strings.Join(keys, " / ")
}

func checkHooks(env Env, agent string, scan logScan) Finding {
	f := Finding{Check: agent + " hooks"}
	spec, _ := agentsettings.Lookup(agent)
	// Installed is judged by the agent's binary or its logs, not by its
	// home: `hooks install` creates that, and uninstall leaves it.
	found := false
	var where []string
	if s := parsers.Lookup(parsers.Agent(agent)); s != nil && s.Bin != "" {
		if _, err := lookPath(s.Bin, env.Path); err == nil {
			found = true
		}
		where = append(where, "no "+s.Bin+" on the PATH")
	}
	for _, r := range env.Roots {
		if r.Agent != agent {
			continue
		}
		if _, err := os.Stat(r.Path); err == nil {
			found = true
		}
		where = append(where, r.Path+" absent")
	}
	path, _ := agentsettings.SettingsPath(agent, "user")
	if !found && !hooksPresent(spec, path) {
		f.Status, f.Summary = Skip, agent+" not found on this machine ("+strings.Join(where, ", ")+")"
		return f
	}
	fix := "logwatch hooks install --agent " + agent
	if spec.IsFile() {
		return checkModule(f, spec, path, fix)
	}
	src, err := safeopen.ReadFile(path, agentsettings.MaxSettingsBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.Status, f.Summary, f.Fix = Fail, path+" cannot be read: "+err.Error(), "fix its permissions, then "+fix
		return f
	}
	installed, commands, err := spec.Status(src)
	if err != nil {
		f.Status, f.Summary = Fail, path+" cannot be parsed: "+err.Error()
		f.Details = []string{agent + " itself may be ignoring this file"}
		f.Fix = "repair the JSON (or move the file aside), then " + fix
		return f
	}
	want := spec.Events
	if len(installed) > 0 && len(commands) == 0 {
		want = spec.WithHTTP("", "").Events // http hooks (`hooks install --http`)
	}
	var missing, retired []string
	for _, ev := range want {
		if !slices.Contains(installed, ev) {
			missing = append(missing, ev)
		}
	}
	for _, ev := range spec.Retired {
		if slices.Contains(installed, ev) {
			retired = append(retired, ev)
		}
	}
	// The installed set is the known-good release's; say which release
	// that is, and when the logs show the agent has moved past it.
	good := knownGood(agent)
	of := agent + " " + good
	var versionNote []string
	if v := scan.newestVersion(agent); v != "" && env.drifted(agent, v, good) {
		versionNote = []string{fmt.Sprintf("the event set is %s's (the known-good release); recent logs come from %s %s, whose events are not checked yet", of, agent, v)}
	}
	var stale []string
	for _, c := range commands {
		w := agentsettings.ShellFields(c)
		if len(w) == 0 || !filepath.IsAbs(w[0]) {
			stale = append(stale, c+" (not an absolute path: agents run hooks without your shell's PATH)")
		} else if fi, err := os.Stat(w[0]); err != nil || fi.Mode()&0o111 == 0 {
			stale = append(stale, c+" (no executable at "+w[0]+")")
		}
	}
	switch {
	case len(installed) == 0:
		f.Status, f.Summary = Fail, "not installed in "+path+": without hooks there is no waiting state, and changes show later"
		f.Fix = fix
	case len(missing) > 0 || len(retired) > 0:
		f.Status, f.Summary = Fail, fmt.Sprintf("%d of %d events of %s hooked in %s", len(want)-len(missing), len(want), of, path)
		if len(retired) > 0 {
			f.Status = Warn
			f.Summary += fmt.Sprintf(", and %d it does not have", len(retired))
			f.Details = append(f.Details, "not events of "+of+" (they never fire): "+strings.Join(retired, ", "))
		}
		if len(missing) > 0 {
			f.Status = Fail
			f.Details = append(f.Details, "missing: "+strings.Join(missing, ", "))
		}
		f.Fix = fix + " (adds the missing events, removes the others)"
	case len(stale) > 0:
		f.Status, f.Summary, f.Details = Fail, "hooks in "+path+" run a binary that is not there", stale
		f.Fix = fix + " (updates the path)"
	default:
		f.Status, f.Summary = OK, fmt.Sprintf("installed in %s for all %d events of %s", path, len(want), of)
		if s := parsers.Lookup(parsers.Agent(agent)); s.Hooks.DoctorNote != "" {
			f.Details = []string{s.Hooks.DoctorNote}
		}
	}
	f.Details = append(f.Details, versionNote...)
	return f
}

// hooksPresent says whether logwatch's hooks are in the agent's file:
// worth checking even where the agent itself is not found.
func hooksPresent(spec agentsettings.Spec, path string) bool {
	if spec.IsFile() {
		st, err := spec.Module(path)
		return err == nil && st.Exists
	}
	src, err := safeopen.ReadFile(path, agentsettings.MaxSettingsBytes)
	if err != nil {
		return false
	}
	installed, _, err := spec.Status(src)
	return err == nil && len(installed) > 0
}

// checkModule is checkHooks for an agent that loads logwatch's hook module
// (a file logwatch writes whole): installed, logwatch's, current, and
// running a binary that is there.
func checkModule(f Finding, spec agentsettings.Spec, path, fix string) Finding {
	st, err := spec.Module(path)
	switch {
	case err != nil:
		f.Status, f.Summary, f.Fix = Fail, path+" cannot be read: "+err.Error(), "fix it, then "+fix
	case !st.Exists:
		f.Status, f.Summary = Fail, "not installed ("+path+" absent): without it the states come from the log alone, and later"
		f.Fix = fix
	case !st.Ours:
		f.Status, f.Summary = Fail, path+" is not logwatch's extension: logwatch leaves it alone"
		f.Fix = "move it aside, then " + fix
	case st.Changed:
		f.Status, f.Summary = Fail, path+" is logwatch's extension, changed since logwatch wrote it: install and uninstall leave it alone"
		f.Fix = "keep your changes in an extension of your own, then " + fix + " --force (keeps the changed file as a backup)"
	case st.Bin == "" || !filepath.IsAbs(st.Bin):
		f.Status, f.Summary, f.Fix = Fail, path+" names no logwatch binary by absolute path", fix+" (rewrites it)"
	case !st.Current:
		f.Status, f.Summary, f.Fix = Fail, path+" is an older logwatch extension", fix+" (rewrites it)"
	default:
		if fi, err := os.Stat(st.Bin); err != nil || fi.Mode()&0o111 == 0 {
			f.Status, f.Summary = Fail, path+" runs a binary that is not there"
			f.Details, f.Fix = []string{"no executable at " + st.Bin}, fix+" (updates the path)"
			break
		}
		f.Status, f.Summary = OK, fmt.Sprintf("installed and current in %s (forwards %d events)", path, len(spec.Events))
		if s := parsers.Lookup(parsers.Agent(spec.Agent)); s.Hooks.DoctorNote != "" {
			f.Details = []string{s.Hooks.DoctorNote}
		}
	}
	return f
}

// logScan is what the recent logs say: agent versions, unknown line types
// and the newest timestamps.
type logScan struct {
	files    map[string]int            // agent -> files read
	versions map[string]map[string]int // agent -> version -> files
	unknown  map[string]map[string]int // agent -> line type -> lines
	newest   time.Time                 // newest line timestamp
	newestAt string                    // and its file
	mtime    time.Time                 // newest file modification
	mtimeAt  string
}

// scanRecentLogs reads the head of the most recently modified logs of each
// agent (at most 20 files, 256 KiB each: the version is on the first lines).
func scanRecentLogs(env Env) logScan {
	s := logScan{files: map[string]int{}, versions: map[string]map[string]int{}, unknown: map[string]map[string]int{}}
	type logFile struct {
		agent, path string
		mod         time.Time
	}
	var all []logFile
	for _, r := range env.Roots {
		root := filepath.Clean(r.Path)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			depth := strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator))
			if d.IsDir() && depth > 3 {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".jsonl") && !strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
				if fi, err := d.Info(); err == nil {
					all = append(all, logFile{r.Agent, p, fi.ModTime()})
				}
			}
			return nil
		})
	}
	slices.SortFunc(all, func(a, b logFile) int { return b.mod.Compare(a.mod) })
	per := map[string]int{}
	for _, lf := range all {
		if lf.mod.After(s.mtime) {
			s.mtime, s.mtimeAt = lf.mod, lf.path
		}
		if per[lf.agent] >= 20 {
			continue
		}
		per[lf.agent]++
		s.readHead(lf.agent, lf.path)
	}
	return s
}

func (s *logScan) readHead(agent, path string) {
	f, err := safeopen.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	p := parsers.New(parsers.Agent(agent))
	rd := bufio.NewReaderSize(io.LimitReader(f, 256<<10), 64<<10)
	seen := ""
	var det parsers.Detector
	isLog := false
	unknown := map[string]int{}
	defer func() {
		// A JSONL under a root holding nothing an agent writes (captured
		// hook payloads, say) is not a log: its lines are not drift.
		if !isLog {
			return
		}
		s.files[agent]++
		if len(unknown) > 0 && s.unknown[agent] == nil {
			s.unknown[agent] = map[string]int{}
		}
		for t, n := range unknown {
			s.unknown[agent][t] += n
		}
	}()
	for {
		line, err := rd.ReadSlice('\n')
		if err != nil {
			break // the rest, or a line longer than the buffer
		}
		isLog = isLog || det.Line(line) != parsers.AgentUnknown
		ev, perr := p.Parse(line)
		if perr != nil {
			continue
		}
		if ev.AgentVersion != "" && seen == "" {
			seen = ev.AgentVersion
		}
		if ev.Unknown {
			unknown[ev.Type]++
		}
		if t, err := time.Parse(time.RFC3339Nano, ev.At); err == nil && t.After(s.newest) {
			s.newest, s.newestAt = t, path
		}
	}
	if seen != "" {
		if s.versions[agent] == nil {
			s.versions[agent] = map[string]int{}
		}
		s.versions[agent][seen]++
	}
}

// newerThan reports whether version v is past the known-good version;
// versions that do not parse are not judged.
func newerThan(v, good string) bool {
	c, ok := parsers.CompareVersions(v, good)
	return ok && c > 0
}

// drifted reports whether agent's version v is past the known-good good
// and selftest has not passed with it on this machine.
func (env Env) drifted(agent, v, good string) bool {
	return newerThan(v, good) && !env.KnownGood.Has(agent, v)
}

// checkInstalled finds each agent's executable on the PATH and its
// release: one newer than the known-good release (and not passed by
// selftest here) is a warning whose fix is selftest.
func checkInstalled(env Env) Finding {
	f := Finding{Check: "agents"}
	var found, newer, fixes []string
	type probe struct {
		spec     *parsers.Spec
		bin, out string
	}
	var probes []*probe
	for _, s := range parsers.All() {
		if s.Bin == "" {
			continue
		}
		if bin, err := lookPath(s.Bin, env.Path); err == nil {
			probes = append(probes, &probe{spec: s, bin: bin})
		}
	}
	if len(probes) > 0 {
		names := make([]string, len(probes))
		for i, p := range probes {
			names[i] = string(p.spec.Name)
		}
		env.progress("probing %s (--version, at most %s)…", strings.Join(names, ", "), versionTimeout)
	}
	// All at once: an agent's --version can take seconds (a node start).
	var wg sync.WaitGroup
	for _, p := range probes {
		wg.Go(func() { p.out = agentVersion(p.bin) })
	}
	wg.Wait()
	for _, p := range probes {
		s, bin := p.spec, p.bin
		v := parsers.ReleaseIn(p.out)
		if v == "" {
			f.Details = append(f.Details, fmt.Sprintf("%s at %s: `--version` names no release", s.Name, bin))
			continue
		}
		name := string(s.Name)
		found = append(found, name+" "+v)
		switch {
		case env.drifted(name, v, knownGood(name)):
			newer = append(newer, fmt.Sprintf("%s %s (known-good %s)", name, v, knownGood(name)))
			if s.Offline != nil {
				fixes = append(fixes, "`logwatch selftest --agent "+name+"`")
			} else {
				// selftest cannot drive it offline yet: what its logs say is
				// all there is to check here.
				fixes = append(fixes, "`logwatch verify` on a recent "+name+" log")
			}
		case env.KnownGood.Has(name, v):
			f.Details = append(f.Details, fmt.Sprintf("%s %s passed selftest on this machine", name, v))
		}
	}
	switch {
	case len(newer) > 0:
		f.Status = Warn
		f.Summary = "installed agents newer than the known-good releases: " + strings.Join(newer, "; ")
		f.Fix = "run " + strings.Join(fixes, " and ") + " (selftest drives the agent through the core scenarios in a private home and records the release here when they pass)"
	case len(found) == 0:
		f.Status, f.Summary = Skip, "no agent executable on the PATH"
	default:
		f.Status, f.Summary = OK, "installed: "+strings.Join(found, ", ")+" (known-good)"
	}
	return f
}

// versionTimeout bounds an agent's --version.
const versionTimeout = 10 * time.Second

// agentVersion is what bin --version prints, stdout then stderr: pi prints
// its release on stderr.
func agentVersion(bin string) string {
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout = &limitWriter{w: &out, n: 64 << 10}
	cmd.Stderr = cmd.Stdout
	_ = cmd.Run() // a failing --version names no release: said as such
	return out.String()
}

// limitWriter keeps the first n bytes and discards the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// lookPath is exec.LookPath over path (PATH's syntax; "" is $PATH).
func lookPath(bin, path string) (string, error) {
	if path == "" {
		return exec.LookPath(bin)
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// newestVersion is the newest agent version the recent logs show.
func (s *logScan) newestVersion(agent string) string {
	best := ""
	for v := range s.versions[agent] {
		if c, ok := parsers.CompareVersions(v, best); best == "" || ok && c > 0 {
			best = v
		}
	}
	return best
}

// checkFormats finds drift: recent logs from an agent release newer than
// the known-good one (conformance/agents), and line types the parsers do
// not know. Each is a warning naming what is unknown.
func checkFormats(env Env, s logScan) Finding {
	f := Finding{Check: "formats"}
	var newer, unknown []string
	for _, agent := range parsers.Names() {
		vs := slices.SortedFunc(func(yield func(string) bool) {
			for v := range s.versions[agent] {
				if !yield(v) {
					return
				}
			}
		}, func(a, b string) int { c, _ := parsers.CompareVersions(a, b); return cmp.Or(c, strings.Compare(a, b)) })
		good := knownGood(agent)
		if len(vs) > 0 {
			f.Details = append(f.Details, fmt.Sprintf("%s: versions %s in %d recent logs (known-good: %s)",
				agent, strings.Join(vs, ", "), s.files[agent], good))
		}
		var past []string
		for _, v := range vs {
			if env.drifted(agent, v, good) {
				past = append(past, v)
			}
		}
		if len(past) > 0 {
			newer = append(newer, fmt.Sprintf("%s %s (known-good %s)", agent, strings.Join(past, ", "), good))
		}
		if u := s.unknown[agent]; len(u) > 0 {
			var ts []string
			for t, n := range u {
				if t == "" {
					t = "(no type)"
				}
				ts = append(ts, fmt.Sprintf("%s×%d", t, n))
			}
			slices.Sort(ts)
			unknown = append(unknown, agent+" "+strings.Join(ts, ", "))
			f.Details = append(f.Details, agent+": line types the parsers do not know (ignored): "+strings.Join(ts, ", "))
		}
	}
	var drift []string
	if len(newer) > 0 {
		drift = append(drift, "agent releases newer than the known-good ones: "+strings.Join(newer, "; "))
	}
	if len(unknown) > 0 {
		drift = append(drift, "line types the parsers do not know: "+strings.Join(unknown, "; "))
	}
	switch {
	case len(drift) > 0:
		f.Status = Warn
		f.Summary = strings.Join(drift, "; and ")
		f.Fix = "run `logwatch selftest` (it drives the installed agents through the core scenarios and records the releases that pass); " +
			"`logwatch verify` on a recent log shows what the parsers make of it"
	case len(s.files) == 0:
		f.Status, f.Summary = Skip, "no agent logs under the roots yet"
	default:
		f.Status, f.Summary = OK, "recent logs come from the known-good agent releases or older, with no unknown line types"
	}
	return f
}

// checkClock catches a clock far off: log lines or files from the future
// make the interrupt window and ages meaningless.
func checkClock(env Env, s logScan) Finding {
	f := Finding{Check: "clock"}
	const slack = 2 * time.Minute
	var problems []string
	if env.Now.Year() < 2025 {
		problems = append(problems, "the system clock says "+env.Now.Format(time.RFC3339))
	}
	if s.newest.After(env.Now.Add(slack)) {
		problems = append(problems, fmt.Sprintf("a log line is dated %s, %s ahead of now (%s)",
			s.newest.Format(time.RFC3339), s.newest.Sub(env.Now).Round(time.Second), s.newestAt))
	}
	if s.mtime.After(env.Now.Add(slack)) {
		problems = append(problems, fmt.Sprintf("a log file was modified %s ahead of now (%s)",
			s.mtime.Sub(env.Now).Round(time.Second), s.mtimeAt))
	}
	if len(problems) > 0 {
		f.Status, f.Summary, f.Details = Fail, "the clock looks wrong", problems
		f.Fix = "synchronise it (`timedatectl set-ntp true` on Linux; System Settings › Date & Time on macOS)"
		return f
	}
	f.Status, f.Summary = OK, "now is "+env.Now.Format(time.RFC3339)+"; no log is dated in the future"
	return f
}
