package watcher

import (
	"bytes"
	"errors"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/watcher/follow"
)

const (
	sigMax     = 1024    // bytes at the start of a file that identify its generation
	batchLines = 256     // lines read before the file is re-checked and they are delivered
	batchBytes = 4 << 20 // likewise in bytes
)

// filePos is where a file's reading stands and which generation it is.
// Fields are sized to what they hold and ordered so the small ones share
// one word: there is one per file.
type filePos struct {
	dev, ino uint64
	sig      uint64 // hash of the first sigLen bytes
	offset   int64  // just after the last line delivered
	line     int    // lines before offset, when lineKnown
	size     int64  // size when last read

	// This generation was resumed from the checkpoint at resumeOff.
	resumeOff  int64
	resumeLine int

	gen    int32  // generations at one path in one run
	sigLen uint16 // at most sigMax
	flags  posFlags
}

// posFlags are a filePos's flags, in one byte so that the position packs
// into 72 bytes.
type posFlags uint8

const (
	lineKnown posFlags = 1 << iota
	// fresh: no generation adopted yet (a new file, or deletion reported):
	// the next file at the path starts at 0.
	fresh
	resumed
	resumeKnown
)

func (p *filePos) has(f posFlags) bool { return p.flags&f != 0 }

func (p *filePos) set(f posFlags, on bool) {
	if on {
		p.flags |= f
	} else {
		p.flags &^= f
	}
}

// agentCode is a file's agent in one byte (parsers.Agent is a string): its
// place in parsers.All, plus one (0: unknown). Agents register at init, so
// the places do not move.
type agentCode uint8

const codeUnknown agentCode = 0

func codeOf(a parsers.Agent) agentCode {
	for i, s := range parsers.All() {
		if s.Name == a {
			return agentCode(i + 1)
		}
	}
	return codeUnknown
}

func (c agentCode) agent() parsers.Agent {
	if all := parsers.All(); c > 0 && int(c) <= len(all) {
		return all[c-1].Name
	}
	return parsers.AgentUnknown
}

// header reports whether the agent's logs name their session on line 1
// only (Traits.Header).
func (c agentCode) header() bool { return parsers.TraitsOf(c.agent()).Header }

// headerLines are the lines a read that starts mid-file reads first: the
// header, and the slot before it.
func (c agentCode) headerLines() int {
	if parsers.TraitsOf(c.agent()).Slot > 0 {
		return 2
	}
	return 1
}

// sigFrom is where the generation's signature starts: past the agent's
// slot (Traits.Slot), which it rewrites in place, but for the slot's
// newline, so that a file whose first line is another length is still
// another generation.
func (c agentCode) sigFrom() int {
	if n := parsers.TraitsOf(c.agent()).Slot; n > 0 {
		return n - 1
	}
	return 0
}

// file is one followed log. Most files are read once at start-up and then
// stay idle for the daemon's life: a file holds no buffer, goroutine, timer,
// wake channel (Watcher.wakes) or mutex while idle, no map entry (its dir,
// found from the path, lists it) and no string but its path: the session id
// is derived from it when a reader starts (96 bytes, was 176). The path is
// the only copy: the relay keys how far it folded each file by the records'
// Path, and its session ids are substrings of it. (Holding the name alone,
// with the path built for each reader, cost 48 bytes more per file: the
// relay kept the built path.)
type file struct {
	path string

	pos  filePos // guarded by posLocks[lock]
	lock uint8

	// Owned by the goroutine that runs the file; running hands it over
	// through Watcher.mu.
	agent agentCode

	running bool // guarded by Watcher.mu
	gone    bool // forgotten (deleted): whatever is at the path now has its own file; guarded by Watcher.mu

	// Owned like agent.
	// presumed: the agent is the root's, not yet confirmed by a line the
	// agent writes. A JSONL in a root that holds none (hook payloads kept
	// beside the transcripts) is not a session, as verify says.
	presumed bool
	booted   bool
	warned   bool
}

// base is the file's name in its directory.
func (f *file) base() string {
	return f.path[strings.LastIndexByte(f.path, filepath.Separator)+1:]
}

// posLocks guard the files' positions, a file's chosen round robin when it
// is made: a mutex in each would cost 8 bytes of each idle file, and only
// the few files being read take theirs often.
var (
	posLocks [64]sync.Mutex
	nextLock atomic.Uint32
)

func newLock() uint8 { return uint8(nextLock.Add(1) % uint32(len(posLocks))) }

