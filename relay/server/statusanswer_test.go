package server

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// gatedBuild is a build that answers its n-th call with an answer of size
// bytes naming n, once the test lets it.
type gatedBuild struct {
	size    int
	calls   atomic.Int64
	started chan int64    // each call's number, as it starts
	gate    chan struct{} // one receive per call lets it finish
}

func newGatedBuild(size int) *gatedBuild {
	return &gatedBuild{size: size, started: make(chan int64, 100), gate: make(chan struct{})}
}

func (g *gatedBuild) build() ([]byte, error) {
	n := g.calls.Add(1)
	g.started <- n
	<-g.gate
	b := bytes.Repeat([]byte{' '}, g.size)
	copy(b, strconv.FormatInt(n, 10))
	return b, nil
}

func (g *gatedBuild) wantStart(t *testing.T, n int64) {
	t.Helper()
	select {
	case got := <-g.started:
		if got != n {
			t.Fatalf("build %d started, want %d", got, n)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("build %d never started", n)
	}
}

// getAll starts n gets and returns their results once all are done.
func getAll(a *answers, n int) (chan *answer, chan error) {
	got, errs := make(chan *answer, n), make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			an, err := a.get(context.Background())
			if err != nil {
				errs <- err
				return
			}
			got <- an
		}()
	}
	return got, errs
}

func buildNo(an *answer) string { return string(bytes.TrimRight(an.line, " ")) }

// TestAnswersShared: the requests that arrive while an answer is being built
// are answered by one next build, never by the one under way (it may have
// been collected before their own earlier requests took effect).
func TestAnswersShared(t *testing.T) {
	g := newGatedBuild(1000)
	a := newAnswers(g.build, 1<<20, 10*time.Second)
	first, _ := getAll(a, 1)
	g.wantStart(t, 1)
	// 100 arrive during build 1.
	later, errs := getAll(a, 100)
	deadline := time.Now().Add(10 * time.Second)
	for {
		a.mu.Lock()
		n := 0
		if a.next != nil {
			n = a.next.refs
		}
		a.mu.Unlock()
		if n == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests gathered", n)
		}
		time.Sleep(time.Millisecond)
	}
	g.gate <- struct{}{}
	if an := <-first; buildNo(an) != "1" {
		t.Fatalf("first request answered by build %s", buildNo(an))
	} else {
		an.release()
	}
	g.wantStart(t, 2)
	g.gate <- struct{}{}
	for i := 0; i < 100; i++ {
		select {
		case an := <-later:
			if buildNo(an) != "2" {
				t.Fatalf("a request that came during build 1 got build %s", buildNo(an))
			}
			an.release()
		case err := <-errs:
			t.Fatal(err)
		}
	}
	if n := g.calls.Load(); n != 2 {
		t.Fatalf("%d builds for 101 requests", n)
	}
	if h := a.heldBytes(); h != 0 {
		t.Fatalf("%d bytes still held after every release", h)
	}
	if a.built.Load() != 2 || a.served.Load() != 101 {
		t.Fatalf("counted %d built, %d served", a.built.Load(), a.served.Load())
	}
}

// TestAnswersBudget: answers still held by unfinished writes bound what a
// new one may take: it waits for a release, and past the wait its requests
// are refused busy, with a clear error, instead of adding to memory.
func TestAnswersBudget(t *testing.T) {
	g := newGatedBuild(600)
	a := newAnswers(g.build, 1000, 300*time.Millisecond)
	// An answer held (its client does not read): 600 of 1000 bytes.
	got, _ := getAll(a, 1)
	g.wantStart(t, 1)
	g.gate <- struct{}{}
	held := <-got

	// The next would pass the budget: it waits, then is refused.
	_, errs := getAll(a, 3)
	for i := 0; i < 3; i++ {
		select {
		case err := <-errs:
			if !errors.Is(err, ErrStatusBusy) {
				t.Fatalf("refusal %v", err)
			}
			t.Logf("refused: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("a request past the budget was neither built nor refused")
		}
	}
	if g.calls.Load() != 1 || a.busy.Load() != 3 {
		t.Fatalf("%d builds, %d refused", g.calls.Load(), a.busy.Load())
	}

	// Waiting for room, built once the held answer is released.
	got, errs = getAll(a, 1)
	time.Sleep(50 * time.Millisecond)
	held.release()
	g.wantStart(t, 2)
	g.gate <- struct{}{}
	select {
	case an := <-got:
		an.release()
	case err := <-errs:
		t.Fatal(err)
	}
}

// TestAnswersLeave: a request that gives up (its context ends) takes its
// share with it, while or after its answer is built.
func TestAnswersLeave(t *testing.T) {
	g := newGatedBuild(100)
	a := newAnswers(g.build, 1000, time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := a.get(ctx); done <- err }()
	g.wantStart(t, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	g.gate <- struct{}{}
	// The next request is built at once: nothing was held for the one gone.
	got, _ := getAll(a, 1)
	g.wantStart(t, 2)
	g.gate <- struct{}{}
	(<-got).release()
	if h := a.heldBytes(); h != 0 {
		t.Fatalf("%d bytes held", h)
	}
}
