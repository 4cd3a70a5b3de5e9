package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/wire"
)

// Options are the notifier's settings beyond the rules.
type Options struct {
	// MarksFile keeps which turns were alerted across restarts ("": none,
	// a restart may alert again for a turn that waits).
	MarksFile string
	// Timeout bounds one sink call (default 10 s).
	Timeout time.Duration
	// Queue bounds each sink's queue, in sessions (default 256).
	Queue int
	// Clock is the notifier's time (default the wall clock).
	Clock relay.Clock
}

// Source is where the changes come from: the relay, in-process.
type Source interface {
	Subscribe(ctx context.Context) (*relay.Subscription, error)
}

// Notifier is the engine's edge: it feeds it the relay's changes, the
// focus and the host apps' covers, hands its actions to one runner per
// sink, keeps its one timer (set only while an alert waits for the rate
// limit) and saves its marks.
type Notifier struct {
	opts    Options
	log     zerolog.Logger
	runners []*runner

	mu    sync.Mutex
	eng   *Engine
	timer func() bool // stops the pending Due timer
	due   time.Time

	// saves wakes the saver: the marks changed. The saver writes them
	// off the engine's path, one write for however many changes came
	// while the previous one was being written.
	saves  chan struct{}
	saveMu sync.Mutex
}

// MarksFile is where the marks live beside the checkpoint ("" without one).
func MarksFile(checkpoint string) string {
	if checkpoint == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(checkpoint), "notified.json")
}

// maxMarksFile bounds the marks file read (MaxMarks entries are ~150 KB).
const maxMarksFile = 4 << 20

// New builds a notifier for sinks. A marks file that cannot be read is
// logged and ignored (a restart may then alert once more), never fatal.
func New(rules Rules, sinks []Sink, opts Options, log zerolog.Logger) *Notifier {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Queue <= 0 {
		opts.Queue = 256
	}
	if opts.Clock == nil {
		opts.Clock = relay.SystemClock{}
	}
	n := &Notifier{opts: opts, log: log.With().Str("component", "notify").Logger(), saves: make(chan struct{}, 1)}
	marks, err := loadMarks(opts.MarksFile)
	if err != nil {
		n.log.Warn().Err(err).Str("path", opts.MarksFile).Msg("alerted turns not read: a turn waiting now may alert again")
	}
	n.eng = NewEngine(rules, marks)
	for _, s := range sinks {
		n.runners = append(n.runners, newRunner(s, opts.Timeout, opts.Queue, opts.Clock.Now, n.log))
	}
	return n
}

