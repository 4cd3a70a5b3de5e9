// Package keytap recognises the interrupt keys Esc and Ctrl+C in the bytes a
// user's terminal writes into an agent's pty (see formats/keys.md §5), and,
// when asked (SubmitKeys), the unmodified Enter that submits a prompt.
//
// A Decoder only observes: it never changes, holds back or delays the bytes.
// The caller (the `wrap` pty proxy, or a host app that owns the pty) forwards
// each chunk to the agent first, then feeds the same bytes to the decoder with
// their arrival time and gets the key presses back. The decoder owns no clock
// and no goroutine: a lone ESC that must wait is reported by Flush, which the
// caller runs from a timer armed with Deadline (or on its next Feed). With
// ObserveOutput the decoder may also follow the keyboard modes the agent sets.
//
// Encodings accepted, whatever mode the agent asked for (modes leak: an agent
// may exit with the kitty protocol still pushed, tmux may re-encode):
//
//   - legacy: 1b is Esc, 03 is Ctrl+C;
//   - xterm modifyOtherKeys=2: CSI 27;5;99~ is Ctrl+C;
//   - kitty keyboard protocol and fixterms: CSI 27u is Esc, CSI 99;5u is
//     Ctrl+C; Caps Lock and Num Lock bits in the modifier are ignored, only
//     press events count (":1" or none; ":2" repeat and ":3" release do not),
//     and Ctrl+C matches on the key code or the base-layout key
//     (CSI 1089::99;5u);
//   - win32-input-mode: key-down records for VK_ESCAPE without
//     Ctrl/Alt/Shift, and VK 'C' with Ctrl and without Alt/Shift.
//
// Not keys: everything between CSI 200~ and CSI 201~ (bracketed paste), key
// release and repeat events, modifier-only keys, Ctrl+Shift+C and other
// modified variants, and every sequence that merely begins with ESC: CSI and
// SS3 keys (arrows, F-keys), Alt+key, focus, mouse (X10, SGR), terminal
// replies (DA, CPR, kitty flags, OSC/DCS/APC strings).
//
// The lone-ESC rule (keys.md §5.4 step 5), for a 1b outside a paste:
//
//   - followed in the same chunk by a sequence introducer ("[", "O", "]",
//     "P", "_"), a printable byte or a control byte it is a sequence or an
//     Alt+key, not Esc: in one chunk the next byte arrived together with the
//     ESC, so "nothing followed within the timeout" cannot hold;
//   - in a run of ESCs every ESC but the last counts as Esc, and the last
//     is decided by the rules above and below; the run makes one press,
//     Double when two or more of its ESCs count: 1b 1b is one Double press,
//     1b 1b [A is Esc then an arrow key;
//   - a 1b that ends a chunk passed to Feed is Esc at once: terminals write
//     one key per write, and this is what crossterm (Codex) does;
//   - a 1b that ends a chunk passed to FeedPartial (the read may have cut a
//     write short, e.g. it filled the buffer), or ends a Feed chunk while the
//     agent's output has switched the terminal to the kitty protocol or
//     win32-input-mode (where a real Esc is a CSI sequence, so a raw trailing
//     1b is most likely a split one), waits: the next chunk continues it if
//     it arrives within the Esc timeout, otherwise it is Esc. Deadline tells
//     the caller when to call Flush.
//
// Sequences split across chunks are reassembled. Memory is bounded: sequence
// parameters beyond a fixed cap are dropped (the sequence then counts as no
// key), string bodies and paste content are scanned, never stored, and any
// ESC, CAN, SUB or control byte ends an unterminated CSI or string, so a
// garbage sequence cannot swallow later keys. An unterminated paste ignores
// everything until CSI 201~, as a terminal would.
package keytap

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Key is an interrupt key.
type Key uint8

// The keys a Decoder reports.
const (
	Esc Key = iota + 1
	CtrlC
	// Enter is an unmodified Enter (legacy 0d, kitty CSI 13u, win32
	// VK_RETURN), reported only by a decoder with SubmitKeys: the key that
	// submits a prompt, which the relay correlates with the turn start
	// that follows to bind a Codex session to its tab. Shift/Alt/Ctrl+Enter
	// (a newline in the agents' editors) and a 0d inside a paste are not.
	Enter
)

func (k Key) String() string {
	switch k {
	case Esc:
		return "Esc"
	case CtrlC:
		return "CtrlC"
	case Enter:
		return "Enter"
	}
	return "Key(" + strconv.Itoa(int(k)) + ")"
}

// Press is one key press.
type Press struct {
	Key Key
	// At is when the chunk holding the key's first byte arrived.
	At time.Time
	// Double marks an Esc made of two or more ESC bytes in a row (1b 1b:
	// Alt+Esc, or Esc Esc read together), which Claude Code may treat as
	// "rewind" rather than an interrupt.
	Double bool
}

