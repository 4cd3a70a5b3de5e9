package store

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
)

// The benchmarks share one fixture: 1 000 root sessions of 2 turns each
// (and 250 child sessions), about 80 000 event rows, made once per run.
var bench struct {
	once sync.Once
	dir  string
	path string
	rows int64
}

func benchDB(b *testing.B) string {
	b.Helper()
	bench.once.Do(func() {
		dir, err := os.MkdirTemp("", "opencode-store-bench-")
		if err != nil {
			b.Fatal(err)
		}
		bench.dir = dir
		bench.path = filepath.Join(dir, "opencode.db")
		w := storetest.NewWriter(b, bench.path)
		bench.rows = w.Fixture(1000, 2)
	})
	if bench.path == "" {
		b.Fatal("no fixture")
	}
	return bench.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func BenchmarkOpen(b *testing.B) {
	path := benchDB(b)
	for b.Loop() {
		d, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkChanges reads n rows from the start of the feed.
func BenchmarkChanges(b *testing.B) {
	path := benchDB(b)
	for _, n := range []int{1000, 50000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			d, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			for b.Loop() {
				rows, err := d.Changes(0, n)
				if err != nil || len(rows) != n {
					b.Fatalf("%d rows, %v", len(rows), err)
				}
			}
		})
	}
}

// BenchmarkCurrent reads the latest turn of all 1 250 sessions (16 rows and
// its first at most, as the daemon does), and
// reports the reader's anonymous memory after it (rssanon-kB: the
// process's RssAnon after a GC, minus before Open).
func BenchmarkCurrent(b *testing.B) {
	path := benchDB(b)
	before := rssAnonKB(b)
	d, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var n int
	for b.Loop() {
		n = 0
		_, err := d.Current(time.Time{}, 16, func(rows []Row) error { n += len(rows); return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "rows")
	b.ReportMetric(float64(rssAnonKB(b)-before), "rssanon-kB")
}

// rssAnonKB is RssAnon from /proc/self/status, after a GC that returns
// what it can to the OS.
func rssAnonKB(tb testing.TB) int64 {
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "RssAnon:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	tb.Skip("no RssAnon")
	return 0
}
