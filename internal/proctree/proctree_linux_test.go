package proctree

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
)

func TestParseStat(t *testing.T) {
	tail := " S 42 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 139066 1000 10 18446744073709551615"
	for _, c := range []struct {
		name, in string
		ppid     int
		start    uint64
		zombie   bool
		bad      bool
	}{
		{"plain", "7 (claude)" + tail, 42, 139066, false, false},
		{"comm with spaces and parens", "7 (a) b (c))" + tail, 42, 139066, false, false},
		{"zombie", "7 (x) Z" + strings.TrimPrefix(tail, " S"), 42, 139066, true, false},
		{"no comm", "7 claude S 42", 0, 0, false, true},
		{"short", "7 (x) S 42 1", 0, 0, false, true},
		{"bad ppid", "7 (x) S x" + strings.TrimPrefix(tail, " S 42"), 0, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := parseStat([]byte(c.in))
			if (err != nil) != c.bad {
				t.Fatalf("parseStat err = %v, want bad %v", err, c.bad)
			}
			if !c.bad && (st.ppid != c.ppid || st.start != c.start || st.zombie != c.zombie) {
				t.Errorf("parseStat = %+v, want ppid %d start %d zombie %v", st, c.ppid, c.start, c.zombie)
			}
		})
	}
}

func TestParseStatComm(t *testing.T) {
	tail := " S 42 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 139066 1000 10 18446744073709551615"
	for in, want := range map[string]string{
		"7 (claude)" + tail:       "claude",
		"7 (a) b (c))" + tail:     "a) b (c)",
		"7 (MainThread)" + tail:   "MainThread",
		"7 (tmux: server)" + tail: "tmux: server",
	} {
		st, err := parseStat([]byte(in))
		if err != nil || st.comm != want {
			t.Errorf("parseStat(%q) comm %q, %v; want %q", in, st.comm, err, want)
		}
	}
	if _, err := parseStat([]byte("7 ) x (" + tail)); err == nil {
		t.Error("a ')' before the '(' parsed")
	}
}

func TestSplitArgs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\x00\x00", nil},
		{"/bin/sh\x00-c\x00logwatch hook\x00", []string{"/bin/sh", "-c", "logwatch hook"}},
		{"pi\x00\x00\x00", []string{"pi"}}, // a title set over the arguments (pi's)
		{"a\x00\x00b", []string{"a", "", "b"}},
	} {
		if got := splitArgs([]byte(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("splitArgs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Nearest walks up from a real process: a sleeping child of a shell, the
// shell a child of this test.
func TestNearest(t *testing.T) {
	sh, child := testsupport.ShellWithChild(t)
	shell := sh.Process.Pid
	shellStart, err := StartTime(shell)
	if err != nil {
		t.Fatal(err)
	}
	named := func(name string) func(string, []string) bool {
		return func(comm string, _ []string) bool { return comm == name }
	}
	runs := func(arg string) func(string, []string) bool {
		return func(_ string, argv []string) bool { return slices.Contains(argv, arg) }
	}
	for _, c := range []struct {
		name string
		hops int
		is   func(string, []string) bool
		want int
	}{
		{"the process itself", 1, named("sleep"), child},
		{"its parent, through two", 2, named("sh"), shell},
		{"not within one", 1, named("sh"), 0},
		{"by an argument", 3, runs("sleep 60 & echo $!; wait"), shell},
		{"none", 8, named("no-such-process"), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			pid, start, ok := Nearest(child, c.hops, c.is)
			if ok != (c.want != 0) || pid != c.want {
				t.Fatalf("Nearest = %d, %v; want %d", pid, ok, c.want)
			}
			if c.want == shell && start != shellStart {
				t.Errorf("start %d, want %d", start, shellStart)
			}
		})
	}
	// A zombie has exited: it is nobody's agent.
	z := exec.Command("sh", "-c", "exit 0")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	for i := 0; i < 400 && Alive(z.Process.Pid, 0); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if _, _, ok := Nearest(z.Process.Pid, 1, named("sh")); ok {
		t.Error("Nearest named a zombie")
	}
}

// FuzzParseStat: whatever /proc hands over, a parse that succeeds names a
// comm that the line holds in parentheses, and splitArgs keeps every byte
// but the separators.
func FuzzParseStat(f *testing.F) {
	tail := " S 42 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 139066 1000 10 18446744073709551615"
	for _, s := range []string{"7 (claude)" + tail, "7 (a) b (c))" + tail, "7 (x) Z 1", "", "/bin/sh\x00-c\x00x\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if st, err := parseStat(b); err == nil && !strings.Contains(string(b), "("+st.comm+")") {
			t.Fatalf("comm %q is not in %q", st.comm, b)
		}
		argv := splitArgs(b)
		if got, want := strings.Join(argv, "\x00"), strings.TrimRight(string(b), "\x00"); got != want {
			t.Fatalf("splitArgs(%q) joined = %q", b, got)
		}
	})
}

// BenchmarkNearest is what a hook client pays for a rule that matches
// nothing within two hops (the most it reads: two stat and two cmdline
// files).
func BenchmarkNearest(b *testing.B) {
	_, child := testsupport.ShellWithChild(b)
	none := func(string, []string) bool { return false }
	for b.Loop() {
		Nearest(child, 2, none)
	}
}
