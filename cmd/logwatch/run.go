package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/watcher"
)

func newRunCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "run",
		Short: "Run the daemon in the foreground (for a service manager or the host app)",
		Long: `Watches the configured agent log roots, receives hook events and key reports, and
serves every session's state on the unix socket until SIGINT or SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return a.serve(ctx)
		},
	}
}

// serve wires watcher → relay → socket (and the optional HTTP listener) and
// runs them until ctx ends.
func (a *app) serve(ctx context.Context) error {
	socket := a.socketPath()
	ln, err := relay.Listen(socket)
	if err != nil {
		return withCode(exitUsage, err)
	}
	w, err := watcher.New(watcher.Config{
		ClaudeRoots:    a.cfg.Agents.Claude.Roots,
		CodexRoots:     a.cfg.Agents.Codex.Roots,
		MaxLineBytes:   a.cfg.MaxLineBytes,
		CheckpointFile: a.cfg.Checkpoint,
	}, a.log)
	if err != nil {
		ln.Close()
		return withCode(exitUsage, err)
	}
	r := relay.New(relay.Config{
		Worktrees:       a.cfg.Worktrees,
		InterruptWindow: a.cfg.Interrupt.Window,
		TurnQuiet:       a.cfg.TurnQuiet,
	}, relay.SystemClock{}, w, a.log)
	srv := relay.NewServer(r, a.log)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
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
	goRun("relay", func() error { return r.Run(ctx) })
	goRun("watcher", func() error { return w.Run(ctx) })
	goRun("pump", func() error { pump(ctx, w, r); return nil })
	goRun("socket", func() error { return srv.Serve(ctx, ln) })
	if a.cfg.HTTP != "" {
		goRun("http", func() error { return srv.ServeHTTP(ctx, a.cfg.HTTP) })
	}
	a.log.Info().Str("socket", socket).Strs("claude_roots", a.cfg.Agents.Claude.Roots).
		Strs("codex_roots", a.cfg.Agents.Codex.Roots).Str("version", version).Msg("logwatch serving")
	<-ctx.Done()
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	if len(all) > 0 {
		return withCode(exitFindings, errors.Join(all...))
	}
	a.log.Info().Msg("logwatch stopped")
	return nil
}

// pump hands the watcher's records to the relay, in order. The relay's inbox
// applies back-pressure: a busy relay slows the watcher, nothing is dropped.
func pump(ctx context.Context, w *watcher.Watcher, r *relay.Relay) {
	ready := w.Ready()
	for {
		select {
		case <-ready:
			r.BootstrapDone()
			ready = nil
		case rec, ok := <-w.Records():
			if !ok {
				return
			}
			switch rec.Kind {
			case watcher.KindLine:
				r.Log(relay.LogLine{
					Path: rec.Path, Session: rec.Session, Agent: rec.Agent, Subagent: rec.Subagent,
					Offset: rec.Offset, End: rec.End, Line: rec.Line, Evidence: rec.Evidence,
					Malformed: rec.Malformed, Bootstrap: rec.Bootstrap,
				})
			case watcher.KindOversized:
				r.Oversized(rec.Count)
			}
		case <-ctx.Done():
			return
		}
	}
}