func (f *file) position() filePos {
	m := &posLocks[f.lock]
	m.Lock()
	defer m.Unlock()
	return f.pos
}

func (f *file) update(fn func(*filePos)) {
	m := &posLocks[f.lock]
	m.Lock()
	fn(&f.pos)
	m.Unlock()
}

// notifier is implemented by followers that learn about new lines on their
// own (a push-based follower); the reader then also wakes on them.
type notifier interface {
	Notify() <-chan struct{}
}

// kindSkip marks a batch entry that moves the position without a record:
// the fragment before the first newline of a bootstrap window.
const kindSkip Kind = 255

// reader is the state of one file's reading goroutine.
type reader struct {
	w        *Watcher
	f        *file
	session  string // a substring of the file's path (Codex: "" or the id read from the file)
	subagent bool
	fd       *os.File
	fol      follow.Follower
	notify   <-chan struct{}
	parser   parsers.Parser
	det      parsers.Detector
	// warm holds a parser per agent once used, Reset for the next
	// generation or file: a new parser's scratch space was a quarter of
	// what reading a small log allocated.
	warm []parsers.Parser // by agentCode
	over int              // follower's oversized count already reported

	numKnown bool  // line numbers are known
	delta    int   // added to the follower's line numbers
	skipFrom int64 // a bootstrap window's leading fragment starts here; -1: none
	resume   int64 // bootstrap: the checkpoint offset; lines before it are Replay
	booting  bool
	verified bool // the open file passed a full check since the follower started

	head  []byte // the generation's first bytes as consumed, up to sigMax
	sig   [sigMax]byte
	batch []Record
}

// follow runs f's reader until the file goes idle, is deleted, or the
// watcher stops. A one-shot run (start-up) reads once and hands the file to
// a long-lived reader only if it was written meanwhile.
func (w *Watcher) follow(f *file, oneShot bool) {
	defer w.wg.Done()
	r := w.newReader(f)
	defer w.putReader(r)
	var idle *time.Timer
	var wake <-chan struct{}
	if !oneShot {
		// Made by the kick that started this reader, or by the one that
		// handed the file over from a one-shot run.
		w.mu.Lock()
		wake = w.wakes[f]
		w.mu.Unlock()
	}
	for {
		if r.read() && w.forget(f) {
			return
		}
		if oneShot {
			w.mu.Lock()
			if len(w.wakes[f]) > 0 && !w.closing {
				w.wg.Add(1)
				go w.follow(f, false)
			} else {
				f.running = false
			}
			w.mu.Unlock()
			return
		}
		if idle == nil {
			idle = time.NewTimer(w.cfg.IdleTimeout)
			defer idle.Stop()
		} else {
			idle.Reset(w.cfg.IdleTimeout)
		}
		select {
		case <-wake:
		case <-r.notify:
		case <-idle.C:
			if w.park(f) {
				return
			}
		case <-w.ctx.Done():
			return
		}
	}
}

// newReader returns a reader for f, one put back by an earlier reader if
// there is one: its buffers and parsers are most of what reading a small
// log allocated, and start-up reads thousands of them. The pool empties at
// the next collections, so idle readers cost nothing.
func (w *Watcher) newReader(f *file) *reader {
	r, _ := w.spare.Get().(*reader)
	if r == nil {
		r = &reader{head: make([]byte, 0, sigMax)}
	}
	r.w, r.f, r.skipFrom, r.resume = w, f, -1, -1
	r.session, r.subagent = sessionOf(f.path, f.agent.agent())
	if r.session == "" {
		w.mu.Lock()
		r.session = w.learned[f]
		w.mu.Unlock()
	}
	return r
}

// read brings the file up to date. It returns true when the file is gone
// (reported with KindDeleted once).
func (r *reader) read() bool {
	if r.fd != nil {
		fi, err := os.Stat(r.f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			r.pump() // drain what the open descriptor still has
			return r.gone()
		case err == nil && !r.sameFile(fi):
			// Replaced by another file: finish this one, then start that.
			r.pump()
			r.closeFile()
		}
	}
	if r.fd == nil {
		ok, gone := r.open()
		if gone {
			return r.gone()
		}
		if !ok {
			return false
		}
	}
	r.pump()
	return false
}

func (r *reader) sameFile(fi os.FileInfo) bool {
	dev, ino := fileID(fi)
	p := r.f.position()
	return dev == p.dev && ino == p.ino
}

