// Package lines reads newline-terminated records from a growing file.
//
// It is the one line reader behind `logwatch verify` and the watcher. It only
// ever returns complete lines: bytes after the last '\n' stay unconsumed (they
// are a write in progress, not a line), and a later Next continues from them
// once more bytes arrive, because the reader does not treat io.EOF as sticky.
// A line longer than the configured maximum is skipped and counted without
// ever being held in memory whole.
package lines

import (
	"bytes"
	"errors"
	"io"
)

// DefaultMax is the default longest line (content, without the newline).
const DefaultMax = 32 << 20

const defaultBuf = 256 << 10

// Line is one complete record. Bytes is valid only until the next call to Next.
type Line struct {
	Bytes  []byte // without the trailing "\n" and an "\r" before it
	Offset int64  // byte offset of the line's first byte
	End    int64  // byte offset just after its "\n": the resume point
	Num    int    // 1-based line number, counting skipped lines too
}

// Reader reads lines from r. The zero value is not usable; use New.
type Reader struct {
	r    io.Reader
	max  int
	buf  []byte
	base []byte // the buffer New made; buf is longer only while a long line is held

	budget  *Budget
	stop    <-chan struct{}
	grown   int64  // bytes of buf beyond base, reserved from budget
	scanned int64  // stream offset up to which the current line has no '\n' (SetBudget)
	scratch []byte // for scanning ahead
	head    int    // first unconsumed byte in buf
	tail    int    // end of valid bytes in buf
	off     int64  // stream offset of buf[head]
	num     int    // lines returned or skipped so far

	skipping  bool  // inside an oversized line, discarding up to its '\n'
	skipStart int64 // offset where the oversized line began

	// Oversized counts lines skipped for exceeding the maximum.
	Oversized int
	// ReportOversized makes Next return ErrOversized for each skipped line
	// (a request/response protocol must answer it at once) instead of
	// skipping silently.
	ReportOversized bool
}

// New returns a Reader over r starting at stream offset off with line number
// num (the number of lines before off, 0 at the start of a file). max <= 0
// means DefaultMax.
func New(r io.Reader, off int64, num int, max int) *Reader {
	return NewSize(r, off, num, max, defaultBuf)
}

// NewSize is New with a base buffer of size bytes (lines longer than it
// grow the buffer up to max, then it shrinks back): a short-lived reader
// of short lines, such as one request connection, need not allocate
// New's 256 KiB.
func NewSize(r io.Reader, off int64, num int, max, size int) *Reader {
	if max <= 0 {
		max = DefaultMax
	}
	if size <= 0 {
		size = defaultBuf
	}
	if size > max+1 {
		size = max + 1
	}
	buf := make([]byte, size)
	return &Reader{r: r, max: max, buf: buf, base: buf, off: off, num: num}
}

// SetBudget makes the reader take memory for lines longer than its base
// buffer from b, waiting for room (until stop closes: Next then reports
// io.EOF). The source must then be an io.ReaderAt at the stream's offsets
// (an *os.File positioned at the stream offset), so that a line's length
// is found before it is buffered: a line over the maximum is skipped
// without ever being held. Other sources grow as without a budget, but
// within it.
func (rd *Reader) SetBudget(b *Budget, stop <-chan struct{}) {
	rd.budget, rd.stop = b, stop
}

// Reset points the reader at a new source, keeping its base buffer.
func (rd *Reader) Reset(r io.Reader, off int64, num int) {
	rd.Release()
	rd.r, rd.off, rd.num = r, off, num
	rd.skipping = false
	rd.Oversized = 0
}

// Release drops whatever is buffered and gives a long line's memory back.
// The next Next reads from the source again at the stream position.
func (rd *Reader) Release() {
	rd.head, rd.tail, rd.scanned = 0, 0, 0
	rd.shrink()
}

// shrink returns to the base buffer once what is pending fits in it.
func (rd *Reader) shrink() {
	if len(rd.buf) == len(rd.base) || rd.tail-rd.head > len(rd.base) {
		return
	}
	n := copy(rd.base, rd.buf[rd.head:rd.tail])
	rd.buf, rd.head, rd.tail = rd.base, 0, n
	if rd.budget != nil {
		rd.budget.release(rd.grown)
	}
	rd.grown = 0
}