func loadMarks(path string) (map[string]Mark, error) {
	if path == "" {
		return nil, nil
	}
	b, err := safeopen.ReadFile(path, maxMarksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		Marks map[string]Mark `json:"marks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Marks, nil
}

// Empty says there is no sink: the daemon need not run the notifier.
func (n *Notifier) Empty() bool { return len(n.runners) == 0 }

// Run follows src until ctx ends.
func (n *Notifier) Run(ctx context.Context, src Source) error {
	sub, err := src.Subscribe(ctx)
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	defer sub.Cancel()
	ctx, cancel := context.WithCancel(ctx)
	stop := n.Start(ctx)
	defer func() {
		cancel() // the runners end with ctx
		stop()
		for _, st := range n.Stats() {
			n.log.Info().Str("sink", st.Name).Int64("shown", st.Shown).Int64("withdrawn", st.Withdrawn).
				Int64("failed", st.Failed).Int64("replaced", st.Replaced).Int64("cancelled", st.Cancelled).
				Int64("dropped", st.Dropped).Msg("sink totals")
		}
	}()
	batch := make([]wire.Event, 0, 64)
	for {
		batch = batch[:0]
		select {
		case ev, ok := <-sub.C():
			if !ok {
				return nil
			}
			batch = append(batch, ev)
			// Take what else is queued, so a burst is saved once.
			for more := true; more && len(batch) < cap(batch); {
				select {
				case ev, ok := <-sub.C():
					if !ok {
						more = false
						break
					}
					batch = append(batch, ev)
				default:
					more = false
				}
			}
		case <-sub.More():
			for drained := false; !drained; {
				select {
				case ev, ok := <-sub.C():
					if !ok {
						return nil
					}
					batch = append(batch, ev)
				default:
					drained = true
				}
			}
			batch = append(batch, sub.Resync()...)
		case <-ctx.Done():
			return nil
		}
		n.Changed(batch...)
	}
}

// Start runs the sinks' runners and the marks' saver until ctx ends; stop
// waits for them (and stops the timer). Run starts them itself.
func (n *Notifier) Start(ctx context.Context) (stop func()) {
	var wg sync.WaitGroup
	for _, r := range n.runners {
		wg.Add(1)
		go func() { defer wg.Done(); r.run(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); n.saver(ctx) }()
	return func() { wg.Wait(); n.stopTimer() }
}

// Changed feeds the engine a batch of the relay's events (Run does, for
// each batch it reads).
func (n *Notifier) Changed(evs ...wire.Event) {
	n.apply(func(e *Engine, now time.Time) []Action {
		var out []Action
		for _, ev := range evs {
			out = append(out, e.Change(ev, now)...)
		}
		return out
	})
}

// apply runs f on the engine, dispatches its actions, re-arms the timer
// and saves the marks if they changed.
func (n *Notifier) apply(f func(*Engine, time.Time) []Action) {
	n.mu.Lock()
	acts := f(n.eng, n.opts.Clock.Now())
	n.dispatch(acts)
	n.arm()
	dirty := n.eng.dirty
	n.mu.Unlock()
	if dirty {
		select {
		case n.saves <- struct{}{}:
		default:
		}
	}
}

// saver writes the marks each time they changed, and once more as ctx
// ends (a SIGTERM loses none).
func (n *Notifier) saver(ctx context.Context) {
	flush := func() {
		n.mu.Lock()
		marks, dirty := n.eng.Marks()
		n.mu.Unlock()
		if dirty {
			n.save(marks)
		}
	}
	for {
		select {
		case <-n.saves:
			flush()
		case <-ctx.Done():
			flush()
			return
		}
	}
}

func (n *Notifier) dispatch(acts []Action) {
	for _, a := range acts {
		for _, r := range n.runners {
			r.put(a)
		}
	}
}

// arm sets the one timer to the engine's next due alert, or stops it.
// Called with mu held.
func (n *Notifier) arm() {
	next := n.eng.Next()
	if next.Equal(n.due) {
		return
	}
	if n.timer != nil {
		n.timer()
		n.timer = nil
	}
	n.due = next
	if next.IsZero() {
		return
	}
	n.timer = n.opts.Clock.AfterFunc(next.Sub(n.opts.Clock.Now()), func() {
		n.apply(func(e *Engine, now time.Time) []Action {
			n.due = time.Time{}
			n.timer = nil
			return e.Due(now)
		})
	})
}

func (n *Notifier) stopTimer() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.timer != nil {
		n.timer()
		n.timer = nil
	}
}

func (n *Notifier) save(marks map[string]Mark) {
	if n.opts.MarksFile == "" {
		return
	}
	n.saveMu.Lock()
	defer n.saveMu.Unlock()
	b, err := json.Marshal(struct {
		Marks map[string]Mark `json:"marks"`
	}{marks})
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(n.opts.MarksFile), 0o700); err == nil {
			err = atomicfile.Write(n.opts.MarksFile, b, 0o600)
		}
	}
	if err != nil {
		n.log.Warn().Err(err).Str("path", n.opts.MarksFile).Msg("alerted turns not saved: a restart may alert again")
	}
}

// Focus says the person on connection conn looks at tab (of host, "" for
// this machine; tab "" for none). Advisory: it never changes a state.
func (n *Notifier) Focus(conn uint64, host, tab string) {
	n.apply(func(e *Engine, now time.Time) []Action { return e.Focus(conn, host, tab, now) })
}

// Cover says connection conn is a host app showing its own alerts.
func (n *Notifier) Cover(conn uint64) {
	n.apply(func(e *Engine, now time.Time) []Action { return e.Cover(conn, now) })
}

// Forget drops what connection conn said: it closed.
func (n *Notifier) Forget(conn uint64) {
	n.apply(func(e *Engine, now time.Time) []Action { e.Forget(conn); return nil })
}

// Stats are each sink's totals.
func (n *Notifier) Stats() []SinkStats {
	out := make([]SinkStats, 0, len(n.runners))
	for _, r := range n.runners {
		out = append(out, r.stats())
	}
	return out
}

// TestAlert is the alert `logwatch notify test` sends.
func TestAlert(now time.Time) Alert {
	return Alert{Key: "logwatch-test", Session: "logwatch-test", Agent: "logwatch", Title: "logwatch test alert",
		State: "waiting", Reason: "permission", Detail: "a test alert from logwatch notify test", Since: now}
}

// Test sends a test alert through every sink directly, each within the
// timeout, and returns each sink's error (nil: it took it).
func Test(ctx context.Context, sinks []Sink, timeout time.Duration) map[string]error {
	out := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	a := TestAlert(time.Now())
	for _, s := range sinks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			err := s.Show(cctx, a)
			mu.Lock()
			out[s.Name()] = err
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}