// gone reports the file deleted, once.
func (r *reader) gone() bool {
	r.closeFile()
	p := r.f.position()
	if p.has(fresh) || !r.f.booted {
		return true
	}
	rec := r.record(KindDeleted)
	rec.Offset, rec.End = p.offset, p.offset
	r.emit(rec)
	r.w.stats.deleted.Add(1)
	r.f.update(func(p *filePos) { *p = filePos{gen: p.gen + 1, flags: lineKnown | fresh} })
	return true
}

// open opens the file and positions the follower: at the delivered offset
// when the file is the same generation, at 0 when it is not.
func (r *reader) open() (ok, gone bool) {
	// Not os.Open: a FIFO put at the path would block this reader (and
	// the watcher's stop) for ever.
	fd, err := safeopen.Open(r.f.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, true
		}
		r.warn(err, "cannot open log; retrying on its next change")
		return false, false
	}
	fi, err := fd.Stat()
	if err != nil {
		fd.Close()
		r.warn(err, "cannot read log")
		return false, false
	}
	if r.f.warned {
		r.f.warned = false
		r.w.stats.unreadable.Add(-1)
		r.w.rlog.Info().Str("path", r.f.path).Msg("log readable again")
	}
	r.fd = fd
	if !r.f.booted {
		r.f.booted = true
		r.bootstrap(fi)
		return true, false
	}
	p := r.f.position()
	switch {
	case p.has(fresh):
		dev, ino := fileID(fi)
		r.f.update(func(p *filePos) {
			p.dev, p.ino = dev, ino
			p.set(fresh, false)
		})
		r.start(0, 0, true)
	case !r.sameGen(fi, p):
		r.newGen(fileID(fi))
	default:
		r.start(p.offset, p.line, p.has(lineKnown))
	}
	return true, false
}

func (r *reader) warn(err error, msg string) {
	if !r.f.warned {
		r.f.warned = true
		r.w.stats.unreadable.Add(1)
		r.w.rlog.Warn().Str("path", r.f.path).Err(err).Msg(msg)
	}
}

// start positions a new follower at off, with num lines before it.
func (r *reader) start(off int64, num int, known bool) {
	r.closeFollower()
	r.verified = false
	r.parser = nil
	r.head = r.head[:0]
	r.fillHead(int64(r.f.position().sigLen))
	if off > 0 && r.f.agent.header() {
		// The parser takes the header as the session's identity; feed it
		// the header so a later copy (a fork's) is not taken.
		for _, l := range r.firstLines(r.f.agent.headerLines()) {
			if l.Offset >= off {
				break
			}
			if p := r.parserFor(l.Bytes); p != nil {
				_, _ = p.Parse(l.Bytes)
			}
		}
	}
	fol, err := r.w.opener.Open(r.fd, off, num)
	if err != nil {
		r.warn(err, "cannot start reading log")
		r.closeFile()
		return
	}
	r.fol = fol
	r.over = 0
	r.numKnown, r.delta = known, 0
	if n, ok := fol.(notifier); ok {
		r.notify = n.Notify()
	}
}

// firstLines reads up to n lines from the start with its own follower.
func (r *reader) firstLines(n int) []lines.Line {
	fol, err := r.w.opener.Open(r.fd, 0, 0)
	if err != nil {
		return nil
	}
	defer fol.Close()
	var out []lines.Line
	for i := 1; i <= n; i++ {
		l, err := fol.Next()
		if err != nil || l.Num != i {
			break
		}
		l.Bytes = append([]byte(nil), l.Bytes...)
		out = append(out, l)
	}
	return out
}

// confirm checks a presumed agent against the line's content: the first
// line an agent writes settles it (the root's layout still names which
// agent). Until then the file's lines belong to no session.
func (r *reader) confirm(line []byte) bool {
	if !r.f.presumed {
		return true
	}
	if r.det.Line(line) == parsers.AgentUnknown {
		return false
	}
	r.f.presumed = false
	return true
}

// parserFor returns the file's parser, detecting the agent from line if it
// is not known yet (a followed file outside every root).
func (r *reader) parserFor(line []byte) parsers.Parser {
	if r.parser != nil {
		return r.parser
	}
	if r.f.agent == codeUnknown {
		a := r.det.Line(line)
		if a == parsers.AgentUnknown {
			return nil
		}
		r.f.agent = codeOf(a)
		r.session, r.subagent = sessionOf(r.f.path, a)
	}
	if int(r.f.agent) >= len(r.warm) {
		r.warm = append(r.warm, make([]parsers.Parser, int(r.f.agent)+1-len(r.warm))...)
	}
	if r.parser = r.warm[r.f.agent]; r.parser != nil {
		r.parser.Reset()
	} else {
		r.parser = parsers.New(r.f.agent.agent())
		r.warm[r.f.agent] = r.parser
	}
	return r.parser
}