// DefaultEscTimeout is how long a pending lone ESC waits for a continuation
// (keys.md §5.4: longer than Ink's 20 ms, shorter than a human's repeat).
const DefaultEscTimeout = 30 * time.Millisecond

// maxParams caps the stored parameter bytes of a CSI sequence. The longest
// key we classify (win32-input-mode) is about 25 bytes.
const maxParams = 64

type state uint8

const (
	stGround state = iota
	stEsc          // after escRun ESC bytes
	stCSI          // collecting CSI parameter and intermediate bytes
	stSS3          // after ESC O
	stString       // OSC, DCS or APC body, until BEL or ESC
	stMouse        // X10 mouse report: mouseLeft raw bytes to skip
	stPaste        // bracketed paste, until CSI 201~
)

// pasteEnd ends a bracketed paste.
const pasteEnd = "\x1b[201~"

// Decoder decodes one pty's input stream. Its methods are safe for
// concurrent use, so the input reader, a timer driving Flush and the output
// copier calling ObserveOutput can share one Decoder.
type Decoder struct {
	escTimeout time.Duration

	mu         sync.Mutex
	st         state
	escRun     int       // ESC bytes in the current run (stEsc)
	firstEscAt time.Time // arrival of the run's first ESC: the press time
	lastEscAt  time.Time // arrival of the run's last ESC: the timeout start
	pending    bool      // stEsc was left at the end of a chunk and waits
	seqAt      time.Time // arrival of the ESC that began the current sequence
	params     [maxParams]byte
	nparams    int
	overflow   bool // params exceeded maxParams: the sequence is no key
	mouseLeft  int
	pasteMatch int // bytes of pasteEnd matched so far

	// enter makes the decoder report Enter (SubmitKeys).
	enter bool

	// escAmbiguous is set from the agent's output: the terminal was asked to
	// send Esc as a sequence, so a raw trailing 1b is likely a split one.
	escAmbiguous atomic.Bool
	outMu        sync.Mutex
	out          modeTracker
}

// New returns a Decoder. escTimeout <= 0 selects DefaultEscTimeout.
func New(escTimeout time.Duration) *Decoder {
	if escTimeout <= 0 {
		escTimeout = DefaultEscTimeout
	}
	return &Decoder{escTimeout: escTimeout}
}

// SubmitKeys makes the decoder report Enter presses as well. Call it before
// the first Feed.
func (d *Decoder) SubmitKeys() {
	d.mu.Lock()
	d.enter = true
	d.mu.Unlock()
}

// Feed decodes one chunk as read from the user's terminal, one complete
// write, arriving at at. A 1b that ends it is a lone Esc (unless the tracked
// mode makes it ambiguous, see the package doc). Feed does not retain chunk.
func (d *Decoder) Feed(chunk []byte, at time.Time) []Press {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.feed(chunk, at, !d.escAmbiguous.Load())
}

// FeedPartial is Feed for a chunk that may end in the middle of a write, such
// as a read that filled its buffer: a trailing 1b waits for the next chunk or
// the Esc timeout instead of counting at once.
func (d *Decoder) FeedPartial(chunk []byte, at time.Time) []Press {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.feed(chunk, at, false)
}

// Deadline reports when a pending lone ESC becomes Esc if nothing follows:
// the caller should call Flush then.
func (d *Decoder) Deadline() (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.pending {
		return time.Time{}, false
	}
	return d.lastEscAt.Add(d.escTimeout), true
}

// Flush reports a pending lone ESC as Esc once now has reached its deadline.
// The press carries the ESC's arrival time, not now.
func (d *Decoder) Flush(now time.Time) []Press {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.pending || now.Sub(d.lastEscAt) < d.escTimeout {
		return nil
	}
	return d.escRunIsEsc(nil, d.escRun)
}

