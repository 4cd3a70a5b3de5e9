package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// procKB reads a VmXXX figure of pid from /proc, in KiB.
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
		idle := procKB(t, pid, "VmRSS")
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
			after = procKB(t, pid, "VmRSS")
			if after < idle+32<<10 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: four %d MB lines at once: RSS idle %d MiB, peak %d MiB, after %d MiB", name, size/1_000_000, idle>>10, peak>>10, after>>10)
		if peak > maxPeakMiB<<10 {
			t.Errorf("%s: peak RSS %d MiB", name, peak>>10)
		}
		if after >= idle+32<<10 {
			t.Errorf("%s: RSS stayed at %d MiB (idle %d MiB)", name, after>>10, idle>>10)
		}
	}
	// Over the maximum: nothing held at all.
	phase("over", 40_000_000, 4, 200)
	// Within it: at most the 64 MiB budget's worth of lines (two) at a
	// time, each with the parser's copy, plus the collector's slack.
	phase("within", 30_000_000, 4, 280) // oversized: still the four above
}

// TestE2EDropsProgramPages: once booted, the real daemon drops its
// mappings of the binary's pages that start-up left resident
// (memtrim.DropProgram), and says how many it found.
func TestE2EDropsProgramPages(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	e := startE2E(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		logs, _ := filepath.Glob(filepath.Join(e.dir, "daemon-*.log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			for _, line := range strings.Split(string(b), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(line), &m) != nil || m["message"] != "start-up memory released" {
					continue
				}
				if kb, _ := m["program_kib"].(float64); kb <= 0 || m["error"] != nil {
					t.Fatalf("start-up released %v KiB of program pages, error %v: %s", m["program_kib"], m["error"], line)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal(`no "start-up memory released" in the daemon's log within 10 s`)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// programResident sums the Size and Rss (KiB) of pid's read-only mappings
// of the file at path, from /proc/<pid>/smaps.
func programResident(t *testing.T, pid int, path string) (size, rss int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	mine := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 6 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			mine = strings.Join(f[5:], " ") == path && !strings.Contains(f[1], "w")
		case mine && len(f) >= 2 && (f[0] == "Size:" || f[0] == "Rss:"):
			n, _ := strconv.ParseInt(f[1], 10, 64)
			if f[0] == "Size:" {
				size += n
			} else {
				rss += n
			}
		}
	}
	if size == 0 {
		t.Fatalf("no read-only mapping of %s in /proc/%d/smaps", path, pid)
	}
	return size, rss
}

// TestE2EWrapDropsProgramPages: a real `logwatch wrap`, once its command
// runs, keeps less than half of the binary's read-only pages mapped
// (nearly all of them were, before it dropped them), and still proxies.
func TestE2EWrapDropsProgramPages(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	exe, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"),
		"LOGWATCH_SOCKET=" + filepath.Join(dir, "none.sock")}
	w := startWrapped(t, env, "claude", filepath.Join(home, ".claude", "projects"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		size, rss := programResident(t, w.cmd.Process.Pid, exe)
		if 2*rss < size {
			t.Logf("wrap maps %d of the binary's %d KiB of read-only pages", rss, size)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("wrap still maps %d of the binary's %d KiB of read-only pages 10 s after its command started", rss, size)
		}
		time.Sleep(50 * time.Millisecond)
	}
	w.prompt("hello")
	w.typ("/exit\r")
	if code := w.exit(); code != 0 {
		t.Errorf("wrap exited %d, want 0", code)
	}
}
