package watcher

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
)

// Config is the watcher's configuration, passed by value. Zero fields take
// the defaults below.
type Config struct {
	// Roots are, per agent, the directories holding its logs as its
	// parsers.Layout lays them out.
	Roots map[parsers.Agent][]string

	MaxLineBytes int // longer lines are skipped and counted; default 32 MiB
	// LineBudget bounds the memory all readers hold for long lines (share
	// one across the process); nil: a budget of twice MaxLineBytes.
	LineBudget *lines.Budget

	// ReconcileInterval is the period of the sweep that re-arms failed
	// watches and, every sixth time (and at once after an event queue
	// overflow), re-lists every directory and re-stats every file: events
	// are only a latency optimisation, the sweep is the source of truth.
	ReconcileInterval time.Duration // default 10s
	// PollInterval is how often directories without a watch (watch limit
	// reached, or no inotify at all) and missing roots are checked.
	PollInterval time.Duration // default 500ms
	// IdleTimeout closes a file's reader after this long without a write;
	// its offset is kept and the next write reopens it.
	IdleTimeout time.Duration // default 2m
	// BootstrapBytes is how much of a file's end is read at start-up when
	// there is no checkpoint for it.
	BootstrapBytes int64 // default 256 KiB
	// CheckpointFile, when set, persists per-file positions so that a
	// restart resumes exactly where the last run stopped.
	CheckpointFile     string
	CheckpointInterval time.Duration // default 5s
	// SaveState makes every checkpoint carry the consumer's state, exactly
	// as of the positions saved: the watcher sends a KindCheckpoint barrier
	// through Records and writes the file with what the consumer commits
	// and with the positions the consumer says it folded. The first record
	// of a run is KindState with the last saved state. The consumer must
	// keep reading Records until they close (the final checkpoint is written
	// after Run's context ends).
	SaveState bool
	// AfterCheckpoint, when set, is called with a written checkpoint's
	// size, after its encoding is garbage (the daemon hands a large one's
	// pages back to the OS).
	AfterCheckpoint func(size int64)
	// MaxWatches caps the directory watches this watcher takes (0: only the
	// kernel's limit). Directories beyond it are polled.
	MaxWatches int
	// Buffer is the capacity of the Records channel; a full channel blocks
	// the readers (back-pressure), it never drops.
	Buffer int // default 256
	// Workers read files in parallel at start-up.
	Workers int // default GOMAXPROCS
}

const (
	defaultMaxLine    = 32 << 20
	defaultReconcile  = 10 * time.Second
	defaultPoll       = 500 * time.Millisecond
	defaultIdle       = 2 * time.Minute
	defaultBootstrap  = 256 << 10
	defaultCheckpoint = 5 * time.Second
	// 256 records (96 KiB) rather than 1 024: the relay's inbox beyond the
	// pump already holds thousands, and start-up, which fills the channel,
	// took as long (BenchmarkIdleFiles) with 288 KiB less resident after.
	defaultBuffer = 256
)

func (c Config) withDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = defaultMaxLine
	}
	if c.LineBudget == nil {
		c.LineBudget = lines.NewBudget(2 * int64(c.MaxLineBytes))
	}
	set(&c.ReconcileInterval, defaultReconcile)
	set(&c.PollInterval, defaultPoll)
	set(&c.IdleTimeout, defaultIdle)
	set(&c.CheckpointInterval, defaultCheckpoint)
	if c.BootstrapBytes == 0 {
		c.BootstrapBytes = defaultBootstrap
	}
	if c.Buffer == 0 {
		c.Buffer = defaultBuffer
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// ErrConfig wraps every configuration error.
var ErrConfig = errors.New("watcher config")

func (c Config) validate() error {
	switch {
	case c.MaxLineBytes < 0:
		return fmt.Errorf("%w: max line bytes %d", ErrConfig, c.MaxLineBytes)
	case c.ReconcileInterval < 0, c.PollInterval < 0, c.IdleTimeout < 0, c.CheckpointInterval < 0:
		return fmt.Errorf("%w: negative interval", ErrConfig)
	case c.BootstrapBytes < 0, c.MaxWatches < 0, c.Buffer < 0, c.Workers < 0:
		return fmt.Errorf("%w: negative size", ErrConfig)
	}
	for _, r := range slices.Concat(slices.Collect(maps.Values(c.Roots))...) {
		if r == "" {
			return fmt.Errorf("%w: empty root", ErrConfig)
		}
	}
	return nil
}
