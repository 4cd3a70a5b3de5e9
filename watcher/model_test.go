package watcher

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The model-based reliability suite, in the style of Vector's file source
// tests: a seeded random sequence of file operations runs against real files
// and the real watcher, while a model records what was written. Afterwards:
//
//   - every delivered line is a complete line that was written (never a
//     partial one, never an oversized one);
//   - within a file generation, lines arrive in order and at most once,
//     across watcher restarts too (Replay records aside);
//   - a generation that was superseded (truncated, rewritten, deleted,
//     replaced) got a prefix of its lines: the rest were gone before they
//     could be read;
//   - a generation still alive at the end got every line: nothing after a
//     truncation is lost.
//
// WATCHER_MODEL_SEQS sets the number of sequences (bench/watcher.sh runs many
// more), WATCHER_MODEL_SEED the first seed; a failure names its seed.

const modelMaxLine = 2048

type mgen struct {
	id      int
	lines   []string // ids of complete lines, in file order
	pending string   // rest of a line left unfinished, written before the next line
	pendID  string
}

type mfile struct {
	idx    int
	path   string
	codex  bool
	gens   []*mgen
	exists bool
}

type model struct {
	t       *testing.T
	rng     *rand.Rand
	dir     string
	files   []*mfile
	dirs    int
	outside int
	log     []string
	written map[string]bool // every complete line id
	big     map[string]bool // oversized line ids
}

func (m *model) cur(f *mfile) *mgen { return f.gens[len(f.gens)-1] }

func (m *model) newGen(f *mfile) *mgen {
	g := &mgen{id: len(f.gens)}
	f.gens = append(f.gens, g)
	return g
}

func (m *model) lineText(f *mfile, id string, size int) string {
	if f.codex {
		const format = `{"timestamp":%q,"type":"event_msg","payload":{"type":"token_count","pad":%q}}` + "\n"
		return fmt.Sprintf(format, id, strings.Repeat("y", max(size-len(format)-len(id), 0)))
	}
	return claudeLine(id, size)
}

// nextLine returns the text of a new complete line of f's current generation.
func (m *model) nextLine(f *mfile) (string, string) {
	g := m.cur(f)
	id := fmt.Sprintf("p%d-g%d-n%d", f.idx, g.id, len(g.lines)+1)
	size := 60 + m.rng.IntN(500)
	if m.rng.IntN(20) == 0 {
		size = modelMaxLine - 20 + m.rng.IntN(20) // near the limit, still under it
	}
	return id, m.lineText(f, id, size)
}

func (m *model) write(f *mfile, flag int, s string) {
	fh, err := os.OpenFile(f.path, flag|os.O_WRONLY, 0o644)
	if err != nil {
		m.t.Fatalf("%s: %v", f.path, err)
	}
	if _, err := fh.WriteString(s); err != nil {
		m.t.Fatal(err)
	}
	fh.Close()
}

// finish completes f's unfinished line, if any.
func (m *model) finish(f *mfile) {
	g := m.cur(f)
	if g.pendID == "" {
		return
	}
	m.write(f, os.O_APPEND, g.pending)
	g.lines = append(g.lines, g.pendID)
	m.written[g.pendID] = true
	g.pending, g.pendID = "", ""
}

func (m *model) appendLines(f *mfile, n int) {
	m.finish(f)
	var b strings.Builder
	g := m.cur(f)
	for range n {
		id, text := m.nextLine(f)
		b.WriteString(text)
		g.lines = append(g.lines, id)
		m.written[id] = true
	}
	m.write(f, os.O_APPEND, b.String())
}