// bootstrap positions a file found at start-up: at its checkpoint when the
// checkpoint is this generation, else after the first newline of its last
// BootstrapBytes. Everything up to the end of the file now is history.
func (r *reader) bootstrap(fi os.FileInfo) {
	size := fi.Size()
	dev, ino := fileID(fi)
	r.resume = -1
	p := filePos{dev: dev, ino: ino, flags: lineKnown}
	// A position resumed from the checkpoint is the file's own until this
	// first read: nothing else moves it before.
	if cp := r.f.position(); cp.has(resumed) {
		if cp.dev == dev && cp.ino == ino && size >= cp.offset && r.prefixOK(cp, size) {
			p, r.resume = cp, cp.offset
		} else {
			r.w.rlog.Debug().Str("path", r.f.path).Int64("offset", cp.offset).Bool("same_inode", cp.dev == dev && cp.ino == ino).
				Int64("size", size).Msg("checkpoint is for another generation; bootstrapping the file afresh")
		}
	}
	start := max(size-r.w.cfg.BootstrapBytes, 0)
	if r.resume >= 0 && r.resume < start {
		start = r.resume // whatever was written while down is read whole
	}
	if r.resume < 0 && start > 0 {
		p.set(lineKnown, false)
	}
	r.f.update(func(fp *filePos) { *fp = p })
	r.head = r.head[:0]
	r.fillHead(int64(p.sigLen))

	r.booting = true
	defer func() { r.booting, r.resume = false, -1 }()
	r.closeFollower()
	r.verified = false
	r.parser = nil
	if start > 0 && (r.f.agent == codeUnknown || r.f.agent.header()) {
		// The header names the session (and an unknown log's first line
		// may tell its agent, and so whether a slot comes before the
		// header). A line the window holds from its start is read there.
		n := 1
		for i, l := range r.firstLines(2) {
			if i >= n || l.Offset >= start {
				break
			}
			rec := r.lineRecord(l, i+1)
			rec.Replay = r.resume >= l.End
			r.emit(rec)
			n = r.f.agent.headerLines()
		}
	}
	fol, err := r.w.opener.Open(r.fd, start, 0)
	if err != nil {
		r.warn(err, "cannot start reading log")
		r.closeFile()
		return
	}
	r.fol, r.over = fol, 0
	if n, ok := fol.(notifier); ok {
		r.notify = n.Notify()
	}
	r.numKnown, r.delta = start == 0, 0
	r.skipFrom = -1
	if start > 0 && start != r.resume {
		var b [1]byte
		if _, err := r.fd.ReadAt(b[:], start-1); err != nil || b[0] != '\n' {
			r.skipFrom = start
		}
	}
	r.pump()
}

// sameGen reports whether the file is still the generation p describes.
func (r *reader) sameGen(fi os.FileInfo, p filePos) bool {
	dev, ino := fileID(fi)
	if dev != p.dev || ino != p.ino || fi.Size() < p.offset {
		return false
	}
	return r.prefixOK(p, fi.Size())
}

// prefixOK re-reads the first bytes of the file and checks them against p's
// signature, and that the byte before p's offset is a newline (once per
// open: afterwards each batch's own check covers it).
func (r *reader) prefixOK(p filePos, size int64) bool {
	if size < int64(p.sigLen) {
		return false
	}
	if p.sigLen > 0 {
		from := min(r.f.agent.sigFrom(), int(p.sigLen))
		if n, _ := r.fd.ReadAt(r.sig[from:p.sigLen], int64(from)); n < int(p.sigLen)-from || hash(r.sig[from:p.sigLen]) != p.sig {
			return false
		}
	}
	if p.offset > 0 && !r.verified {
		var one [1]byte
		if _, err := r.fd.ReadAt(one[:], p.offset-1); err != nil || one[0] != '\n' {
			return false
		}
	}
	return true
}

// The signature covers the first bytes of the generation exactly as the
// reader consumed them (line bytes and their line ends), so that a rewrite
// racing a read is caught even when the new content starts like the old:
// the line made of old and new bytes no longer matches the file.

