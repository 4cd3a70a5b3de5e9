package selftest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// runT is what a scenario reports to (driver.TB): testing.T's part of it,
// for a program. Fatal ends the scenario's goroutine as testing's does;
// Context ends with the run's (a Ctrl+C).
type runT struct {
	name string
	ctx  context.Context

	mu       sync.Mutex
	failed   bool
	errs     []string
	log      strings.Builder
	cleanups []func()
}

func newRunT(ctx context.Context, name string) *runT { return &runT{name: name, ctx: ctx} }

func (t *runT) Helper()                  {}
func (t *runT) Name() string             { return t.name }
func (t *runT) Context() context.Context { return t.ctx }

func (t *runT) Log(args ...any) { t.logf("%s", fmt.Sprintln(args...)) }

func (t *runT) Logf(format string, args ...any) { t.logf(format, args...) }

func (t *runT) logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	t.log.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		t.log.WriteByte('\n')
	}
}

func (t *runT) Error(args ...any) { t.fail(strings.TrimSuffix(fmt.Sprintln(args...), "\n")) }

func (t *runT) Errorf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...)) }

func (t *runT) Fatal(args ...any) {
	t.Error(args...)
	runtime.Goexit()
}

func (t *runT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

func (t *runT) fail(msg string) {
	t.mu.Lock()
	t.failed = true
	t.errs = append(t.errs, msg)
	t.mu.Unlock()
	t.logf("FAIL: %s", msg)
}

func (t *runT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

func (t *runT) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanups = append(t.cleanups, f)
	t.mu.Unlock()
}

// run runs f in a goroutine of its own, as testing runs a test, then the
// cleanups, last first, each in its own goroutine (a Fatal in one ends it
// alone). A panic is a failure.
func (t *runT) run(f func()) {
	t.guard(f)
	for {
		t.mu.Lock()
		n := len(t.cleanups)
		if n == 0 {
			t.mu.Unlock()
			return
		}
		c := t.cleanups[n-1]
		t.cleanups = t.cleanups[:n-1]
		t.mu.Unlock()
		t.guard(c)
	}
}

func (t *runT) guard(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				t.fail(fmt.Sprintf("panic: %v", p))
			}
		}()
		f()
	}()
	<-done
}

func (t *runT) firstError() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.errs) == 0 {
		return ""
	}
	return t.errs[0]
}

func (t *runT) logText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.log.String()
}
