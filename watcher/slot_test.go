package watcher

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/omp"
)

// ompTitle is omp's first line: the title record, TitleSlot bytes with its
// newline, padded with spaces (session-title-slot.ts).
func ompTitle(t *testing.T, title string) string {
	t.Helper()
	line := fmt.Sprintf(`{"type":"title","v":1,"title":%q,"updatedAt":"2026-12-02T08:00:00.000Z","pad":""}`, title)
	pad := omp.TitleSlot - 1 - len(line)
	if pad < 0 {
		t.Fatalf("title %q does not fit the slot", title)
	}
	return strings.Replace(line, `"pad":""`, `"pad":"`+strings.Repeat(" ", pad)+`"`, 1) + "\n"
}

func ompLine(id string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":"p","timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`+"\n", id, id)
}

const ompHeader = `{"type":"session","version":3,"id":"01a234c9-0000-7000-8000-00000000000a","timestamp":"h","cwd":"/w"}` + "\n"

// omp rewrites its title record in place, same length, while the session
// goes on: that is neither a new generation nor new lines. A real
// truncate-and-rewrite still is.
func TestSlotRewrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Roots[omp.Name] = []string{filepath.Join(dir, "omp")}
	mkdir(t, filepath.Join(dir, "omp", "-proj"))
	path := filepath.Join(dir, "omp", "-proj", "2026-12-02T08-00-00-000Z_01a234c9-0000-7000-8000-00000000000a.jsonl")
	appendFile(t, path, ompTitle(t, "")+ompHeader+ompLine("u1"))
	r := start(t, cfg, testLogger(t))
	r.ready()
	r.waitFor("u1", func(recs []Record) bool { return strings.Join(lineIDs(recs, path), " ") == " h u1" })

	appendFile(t, path, ompLine("u2"))
	r.waitFor("u2", func(recs []Record) bool { return strings.HasSuffix(strings.Join(lineIDs(recs, path), " "), "u2") })
	// The title arrives: its entry is appended and the record rewritten
	// in place, as omp does (FileSessionStorage.updateSessionTitle).
	appendFile(t, path, ompLine("title_change"))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(ompTitle(t, "Fake study session")), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	appendFile(t, path, ompLine("u3"))
	recs := r.waitFor("u3", func(recs []Record) bool { return strings.HasSuffix(strings.Join(lineIDs(recs, path), " "), "u3") })
	if got := strings.Join(lineIDs(recs, path), " "); got != " h u1 u2 title_change u3" {
		t.Errorf("lines %q, want each once: (title) h u1 u2 title_change u3", got)
	}
	for _, rec := range recs {
		if rec.Kind == KindReset {
			t.Errorf("the title's rewrite read as a new generation: %+v", rec)
		}
		if rec.Kind == KindLine && rec.Evidence.Type != "title" && rec.Session != "01a234c9-0000-7000-8000-00000000000a" {
			t.Errorf("line %q in session %q, want the header's", rec.Evidence.At, rec.Session)
		}
	}

	// Truncated and written again with another session: a new generation.
	other := strings.Replace(ompHeader, "00a", "00b", 1)
	if err := os.WriteFile(path, []byte(ompTitle(t, "")+other+ompLine("v1")), 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the rewrite's reset", func(recs []Record) bool {
		for _, rec := range recs {
			if rec.Kind == KindReset {
				return strings.HasSuffix(strings.Join(lineIDs(recs, path), " "), "h v1")
			}
		}
		return false
	})
}

// A read that starts mid-file reads the header first, which in omp's
// files is line 2, after the title record.
func TestSlotHeaderBootstrap(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Roots[omp.Name] = []string{filepath.Join(dir, "omp")}
	cfg.BootstrapBytes = 300
	mkdir(t, filepath.Join(dir, "omp", "-proj"))
	path := filepath.Join(dir, "omp", "-proj", "2026-12-02T08-00-00-000Z_x.jsonl")
	body := ompTitle(t, "A title") + ompHeader
	for i := range 20 {
		body += ompLine(fmt.Sprintf("u%02d", i))
	}
	appendFile(t, path, body)
	r := start(t, cfg, testLogger(t))
	r.ready()
	recs := r.waitFor("the tail", func(recs []Record) bool { return strings.HasSuffix(strings.Join(lineIDs(recs, path), " "), "u19") })
	ids := lineIDs(recs, path)
	if len(ids) < 3 || ids[0] != "" || ids[1] != "h" || ids[2] == "u00" {
		t.Fatalf("lines %q: want the title, the header, then the window's tail", ids)
	}
	for _, rec := range recs {
		if rec.Kind == KindLine && rec.Evidence.Kind == parsers.KindTurnStart && rec.Session != "01a234c9-0000-7000-8000-00000000000a" {
			t.Errorf("line %q in session %q, want the header's", rec.Evidence.At, rec.Session)
		}
	}
}
