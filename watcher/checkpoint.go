package watcher

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// ckptEntry is one file's persisted position and identity.
type ckptEntry struct {
	Path      string `json:"path"`
	Dev       uint64 `json:"dev"`
	Ino       uint64 `json:"ino"`
	Sig       uint64 `json:"sig"`
	SigLen    int    `json:"sig_len"`
	Offset    int64  `json:"offset"`
	Line      int    `json:"line"`
	LineKnown bool   `json:"line_known"`
}

// pos is the entry as a position resumed from the checkpoint (until the
// file's start-up read finds it is another generation).
func (c *ckptEntry) pos() filePos {
	p := filePos{dev: c.Dev, ino: c.Ino, sig: c.Sig, sigLen: uint16(c.SigLen),
		offset: c.Offset, line: c.Line, resumeOff: c.Offset, resumeLine: c.Line, flags: resumed}
	if c.LineKnown {
		p.flags |= lineKnown | resumeKnown
	}
	return p
}

type ckptFile struct {
	Version int          `json:"version"`
	Files   []*ckptEntry `json:"files"`
	// State is the consumer's, as of exactly these positions (SaveState).
	State json.RawMessage `json:"state,omitempty"`
}

// Mark is how far the consumer has folded a file: the end and line number
// (0: unknown) of the last record of generation Gen it processed.
type Mark struct {
	Gen  int
	End  int64
	Line int
}

// Checkpoint is the barrier of a KindCheckpoint record.
type Checkpoint struct {
	done chan committed
	want bool // the checkpoint is written whatever the consumer says changed
}

// StateWanted reports whether the consumer must commit its state even if
// unchanged: the checkpoint is written anyway (positions moved, or it is
// the final one). Otherwise a consumer whose state did not change may
// commit none: at 10 000 sessions, encoding it every 5 s for nothing kept
// megabytes of garbage resident.
func (c *Checkpoint) StateWanted() bool { return c.want }

type committed struct {
	state   []byte
	marks   map[string]Mark
	changed bool
}

// Commit hands the consumer's state over once it has folded every record
// before the barrier: marks say how far, per path; changed says whether the
// state differs from the one it last committed. It never blocks.
func (c *Checkpoint) Commit(state []byte, marks map[string]Mark, changed bool) {
	select {
	case c.done <- committed{state: state, marks: marks, changed: changed}:
	default:
	}
}

// barrierWait bounds how long a checkpoint waits for the consumer's state.
var barrierWait = 2 * time.Second

const ckptVersion = 1

// MaxCheckpointBytes bounds the checkpoint read at start-up: 10 000
// sessions take about 6 MB, and a larger file is refused, not loaded (a
// symlink to /dev/zero grew the daemon to 3 GB in half a second).
const MaxCheckpointBytes = 64 << 20

// CheckCheckpoint is nil when path does not exist or is a regular file. A
// checkpoint is replaced by a rename at every write: a FIFO, a device or
// a symlink there (where a read blocks for ever, or never ends, and the
// rename would put a file in place of a device or the link) is refused,
// named, and left as it is.
func CheckCheckpoint(path string) error {
	if err := safeopen.CheckReplace(path); err != nil {
		return fmt.Errorf("checkpoint %w (remove it, or set checkpoint: to another path)", err)
	}
	return nil
}

func (w *Watcher) loadCheckpoint() error {
	if w.cfg.CheckpointFile == "" {
		return nil
	}
	if err := CheckCheckpoint(w.cfg.CheckpointFile); err != nil {
		return err
	}
	b, err := safeopen.ReadFile(w.cfg.CheckpointFile, MaxCheckpointBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read checkpoint: %w", err)
	}
	var cf ckptFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return fmt.Errorf("parse checkpoint: %w", err)
	}
	if cf.Version != ckptVersion {
		return fmt.Errorf("checkpoint version %d, want %d", cf.Version, ckptVersion)
	}
	w.ckpt = make(map[string]*ckptEntry, len(cf.Files))
	for _, e := range cf.Files {
		if e.SigLen < 0 || e.SigLen > sigMax {
			continue // not a signature this watcher wrote: bootstrap the file afresh
		}
		w.ckpt[e.Path] = e
	}
	w.state = cf.State
	return nil
}

