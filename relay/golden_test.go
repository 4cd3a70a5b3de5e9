package relay

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Characterisation goldens: every test that drives a harness pins what its
// relays recorded (every input at the boundary where it entered, every
// published change, stamped with the virtual clock) in
// testdata/golden/<test>.jsonl, and the checkpoint each relay would write
// when the test ends in <test>.checkpoint. A change of behaviour, however
// small, shows up as a diff there; `go test ./relay/ -update` rewrites them.
//
// Real processes' pids and start times differ from run to run: they are
// replaced, field by field, by their order of first appearance.

// goldenRecorder keeps a relay's recording in memory, each line encoded
// when it is recorded (the events it points to are the relay's).
type goldenRecorder struct {
	mu    sync.Mutex
	lines [][]byte
	cut   bool

	taken              bool // stream and checkpoint are final
	stream, checkpoint bytes.Buffer
}

func (g *goldenRecorder) Record(l RecordLine) {
	if l.Kind == RecProc {
		// Which questions about processes a step asks is how, not what:
		// the split moves /proc reads off the machine, and some steps ask
		// in map order and stop at the first yes (sharedTab).
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cut {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		b = []byte(fmt.Sprintf(`{"unencodable":%q}`, err))
	}
	g.lines = append(g.lines, b)
}

// goldenSet is what one test's harnesses recorded, written once, by the
// first of its cleanups that runs: before any process the test spawned is
// killed (spawn registers one after its own) and before any relay stops.
type goldenSet struct {
	t        *testing.T
	hs       []*harness
	recs     []*goldenRecorder
	done     bool
	regClock int64 // the registry files' statusUpdatedAt, per test
	regPaths map[int]string
}

var (
	goldenMu   sync.Mutex
	goldenSets = map[*testing.T]*goldenSet{}
)

// goldenOf returns t's set, creating it.
func goldenOf(t *testing.T) *goldenSet {
	goldenMu.Lock()
	defer goldenMu.Unlock()
	g := goldenSets[t]
	if g == nil {
		g = &goldenSet{t: t, regClock: 1796122700000, regPaths: map[int]string{}}
		goldenSets[t] = g
		t.Cleanup(func() {
			goldenMu.Lock()
			delete(goldenSets, t)
			goldenMu.Unlock()
		})
	}
	return g
}

// goldenAdd records h (call before Run) and arranges for the set to be
// written at the test's end.
func goldenAdd(h *harness) {
	g := goldenOf(h.t)
	rec := &goldenRecorder{}
	h.r.SetRecorder(rec)
	g.hs = append(g.hs, h)
	g.recs = append(g.recs, rec)
	h.t.Cleanup(g.finish)
}

// goldenCut has t's goldens taken when the cleanups registered so far have
// not run yet: call it right after registering a cleanup that kills a
// process a relay follows (its exit, told by a pidfd, would race the end).
func goldenCut(t *testing.T) { t.Cleanup(goldenOf(t).finish) }

// regPath is the registry file of pid: named by the order the test first
// named each pid, so that files sort (and the relay visits them) the same
// way in every run whatever the pids.
func (g *goldenSet) regPath(pid int) string {
	p, ok := g.regPaths[pid]
	if !ok {
		p = fmt.Sprintf("/reg/%03d.json", len(g.regPaths)+1)
		g.regPaths[pid] = p
	}
	return p
}

// take ends relay i's recording and keeps it with the checkpoint the relay
// would write now (everything enqueued before is processed first): the
// state the test left it in. Once per relay: at the test's end, or when
// the test stops it (harness.stop).
func (g *goldenSet) take(i int) {
	rec := g.recs[i]
	if rec.taken {
		return
	}
	rec.taken = true
	saved := make(chan Saved, 1)
	g.hs[i].r.Save(func(s Saved) { saved <- s })
	var sv Saved
	select {
	case sv = <-saved:
	case <-g.hs[i].r.loop.done:
		g.t.Fatalf("relay %d stopped before the test took its golden", i+1)
	}
	rec.mu.Lock()
	rec.cut = true
	lines := rec.lines
	rec.mu.Unlock()
	for _, l := range lines {
		rec.stream.Write(l)
		rec.stream.WriteByte('\n')
	}
	rec.checkpoint.WriteString("# state\n")
	rec.checkpoint.Write(sv.State)
	if n := len(sv.State); n > 0 && sv.State[n-1] != '\n' {
		rec.checkpoint.WriteByte('\n')
	}
	m, err := json.Marshal(sv.Marks) // map keys sorted
	if err != nil {
		g.t.Fatal(err)
	}
	rec.checkpoint.WriteString("# marks\n")
	rec.checkpoint.Write(m)
	rec.checkpoint.WriteByte('\n')
}

// stop stops h's relay as a daemon going down would, its golden taken
// first.
func (h *harness) stop() {
	g := goldenOf(h.t)
	for i := range g.hs {
		if g.hs[i] == h {
			g.take(i)
		}
	}
	h.cancel()
	<-h.r.loop.done
}

func (g *goldenSet) finish() {
	if g.done {
		return
	}
	g.done = true
	t := g.t
	if t.Failed() || t.Skipped() || len(g.hs) == 0 {
		for _, rec := range g.recs {
			rec.mu.Lock()
			rec.cut = true
			rec.mu.Unlock()
		}
		return
	}
	n := newNormalizer()
	var stream, checkpoint bytes.Buffer
	for i, rec := range g.recs {
		g.take(i)
		// Normalized in this order, relay by relay, so that a relay's
		// stand-ins do not depend on whether an earlier one was digested.
		s, c := n.apply(rec.stream.Bytes()), n.apply(rec.checkpoint.Bytes())
		if len(g.hs) > 1 {
			fmt.Fprintf(&stream, "{\"relay\":%d}\n", i+1)
			fmt.Fprintf(&checkpoint, "# relay %d\n", i+1)
		}
		goldenSection(&stream, s, `{"lines":%d,"sha256":"%x"}`+"\n")
		goldenSection(&checkpoint, c, "# %d lines, sha256 %x\n")
	}
	base := filepath.Join("testdata", "golden", goldenName(t.Name()))
	if *update {
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testsupport.Golden(t, base+".jsonl", stream.Bytes(), *update)
	testsupport.Golden(t, base+".checkpoint", checkpoint.Bytes(), *update)
}

// goldenBudget bounds a golden file: a relay that would take it past is
// pinned by its digest (a test that runs hundreds of randomized relays,
// TestNeverAFalseReady, would be megabytes, and the diff's table of a
// golden is quadratic in its lines). The first relay is always in full.
const goldenBudget = 128 << 10

func goldenSection(w *bytes.Buffer, b []byte, digest string) {
	if w.Len() == 0 || w.Len()+len(b) <= goldenBudget {
		w.Write(b)
		return
	}
	fmt.Fprintf(w, digest, bytes.Count(b, []byte("\n")), sha256.Sum256(b))
}

// goldenName is a test's name as a file name: subtests' slashes are
// doubled underscores, and anything a module zip or another OS refuses is
// an underscore.
func goldenName(name string) string {
	name = strings.ReplaceAll(name, "/", "__")
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("-_.=,()+", r):
			return r
		}
		return '_'
	}, name)
}

