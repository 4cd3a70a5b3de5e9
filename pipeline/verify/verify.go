// Package verify runs the parsers and the session folder over log files and
// reports what they infer, file by file: the engine of `logwatch verify`.
// It reads files through the same line reader and parser path as the
// watcher, so what verify reports is what the daemon would see.
package verify

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/relay/session"
)

// Options tune a run.
type Options struct {
	MaxLineBytes int // lines longer than this are skipped and counted; <= 0: lines.DefaultMax
	Workers      int // files read in parallel; <= 0: GOMAXPROCS
}

// Interrupt is one interrupt marker found in a file.
type Interrupt struct {
	Line int    `json:"line"`
	Kind string `json:"kind"`
	At   string `json:"at"`
}

// Compaction is one finished compaction found in a file.
type Compaction struct {
	Line    int    `json:"line"`
	Trigger string `json:"trigger"`
}

// File is the report for one log file.
type File struct {
	Path         string         `json:"path"`
	Agent        parsers.Agent  `json:"agent"`
	SessionID    string         `json:"session_id"`
	Cwd          string         `json:"cwd"`
	AgentVersion string         `json:"agent_version"`
	Subagent     bool           `json:"subagent"`
	Bytes        int64          `json:"bytes"`
	Lines        int            `json:"lines"`
	Malformed    int            `json:"malformed"`
	Oversized    int            `json:"oversized"`
	PartialTail  bool           `json:"partial_tail"`
	Sidechain    int            `json:"sidechain_lines"`
	Turns        int            `json:"turns"`
	Interrupts   []Interrupt    `json:"interrupts"`
	Compactions  []Compaction   `json:"compactions"`
	FinalState   session.State  `json:"final_state"`
	FinalReason  string         `json:"final_reason"`
	UnknownTypes map[string]int `json:"unknown_types"`
	Error        string         `json:"error,omitempty"`
	Mismatches   []string       `json:"mismatches,omitempty"`
	expected     bool           // it has a NAME.expect.json
}

// Totals sums a run.
type Totals struct {
	Files        int            `json:"files"`
	Unreadable   int            `json:"unreadable"`
	Bytes        int64          `json:"bytes"`
	Lines        int            `json:"lines"`
	Malformed    int            `json:"malformed"`
	Oversized    int            `json:"oversized"`
	PartialTails int            `json:"partial_tails"`
	Turns        int            `json:"turns"`
	Interrupts   int            `json:"interrupts"`
	Compactions  int            `json:"compactions"`
	Mismatches   int            `json:"mismatches"`
	Expected     int            `json:"expected"` // files compared with a NAME.expect.json
	Agents       map[string]int `json:"agents"`
	FinalStates  map[string]int `json:"final_states"`
	UnknownTypes map[string]int `json:"unknown_types"`
}

// Report is the whole run, as printed by `logwatch verify --json`.
type Report struct {
	Files  []File `json:"files"`
	Totals Totals `json:"totals"`
}

// ErrUnreadable marks a path that could not be read; the report still covers
// every other path.
var ErrUnreadable = errors.New("unreadable path")

// Run verifies every path: a file, or a directory walked recursively for
// *.jsonl and session databases (one report per session in them). Each file with a NAME.expect.json sidecar is compared with it.
// The error wraps ErrUnreadable when some path could not be read.
func Run(paths []string, opt Options) (*Report, error) {
	files, walkErr := Collect(paths)
	// Session databases hold many sessions each: read here, one report per
	// session, after the log files.
	type db struct {
		path string
		spec *parsers.Spec
	}
	var dbs []db
	files = slices.DeleteFunc(files, func(p string) bool {
		if s := storeOf(p); s != nil {
			dbs = append(dbs, db{p, s})
			return true
		}
		return false
	})
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rep := &Report{Files: make([]File, len(files))}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := newAnalyzer(opt.MaxLineBytes)
			for i := range next {
				raw, hasExpect, expErr := readExpect(files[i])
				fa := a
				// A sample about the line limit carries its own: the
				// folder checks itself with no flag.
				if n := expectedMax(raw); n > 0 && n != opt.MaxLineBytes {
					fa = newAnalyzer(n)
				}
				f := fa.file(files[i])
				switch {
				case f.Error != "":
				case expErr != nil:
					f.Mismatches = []string{fmt.Sprintf("expect file: %v", expErr)}
				case hasExpect:
					f.Mismatches = Compare(&f, raw)
				}
				f.expected = hasExpect
				rep.Files[i] = f
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, d := range dbs {
		rep.Files = append(rep.Files, storeFiles(d.path, d.spec, opt.MaxLineBytes)...)
	}
	rep.Totals = total(rep.Files)
	errs := walkErr
	for _, f := range rep.Files {
		if f.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", f.Path, f.Error))
		}
	}
	rep.Totals.Unreadable = len(errs)
	if len(errs) > 0 {
		return rep, fmt.Errorf("%w: %w", ErrUnreadable, errors.Join(errs...))
	}
	return rep, nil
}