// Rewind goes back to the start of the stream without reading it again,
// when everything read so far is still in the buffer (as it is after a look
// at a file's first lines). It reports whether it could.
func (rd *Reader) Rewind() bool {
	// buf[0] is at stream offset off-head; a skipped oversized line drops
	// the buffer, which moves that past 0.
	if rd.off-int64(rd.head) != 0 || rd.skipping {
		return false
	}
	rd.head, rd.off, rd.num, rd.Oversized = 0, 0, 0, 0
	return true
}

// Offset is the stream offset just after the last complete line consumed
// (returned or skipped): the safe point to resume from.
func (rd *Reader) Offset() int64 {
	if rd.skipping {
		return rd.skipStart
	}
	return rd.off
}

// LineNum is the number of lines consumed so far.
func (rd *Reader) LineNum() int { return rd.num }

// Pending is the number of bytes read after the last complete line: a partial
// line if the source is at its end.
func (rd *Reader) Pending() int64 {
	if rd.skipping {
		return rd.off + int64(rd.tail-rd.head) - rd.skipStart
	}
	return int64(rd.tail - rd.head)
}

// ErrOversized is returned by Next for a skipped line when ReportOversized
// is set; the Line then gives its number and extent but no bytes.
var ErrOversized = errors.New("line longer than the maximum")

// Next returns the next complete line. At the end of the available data it
// returns io.EOF; calling Next again later picks up newly appended bytes.
// Any other error is the underlying reader's.
func (rd *Reader) Next() (Line, error) {
	rd.shrink() // the previous line's bytes are no longer the caller's
	for {
		if i := bytes.IndexByte(rd.buf[rd.head:rd.tail], '\n'); i >= 0 {
			start := rd.head
			rd.head += i + 1
			lineOff := rd.off
			rd.off += int64(i + 1)
			rd.num++
			if rd.skipping || i > rd.max {
				// The tail of an oversized line: drop it and count the line.
				if rd.skipping {
					lineOff = rd.skipStart
				}
				rd.skipping = false
				rd.Oversized++
				if rd.ReportOversized {
					return Line{Offset: lineOff, End: rd.off, Num: rd.num}, ErrOversized
				}
				continue
			}
			b := rd.buf[start : start+i]
			if n := len(b); n > 0 && b[n-1] == '\r' {
				b = b[:n-1]
			}
			return Line{Bytes: b, Offset: lineOff, End: rd.off, Num: rd.num}, nil
		}
		if err := rd.fill(); err != nil {
			return Line{}, err
		}
	}
}

// NextBuffered returns the next line when it is complete in the buffer and
// no read, skip or compaction is needed to return it; otherwise it returns
// false and Next must be called. Unlike Next's, the lines it returns stay
// valid until the next Next or SwapBuffer: with SwapBuffer, a caller can hand
// out whole buffers of lines without copying them.
func (rd *Reader) NextBuffered() (Line, bool) {
	if rd.skipping {
		return Line{}, false
	}
	i := bytes.IndexByte(rd.buf[rd.head:rd.tail], '\n')
	if i < 0 || i > rd.max {
		return Line{}, false
	}
	start := rd.head
	rd.head += i + 1
	lineOff := rd.off
	rd.off += int64(i + 1)
	rd.num++
	b := rd.buf[start : start+i]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return Line{Bytes: b, Offset: lineOff, End: rd.off, Num: rd.num}, true
}

// BufferOffset returns where l, the line NextBuffered or Next returned
// last or one before it from the same buffer, starts in the reader's
// current buffer (the one SwapBuffer hands over).
func (rd *Reader) BufferOffset(l Line) int {
	return int(l.Offset - (rd.off - int64(rd.head)))
}

// SwapBuffer moves what is pending into nb (a new buffer is made when nb
// cannot hold the pending bytes and more) and returns the buffer
// the reader held, which it never touches again: every line returned so far
// stays valid in it. nb becomes the base buffer. Not for use with a budget.
func (rd *Reader) SwapBuffer(nb []byte) []byte {
	pending := rd.tail - rd.head
	if len(nb) <= pending {
		nb = make([]byte, max(len(rd.base), 2*pending))
	}
	old := rd.buf
	rd.tail = copy(nb, rd.buf[rd.head:rd.tail])
	rd.head = 0
	rd.buf, rd.base = nb, nb
	return old
}