// normalizer replaces what differs between runs by stable stand-ins: a
// real process's pid by 1001, 1002, … in the order the test first names
// it; a start time (or start in ms) by its pid's stand-in times 100 plus
// the order it was first seen for that pid (a shell and its child often
// start in the same clock tick, and whether they did must not show).
type normalizer struct {
	pids   map[string]int
	starts map[string]int // "<pid stand-in> <value>" → stand-in
	nstart map[int]int    // per pid stand-in, starts seen
}

func newNormalizer() *normalizer {
	return &normalizer{pids: map[string]int{}, starts: map[string]int{}, nstart: map[int]int{}}
}

var (
	// t.TempDir(): <os.TempDir()>/<test name><random>/<nnn>
	tempDir = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/[^/"]+/\d{3}`)
	// Every object that holds a start time names its pid before it.
	procField = regexp.MustCompile(`"(pid|Pid|ancestor|start|Start|ProcStart|proc_start|StartedAt|started_at)":(\d+)`)
	// A hook's process among the registry's (hookProcKey) names both.
	hookProcPath = regexp.MustCompile(`"hook:([^"]*):(\d+):(\d+)"`)
)

func (n *normalizer) apply(b []byte) []byte {
	s := tempDir.ReplaceAllString(string(b), "$$TMP")
	pid := func(v string) int {
		if _, ok := n.pids[v]; !ok {
			n.pids[v] = 1000 + len(n.pids) + 1
		}
		return n.pids[v]
	}
	cur := 0 // the stand-in of the pid last named
	start := func(v string) int {
		k := strconv.Itoa(cur) + " " + v
		if _, ok := n.starts[k]; !ok {
			n.nstart[cur]++
			n.starts[k] = cur*100 + n.nstart[cur]
		}
		return n.starts[k]
	}
	s = hookProcPath.ReplaceAllStringFunc(s, func(f string) string {
		m := hookProcPath.FindStringSubmatch(f)
		cur = pid(m[2])
		return `"hook:` + m[1] + ":" + strconv.Itoa(cur) + ":" + strconv.Itoa(start(m[3])) + `"`
	})
	s = procField.ReplaceAllStringFunc(s, func(f string) string {
		m := procField.FindStringSubmatch(f)
		var v int
		switch m[1] {
		case "pid", "Pid":
			cur = pid(m[2])
			v = cur
		case "ancestor":
			v = pid(m[2])
		default:
			v = start(m[2])
		}
		return `"` + m[1] + `":` + strconv.Itoa(v)
	})
	return []byte(s)
}
