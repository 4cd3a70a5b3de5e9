package keytap

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

const csi = "\x1b["

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func ms(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

// step is one call on a Decoder; want lists the presses that call returns,
// written "Key@ms", with "*2" after the key for Double.
type step struct {
	op   string // "feed", "partial", "flush", "output"
	at   int    // ms after t0
	in   string
	want []string
}

func feed(in string, want ...string) step { return step{op: "feed", in: in, want: want} }
func feedAt(at int, in string, want ...string) step {
	return step{op: "feed", at: at, in: in, want: want}
}
func partial(at int, in string, want ...string) step {
	return step{op: "partial", at: at, in: in, want: want}
}
func flush(at int, want ...string) step { return step{op: "flush", at: at, want: want} }
func output(s string) step              { return step{op: "output", in: s} }

func show(ps []Press) []string {
	var s []string
	for _, p := range ps {
		k := p.Key.String()
		if p.Double {
			k += "*2"
		}
		s = append(s, fmt.Sprintf("%s@%d", k, p.At.Sub(t0).Milliseconds()))
	}
	return s
}

type row struct {
	name  string
	steps []step
}

// one is a row of a single chunk at t0.
func one(name, in string, want ...string) row { return row{name, []step{feed(in, want...)}} }

func run(t *testing.T, d *Decoder, steps []step) {
	t.Helper()
	for i, s := range steps {
		var got []Press
		switch s.op {
		case "feed":
			got = d.Feed([]byte(s.in), ms(s.at))
		case "partial":
			got = d.FeedPartial([]byte(s.in), ms(s.at))
		case "flush":
			got = d.Flush(ms(s.at))
		case "output":
			d.ObserveOutput([]byte(s.in))
		}
		if g, w := strings.Join(show(got), " "), strings.Join(s.want, " "); g != w {
			t.Errorf("step %d %s(%q): got [%s], want [%s]", i, s.op, s.in, g, w)
		}
	}
	if dl, ok := d.Deadline(); ok {
		t.Errorf("an ESC is still pending at the end (deadline %v)", dl.Sub(t0))
	}
}

// tableRows are the keys.md §5.2 encoding table, its look-alikes list, paste,
// chunk splits and the §5.4 step 5 lone-ESC rule. The fuzz test seeds from
// them too.
var tableRows = []row{
	// §5.2 Legacy (default).
	one("5.2 legacy/Esc 1b", "\x1b", "Esc@0"),
	one("5.2 legacy/Ctrl+C 03", "\x03", "CtrlC@0"),
	one("5.2 legacy/Ctrl+C after typing", "ls -la\x03", "CtrlC@0"),
	one("5.2 legacy/Ctrl+C twice in one chunk", "\x03\x03", "CtrlC@0", "CtrlC@0"),
	one("5.2 legacy/Alt+Esc 1b 1b is one press", "\x1b\x1b", "Esc*2@0"),
	one("5.2 legacy/Alt+x 1b 78 is no Esc", "\x1bx"),
	one("5.2 legacy/Enter Tab Backspace are no keys", "\r\t\x7f\x08"),

	// §5.2 xterm modifyOtherKeys=1: keys with a C0 mapping stay legacy.
	{"5.2 modifyOtherKeys=1/Esc 1b and Ctrl+C 03", []step{
		output(csi + ">4;1m"), feed("\x1b", "Esc@0"), feed("\x03", "CtrlC@0"),
	}},

	// §5.2 xterm modifyOtherKeys=2, formatOtherKeys=0.
	{"5.2 modifyOtherKeys=2/Ctrl+C CSI 27;5;99~", []step{
		output(csi + ">4;2m"), feed(csi+"27;5;99~", "CtrlC@0"), feed("\x1b", "Esc@0"),
	}},
	one("5.2 modifyOtherKeys=2/Ctrl+C with Caps Lock CSI 27;69;99~", csi+"27;69;99~", "CtrlC@0"),
	one("5.2 modifyOtherKeys=2/Ctrl+Shift+C CSI 27;6;99~ is no key", csi+"27;6;99~"),
	one("5.2 modifyOtherKeys=2/Ctrl+Shift+C CSI 27;6;67~ is no key", csi+"27;6;67~"),
	one("5.2 modifyOtherKeys=2/Ctrl+Alt+C CSI 27;7;99~ is no key", csi+"27;7;99~"),
	one("5.2 modifyOtherKeys=2/Ctrl+A CSI 27;5;97~ is no key", csi+"27;5;97~"),

	// §5.2 formatOtherKeys=1 / tmux extended-keys-format csi-u.
	one("5.2 formatOtherKeys=1/Ctrl+C CSI 99;5u", csi+"99;5u", "CtrlC@0"),
	one("5.2 formatOtherKeys=1/Esc 1b", "\x1b", "Esc@0"),

	// §5.2 kitty flag 1, disambiguate.
	one("5.2 kitty 1/Esc CSI 27u", csi+"27u", "Esc@0"),
	one("5.2 kitty 1/Ctrl+C CSI 99;5u", csi+"99;5u", "CtrlC@0"),
	one("5.2 kitty 1/Esc+NumLock CSI 27;129u", csi+"27;129u", "Esc@0"),
	one("5.2 kitty 1/Esc+CapsLock CSI 27;65u", csi+"27;65u", "Esc@0"),
	one("5.2 kitty 1/Ctrl+C+CapsLock CSI 99;69u", csi+"99;69u", "CtrlC@0"),
	one("5.2 kitty 1/Ctrl+C+CapsLock+NumLock CSI 99;197u", csi+"99;197u", "CtrlC@0"),
	one("5.2 kitty 1/Shift+Esc CSI 27;2u is no key", csi+"27;2u"),
	one("5.2 kitty 1/Ctrl+Esc CSI 27;5u is no key", csi+"27;5u"),
	one("5.2 kitty 1/Alt+Esc CSI 27;3u is no key", csi+"27;3u"),
	one("5.2 kitty 1/Ctrl+Shift+C CSI 99;6u is no key", csi+"99;6u"),
	one("5.2 kitty 1/Ctrl+Alt+C CSI 99;7u is no key", csi+"99;7u"),
	one("5.2 kitty 1/Ctrl+[ CSI 91;5u is no Esc", csi+"91;5u"),
	one("5.2 kitty 1/plain c CSI 99u is no key", csi+"99u"),
	one("5.2 kitty 1/malformed modifier 0 is no key", csi+"99;0u"),
	one("5.2 kitty 1/Enter Tab Backspace stay legacy", "\r\t\x7f"),

	// §5.2 kitty flags 1+2, event types (Codex CSI >7u).
	one("5.2 kitty 1+2/Esc press CSI 27;1:1u", csi+"27;1:1u", "Esc@0"),
	one("5.2 kitty 1+2/Esc repeat CSI 27;1:2u is no key", csi+"27;1:2u"),
	one("5.2 kitty 1+2/Esc release CSI 27;1:3u is no key", csi+"27;1:3u"),
	one("5.2 kitty 1+2/Esc press and release in one chunk is one press", csi+"27u"+csi+"27;1:3u", "Esc@0"),
	{"5.2 kitty 1+2/Esc press and release in two writes is one press", []step{
		output(csi + ">7u"), feedAt(0, csi+"27u", "Esc@0"), feedAt(90, csi+"27;1:3u"),
	}},
	one("5.2 kitty 1+2/Ctrl+C press and release is one press", csi+"99;5u"+csi+"99;5:3u", "CtrlC@0"),
	one("5.2 kitty 1+2/Ctrl+C press with :1 CSI 99;5:1u", csi+"99;5:1u", "CtrlC@0"),
	one("5.2 kitty 1+2/Ctrl+C repeat CSI 99;5:2u is no key", csi+"99;5:2u"),
	one("5.2 kitty 1+2/Ctrl+C+NumLock release CSI 99;133:3u is no key", csi+"99;133:3u"),

	// §5.2 kitty flag 4, alternate keys.
	one("5.2 kitty 4/Cyrillic Ctrl+C CSI 1089::99;5u matches base key", csi+"1089::99;5u", "CtrlC@0"),
	one("5.2 kitty 4/Cyrillic Ctrl+C release CSI 1089::99;5:3u is no key", csi+"1089::99;5:3u"),
	one("5.2 kitty 4/Ctrl+Shift+C CSI 99:67;6u is no key", csi+"99:67;6u"),
	one("5.2 kitty 4/shifted and base fields CSI 99:67:99;5u", csi+"99:67:99;5u", "CtrlC@0"),
	one("5.2 kitty 4/Cyrillic without base key CSI 1089;5u is no key", csi+"1089;5u"),
	one("5.2 kitty 4/Ctrl+C text field CSI 99;5;99u", csi+"99;5;99u", "CtrlC@0"),
	one("5.2 kitty 4/Esc CSI 27u", csi+"27u", "Esc@0"),

	// §5.2 kitty flag 8, report all keys: modifier-only keys are no keys.
	one("5.2 kitty 8/LEFT_CONTROL press then Ctrl+C",
		csi+"57442;5u"+csi+"99;5u"+csi+"99;5:3u"+csi+"57442;1:3u", "CtrlC@0"),
	one("5.2 kitty 8/LEFT_CONTROL alone CSI 57442u is no key", csi+"57442u"),
	one("5.2 kitty 8/modifier-only keys 57441-57454 are no keys",
		csi+"57441;2u"+csi+"57443;3u"+csi+"57444;9u"+csi+"57448;5u"+csi+"57454u"),

	// §5.2 fixterms / "CSI u".
	one("5.2 fixterms/Esc 1b", "\x1b", "Esc@0"),
	one("5.2 fixterms/Ctrl+C legacy 03", "\x03", "CtrlC@0"),
	one("5.2 fixterms/Shift+Enter CSI 13;2u is no key", csi+"13;2u"),

	// §5.2 win32-input-mode: CSI Vk;Sc;Uc;Kd;Cs;Rc _.
	one("5.2 win32/Esc down", csi+"27;1;27;1;0;1_", "Esc@0"),
	one("5.2 win32/Esc up is no key", csi+"27;1;27;0;0;1_"),
	one("5.2 win32/Esc down and up is one press", csi+"27;1;27;1;0;1_"+csi+"27;1;27;0;0;1_", "Esc@0"),
	one("5.2 win32/Esc down with NumLock", csi+"27;1;27;1;32;1_", "Esc@0"),
	one("5.2 win32/Shift+Esc is no key", csi+"27;1;27;1;16;1_"),
	one("5.2 win32/Ctrl+C full keystroke is one press",
		csi+"17;29;0;1;8;1_"+csi+"67;46;3;1;8;1_"+csi+"67;46;3;0;8;1_"+csi+"17;29;0;0;0;1_", "CtrlC@0"),
	{"5.2 win32/Ctrl+C records in separate writes", []step{
		output(csi + "?9001h"),
		feedAt(0, csi+"17;29;0;1;8;1_"),
		feedAt(40, csi+"67;46;3;1;8;1_", "CtrlC@40"),
		feedAt(120, csi+"67;46;3;0;8;1_"),
		feedAt(150, csi+"17;29;0;0;0;1_"),
	}},
	one("5.2 win32/RIGHT_CTRL+C", csi+"67;46;3;1;4;1_", "CtrlC@0"),
	one("5.2 win32/Ctrl+C with NumLock and ENHANCED", csi+"67;46;3;1;296;1_", "CtrlC@0"),
	one("5.2 win32/Ctrl+Shift+C is no key", csi+"67;46;3;1;24;1_"),
	one("5.2 win32/AltGr+C is no key", csi+"67;46;3;1;10;1_"),
	one("5.2 win32/C without Ctrl is no key", csi+"67;46;99;1;0;1_"),
	one("5.2 win32/Ctrl down alone is no key", csi+"17;29;0;1;8;1_"),

	// §5.2 bracketed paste.
	one("5.2 paste/03 and 1b inside are data",
		csi+"200~a\x03b\x1bc\x1b\x1b"+csi+"27u"+csi+"99;5u"+csi+"27;5;99~"+csi+"67;46;3;1;8;1_"+csi+"201~"),
	one("5.2 paste/keys after the paste count", csi+"200~\x03\x1b"+csi+"201~\x03\x1b", "CtrlC@0", "Esc@0"),
	one("5.2 paste/nested start marker is data", csi+"200~"+csi+"200~\x03"+csi+"201~\x03", "CtrlC@0"),
	one("5.2 paste/near-miss end markers are data",
		csi+"200~"+csi+"201x\x03\x1b\x1b[20\x1b"+csi+"201~\x03", "CtrlC@0"),
	{"5.2 paste/paste ending in ESC, end marker in the next write", []step{
		feedAt(0, csi+"200~abc\x1b"), feedAt(1, "[201~\x03", "CtrlC@1"),
	}},
	{"5.2 paste/end marker split at every byte", []step{
		feed(csi + "200~\x03"), feed("\x1b"), feed("["), feed("2"), feed("0"), feed("1"), feed("~"),
		feedAt(5, "\x03", "CtrlC@5"),
	}},
	{"5.2 paste/start marker split across writes", []step{
		feed(csi + "20"), feed("0~\x03\x1b"), feed("\x1b[201~"), feedAt(7, "\x03", "CtrlC@7"),
	}},
	{"5.2 paste/unterminated paste ignores every later key", []step{
		feed(csi + "200~hello"), feedAt(10, "\x1b"), feedAt(20, "\x03"), feedAt(30, csi+"27u"), flush(1000),
	}},

	// §5.2 look-alikes: sequences that begin with ESC but are no Esc.
	one("5.2 look-alike/arrows CSI A-D", csi+"A"+csi+"B"+csi+"C"+csi+"D"),
	one("5.2 look-alike/arrows SS3 A-D", "\x1bOA\x1bOB\x1bOC\x1bOD"),
	one("5.2 look-alike/Ctrl+Up CSI 1;5A", csi+"1;5A"),
	one("5.2 look-alike/Home End", csi+"H"+csi+"F"+csi+"1~"+csi+"4~"+"\x1bOH\x1bOF"),
	one("5.2 look-alike/F-keys", "\x1bOP\x1bOQ"+csi+"15~"+csi+"24~"+"\x1bO5P"),
	one("5.2 look-alike/Alt+x", "\x1bx\x1bX\x1b "),
	one("5.2 look-alike/Alt+Backspace 1b 7f", "\x1b\x7f"),
	one("5.2 look-alike/Alt+Enter 1b 0d", "\x1b\r"),
	one("5.2 look-alike/Alt+Ctrl+C 1b 03 is no Ctrl+C", "\x1b\x03"),
	one("5.2 look-alike/Alt+é 1b c3 a9", "\x1b\xc3\xa9"),
	one("5.2 look-alike/focus CSI I and CSI O", csi+"I"+csi+"O"),
	one("5.2 look-alike/X10 mouse CSI M cb cx cy", csi+"M #$"+csi+"M\x20\xff\xff"),
	one("5.2 look-alike/X10 mouse then Ctrl+C", csi+"M !!\x03", "CtrlC@0"),
	one("5.2 look-alike/X10 mouse cut short by Ctrl+C", csi+"M \x03", "CtrlC@0"),
	one("5.2 look-alike/SGR mouse press and release", csi+"<0;10;5M"+csi+"<0;10;5m"),
	one("5.2 look-alike/urxvt mouse", csi+"32;10;5M"),
	one("5.2 look-alike/DA1 reply", csi+"?62;22c"+csi+"?1;2c"),
	one("5.2 look-alike/DA2 reply", csi+">1;10;0c"),
	one("5.2 look-alike/CPR reply", csi+"12;40R"),
	one("5.2 look-alike/kitty flags reply CSI ? 7 u", csi+"?7u"),
	one("5.2 look-alike/DECRPM reply", csi+"?2004;1$y"),
	one("5.2 look-alike/OSC 11 colour reply with ST", "\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\"),
	one("5.2 look-alike/OSC 10 colour reply with BEL", "\x1b]10;rgb:ffff/ffff/ffff\x07"),
	one("5.2 look-alike/DCS XTGETTCAP reply", "\x1bP1+r544e=787465726d\x1b\\"),
	one("5.2 look-alike/APC kitty graphics reply", "\x1b_Gi=1;OK\x1b\\"),
	one("5.2 look-alike/reply then Ctrl+C", "\x1b]11;rgb:0/0/0\x07\x03", "CtrlC@0"),
	one("5.2 look-alike/reply then Esc in one chunk", csi+"12;40R\x1b", "Esc@0"),
	{"5.2 look-alike/OSC reply split across reads", []step{
		feed("\x1b]11;rgb:1e1e/"), feed("1e1e/1e1e\x1b\\"),
	}},
	{"5.2 look-alike/unterminated OSC cut by Ctrl+C", []step{
		feed("\x1b]11;rgb:"), feedAt(3, "\x03", "CtrlC@3"),
	}},

	// §5.4 step 5, the lone-ESC rule.
	one("5.4 lone ESC/1b ending a write is Esc at once", "abc\x1b", "Esc@0"),
	one("5.4 lone ESC/1b 1b 1b is one press", "\x1b\x1b\x1b", "Esc*2@0"),
	one("5.4 lone ESC/1b 1b then arrow: Esc, then the arrow", "\x1b\x1b[A", "Esc@0"),
	one("5.4 lone ESC/Esc then a paste read together", "\x1b\x1b[200~\x03\x1b[201~", "Esc@0"),
	one("5.4 lone ESC/Esc then kitty Ctrl+C read together", "\x1b"+csi+"99;5u", "Esc@0", "CtrlC@0"),
	{"5.4 lone ESC/two writes of 1b are two presses", []step{
		feedAt(0, "\x1b", "Esc@0"), feedAt(100, "\x1b", "Esc@100"),
	}},
	{"5.4 lone ESC/partial read: [A within the timeout makes an arrow", []step{
		partial(0, "\x1b"), feedAt(10, "[A"),
	}},
	{"5.4 lone ESC/partial read: x within the timeout makes Alt+x", []step{
		partial(0, "ab\x1b"), feedAt(29, "x"),
	}},
	{"5.4 lone ESC/partial read: nothing for the timeout makes Esc", []step{
		partial(0, "\x1b"), flush(29), flush(30, "Esc@0"), flush(40),
	}},
	{"5.4 lone ESC/partial read: next write after the timeout", []step{
		partial(0, "\x1b"), feedAt(31, "[A", "Esc@0"),
	}},
	{"5.4 lone ESC/partial read: 1b then 1b within the timeout", []step{
		partial(0, "\x1b"), feedAt(5, "\x1b", "Esc*2@0"),
	}},
	{"5.4 lone ESC/partial read: 1b then 03 within the timeout is Alt+Ctrl+C", []step{
		partial(0, "\x1b"), feedAt(5, "\x03"),
	}},
	{"5.4 lone ESC/partial read: split kitty Esc keeps its first time", []step{
		partial(0, "\x1b"), feedAt(2, "[27u", "Esc@0"),
	}},
	{"5.4 lone ESC/Feed split right after ESC: chunk-end rule wins", []step{
		feedAt(0, "\x1b", "Esc@0"), feedAt(1, "[99;5u"),
	}},
	{"5.4 lone ESC/kitty mode tracked: trailing 1b waits for the rest", []step{
		output(csi + ">1u"), feedAt(0, "\x1b"), feedAt(3, "[99;5u", "CtrlC@0"),
	}},
	{"5.4 lone ESC/kitty mode tracked: a raw 1b alone is Esc after the timeout", []step{
		output(csi + ">5u"), feedAt(0, "\x1b"), flush(30, "Esc@0"),
	}},
	{"5.4 lone ESC/kitty mode popped: trailing 1b is Esc at once", []step{
		output(csi + ">7u"), output(csi + "<u"), feed("\x1b", "Esc@0"),
	}},
	{"5.4 lone ESC/win32 mode tracked: trailing 1b waits", []step{
		output(csi + "?9001h"), feedAt(0, "\x1b"), feedAt(50, "x", "Esc@0"),
	}},

	// Reassembly and garbage.
	{"split/kitty Ctrl+C split inside the CSI keeps its first time", []step{
		feedAt(0, csi+"99"), feedAt(3, ";5"), feedAt(4, "u", "CtrlC@0"),
	}},
	{"split/modifyOtherKeys Ctrl+C split at every byte", splitEach(csi+"27;5;99~", "CtrlC@0")},
	{"split/win32 Esc split at every byte", splitEach(csi+"27;1;27;1;0;1_", "Esc@0")},
	one("garbage/CSI cut by 03: the 03 is Ctrl+C", csi+"12\x03", "CtrlC@0"),
	one("garbage/CSI cut by ESC: the ESC counts", csi+"12\x1b", "Esc@0"),
	one("garbage/CSI cut by a UTF-8 byte", csi+"12\xc3\xa9\x03", "CtrlC@0"),
	one("garbage/overlong CSI is no key, later keys count",
		csi+strings.Repeat("0", 200)+"99;5u\x03", "CtrlC@0"),
	one("garbage/CSI with intermediates is no key", csi+"99 ;5u"),
	one("garbage/huge numbers do not wrap", csi+"18446744073709551715;5u"),
	one("garbage/too many fields is no key", csi+"27;1;27;1;0;1;1;1_"),
	one("garbage/SS3 cut by 03", "\x1bO\x03", "CtrlC@0"),
	one("garbage/CAN aborts an OSC", "\x1b]11;\x18\x03", "CtrlC@0"),
}

// splitEach feeds s one byte per chunk, the ESC through FeedPartial (a lone
// trailing ESC in a complete write would be Esc by rule) and the rest through
// Feed.
func splitEach(s string, want ...string) []step {
	steps := []step{partial(0, s[:1])}
	for i := 1; i < len(s); i++ {
		st := feed(s[i : i+1])
		if i == len(s)-1 {
			st.want = want
		}
		steps = append(steps, st)
	}
	return steps
}

func TestDecoderTable(t *testing.T) {
	for _, r := range tableRows {
		t.Run(r.name, func(t *testing.T) {
			run(t, New(0), r.steps)
		})
	}
}

func TestDeadline(t *testing.T) {
	d := New(50 * time.Millisecond)
	if _, ok := d.Deadline(); ok {
		t.Fatal("fresh decoder has a deadline")
	}
	d.FeedPartial([]byte("\x1b"), ms(10))
	dl, ok := d.Deadline()
	if !ok || !dl.Equal(ms(60)) {
		t.Fatalf("deadline = %v, %v; want 60ms", dl.Sub(t0), ok)
	}
	// A second ESC restarts the wait.
	d.FeedPartial([]byte("\x1b"), ms(20))
	if dl, _ = d.Deadline(); !dl.Equal(ms(70)) {
		t.Fatalf("deadline after second ESC = %v; want 70ms", dl.Sub(t0))
	}
	if got := show(d.Flush(ms(69))); got != nil {
		t.Fatalf("early flush: %v", got)
	}
	if got := strings.Join(show(d.Flush(ms(70))), " "); got != "Esc*2@10" {
		t.Fatalf("flush: %v", got)
	}
	if _, ok := d.Deadline(); ok {
		t.Fatal("deadline after flush")
	}
}

func TestFeedDoesNotModifyChunk(t *testing.T) {
	in := []byte("\x1b[99;5u\x1b[200~\x03\x1b[201~\x1b")
	keep := string(in)
	d := New(0)
	d.ObserveOutput(in)
	d.Feed(in, t0)
	if string(in) != keep {
		t.Fatalf("chunk changed: %q", in)
	}
}

func TestKeyString(t *testing.T) {
	for k, want := range map[Key]string{Esc: "Esc", CtrlC: "CtrlC", Enter: "Enter", 9: "Key(9)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	d := New(time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			d.ObserveOutput([]byte(csi + ">1u hello " + csi + "<u"))
			d.Mode()
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			d.Flush(time.Now())
			d.Deadline()
		}
	}()
	for i := 0; i < 200; i++ {
		d.FeedPartial([]byte("x\x1b"), time.Now())
		d.Feed([]byte(csi+"99;5u"), time.Now())
	}
	wg.Wait()
}

// SubmitKeys: an unmodified Enter in every encoding is reported; modified
// Enters (a newline in the agents' editors), Alt+Enter, a 0d inside a paste
// and Ctrl+J are not. Without SubmitKeys no Enter is reported at all (the
// table above).
var submitRows = []row{
	one("legacy/0d", "\r", "Enter@0"),
	one("legacy/typed prompt then Enter", "say hello\r", "Enter@0"),
	one("legacy/Ctrl+J is a newline", "\n"),
	one("legacy/Alt+Enter 1b 0d", "\x1b\r"),
	one("paste/0d inside a paste", csi+"200~one\rtwo\r"+csi+"201~"),
	one("paste/Enter after a paste", csi+"200~one\rtwo"+csi+"201~\r", "Enter@0"),
	one("kitty/CSI 13u", csi+"13u", "Enter@0"),
	one("kitty/CSI 13;1:1u press", csi+"13;1:1u", "Enter@0"),
	one("kitty/CSI 13;129u NumLock", csi+"13;129u", "Enter@0"),
	one("kitty/CSI 13;1:3u release", csi+"13;1:3u"),
	one("kitty/Shift+Enter CSI 13;2u", csi+"13;2u"),
	one("kitty/Ctrl+Enter CSI 13;5u", csi+"13;5u"),
	one("win32/VK_RETURN down", csi+"13;28;13;1;0;1_", "Enter@0"),
	one("win32/VK_RETURN up", csi+"13;28;13;0;0;1_"),
	one("win32/Shift+VK_RETURN", csi+"13;28;13;1;16;1_"),
	one("mixed/Esc Enter Ctrl+C", "\x1b[27u\r\x03", "Esc@0", "Enter@0", "CtrlC@0"),
	one("garbage/CSI cut by 0d", csi+"1;\r", "Enter@0"),
	one("garbage/OSC cut by 0d", "\x1b]11;\r", "Enter@0"),
}

func TestSubmitKeys(t *testing.T) {
	for _, r := range submitRows {
		t.Run(r.name, func(t *testing.T) {
			d := New(0)
			d.SubmitKeys()
			run(t, d, r.steps)
		})
	}
	t.Run("off by default", func(t *testing.T) {
		run(t, New(0), []step{feed("\r" + csi + "13u" + csi + "13;28;13;1;0;1_")})
	})
}