// Collect expands paths into the log files to read, in a stable order: each
// argument in turn, directories walked in lexical order for *.jsonl and
// the agents' session databases (parsers.Store.Files).
func Collect(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, err)
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() && (strings.HasSuffix(d.Name(), ".jsonl") || storeOf(path) != nil) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return files, errs
}

// analyzer holds the per-worker scratch space reused across files.
type analyzer struct {
	max     int
	reader  *lines.Reader
	detect  parsers.Detector
	parsers map[parsers.Agent]parsers.Parser
}

func newAnalyzer(max int) *analyzer {
	return &analyzer{max: max, reader: lines.New(nil, 0, 0, max), parsers: map[parsers.Agent]parsers.Parser{}}
}

// parser returns the worker's parser for agent, reset for a new file.
func (a *analyzer) parser(agent parsers.Agent) parsers.Parser {
	p := a.parsers[agent]
	if p == nil {
		p = parsers.New(agent)
		a.parsers[agent] = p
	}
	p.Reset()
	return p
}

// detectLines bounds how far into a file the agent is looked for.
const detectLines = 64

func (a *analyzer) file(path string) File {
	f := File{Path: path, Agent: parsers.AgentUnknown, UnknownTypes: map[string]int{},
		Interrupts: []Interrupt{}, Compactions: []Compaction{}}
	fh, err := safeopen.Open(path) // a FIFO named *.jsonl is refused, not waited on
	if err != nil {
		f.Error = err.Error()
		return f
	}
	defer fh.Close()
	var size int64
	if st, err := fh.Stat(); err == nil {
		size = st.Size()
	}

	// Find the agent, then read the file again from the start with its parser.
	rd := a.reader
	rd.Reset(fh, 0, 0)
	for f.Agent == parsers.AgentUnknown && rd.LineNum() < detectLines {
		l, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.Error = err.Error()
			}
			break
		}
		f.Agent = a.detect.Line(l.Bytes)
	}
	if f.Error != "" {
		return f
	}
	if f.Agent == parsers.AgentUnknown {
		a.count(&f)
		f.FinalState = session.Ready
		f.FinalReason = session.ReasonStart
		return f
	}
	if !rd.Rewind() {
		// Detection read past the first buffer: read the start again.
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			f.Error = err.Error()
			return f
		}
		rd.Reset(fh, 0, 0)
	}
	a.fold(&f, a.parser(f.Agent), size)
	return f
}

// count reads the rest of a file whose agent is unknown, for its line counts.
func (a *analyzer) count(f *File) {
	for {
		if _, err := a.reader.Next(); err != nil {
			if !errors.Is(err, io.EOF) {
				f.Error = err.Error()
			}
			break
		}
	}
	a.finish(f)
	// Without an agent every line is unexplained.
	f.Malformed = 0
}

// folder is the per-file state of a fold.
type folder struct {
	f         *File
	s         *session.Session
	mainChain int
}

// line folds one line's evidence into the file's report and session.
func (fo *folder) line(num int, ev parsers.Evidence, err error) {
	f := fo.f
	if err != nil {
		f.Malformed++
		return
	}
	if ev.Unknown {
		f.UnknownTypes[ev.Type]++
	}
	switch ev.Kind {
	case parsers.KindSidechain:
		f.Sidechain++
	case parsers.KindInterrupt:
		f.Interrupts = append(f.Interrupts, Interrupt{Line: num, Kind: ev.Interrupt, At: ev.At})
	case parsers.KindCompaction:
		f.Compactions = append(f.Compactions, Compaction{Line: num, Trigger: fo.s.CompactionTrigger(ev)})
	}
	if ev.Kind != parsers.KindSidechain && ev.SessionID != "" {
		fo.mainChain++
	}
	fo.s.Log(ev)
}

// pipelineMin is the file size from which the line scans are spread over
// the cores: below it the hand-offs cost more than they save.
var pipelineMin int64 = 8 << 20

func (a *analyzer) fold(f *File, p parsers.Parser, size int64) {
	fo := &folder{f: f, s: session.New(f.Agent)}
	sp, ok := p.(parsers.ScanParser)
	if ok && size >= pipelineMin && runtime.GOMAXPROCS(0) > 1 {
		a.pipeline(fo, sp)
	} else {
		for {
			l, err := a.reader.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					f.Error = err.Error()
				}
				break
			}
			ev, err := p.Parse(l.Bytes)
			fo.line(l.Num, ev, err)
		}
	}
	s := fo.s
	s.Quiet() // the end of the file counts as quiet
	f.SessionID, f.Cwd, f.AgentVersion = s.ID, s.Cwd, s.AgentVersion
	f.Turns = s.Turns
	f.FinalState, f.FinalReason = s.State, s.Reason
	f.Subagent = f.Sidechain > 0 && fo.mainChain == 0
	a.finish(f)
}