// grow extends the consumed head with a line; bytes the reader skipped (an
// oversized line, the start of a bootstrap window) are taken from the file.
func (r *reader) grow(l lines.Line) {
	if len(r.head) >= sigMax {
		return
	}
	r.fillHead(l.Offset)
	if int64(len(r.head)) != l.Offset {
		return
	}
	// Only what the signature needs: appending a whole long line would keep
	// its copy alive behind the truncated head.
	b := l.Bytes[:min(len(l.Bytes), sigMax-len(r.head))]
	r.head = append(r.head, b...)
	if len(b) == len(l.Bytes) {
		if l.End-l.Offset-int64(len(l.Bytes)) == 2 {
			r.head = append(r.head, '\r')
		}
		r.head = append(r.head, '\n')
	}
	if len(r.head) > sigMax {
		r.head = r.head[:sigMax]
	}
}

// fillHead extends the head from the file up to offset to (at most sigMax).
func (r *reader) fillHead(to int64) {
	n := len(r.head)
	to = min(to, sigMax)
	if int64(n) >= to {
		return
	}
	r.head = r.head[:to]
	if m, _ := r.fd.ReadAt(r.head[n:to], int64(n)); m < int(to)-n {
		r.head = r.head[:n+m]
	}
}

// headOK reports whether the file still starts with the consumed head
// (past the agent's slot).
func (r *reader) headOK() bool {
	n := len(r.head)
	from := min(r.f.agent.sigFrom(), n)
	if n == from {
		return true
	}
	m, _ := r.fd.ReadAt(r.sig[from:n], int64(from))
	return m == n-from && bytes.Equal(r.sig[from:n], r.head[from:])
}

// headSig is the signature of the consumed head (past the agent's slot).
func (r *reader) headSig() uint64 { return hash(r.head[min(r.f.agent.sigFrom(), len(r.head)):]) }

func hash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// newGen restarts the file at offset 0 as a new generation.
func (r *reader) newGen(dev, ino uint64) {
	var gen int32
	r.f.update(func(p *filePos) {
		gen = p.gen + 1
		*p = filePos{gen: gen, dev: dev, ino: ino, flags: lineKnown}
	})
	r.w.stats.resets.Add(1)
	r.w.rlog.Info().Str("path", r.f.path).Int("gen", int(gen)).Msg("log truncated or rewritten; reading it again from the start")
	r.batch = r.batch[:0]
	r.head = r.head[:0]
	r.skipFrom, r.resume = -1, -1
	r.emit(r.record(KindReset))
	r.start(0, 0, true)
}

// pump delivers every complete line up to the end of the file, in batches,
// checking the file's generation before and after reading each batch: a
// truncate and rewrite between two reads must never yield a line made of
// the old offset and the new content.
func (r *reader) pump() {
	for r.fol != nil {
		size, dev, ino, err := fdStat(r.fd)
		if err != nil {
			r.warn(err, "cannot stat log")
			return
		}
		if p := r.f.position(); size < p.offset || !r.prefixOK(p, size) {
			r.newGen(dev, ino)
			continue
		}
		more, err := r.fill()
		if err != nil {
			r.warn(err, "cannot read log")
			r.drop()
			return
		}
		if size, dev, ino, err = fdStat(r.fd); err != nil {
			r.warn(err, "cannot stat log")
			r.drop()
			return
		}
		if size < r.fol.Offset() || !r.headOK() {
			r.newGen(dev, ino)
			continue
		}
		r.verified = true
		if !r.deliver() {
			r.drop()
			return
		}
		sig, n := r.headSig(), uint16(len(r.head))
		r.f.update(func(fp *filePos) { fp.size, fp.sig, fp.sigLen = size, sig, n })
		if !more {
			return
		}
	}
}

// drop abandons a batch that was read but not (wholly) delivered. The
// follower has already moved past its lines, so the next batch would start
// after them and the position would jump over them. Closing the file makes
// the next read reopen it at the delivered position, checking its
// generation again, and read those lines again.
func (r *reader) drop() {
	r.batch = r.batch[:0]
	r.closeFile()
}