// barrier sends a checkpoint barrier through Records and waits for the
// consumer's state. It works after Run's context ended too: the consumer
// reads until Records close.
func (w *Watcher) barrier(want bool) (committed, error) {
	c := &Checkpoint{done: make(chan committed, 1), want: want}
	t := time.NewTimer(barrierWait)
	defer t.Stop()
	select {
	case w.out <- Record{Kind: KindCheckpoint, Checkpoint: c}:
	case <-t.C:
		return committed{}, errors.New("consumer not reading; checkpoint barrier not sent")
	}
	select {
	case got := <-c.done:
		return got, nil
	case <-t.C:
		return committed{}, errors.New("consumer did not commit its state")
	}
}

// saveCheckpoint writes the checkpoint, then tells AfterCheckpoint its
// size, once the encoding's garbage is unreachable.
func (w *Watcher) saveCheckpoint(force bool) error {
	n, err := w.writeCheckpoint(force)
	if err == nil && n > 0 && w.cfg.AfterCheckpoint != nil {
		w.cfg.AfterCheckpoint(n)
	}
	return err
}

// writeCheckpoint writes every file's delivered position (with SaveState:
// the position the consumer folded, and its state): to a temporary file,
// synced, then renamed over the old one, so a crash leaves either. Unless
// force, an unchanged checkpoint is not rewritten. It returns the bytes
// written (0: none).
func (w *Watcher) writeCheckpoint(force bool) (int64, error) {
	if w.cfg.CheckpointFile == "" {
		return 0, nil
	}
	var got committed
	if w.cfg.SaveState {
		want := force || w.dirty.Load()
		var err error
		if got, err = w.barrier(want); err != nil {
			// A late commit still takes the consumer's changed flag: write
			// the next checkpoint whatever it says.
			w.dirty.Store(true)
			return 0, fmt.Errorf("checkpoint: %w", err)
		}
		dirty := w.dirty.Swap(false)
		if !force && !got.changed && !dirty {
			return 0, nil // nothing new to save
		}
		if !want && !got.changed {
			// Positions moved after the barrier asked for no state, so
			// none came: the next checkpoint asks for it.
			w.dirty.Store(true)
			return 0, nil
		}
	}
	w.mu.Lock()
	files := make([]*file, 0, w.nfiles)
	w.eachFile(func(f *file) { files = append(files, f) })
	w.mu.Unlock()
	if len(got.state) > 0 && !json.Valid(got.state) {
		return 0, errors.New("encode checkpoint: the consumer's state is not JSON")
	}
	dir := filepath.Dir(w.cfg.CheckpointFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("checkpoint dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(w.cfg.CheckpointFile)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	// Streamed, entry by entry, as json.Marshal(ckptFile) would write it:
	// at 10 000 files, marshalling the whole file (and re-validating the
	// consumer's state as a RawMessage) briefly doubled the daemon's heap.
	bw := bufio.NewWriterSize(tmp, 64<<10)
	enc := json.NewEncoder(bw)
	fmt.Fprintf(bw, `{"version":%d,"files":[`, ckptVersion)
	n := 0
	for _, f := range files {
		p := f.position()
		if p.has(fresh) || p.dev == 0 && p.ino == 0 && p.sigLen == 0 && p.offset == 0 {
			continue // nothing adopted yet
		}
		if w.cfg.SaveState {
			// The consumer's state covers what it folded: save that
			// position, not how far the readers got.
			switch m, ok := got.marks[f.path]; {
			case ok && m.Gen == int(p.gen):
				p.offset, p.line = m.End, m.Line
				p.set(lineKnown, m.Line > 0)
			case p.has(resumed):
				p.offset, p.line = p.resumeOff, p.resumeLine
				p.set(lineKnown, p.has(resumeKnown))
			default:
				continue // nothing of this generation folded: bootstrap it afresh
			}
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		if err := enc.Encode(ckptEntry{Path: f.path, Dev: p.dev, Ino: p.ino, Sig: p.sig,
			SigLen: int(p.sigLen), Offset: p.offset, Line: p.line, LineKnown: p.has(lineKnown)}); err != nil {
			tmp.Close()
			return 0, fmt.Errorf("encode checkpoint: %w", err)
		}
	}
	bw.WriteByte(']')
	if len(got.state) > 0 {
		bw.WriteString(`,"state":`)
		bw.Write(got.state)
	}
	bw.WriteByte('}')
	err = bw.Flush()
	var size int64
	if err == nil {
		size, err = tmp.Seek(0, io.SeekCurrent)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Whatever was put there since start-up is not renamed over.
		err = CheckCheckpoint(w.cfg.CheckpointFile)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), w.cfg.CheckpointFile)
	}
	if err != nil {
		return 0, fmt.Errorf("write checkpoint: %w", err)
	}
	if d, err := safeopen.Dir(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return size, nil
}
