package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// A status answer is the daemon's largest (0.3 KB a session and more) and
// a client may never read it. So concurrent status requests share answers:
// those that arrive while one is being built wait for the next, collected
// and encoded once for all of them (each is collected after its requests
// arrived, so an answer never predates a client's earlier request). Answers
// still being written may hold at most a budget of bytes; past it a new one
// waits for room, and its requests are refused busy after answerWait.
// Unread answers so cost the budget, not clients × answer size, and the
// relay goroutine collects once per batch, not once per request ahead of
// the hooks queued behind.

// ErrStatusBusy refuses a status request while unread answers hold the
// whole budget.
var ErrStatusBusy = errors.New("busy")

// answerBudget is the default bytes of status answers held for unfinished
// writes; answerWait how long a new answer waits for room.
const (
	answerBudget = 16 << 20
	answerWait   = 3 * time.Second
)

// answers builds status answers shared by the requests that wait together.
type answers struct {
	build  func() ([]byte, error)
	budget int
	wait   time.Duration

	mu      sync.Mutex
	next    *answer // gathering requests; built once the running build ends
	running bool
	held    int           // bytes of built answers still referenced
	freed   chan struct{} // closed (and replaced) whenever held drops
	last    int           // the last answer's size: the next one's estimate

	built, served, busy atomic.Int64 // ConnCounters
}

// answer is one encoded Response line, shared by refs requests.
type answer struct {
	a     *answers
	since time.Time     // the first request's arrival
	ready chan struct{} // closed once line or err is set
	line  []byte
	err   error
	refs  int
}

func newAnswers(build func() ([]byte, error), budget int, wait time.Duration) *answers {
	return &answers{build: build, budget: budget, wait: wait, freed: make(chan struct{})}
}

// get returns an answer built after the call began. Unless it returns an
// error, the caller must release it once written.
func (a *answers) get(ctx context.Context) (*answer, error) {
	a.mu.Lock()
	an := a.next
	if an == nil {
		an = &answer{a: a, since: time.Now(), ready: make(chan struct{})}
		a.next = an
	}
	an.refs++
	if !a.running {
		a.running = true
		go a.run()
	}
	a.mu.Unlock()
	select {
	case <-an.ready:
		if an.err != nil {
			an.release()
			return nil, an.err
		}
		return an, nil
	case <-ctx.Done():
		an.release()
		return nil, ctx.Err()
	}
}

// run builds the gathered answers, one at a time, until none is wanted.
func (a *answers) run() {
	for {
		a.mu.Lock()
		an := a.next
		if an == nil {
			a.running = false
			a.mu.Unlock()
			return
		}
		var busy error
		if a.held > 0 && a.held+a.last > a.budget && an.refs > 0 {
			left := a.wait - time.Since(an.since)
			if left > 0 {
				freed := a.freed
				a.mu.Unlock()
				t := time.NewTimer(left)
				select {
				case <-freed:
				case <-t.C:
				}
				t.Stop()
				continue // newcomers meanwhile joined an, which is built no later
			}
			busy = fmt.Errorf("%w: earlier status answers (%s) are still being written to clients that do not read them; try again",
				ErrStatusBusy, kib(a.held))
		}
		a.next = nil
		wanted := an.refs > 0
		a.mu.Unlock()
		var line []byte
		err := busy
		if err == nil && wanted {
			line, err = a.build()
		}
		a.mu.Lock()
		switch {
		case busy != nil:
			a.busy.Add(int64(an.refs))
		case err == nil && wanted:
			a.built.Add(1)
			a.served.Add(int64(an.refs))
		}
		if err == nil && wanted {
			a.last = len(line)
			if an.refs > 0 {
				an.line = line
				a.held += len(line)
			}
		}
		an.err = err
		close(an.ready)
		a.mu.Unlock()
	}
}

// release ends one request's use of the answer.
func (an *answer) release() {
	a := an.a
	a.mu.Lock()
	defer a.mu.Unlock()
	an.refs--
	if an.refs > 0 || an.line == nil {
		return
	}
	a.held -= len(an.line)
	an.line = nil
	close(a.freed)
	a.freed = make(chan struct{})
}

// heldBytes is what built answers hold now (for tests).
func (a *answers) heldBytes() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held
}

// kib is n bytes in KiB, or MiB from 1 MiB.
func kib(n int) string {
	if n < 1<<20 {
		return strconv.Itoa((n+1023)>>10) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}