func (d *Decoder) feed(chunk []byte, at time.Time, complete bool) []Press {
	var out []Press
	if d.pending {
		d.pending = false
		if at.Sub(d.lastEscAt) >= d.escTimeout {
			out = d.escRunIsEsc(out, d.escRun)
		}
	}
	for i := 0; i < len(chunk); {
		b := chunk[i]
		switch d.st {
		case stGround:
			// Fast path: everything but 03, 1b (and 0d for SubmitKeys) is
			// ignored here, one table load per byte.
			stops := &groundStops
			if d.enter {
				stops = &groundStopsEnter
			}
			for i < len(chunk) && !stops[chunk[i]] {
				i++
			}
			if i == len(chunk) {
				break
			}
			switch chunk[i] {
			case 0x03:
				out = append(out, Press{Key: CtrlC, At: at})
			case 0x0d:
				out = append(out, Press{Key: Enter, At: at})
			default:
				d.startEsc(at)
			}
			i++

		case stEsc:
			if b == 0x1b {
				d.escRun++
				d.lastEscAt = at
				i++
				break
			}
			// Every ESC of the run but the last was followed by an ESC.
			out = d.escRunIsEsc(out, d.escRun-1)
			d.seqAt = d.lastEscAt
			i++
			switch b {
			case '[':
				d.st, d.nparams, d.overflow = stCSI, 0, false
			case 'O':
				d.st = stSS3
			case ']', 'P', '_':
				d.st = stString
			}
			// Anything else (printable, control or UTF-8 byte) made an
			// Alt+key: stay in ground.

		case stCSI:
			switch {
			case b >= 0x20 && b <= 0x3f:
				if d.nparams < maxParams {
					d.params[d.nparams] = b
					d.nparams++
				} else {
					d.overflow = true
				}
				i++
			case b >= 0x40 && b <= 0x7e:
				d.st = stGround
				i++
				if d.overflow {
					break
				}
				if b == 'M' && d.nparams == 0 {
					d.st, d.mouseLeft = stMouse, 3
					break
				}
				switch k := classify(d.params[:d.nparams], b); k {
				case keyPasteStart:
					d.st, d.pasteMatch = stPaste, 0
				case Esc, CtrlC:
					out = append(out, Press{Key: k, At: d.seqAt})
				case Enter:
					if d.enter {
						out = append(out, Press{Key: k, At: d.seqAt})
					}
				}
			default:
				// A control byte (ESC, 03, …) or a non-ASCII byte cannot
				// be part of a CSI: the sequence was garbage or cut off.
				// Decode the byte afresh so no key is lost.
				d.st = stGround
			}

		case stSS3:
			switch {
			case b >= 0x30 && b <= 0x3f: // old xterms put modifiers here
				i++
			case b >= 0x40 && b <= 0x7e:
				d.st = stGround
				i++
			default:
				d.st = stGround
			}

		case stString:
			switch {
			case b == 0x07: // BEL ends an OSC, and xterm accepts it for all
				d.st = stGround
				i++
			case b == 0x1b: // ST (ESC \) ends it; any other ESC aborts it
				d.startEsc(at)
				i++
			case b == 0x18 || b == 0x1a: // CAN, SUB abort
				d.st = stGround
				i++
			case b < 0x20:
				// Replies carry no other controls: a 03 here is a key.
				d.st = stGround
			default:
				i++
			}

		case stMouse:
			// X10 coordinates are 32+n, never controls: a control byte
			// means this was no mouse report.
			if b < 0x20 {
				d.st = stGround
				break
			}
			d.mouseLeft--
			if d.mouseLeft == 0 {
				d.st = stGround
			}
			i++

		case stPaste:
			i = d.scanPaste(chunk, i)
		}
	}
	if d.st == stEsc {
		if complete {
			out = d.escRunIsEsc(out, d.escRun)
		} else {
			d.pending = true
		}
	}
	return out
}

// groundStops are the bytes the ground state acts on; groundStopsEnter adds
// 0d for SubmitKeys.
var groundStops, groundStopsEnter = func() (a, b [256]bool) {
	a[0x03], a[0x1b] = true, true
	b = a
	b[0x0d] = true
	return a, b
}()

func (d *Decoder) startEsc(at time.Time) {
	d.st, d.escRun, d.firstEscAt, d.lastEscAt = stEsc, 1, at, at
}

// escRunIsEsc reports n ESC bytes of the current run as one Esc press and
// leaves stEsc.
func (d *Decoder) escRunIsEsc(out []Press, n int) []Press {
	d.st, d.pending = stGround, false
	if n > 0 {
		out = append(out, Press{Key: Esc, At: d.firstEscAt, Double: n >= 2})
	}
	return out
}

// scanPaste consumes paste content from chunk[i:] until the end marker, which
// may be split across chunks, and returns the next index.
func (d *Decoder) scanPaste(chunk []byte, i int) int {
	for i < len(chunk) {
		if d.pasteMatch == 0 {
			j := bytes.IndexByte(chunk[i:], 0x1b)
			if j < 0 {
				return len(chunk)
			}
			i += j
		}
		b := chunk[i]
		i++
		switch {
		case b == pasteEnd[d.pasteMatch]:
			d.pasteMatch++
			if d.pasteMatch == len(pasteEnd) {
				d.st, d.pasteMatch = stGround, 0
				return i
			}
		case b == 0x1b: // the marker has one ESC, at its start
			d.pasteMatch = 1
		default:
			d.pasteMatch = 0
		}
	}
	return i
}
