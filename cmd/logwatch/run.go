package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/memtrim"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/pipeline/ingest"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/secret"
	"github.com/logwatch/logwatch/relay/server"
	"github.com/logwatch/logwatch/remote"
	"github.com/logwatch/logwatch/watcher"
	"github.com/logwatch/logwatch/watcher/registry"
	"github.com/logwatch/logwatch/watcher/storefeed"
)

func newRunCmd(a *app) *cobra.Command {
	var record string
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground (for a service manager or the host app)",
		Long: `Watches the configured agent log roots, receives hook events and key reports, and
serves every session's state on the unix socket until SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A root that exists but cannot be read would be watched
			// as empty without a word: refuse to start instead.
			if err := a.cfg.CheckRoots(); err != nil {
				return withCode(exitUsage, fmt.Errorf("config: %w", err))
			}
			// A checkpoint path that is a FIFO, a device or a symlink is
			// the user's to fix: running without the checkpoint would
			// forget the state at every restart without a word.
			if a.cfg.Checkpoint != "" {
				if err := watcher.CheckCheckpoint(a.cfg.Checkpoint); err != nil {
					return withCode(exitUsage, fmt.Errorf("config: %w", err))
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return a.serve(ctx, record)
		},
	}
	cmd.Flags().StringVar(&record, "record", "", "record every input and change to this new `FILE` (0600), for logwatch replay")
	return cmd
}

// remotesOf is the configuration's remotes as the links take them.
func remotesOf(rs []config.RemoteConfig) []remote.Config {
	out := make([]remote.Config, 0, len(rs))
	for _, r := range rs {
		out = append(out, remote.Config{Name: r.Name, Dest: r.Dest, Command: r.Command, SSH: r.SSH})
	}
	return out
}

// bigCheckpoint is the checkpoint size (about 700 sessions) from which its
// garbage is worth a forced collection. At 512 KiB, 1 000 OpenCode sessions'
// first checkpoint (350 KB) left its garbage resident until the idle
// trimmer ran, seconds later: +0.7 MB at rest beside 2 000 sessions', which
// were released at once (measured, bench/daemon.sh).
const bigCheckpoint = 256 << 10

// serve wires watcher → relay → socket (and the optional HTTP listener) and
// runs them until ctx ends.
func (a *app) serve(ctx context.Context, record string) error {
	socket := a.socketPath()
	ln, err := server.Listen(socket)
	if err != nil {
		return withCode(exitUsage, err)
	}
	// One budget for every reader's long lines; once a long line is gone,
	// its memory goes back to the OS rather than waiting for the scavenger.
	budget := lines.NewBudget(a.cfg.LineBufferBytes)
	budget.OnIdle = memtrim.Release
	// The HTTP listener is opened before anything runs, so a port in use or
	// an unusable secret file is a start-up error (exit 2), not a crash.
	var httpLn net.Listener
	var httpSecret string
	if a.cfg.HTTP != "" {
		if httpSecret, err = secret.LoadOrCreate(secret.File(socket)); err == nil {
			httpLn, err = server.ListenHTTP(a.cfg.HTTP)
		}
		if err != nil {
			ln.Close()
			return withCode(exitUsage, err)
		}
		defer httpLn.Close()
	}
	// Beside the configured roots, those of `logwatch try`'s private homes.
	watchRoots := a.cfg.AgentRoots()
	var tryRoots []string
	for agent, roots := range config.TryRoots() {
		watchRoots[agent] = append(slices.Clone(watchRoots[agent]), roots...)
		tryRoots = append(tryRoots, roots...)
	}
	logRoots, storeRoots := storefeed.Split(watchRoots)
	w, err := watcher.New(watcher.Config{
		Roots:          logRoots,
		MaxLineBytes:   a.cfg.MaxLineBytes,
		LineBudget:     budget,
		CheckpointFile: a.cfg.Checkpoint,
		// The relay's state (hooks, acks, tabs, turn bookkeeping) is saved
		// with the positions it folded, so a restart forgets nothing.
		SaveState: a.cfg.Checkpoint != "",
		// Encoding a checkpoint of thousands of sessions leaves megabytes
		// of garbage the runtime would keep resident for minutes: return
		// them now (a checkpoint is written at most every 5 s, and only
		// when something changed).
		AfterCheckpoint: func(size int64) {
			if size >= bigCheckpoint {
				memtrim.Release()
			}
		},
	}, a.log)
	if err != nil {
		ln.Close()
		return withCode(exitUsage, err)
	}
	r := relay.New(relay.Config{
		Worktrees:       a.cfg.Worktrees,
		InterruptWindow: a.cfg.Interrupt.Window,
		TurnQuiet:       a.cfg.TurnQuiet,
		Roots:           a.roots(),
		TryRoots:        tryRoots,
	}, relay.SystemClock{}, w, a.log)
	srv := server.New(r, a.log)
	// The daemon's own alerts, when a sink is configured: fed the relay's
	// changes in-process; focus and host apps' covers reach it from the
	// socket, beside the relay's machine (they change no state).
	notifier := a.newNotifier(r)
	if notifier != nil {
		srv.SetAttention(notifier)
		srv.SetSinkStats(notifier.Stats)
	}
	// The remote hosts' daemons, through ssh: their sessions with a host.
	links := remote.New(remotesOf(a.cfg.Remotes), remote.Options{}, r, a.log)
	if !links.Empty() {
		r.SetRemotes(links)
	}
	if record != "" {
		rec, err := relay.NewFileRecorder(record, a.cfg.RecordMaxBytes, a.log)
		if err != nil {
			ln.Close()
			return withCode(exitUsage, err)
		}
		defer rec.Close()
		r.SetRecorder(rec)
		a.log.Info().Str("path", record).Int64("max_bytes", a.cfg.RecordMaxBytes).Msg("recording")
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The relay and the pump outlive the watcher: its final checkpoint
	// passes through them.
	relayCtx, stopRelay := context.WithCancel(context.Background())
	defer stopRelay()
	var wg sync.WaitGroup
	errs := make(chan error, 9) // one per goRun
	goRun := func(name string, f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil && !errors.Is(err, context.Canceled) {
				errs <- fmt.Errorf("%s: %w", name, err)
				cancel()
			}
		}()
	}
	go func() {
		// Start-up reads every existing log once: thousands of files'
		// worth of buffers and parses that are garbage afterwards. Hand
		// those pages back now rather than keep them for the daemon's life.
		select {
		case <-r.Booted():
			memtrim.Release()
			a.log.Debug().Str("component", "memtrim").Msg("start-up memory released")
		case <-ctx.Done():
			return
		}
		// What later bursts free (a checkpoint, a batch of lines, the
		// garbage start-up's last readers leave) goes back once idle.
		(&memtrim.Trimmer{}).Run(ctx)
	}()
	watched := make(chan struct{})
	goRun("relay", func() error { return r.Run(relayCtx) })
	goRun("watcher", func() error { defer close(watched); return w.Run(ctx) })
	pump := ingest.Options{Raw: record != ""}
	// The databases' rows take their long lines' memory from the readers'
	// budget; their lines are kept only for a recording.
	feedCfg := storefeed.Config{Roots: storeRoots, MaxLineBytes: a.cfg.MaxLineBytes, LineBudget: budget, Raw: record != ""}
	if feed := storefeed.New(feedCfg, a.log); !feed.Empty() {
		pump.Stores = feed
		goRun("stores", func() error { return feed.Run(ctx) })
	}
	goRun("pump", func() error { ingest.Pump(relayCtx, w, r, pump); return nil })
	// Requests wait (queued on the listener) until the saved state is back:
	// a hook served before it would be overwritten by the older state.
	restored := func() bool {
		if a.cfg.Checkpoint == "" {
			return true
		}
		select {
		case <-r.Restored():
			return true
		case <-ctx.Done():
			return false
		}
	}
	// The agents' live session registries: pid → session, liveness, waits.
	var regRoots []registry.Root
	var regDirs []string
	for _, s := range parsers.All() {
		if s.Registry == nil {
			continue
		}
		for _, d := range a.cfg.Agents[string(s.Name)].RegistryDirs() {
			regRoots = append(regRoots, registry.Root{Dir: d, Format: s.Registry})
			regDirs = append(regDirs, d)
		}
	}
	if len(regRoots) > 0 {
		reg := registry.New(regRoots, ingest.RegistrySink{R: r}, a.log)
		goRun("registry", func() error {
			if !restored() {
				return nil
			}
			go func() {
				// Every file present is delivered before Ready: the processes
				// the checkpoint names and the listing lacks left meanwhile.
				select {
				case <-reg.Ready():
					r.RegistryListed()
				case <-ctx.Done():
				}
			}()
			return reg.Run(ctx)
		})
	}
	if !links.Empty() {
		goRun("remotes", func() error {
			if !restored() {
				return nil
			}
			return links.Run(ctx)
		})
	}
	if notifier != nil {
		goRun("notify", func() error {
			// After the saved state is back: a restored wait is matched
			// against the turns already alerted, not alerted again.
			if !restored() {
				return nil
			}
			return notifier.Run(ctx, r)
		})
	}
	goRun("socket", func() error {
		if !restored() {
			ln.Close()
			return nil
		}
		return srv.Serve(ctx, ln)
	})
	if httpLn != nil {
		goRun("http", func() error {
			if !restored() {
				return nil
			}
			return srv.ServeHTTP(ctx, httpLn, server.HTTPOptions{Secret: httpSecret})
		})
	}
	a.log.Info().Str("socket", socket).Strs("roots", a.cfg.AllRoots()).Strs("registry", regDirs).
		Str("version", readBuildVersion().Version).Msg("logwatch serving")
	<-ctx.Done()
	stopping := time.Now()
	<-watched
	stopRelay()
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if len(all) > 0 {
		return withCode(exitFindings, errors.Join(all...))
	}
	a.log.Info().Dur("shutdown", time.Since(stopping)).Msg("logwatch stopped")
	return nil
}
