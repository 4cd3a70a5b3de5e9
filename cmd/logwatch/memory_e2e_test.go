package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
)

// procKB reads a figure of pid from /proc/<pid>/status (VmHWM, RssAnon), in KiB.
func procKB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	t.Fatalf("%s not in /proc/%d/status", field, pid)
	return 0
}

// TestE2ELongLinesMemory (issue 12 item 12): four files each receiving a
// 40 MB line (over max_line_bytes), then four receiving a 30 MB line (within
// it), at the same time. The first are skipped without being held, the
// second pass through the process-wide line budget one or two at a time;
// the peak RSS stays far below what four buffers would take, and RSS
// returns near its idle level afterwards.
func TestE2ELongLinesMemory(t *testing.T) {
	e := startE2E(t, "LOGWATCH_LOG_LEVEL=info", os.Getenv("LW_TEST_GODEBUG"))
	pid := e.daemon.Process.Pid
	write := func(id string, size int, tail string) {
		tr := filepath.Join(e.claude, "-w-mem", id+".jsonl")
		f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		head := `{"type":"user","sessionId":"` + id + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`
		f.WriteString(head)
		chunk := strings.Repeat("y", 1<<20)
		for n := len(head); n < size; n += len(chunk) {
			f.WriteString(chunk[:min(len(chunk), size-n)])
		}
		f.WriteString(`"}]}}` + "\n" + tail + "\n")
	}
	phase := func(name string, size int, oversized float64, maxPeakMiB int64) {
		var ids []string
		for i := 0; i < 4; i++ {
			id := fmt.Sprintf("%s%d", name, i)
			ids = append(ids, id)
			e.append(filepath.Join(e.claude, "-w-mem", id+".jsonl"),
				`{"type":"user","sessionId":"`+id+`","cwd":"/w/mem","version":"2.1.143","message":{"role":"user","content":"go"}}`)
			e.waitView(id, "working/prompt//log/log.turn_start/")
		}
		time.Sleep(500 * time.Millisecond)
		idle := procKB(t, pid, "RssAnon")
		os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) // reset the peak
		var wg sync.WaitGroup
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				write(id, size, `{"type":"system","subtype":"turn_duration","sessionId":"`+id+`","durationMs":1}`)
			}()
		}
		wg.Wait()
		for _, id := range ids {
			e.waitView(id, "done/turn_end//log/log.turn_end/")
		}
		peak := procKB(t, pid, "VmHWM")
		if got := counter(e.status(), "oversized"); got != oversized {
			t.Errorf("%s: oversized %v, want %v", name, got, oversized)
		}
		var after int64
		deadline := time.Now().Add(20 * time.Second)
		for {
			after = procKB(t, pid, "RssAnon")
			if after < idle+32<<10 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: four %d MB lines at once: anonymous idle %d MiB, peak RSS %d MiB, anonymous after %d MiB", name, size/1_000_000, idle>>10, peak>>10, after>>10)
		if peak > maxPeakMiB<<10 {
			t.Errorf("%s: peak RSS %d MiB", name, peak>>10)
		}
		if after >= idle+32<<10 {
			t.Errorf("%s: anonymous memory stayed at %d MiB (idle %d MiB)", name, after>>10, idle>>10)
		}
	}
	// Over the maximum: nothing held at all.
	phase("over", 40_000_000, 4, 200)
	// Within it: at most the 64 MiB budget's worth of lines (two) at a
	// time, each with the parser's copy, plus the collector's slack.
	phase("within", 30_000_000, 4, 280) // oversized: still the four above
}

// TestE2EOpenCodeBigCommitMemory (issue 32 item 6): OpenCode commits 100
// rows of 3.9 MiB (a tool's streamed output) in one transaction while the
// daemon runs. Their lines pass through the readers' line budget (64 MiB)
// one row at a time, as a long log line does: the daemon's anonymous
// memory grows by at most one budget (one row held, its copies and the
// collector's slack), where it read every row of the commit at once
// before (+1.2 GB, RssAnon). Recording, each line is also copied into
// its record and encoded as JSON (garbage the collector's slack doubles):
// at most two budgets.
func TestE2EOpenCodeBigCommitMemory(t *testing.T) {
	t.Run("live", func(t *testing.T) { bigCommit(t, nil, 64) })
	t.Run("recording", func(t *testing.T) {
		bigCommit(t, []string{"--record", filepath.Join(t.TempDir(), "record.jsonl")}, 128)
	})
}

func bigCommit(t *testing.T, args []string, ceilingMiB int64) {
	e := newE2E(t, args, "LOGWATCH_LOG_LEVEL=info", "LOGWATCH_RECORD_MAX_BYTES=1073741824")
	w := storetest.NewWriter(t, filepath.Join(e.dir, "home", ".local", "share", "opencode", "opencode.db"))
	w.Now = time.Now().UnixMilli()
	s := w.Session("")
	w.Prompt(s)
	e.start()
	pid := e.daemon.Process.Pid
	waitState := func(want string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		got := ""
		for time.Now().Before(deadline) {
			if got = view(t, e.status(), s); strings.HasPrefix(got, want+"/") {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: status shows %s, want %s", s, got, want)
	}
	waitState("working")
	time.Sleep(500 * time.Millisecond)
	idle := procKB(t, pid, "RssAnon")
	// RssAnon has no peak of its own: sample it while the rows are read.
	var peak atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peak.Store(max(peak.Load(), procKB(t, pid, "RssAnon")))
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	const rows, size = 100, 3_900_000
	out := strings.Repeat("y", size)
	msg, part := w.ID("msg"), w.ID("prt")
	w.Tx(func(tx *sql.Tx) {
		for i := range rows {
			w.Event(tx, s, "message.part.updated.1", fmt.Sprintf(`{"sessionID":%q,"part":{"id":%q,"sessionID":%q,"messageID":%q,"type":"tool","callID":"c1","tool":"bash","state":{"status":"running","input":{"command":"yes %d"},"output":%q,"time":{"start":1}}},"time":%d}`,
				s, part, s, msg, i, out, w.Now))
		}
	})
	w.Finish(s)
	waitState("done")
	close(stop)
	<-sampled
	grew := (peak.Load() - idle) >> 10
	t.Logf("%d rows of %.1f MB in one commit: anonymous memory idle %d MiB, at most +%d MiB while read", rows, size/1e6, idle>>10, grew)
	if grew > ceilingMiB {
		t.Errorf("anonymous memory grew by %d MiB reading the commit, more than %d MiB (the line budget is 64 MiB)", grew, ceilingMiB)
	}
}
