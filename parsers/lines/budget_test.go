package lines

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func writeFile(t *testing.T, content string) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// drain reads every line, returning their lengths.
func drain(t *testing.T, rd *Reader) []int {
	t.Helper()
	var out []int
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Error(err)
			return out
		}
		out = append(out, len(l.Bytes))
	}
}

// TestBudget: lines within the maximum are delivered whole, each taking
// exactly its length from the shared budget and giving it back; a line over
// the maximum or over the whole budget is skipped without taking any.
func TestBudget(t *testing.T) {
	const max = 4 << 20
	tests := []struct {
		name      string
		budget    int64
		lines     []int // lengths of the lines in the file
		want      []int
		oversized int
		peak      int64 // upper bound
	}{
		{"short lines take nothing", 8 << 20, []int{10, 20000, 300}, []int{10, 20000, 300}, 0, 0},
		{"a long line takes its length", 8 << 20, []int{10, 3 << 20, 10}, []int{10, 3 << 20, 10}, 0, 3 << 20},
		{"over the maximum: skipped, nothing held", 8 << 20, []int{10, 40 << 20, 10}, []int{10, 10}, 1, 0},
		{"over the budget: skipped", 1 << 20, []int{10, 3 << 20, 10}, []int{10, 10}, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for _, n := range tc.lines {
				b.WriteString(strings.Repeat("x", n) + "\n")
			}
			f := writeFile(t, b.String())
			bud := NewBudget(tc.budget)
			rd := New(f, 0, 0, max)
			rd.SetBudget(bud, nil)
			got := drain(t, rd)
			if !equalInts(got, tc.want) || rd.Oversized != tc.oversized {
				t.Fatalf("lines %v oversized %d, want %v %d", got, rd.Oversized, tc.want, tc.oversized)
			}
			st := bud.Stats()
			if st.Used != 0 || st.Peak > tc.peak {
				t.Fatalf("budget %+v, want nothing used and peak <= %d", st, tc.peak)
			}
		})
	}
}

// TestBudgetShared: four readers with a 3 MiB line each share a 4 MiB
// budget: all lines arrive whole, never more than the budget is held, and
// the readers waited for each other instead.
func TestBudgetShared(t *testing.T) {
	bud := NewBudget(4 << 20)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		f := writeFile(t, "a\n"+strings.Repeat("y", 3<<20)+"\nb\n")
		rd := New(f, 0, 0, 8<<20)
		rd.SetBudget(bud, nil)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := drain(t, rd); !equalInts(got, []int{1, 3 << 20, 1}) {
				t.Errorf("lines %v", got)
			}
		}()
	}
	wg.Wait()
	if st := bud.Stats(); st.Used != 0 || st.Peak > 4<<20 {
		t.Fatalf("budget %+v", st)
	}
}

// TestBudgetGrowingLine: a long line still being written is not held while
// it grows; once its newline arrives it is delivered whole.
func TestBudgetGrowingLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.jsonl")
	w, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bud := NewBudget(16 << 20)
	rd := New(f, 0, 0, 8<<20)
	rd.SetBudget(bud, nil)
	long := bytes.Repeat([]byte("z"), 2<<20)
	for i := 0; i < 4; i++ { // 8 MiB - a little, in pieces
		w.Write(long[:len(long)-10])
		if _, err := rd.Next(); !errors.Is(err, io.EOF) {
			t.Fatalf("piece %d: %v", i, err)
		}
		if st := bud.Stats(); st.Used != 0 {
			t.Fatalf("a partial line holds %d bytes of the budget", st.Used)
		}
	}
	w.Write([]byte("\nnext\n"))
	l, err := rd.Next()
	if err != nil || len(l.Bytes) != 4*(len(long)-10) {
		t.Fatalf("line %d bytes, %v", len(l.Bytes), err)
	}
	if l, err := rd.Next(); err != nil || string(l.Bytes) != "next" {
		t.Fatalf("next: %q %v", l.Bytes, err)
	}
	if st := bud.Stats(); st.Used != 0 {
		t.Fatalf("budget still used: %+v", st)
	}
}

// TestBudgetStop: a reader waiting for room gives up when stopped.
func TestBudgetStop(t *testing.T) {
	bud := NewBudget(4 << 20)
	holder := New(writeFile(t, strings.Repeat("h", 3<<20)+"\n"), 0, 0, 8<<20)
	holder.SetBudget(bud, nil)
	if _, err := holder.Next(); err != nil { // holds 3 MiB until its next Next
		t.Fatal(err)
	}
	stop := make(chan struct{})
	rd := New(writeFile(t, strings.Repeat("w", 3<<20)+"\n"), 0, 0, 8<<20)
	rd.SetBudget(bud, stop)
	done := make(chan error)
	go func() { _, err := rd.Next(); done <- err }()
	time.Sleep(50 * time.Millisecond)
	close(stop)
	if err := <-done; !errors.Is(err, io.EOF) {
		t.Fatalf("stopped waiter: %v", err)
	}
	if st := bud.Stats(); st.Waits != 1 {
		t.Fatalf("waits %d", st.Waits)
	}
}
