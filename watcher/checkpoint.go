package watcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

func (c *ckptEntry) pos() filePos {
	return filePos{dev: c.Dev, ino: c.Ino, sig: c.Sig, sigLen: c.SigLen,
		offset: c.Offset, line: c.Line, lineKnown: c.LineKnown}
}

type ckptFile struct {
	Version int          `json:"version"`
	Files   []*ckptEntry `json:"files"`
}

const ckptVersion = 1

func (w *Watcher) loadCheckpoint() error {
	if w.cfg.CheckpointFile == "" {
		return nil
	}
	b, err := os.ReadFile(w.cfg.CheckpointFile)
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
		w.ckpt[e.Path] = e
	}
	return nil
}

// saveCheckpoint writes every file's delivered position: to a temporary
// file, synced, then renamed over the old one, so a crash leaves either.
func (w *Watcher) saveCheckpoint() error {
	if w.cfg.CheckpointFile == "" {
		return nil
	}
	w.mu.Lock()
	files := make([]*file, 0, len(w.files))
	for _, f := range w.files {
		files = append(files, f)
	}
	w.mu.Unlock()
	cf := ckptFile{Version: ckptVersion, Files: make([]*ckptEntry, 0, len(files))}
	for _, f := range files {
		p := f.position()
		if p.fresh || p.dev == 0 && p.ino == 0 && p.sigLen == 0 && p.offset == 0 {
			continue // nothing adopted yet
		}
		cf.Files = append(cf.Files, &ckptEntry{Path: f.path, Dev: p.dev, Ino: p.ino, Sig: p.sig,
			SigLen: p.sigLen, Offset: p.offset, Line: p.line, LineKnown: p.lineKnown})
	}
	b, err := json.Marshal(cf)
	if err != nil {
		return fmt.Errorf("encode checkpoint: %w", err)
	}
	dir := filepath.Dir(w.cfg.CheckpointFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(w.cfg.CheckpointFile)+".tmp*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), w.cfg.CheckpointFile)
	}
	if err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