// appendPartial writes one line in several writes; sometimes its last part
// is left for a later operation.
func (m *model) appendPartial(f *mfile) {
	m.finish(f)
	g := m.cur(f)
	id, text := m.nextLine(f)
	cuts := []int{0}
	for range 1 + m.rng.IntN(3) {
		cuts = append(cuts, 1+m.rng.IntN(len(text)-1))
	}
	cuts = append(cuts, len(text))
	slicesSort(cuts)
	for i := 0; i+1 < len(cuts)-1; i++ {
		m.write(f, os.O_APPEND, text[cuts[i]:cuts[i+1]])
		time.Sleep(time.Duration(m.rng.IntN(300)) * time.Microsecond)
	}
	last := text[cuts[len(cuts)-2]:]
	if m.rng.IntN(3) == 0 {
		g.pending, g.pendID = last, id
		return
	}
	m.write(f, os.O_APPEND, last)
	g.lines = append(g.lines, id)
	m.written[id] = true
}

func (m *model) oversized(f *mfile) {
	m.finish(f)
	g := m.cur(f)
	id := fmt.Sprintf("p%d-g%d-big%d", f.idx, g.id, len(g.lines))
	text := m.lineText(f, id, modelMaxLine+2+m.rng.IntN(3*modelMaxLine))
	m.big[id] = true
	for len(text) > 0 {
		n := min(len(text), 1+m.rng.IntN(modelMaxLine))
		m.write(f, os.O_APPEND, text[:n])
		text = text[n:]
	}
	m.appendLines(f, 1)
}

func (m *model) truncate(f *mfile) {
	if err := os.Truncate(f.path, 0); err != nil {
		m.t.Fatal(err)
	}
	m.newGen(f)
}

// rewrite replaces the content in place (same inode) with longer content.
func (m *model) rewrite(f *mfile) {
	st, err := os.Stat(f.path)
	if err != nil {
		m.t.Fatal(err)
	}
	g := m.newGen(f)
	var b strings.Builder
	for int64(b.Len()) <= st.Size() || b.Len() == 0 {
		id, text := m.nextLine(f)
		b.WriteString(text)
		g.lines = append(g.lines, id)
		m.written[id] = true
	}
	m.write(f, os.O_TRUNC, b.String())
}

func (m *model) remove(f *mfile) {
	if err := os.Remove(f.path); err != nil {
		m.t.Fatal(err)
	}
	f.exists = false
}

func (m *model) create(f *mfile) {
	m.newGen(f)
	f.exists = true
	m.write(f, os.O_CREATE|os.O_EXCL, "")
	m.appendLines(f, 1+m.rng.IntN(3))
}

func (m *model) addFile(path string, codex bool) *mfile {
	f := &mfile{idx: len(m.files), path: path, codex: codex}
	m.files = append(m.files, f)
	return f
}

// newDir creates a directory (a new project, or a new Codex date folder with
// mkdir -p) and immediately a log in it.
func (m *model) newDir() {
	m.dirs++
	var f *mfile
	if m.rng.IntN(2) == 0 {
		d := filepath.Join(m.dir, "claude", fmt.Sprintf("new%d", m.dirs))
		mkdirT(m.t, d)
		f = m.addFile(filepath.Join(d, fmt.Sprintf("sess%d.jsonl", m.dirs)), false)
	} else {
		d := filepath.Join(m.dir, "codex", "2026", fmt.Sprintf("%02d", 1+m.dirs%12), fmt.Sprintf("%02d", m.dirs))
		mkdirT(m.t, d)
		f = m.addFile(filepath.Join(d, fmt.Sprintf("rollout-2026-01-01T00-00-%02d-x.jsonl", m.dirs)), true)
	}
	m.create(f)
}

// renameIn writes a file outside the tree and renames it in: to a new path,
// or over an existing log (which replaces it).
func (m *model) renameIn() {
	m.outside++
	tmp := filepath.Join(m.dir, "outside", fmt.Sprintf("t%d.jsonl", m.outside))
	var f *mfile
	if cands := m.existing(false); len(cands) > 0 && m.rng.IntN(2) == 0 {
		f = cands[m.rng.IntN(len(cands))]
	} else {
		f = m.addFile(filepath.Join(m.dir, "claude", "p0", fmt.Sprintf("moved%d.jsonl", m.outside)), false)
	}
	real := f.path
	f.path = tmp
	m.create(f)
	m.finish(f)
	f.path = real
	if err := os.Rename(tmp, real); err != nil {
		m.t.Fatal(err)
	}
}