// fill reads the next batch. more is false at the end of the data.
func (r *reader) fill() (more bool, err error) {
	r.batch = r.batch[:0]
	size := 0
	for len(r.batch) < batchLines && size < batchBytes {
		l, err := r.fol.Next()
		if n := r.fol.Oversized(); n > r.over {
			end, num := r.fol.Offset(), r.fol.LineNum()
			if err == nil {
				end, num = l.Offset, l.Num-1
			}
			rec := r.record(KindOversized)
			rec.Offset, rec.End, rec.Count = end, end, n-r.over
			rec.Line = r.num(num)
			rec.Replay = r.resume >= end
			r.batch = append(r.batch, rec)
			r.over = n
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.fillHead(r.fol.Offset()) // past skipped lines at the end
				return false, nil
			}
			return false, err
		}
		size += len(l.Bytes)
		r.grow(l)
		if l.Offset == r.skipFrom {
			// The tail of a line that began before the bootstrap window.
			r.skipFrom = -1
			r.batch = append(r.batch, Record{Kind: kindSkip, End: l.End, Replay: r.resume >= l.End})
			continue
		}
		if l.Offset == r.resume && !r.numKnown {
			// The checkpoint knows the line number here.
			if p := r.f.position(); p.has(lineKnown) {
				r.numKnown, r.delta = true, p.line-(l.Num-1)
			}
		}
		rec := r.lineRecord(l, r.num(l.Num))
		rec.Replay = r.resume >= l.End
		r.batch = append(r.batch, rec)
	}
	return true, nil
}

func (r *reader) num(n int) int {
	if !r.numKnown {
		return 0
	}
	return n + r.delta
}

func (r *reader) record(k Kind) Record {
	return Record{Kind: k, Path: r.f.path, Agent: r.f.agent.agent(), Session: r.session,
		Subagent: r.subagent, Gen: int(r.f.position().gen), Bootstrap: r.booting}
}

// lineRecord parses one line.
func (r *reader) lineRecord(l lines.Line, num int) Record {
	confirmed := r.confirm(l.Bytes)
	p := r.parserFor(l.Bytes)
	rec := r.record(KindLine)
	rec.Offset, rec.End, rec.Line = l.Offset, l.End, num
	if !confirmed {
		rec.Agent, rec.Session, rec.Subagent = parsers.AgentUnknown, "", false
		return rec
	}
	if p == nil {
		return rec
	}
	ev, err := p.Parse(l.Bytes)
	if err != nil {
		rec.Malformed = true
		return rec
	}
	rec.Evidence = ev
	if r.session == "" && ev.SessionID != "" {
		r.session = ev.SessionID // a name that does not give the session
		r.w.mu.Lock()
		r.w.learned[r.f] = r.session // for the file's next reader
		r.w.mu.Unlock()
	}
	rec.Agent, rec.Session = r.f.agent.agent(), r.session
	return rec
}

// deliver hands the batch to the consumer, blocking while it is busy, and
// advances the position record by record. It returns false when the
// watcher stops.
func (r *reader) deliver() bool {
	for i := range r.batch {
		rec := &r.batch[i]
		if rec.Kind != kindSkip {
			if !r.emit(*rec) {
				return false
			}
			switch {
			case rec.Kind == KindOversized:
				r.w.stats.oversized.Add(int64(rec.Count))
			case rec.Malformed:
				r.w.stats.malformed.Add(1)
			}
		}
		if rec.Replay {
			continue
		}
		end, line := rec.End, rec.Line
		r.f.update(func(p *filePos) {
			if end > p.offset {
				p.offset = end
				p.line = line
				p.set(lineKnown, line > 0)
			}
		})
	}
	if len(r.batch) > 0 {
		r.w.dirty.Store(true)
	}
	r.batch = r.batch[:0]
	return true
}

// emit hands rec to the consumer. Once the watcher stops it refuses every
// record, even when the channel has room (select would pick at random):
// after one refusal no later record of the file may get through, or the
// position would move past the refused ones.
func (r *reader) emit(rec Record) bool {
	if r.w.ctx.Err() != nil {
		return false
	}
	select {
	case r.w.out <- rec:
		r.w.stats.delivered.Add(1)
		return true
	case <-r.w.ctx.Done():
		return false
	}
}

func (r *reader) closeFollower() {
	if r.fol != nil {
		_ = r.fol.Close()
		r.fol, r.notify = nil, nil
	}
}

// putReader closes r's file and keeps r's buffers and parsers for the next
// reader, holding nothing else.
func (w *Watcher) putReader(r *reader) {
	r.closeFile()
	clear(r.batch[:cap(r.batch)]) // the records' paths and lines
	*r = reader{head: r.head[:0], batch: r.batch[:0], det: r.det, warm: r.warm}
	w.spare.Put(r)
}

func (r *reader) closeFile() {
	r.closeFollower()
	r.verified = false
	if r.fd != nil {
		_ = r.fd.Close()
		r.fd = nil
	}
}
