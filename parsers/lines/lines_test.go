package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type got struct {
	lines     []string
	nums      []int
	offsets   []int64
	oversized int
	pending   int64
	offset    int64
}

func readAll(t *testing.T, r io.Reader, max int) got {
	t.Helper()
	rd := New(r, 0, 0, max)
	var g got
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		g.lines = append(g.lines, string(l.Bytes))
		g.nums = append(g.nums, l.Num)
		g.offsets = append(g.offsets, l.Offset)
	}
	g.oversized, g.pending, g.offset = rd.Oversized, rd.Pending(), rd.Offset()
	return g
}

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 40)
	tests := []struct {
		name      string
		in        string
		max       int
		lines     []string
		nums      []int
		oversized int
		pending   int64
	}{
		{name: "empty", in: "", max: 100},
		{name: "one line", in: "{}\n", max: 100, lines: []string{"{}"}, nums: []int{1}},
		{name: "partial tail is not a line", in: "{}\n{\"a\":", max: 100, lines: []string{"{}"}, nums: []int{1}, pending: 5},
		{name: "crlf", in: "a\r\nb\r\n", max: 100, lines: []string{"a", "b"}, nums: []int{1, 2}},
		{name: "lone cr kept inside", in: "a\rb\n", max: 100, lines: []string{"a\rb"}, nums: []int{1}},
		{name: "blank lines", in: "\n\na\n", max: 100, lines: []string{"", "", "a"}, nums: []int{1, 2, 3}},
		{name: "nul line", in: "\x00\x00\x00\na\n", max: 100, lines: []string{"\x00\x00\x00", "a"}, nums: []int{1, 2}},
		{name: "exactly max", in: long + "\nb\n", max: 40, lines: []string{long, "b"}, nums: []int{1, 2}},
		{name: "one over max", in: long + "x\nb\n", max: 40, lines: []string{"b"}, nums: []int{2}, oversized: 1},
		{name: "oversized in the middle", in: "a\n" + strings.Repeat("y", 500) + "\nb\n", max: 40, lines: []string{"a", "b"}, nums: []int{1, 3}, oversized: 1},
		{name: "oversized partial tail", in: "a\n" + strings.Repeat("y", 500), max: 40, lines: []string{"a"}, nums: []int{1}, pending: 500},
		{name: "two oversized in a row", in: strings.Repeat("y", 90) + "\n" + strings.Repeat("z", 90) + "\nc\n", max: 40, lines: []string{"c"}, nums: []int{3}, oversized: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Feed one byte at a time too: the reader must not depend on
			// how the source chunks its reads.
			for _, src := range []io.Reader{strings.NewReader(tc.in), &oneByte{s: tc.in}} {
				g := readAll(t, src, tc.max)
				if strings.Join(g.lines, "|") != strings.Join(tc.lines, "|") || len(g.lines) != len(tc.lines) {
					t.Errorf("lines = %q, want %q", g.lines, tc.lines)
				}
				if !equalInts(g.nums, tc.nums) {
					t.Errorf("nums = %v, want %v", g.nums, tc.nums)
				}
				if g.oversized != tc.oversized {
					t.Errorf("oversized = %d, want %d", g.oversized, tc.oversized)
				}
				if g.pending != tc.pending {
					t.Errorf("pending = %d, want %d", g.pending, tc.pending)
				}
				if g.offset+g.pending != int64(len(tc.in)) {
					t.Errorf("offset %d + pending %d != %d bytes", g.offset, g.pending, len(tc.in))
				}
			}
		})
	}
}

type oneByte struct {
	s string
	i int
}