// batch is a run of consecutive lines, slices of one buffer the reader has
// handed over (lines.Reader.SwapBuffer), so that they can be scanned on
// other goroutines while the reader moves on without copying them.
type batch struct {
	buf []byte // the buffer the lines are in, reused as a read buffer
	// lines holds each line's start and end in buf: offsets, not slices,
	// so that the garbage collector has no pointers to scan or track.
	lines []int
	nums  []int
	scans []parsers.Scanned
	done  chan struct{} // closed when every line is scanned
}

// add appends l, a line in the reader's current buffer, which becomes b.buf
// when the reader hands it over.
func (b *batch) add(rd *lines.Reader, l lines.Line) {
	start := rd.BufferOffset(l)
	b.lines = append(b.lines, start, start+len(l.Bytes))
	b.nums = append(b.nums, l.Num)
}

// line returns the j-th line.
func (b *batch) line(j int) []byte { return b.buf[b.lines[2*j]:b.lines[2*j+1]] }

// batchBytes is the size of a batch's buffer, and so of a read. A batch
// is read, then scanned on another core while it is still in that core's
// cache: 256 KiB batches took 10-20% less time than 1 MiB ones (half the
// page faults, fewer cache misses), on one 384 MiB file and a 40 MB one.
var batchBytes = 256 << 10

// pipeline folds a long file with its lines read by one goroutine, scanned
// and as far as possible parsed (a parsers.Preparer: the bulk of the work)
// by one goroutine per core, and finished and folded in file order here: the
// same evidence as Parse line by line, on every core. A fixed number of
// batches bounds the memory.
func (a *analyzer) pipeline(fo *folder, p parsers.ScanParser) {
	n := runtime.GOMAXPROCS(0)
	free := make(chan *batch, 2*n+2)
	for i := 0; i < cap(free); i++ {
		free <- &batch{buf: make([]byte, batchBytes)}
	}
	work := make(chan *batch, cap(free))
	ordered := make(chan *batch, cap(free))
	var readErr error
	rd := a.reader
	go func() {
		defer close(ordered)
		defer close(work)
		b := <-free
		for {
			// Take the lines complete in the reader's buffer; when it needs
			// to read, hand the buffer over with them and read into the next
			// batch's.
			l, ok := rd.NextBuffered()
			if ok {
				b.add(rd, l)
				continue
			}
			nb := <-free
			b.buf = rd.SwapBuffer(nb.buf)
			nb.buf = nil
			l, err := rd.Next()
			if err != nil && !errors.Is(err, io.EOF) {
				readErr = err
			}
			if len(b.nums) > 0 || err != nil {
				b.done = make(chan struct{})
				work <- b
				ordered <- b
			} else {
				b.lines, b.nums = b.lines[:0], b.nums[:0]
				free <- b
			}
			if err != nil {
				free <- nb
				return
			}
			b = nb
			b.add(rd, l)
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr := p.NewPreparer()
			for b := range work {
				if cap(b.scans) < len(b.nums) {
					// Room for more: a later batch of shorter lines
					// would make it again, on fresh pages.
					b.scans = make([]parsers.Scanned, len(b.nums), 2*len(b.nums))
				}
				b.scans = b.scans[:len(b.nums)]
				for j := range b.nums {
					pr.Prepare(b.line(j), &b.scans[j])
				}
				close(b.done)
			}
		}()
	}
	for b := range ordered {
		<-b.done
		for j, num := range b.nums {
			ev, err := p.ParseScanned(b.line(j), &b.scans[j])
			fo.line(num, ev, err)
		}
		b.lines, b.nums = b.lines[:0], b.nums[:0]
		if len(b.buf) != batchBytes {
			// It held a huge line (or the reader's first buffer): keep one
			// read's worth for the rest.
			b.buf = make([]byte, batchBytes)
		}
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	if readErr != nil {
		fo.f.Error = readErr.Error()
	}
}

func (a *analyzer) finish(f *File) {
	f.Lines = a.reader.LineNum()
	f.Oversized = a.reader.Oversized
	f.Bytes = a.reader.Offset() + a.reader.Pending()
	f.PartialTail = a.reader.Pending() > 0
}

func total(files []File) Totals {
	t := Totals{Agents: map[string]int{}, FinalStates: map[string]int{}, UnknownTypes: map[string]int{}}
	for _, f := range files {
		if f.Error != "" {
			continue
		}
		t.Files++
		t.Bytes += f.Bytes
		t.Lines += f.Lines
		t.Malformed += f.Malformed
		t.Oversized += f.Oversized
		if f.PartialTail {
			t.PartialTails++
		}
		t.Turns += f.Turns
		t.Interrupts += len(f.Interrupts)
		t.Compactions += len(f.Compactions)
		t.Mismatches += len(f.Mismatches)
		if f.expected {
			t.Expected++
		}
		t.Agents[string(f.Agent)]++
		t.FinalStates[string(f.FinalState)]++
		for k, n := range f.UnknownTypes {
			t.UnknownTypes[k] += n
		}
	}
	return t
}

// SortedKeys returns a map's keys in order, for stable text output.
func SortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