func (m *model) existing(codex bool) []*mfile {
	var l []*mfile
	for _, f := range m.files {
		if f.exists && (!codex || f.codex) && f.codex == codex {
			l = append(l, f)
		}
	}
	return l
}

func mkdirT(t testing.TB, d string) {
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func slicesSort(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// step performs one random file operation (restarts are the caller's).
func (m *model) step() {
	var live []*mfile
	var gone []*mfile
	for _, f := range m.files {
		if f.exists {
			live = append(live, f)
		} else {
			gone = append(gone, f)
		}
	}
	op := m.rng.IntN(100)
	if len(live) == 0 && op < 75 {
		op = 85
	}
	var f *mfile
	if len(live) > 0 {
		f = live[m.rng.IntN(len(live))]
	}
	switch {
	case op < 30:
		n := 1 + m.rng.IntN(4)
		m.logf("append %d lines to %d", n, f.idx)
		m.appendLines(f, n)
	case op < 45:
		m.logf("partial line to %d", f.idx)
		m.appendPartial(f)
	case op < 52:
		m.logf("oversized line to %d", f.idx)
		m.oversized(f)
	case op < 59:
		m.logf("truncate %d", f.idx)
		m.truncate(f)
	case op < 66:
		m.logf("rewrite %d", f.idx)
		m.rewrite(f)
	case op < 72:
		m.logf("delete %d", f.idx)
		m.remove(f)
	case op < 80 && len(gone) > 0:
		f = gone[m.rng.IntN(len(gone))]
		m.logf("recreate %d", f.idx)
		m.create(f)
	case op < 90:
		m.logf("new dir and file")
		m.newDir()
	default:
		m.logf("rename into the tree")
		m.renameIn()
	}
}

func (m *model) logf(format string, args ...any) {
	m.log = append(m.log, fmt.Sprintf(format, args...))
}

func TestModel(t *testing.T) {
	seqs := 150
	if testing.Short() {
		seqs = 30
	}
	if s := os.Getenv("WATCHER_MODEL_SEQS"); s != "" {
		seqs, _ = strconv.Atoi(s)
	}
	seed := uint64(1)
	if s := os.Getenv("WATCHER_MODEL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	for i := range seqs {
		s := seed + uint64(i)
		if !t.Run(fmt.Sprintf("seed=%d", s), func(t *testing.T) { runModel(t, s) }) {
			return // one reproducible failure is enough
		}
	}
}

func runModel(t *testing.T, seed uint64) {
	dir := t.TempDir()
	m := &model{t: t, rng: rand.New(rand.NewPCG(seed, seed)), dir: dir,
		written: map[string]bool{}, big: map[string]bool{}}
	for _, d := range []string{"claude/p0", "claude/p1", "codex/2026/01/01", "outside"} {
		mkdirT(t, filepath.Join(dir, d))
	}
	// Some history before the first start.
	m.create(m.addFile(filepath.Join(dir, "claude", "p0", "a.jsonl"), false))
	m.create(m.addFile(filepath.Join(dir, "claude", "p1", "b.jsonl"), false))
	m.create(m.addFile(filepath.Join(dir, "codex", "2026", "01", "01", "rollout-2026-01-01T00-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"), true))

	cfg := testConfig(dir)
	cfg.MaxLineBytes = modelMaxLine
	cfg.ReconcileInterval = 100 * time.Millisecond
	log := testLogger(t).Level(modelLogLevel())
	var done []Record
	r := start(t, cfg, log)
	steps := 25 + m.rng.IntN(20)
	for range steps {
		if m.rng.IntN(15) == 0 {
			m.logf("restart")
			r.stop()
			done = append(done, r.records()...)
			for range m.rng.IntN(3) {
				m.step()
			}
			r = start(t, cfg, log)
			continue
		}
		m.step()
		if m.rng.IntN(4) == 0 {
			time.Sleep(time.Duration(m.rng.IntN(2000)) * time.Microsecond)
		}
	}
	defer func() {
		if t.Failed() {
			t.Logf("seed %d operations:\n  %s", seed, strings.Join(m.log, "\n  "))
		}
	}()
	missing := func(recs []Record) (string, []string) {
		got := map[string]bool{}
		for _, rec := range append(done[:len(done):len(done)], recs...) {
			if rec.Kind == KindLine && !rec.Replay {
				got[rec.Evidence.At] = true
			}
		}
		for _, f := range m.files {
			if !f.exists {
				continue
			}
			var miss []string
			for _, id := range m.cur(f).lines {
				if !got[id] {
					miss = append(miss, id)
				}
			}
			if len(miss) > 0 {
				return f.path, miss
			}
		}
		return "", nil
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		path, miss := missing(r.records())
		if path == "" {
			break
		}
		if time.Now().After(deadline) {
			pos, ok := r.w.Position(path)
			st, _ := os.Stat(path)
			t.Errorf("%s: lines %v never delivered; position %+v (known %v), size %d, stats %+v",
				path, miss, pos, ok, st.Size(), r.w.Stats())
			m.dump(append(done, r.records()...), path)
			t.FailNow()
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.stop()
	m.check(append(done, r.records()...))
}

func (m *model) check(recs []Record) {
	t := m.t
	t.Helper()
	delivered := map[string][]int{} // "p-g" → line seqs in delivery order
	for _, rec := range recs {
		if rec.Kind != KindLine {
			continue
		}
		id := rec.Evidence.At
		if rec.Malformed || !m.written[id] {
			if m.big[id] {
				t.Fatalf("oversized line %s delivered", id)
			}
			t.Fatalf("delivered a line that was never written whole: %+v", rec)
		}
		if rec.Replay {
			continue
		}
		i := strings.LastIndex(id, "-n")
		n, _ := strconv.Atoi(id[i+2:])
		delivered[id[:i]] = append(delivered[id[:i]], n)
	}
	for _, f := range m.files {
		for gi, g := range f.gens {
			key := fmt.Sprintf("p%d-g%d", f.idx, g.id)
			got := delivered[key]
			for i, n := range got {
				if n != i+1 {
					t.Errorf("%s (%s): delivered %v, want a prefix of 1..%d in order, once each",
						key, f.path, got, len(g.lines))
					m.dump(recs, f.path)
					t.FailNow()
				}
			}
			if len(got) > len(g.lines) {
				t.Fatalf("%s: delivered %d lines, %d written", key, len(got), len(g.lines))
			}
			alive := f.exists && gi == len(f.gens)-1
			if alive && len(got) != len(g.lines) {
				m.dump(recs, f.path)
				t.Fatalf("%s (%s): live generation got %d of %d lines", key, f.path, len(got), len(g.lines))
			}
		}
	}
}

func modelLogLevel() zerolog.Level {
	if os.Getenv("WATCHER_MODEL_DEBUG") != "" {
		return zerolog.DebugLevel
	}
	return zerolog.WarnLevel
}

// dump logs every record of path, run by run.
func (m *model) dump(recs []Record, path string) {
	var b strings.Builder
	for _, r := range recs {
		if r.Path == path {
			fmt.Fprintf(&b, "\n  %s gen=%d [%d,%d) line=%d id=%s boot=%v replay=%v", r.Kind, r.Gen, r.Offset, r.End, r.Line, r.Evidence.At, r.Bootstrap, r.Replay)
		}
	}
	m.t.Logf("records of %s:%s", path, b.String())
}