func (o *oneByte) Read(p []byte) (int, error) {
	if o.i >= len(o.s) {
		return 0, io.EOF
	}
	p[0] = o.s[o.i]
	o.i++
	return 1, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFollowGrowingFile appends to a real file between reads: EOF is not
// sticky, a partial line waits for its newline, offsets stay exact.
func TestFollowGrowingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rd := New(r, 0, 0, 64)

	next := func() (Line, error) { return rd.Next() }
	mustEOF := func() {
		t.Helper()
		if l, err := next(); !errors.Is(err, io.EOF) {
			t.Fatalf("got %q, %v; want EOF", l.Bytes, err)
		}
	}
	write := func(s string) {
		t.Helper()
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}

	mustEOF()
	write(`{"n":1,"pad":"`)
	mustEOF()
	write(`xyz"}` + "\n")
	l, err := next()
	if err != nil || string(l.Bytes) != `{"n":1,"pad":"xyz"}` || l.Offset != 0 || l.End != 20 || l.Num != 1 {
		t.Fatalf("got %q off=%d end=%d num=%d err=%v", l.Bytes, l.Offset, l.End, l.Num, err)
	}
	mustEOF()
	write(strings.Repeat("q", 100)) // oversized, unterminated
	mustEOF()
	if rd.Offset() != 20 {
		t.Fatalf("offset during an oversized line = %d, want 20", rd.Offset())
	}
	write(strings.Repeat("q", 100) + "\n{}\n")
	l, err = next()
	if err != nil || string(l.Bytes) != "{}" || l.Num != 3 || l.Offset != 221 {
		t.Fatalf("after oversized: %q num=%d off=%d err=%v", l.Bytes, l.Num, l.Offset, err)
	}
	if rd.Oversized != 1 {
		t.Fatalf("oversized = %d", rd.Oversized)
	}
}

// TestResume starts a reader in the middle of a file, as a follower does
// from a checkpoint.
func TestResume(t *testing.T) {
	rd := New(strings.NewReader("c\nd\n"), 4, 2, 0)
	l, err := rd.Next()
	if err != nil || string(l.Bytes) != "c" || l.Offset != 4 || l.Num != 3 {
		t.Fatalf("got %q off=%d num=%d err=%v", l.Bytes, l.Offset, l.Num, err)
	}
}

