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
	head int   // first unconsumed byte in buf
	tail int   // end of valid bytes in buf
	off  int64 // stream offset of buf[head]
	num  int   // lines returned or skipped so far

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
	if max <= 0 {
		max = DefaultMax
	}
	size := defaultBuf
	if size > max+1 {
		size = max + 1
	}
	return &Reader{r: r, max: max, buf: make([]byte, size), off: off, num: num}
}

// Reset points the reader at a new source, keeping its buffer.
func (rd *Reader) Reset(r io.Reader, off int64, num int) {
	rd.r, rd.off, rd.num = r, off, num
	rd.head, rd.tail = 0, 0
	rd.skipping = false
	rd.Oversized = 0
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
	if rd.tail == len(rd.buf) {
		// Grow toward max+1 so a line of exactly max bytes plus '\n' fits.
		n := len(rd.buf) * 2
		if n > rd.max+1 {
			n = rd.max + 1
		}
		if n <= len(rd.buf) {
			n = len(rd.buf) + 1 // cannot happen: pending <= max < len(buf)
		}
		nb := make([]byte, n)
		copy(nb, rd.buf[:rd.tail])
		rd.buf = nb
	}
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
