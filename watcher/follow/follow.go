// Package follow is the seam between the watcher and whatever reads the
// lines of one open file. The watcher owns discovery, identity, truncation
// and deletion; a Follower only turns the bytes after an offset into
// complete lines.
//
// Reader, the Follower the watcher uses, is parsers/lines over the open
// file, pulled when the watcher's directory events say the file changed. It
// replaced github.com/nxadm/tail, the follower the issue specified, for the
// reasons in docs/design.md (bench/watcher.sh measures them): nxadm/tail's
// poll mode adds up to 250 ms per line, its inotify mode spends one watch
// per file in a process-wide tracker that calls os.Exit when inotify is
// exhausted, it continues at a stale offset after a truncate and rewrite,
// and it holds an oversized line in memory.
package follow

import (
	"io"
	"os"
	"sync"

	"github.com/logwatch/logwatch/parsers/lines"
)

// Follower yields the complete lines of one open file generation.
type Follower interface {
	// Next returns the next complete line, or io.EOF when none is available
	// yet. io.EOF is not sticky: after the file grows Next continues, and a
	// partial last line is returned once its newline arrives.
	Next() (lines.Line, error)
	// Offset is the resume point after the last line returned or skipped.
	Offset() int64
	// LineNum is the number of lines before Offset.
	LineNum() int
	// Oversized counts lines skipped for exceeding the maximum length.
	Oversized() int
	// Close releases the follower; the file itself belongs to the caller.
	Close() error
}

// Opener starts a Follower on f at byte offset off, with num lines before it.
type Opener interface {
	Open(f *os.File, off int64, num int) (Follower, error)
}

// Readers opens Reader followers. Their line buffers are pooled: a reader
// holds one only while reading (or while a long partial line is pending), so
// thousands of followed files cost no buffer memory while they are quiet.
type Readers struct {
	max    int
	pool   sync.Pool
	budget *lines.Budget
	stop   <-chan struct{}
}

// NewReaders returns an Opener whose followers skip lines longer than max
// bytes (<= 0: lines.DefaultMax).
func NewReaders(max int) *Readers {
	r := &Readers{max: max}
	r.pool.New = func() any { return lines.New(nil, 0, 0, max) }
	return r
}

// WithBudget makes every follower take the memory for long lines from b
// (process-wide), waiting for room until stop closes. It returns rs.
func (rs *Readers) WithBudget(b *lines.Budget, stop <-chan struct{}) *Readers {
	rs.budget, rs.stop = b, stop
	return rs
}

// Open implements Opener.
func (rs *Readers) Open(f *os.File, off int64, num int) (Follower, error) {
	return &Reader{rs: rs, f: f, off: off, num: num}, nil
}

// Reader is the shared line reader over an open file, read on demand.
type Reader struct {
	rs        *Readers
	f         *os.File
	rd        *lines.Reader // borrowed from the pool while reading
	off       int64
	num       int
	oversized int
}

// Next implements Follower.
func (r *Reader) Next() (lines.Line, error) {
	if r.rd == nil {
		if _, err := r.f.Seek(r.off, io.SeekStart); err != nil {
			return lines.Line{}, err
		}
		r.rd = r.rs.pool.Get().(*lines.Reader)
		r.rd.Reset(r.f, r.off, r.num)
		if r.rs.budget != nil {
			r.rd.SetBudget(r.rs.budget, r.rs.stop)
		}
	}
	l, err := r.rd.Next()
	if err != nil {
		r.sync()
		// A partial line is read again from the file next time rather than
		// kept: bytes held across calls could belong to a generation that
		// has since been rewritten in place. Only a long partial line (an
		// oversized one, or a huge record written in pieces) is kept, so it
		// is not rescanned on every write.
		if r.rd.Pending() <= keepPending {
			r.rd.Release()
			r.rs.pool.Put(r.rd)
			r.rd = nil
		}
	}
	return l, err
}

// keepPending is the longest partial line a Reader reads again rather than
// keeps buffered between calls.
const keepPending = 64 << 10

func (r *Reader) sync() {
	r.off, r.num = r.rd.Offset(), r.rd.LineNum()
	r.oversized += r.rd.Oversized
	r.rd.Oversized = 0
}

// Offset implements Follower.
func (r *Reader) Offset() int64 {
	if r.rd != nil {
		return r.rd.Offset()
	}
	return r.off
}

// LineNum implements Follower.
func (r *Reader) LineNum() int {
	if r.rd != nil {
		return r.rd.LineNum()
	}
	return r.num
}

// Oversized implements Follower.
func (r *Reader) Oversized() int {
	if r.rd != nil {
		return r.oversized + r.rd.Oversized
	}
	return r.oversized
}

// Close implements Follower.
func (r *Reader) Close() error {
	if r.rd != nil {
		r.sync()
		r.rd.Release()
		r.rs.pool.Put(r.rd)
		r.rd = nil
	}
	return nil
}