// TestMemoryBounded reads a line far beyond the maximum and checks the
// buffer never grew past max+1.
func TestMemoryBounded(t *testing.T) {
	const max = 1 << 10
	big := bytes.Repeat([]byte("z"), 10<<20)
	rd := New(io.MultiReader(bytes.NewReader(big), strings.NewReader("\nok\n")), 0, 0, max)
	l, err := rd.Next()
	if err != nil || string(l.Bytes) != "ok" {
		t.Fatalf("got %q, %v", l.Bytes, err)
	}
	if cap(rd.buf) > max+1 {
		t.Fatalf("buffer grew to %d bytes for a %d-byte limit", cap(rd.buf), max)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadError(t *testing.T) {
	rd := New(errReader{}, 0, 0, 0)
	if _, err := rd.Next(); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want the reader's error", err)
	}
}

// FuzzReader checks the reader against a plain split on '\n' for any input
// and any maximum, fed in arbitrary chunk sizes.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint8(4), uint8(1))
	f.Add([]byte("{\"x\":1}\r\n{\"y\":"), uint8(8), uint8(3))
	f.Add([]byte(strings.Repeat("long", 50)+"\nshort\n"), uint8(10), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, max, chunk uint8) {
		m := int(max) + 1
		src := &chunked{b: in, n: int(chunk)%16 + 1}
		rd := New(src, 0, 0, m)
		var want []string
		oversized := 0
		rest := in
		for {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			line := rest[:i]
			rest = rest[i+1:]
			if len(line) > m {
				oversized++
				continue
			}
			want = append(want, string(bytes.TrimSuffix(line, []byte("\r"))))
		}
		var gotLines []string
		for {
			l, err := rd.Next()
			if errors.Is(err, io.EOF) {
				if src.done() {
					break
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			gotLines = append(gotLines, string(l.Bytes))
		}
		if strings.Join(gotLines, "\n") != strings.Join(want, "\n") || len(gotLines) != len(want) {
			t.Fatalf("lines %q, want %q", gotLines, want)
		}
		if rd.Oversized != oversized {
			t.Fatalf("oversized %d, want %d", rd.Oversized, oversized)
		}
		if rd.Pending() != int64(len(rest)) {
			t.Fatalf("pending %d, want %d", rd.Pending(), len(rest))
		}
	})
}

// chunked returns at most n bytes per Read and reports EOF between chunks
// now and then, like a file that is still being written.
type chunked struct {
	b    []byte
	n    int
	eofs int
}

func (c *chunked) done() bool { return len(c.b) == 0 }

func (c *chunked) Read(p []byte) (int, error) {
	c.eofs++
	if len(c.b) == 0 || c.eofs%3 == 0 {
		return 0, io.EOF
	}
	n := min(c.n, len(p), len(c.b))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

func TestReportOversized(t *testing.T) {
	rd := New(strings.NewReader("ok\n"+strings.Repeat("x", 50)+"\nnext\n"), 0, 0, 10)
	rd.ReportOversized = true
	l, err := rd.Next()
	if err != nil || string(l.Bytes) != "ok" {
		t.Fatalf("%q %v", l.Bytes, err)
	}
	l, err = rd.Next()
	if !errors.Is(err, ErrOversized) || l.Num != 2 || l.Offset != 3 || l.End != 54 {
		t.Fatalf("oversized: %+v %v", l, err)
	}
	l, err = rd.Next()
	if err != nil || string(l.Bytes) != "next" || l.Num != 3 {
		t.Fatalf("after: %q %v", l.Bytes, err)
	}
}

func TestRewind(t *testing.T) {
	rd := New(strings.NewReader("a\nb\nc"), 0, 0, 0)
	rd.Next()
	rd.Next()
	if !rd.Rewind() {
		t.Fatal("could not rewind within the first buffer")
	}
	var got []string
	for {
		l, err := rd.Next()
		if err != nil {
			break
		}
		got = append(got, fmt.Sprintf("%s@%d#%d", l.Bytes, l.Offset, l.Num))
	}
	if strings.Join(got, " ") != "a@0#1 b@2#2" || rd.Pending() != 1 {
		t.Fatalf("after rewind: %v pending %d", got, rd.Pending())
	}
	// Past the first buffer the bytes are gone: no rewind.
	big := New(strings.NewReader(strings.Repeat("x", 100)+"\n"+strings.Repeat("y", 100)+"\nz\n"), 0, 0, 10)
	big.Next()
	if big.Rewind() {
		t.Fatal("rewound over a dropped oversized line")
	}
}

// TestSwapBuffer reads with NextBuffered, handing buffers over with
// SwapBuffer whenever a read is needed (as verify's pipeline does), keeps
// every line's bytes without copying them, and requires, once the whole
// input is read, the same lines as Next alone: no handed-over line was
// overwritten. Small buffers and a short read size make it swap often and
// grow for long lines; oversized and CRLF lines go through Next. Each
// line's BufferOffset points at its bytes.
func TestSwapBuffer(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&in, "line %d %s\r\n", i, strings.Repeat("y", i*7%90))
		if i%50 == 7 {
			in.WriteString(strings.Repeat("z", 400) + "\n") // oversized at max 200
		}
	}
	in.WriteString("partial")
	want := readAll(t, strings.NewReader(in.String()), 200)

	src := &chunked{b: []byte(in.String()), n: 37}
	rd := New(src, 0, 0, 200)
	var held [][]byte
	var nums []int
	for {
		l, ok := rd.NextBuffered()
		if !ok {
			rd.SwapBuffer(make([]byte, 64))
			var err error
			if l, err = rd.Next(); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatal(err)
				}
				if src.done() {
					break
				}
				continue // chunked reports io.EOF now and then
			}
		}
		if o := rd.BufferOffset(l); len(l.Bytes) > 0 && &rd.buf[o] != &l.Bytes[0] {
			t.Fatalf("line %d: BufferOffset %d does not point at it", l.Num, o)
		}
		held = append(held, l.Bytes)
		nums = append(nums, l.Num)
	}
	var g got
	for _, b := range held {
		g.lines = append(g.lines, string(b))
	}
	if fmt.Sprint(g.lines) != fmt.Sprint(want.lines) || fmt.Sprint(nums) != fmt.Sprint(want.nums) {
		t.Fatalf("swapped: %d lines, %v\nwant %d, %v", len(g.lines), nums, len(want.lines), want.nums)
	}
	if rd.Oversized != want.oversized || rd.Offset() != want.offset || rd.Pending() != want.pending {
		t.Fatalf("oversized %d offset %d pending %d, want %+v", rd.Oversized, rd.Offset(), rd.Pending(), want)
	}
}