// fill makes room and reads more bytes. It returns io.EOF when nothing new
// was read.
func (rd *Reader) fill() error {
	pending := rd.tail - rd.head
	if rd.skipping {
		// Discard everything buffered: none of it contains a '\n'.
		rd.off += int64(pending)
		rd.head, rd.tail, pending = 0, 0, 0
	} else if pending > rd.max {
		// No '\n' within max+1 bytes: this line is oversized. Remember where
		// it began and drop what we hold of it.
		rd.skipping = true
		rd.skipStart = rd.off
		rd.off += int64(pending)
		rd.head, rd.tail, pending = 0, 0, 0
	}
	if rd.head > 0 {
		copy(rd.buf, rd.buf[rd.head:rd.tail])
		rd.head, rd.tail = 0, pending
	}
	if rd.tail == len(rd.buf) && rd.budget != nil {
		if ra, ok := rd.r.(io.ReaderAt); ok {
			return rd.growTo(ra)
		}
	}
	if rd.tail == len(rd.buf) {
		// Grow toward max+1 so a line of exactly max bytes plus '\n' fits.
		n := len(rd.buf) * 2
		if n > rd.max+1 {
			n = rd.max + 1
		}
		if n <= len(rd.buf) {
			n = len(rd.buf) + 1 // cannot happen: pending <= max < len(buf)
		}
		if rd.budget != nil {
			if !rd.budget.acquire(int64(n-len(rd.buf)), rd.stop) {
				return io.EOF
			}
			rd.grown += int64(n - len(rd.buf))
		}
		nb := make([]byte, n)
		copy(nb, rd.buf[:rd.tail])
		rd.buf = nb
	}
	return rd.readMore()
}

// growTo handles a full buffer holding the start of one line (SetBudget):
// it scans the file ahead for the line's end without buffering, then either
// reserves exactly the line's length and reads on, skips a line over the
// maximum (or over the whole budget) without holding it, or, when the line
// is not complete yet, remembers how far it looked and reports io.EOF.
func (rd *Reader) growTo(ra io.ReaderAt) error {
	if rd.scratch == nil {
		rd.scratch = make([]byte, 64<<10)
	}
	start := rd.off // the line's first byte is buf[0]
	limit := start + int64(rd.max) + 1
	pos := max(start+int64(rd.tail), rd.scanned)
	for pos < limit {
		chunk := rd.scratch[:min(int64(len(rd.scratch)), limit-pos)]
		n, err := ra.ReadAt(chunk, pos)
		if i := bytes.IndexByte(chunk[:n], '\n'); i >= 0 {
			size := pos + int64(i) + 1 - start
			extra := size - int64(len(rd.buf))
			if !rd.budget.acquire(extra, rd.stop) {
				if extra > rd.budget.max {
					break // longer than the whole budget: skip it
				}
				return io.EOF // stopping
			}
			nb := make([]byte, size)
			copy(nb, rd.buf[:rd.tail])
			rd.buf, rd.grown, rd.scanned = nb, extra, 0
			return rd.readMore()
		}
		pos += int64(n)
		if n == 0 || err != nil {
			rd.scanned = pos // incomplete: look on from here next time
			return io.EOF
		}
	}
	// Over the maximum: skip it without holding it.
	rd.skipping = true
	rd.skipStart = rd.off
	rd.off += int64(rd.tail)
	rd.head, rd.tail, rd.scanned = 0, 0, 0
	if sk, ok := rd.r.(io.Seeker); ok && pos > rd.off {
		if _, err := sk.Seek(pos, io.SeekStart); err == nil {
			rd.off = pos // what was scanned holds no '\n'
		}
	}
	return rd.readMore()
}

// readMore reads into the free end of buf.
func (rd *Reader) readMore() error {
	n, err := rd.r.Read(rd.buf[rd.tail:])
	rd.tail += n
	if n > 0 {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return io.EOF
	}
	return err
}
