package keytap

import "bytes"

// Mode is the keyboard state the agent's output asked the terminal for
// (keys.md §5.1, §5.4 step 2). It only helps interpret ambiguous bytes: the
// decoder accepts every encoding in every mode, because the terminal may
// not support the request and modes leak across programs.
type Mode struct {
	KittyFlags      int  // kitty keyboard flags of the active screen
	ModifyOtherKeys int  // xterm modifyOtherKeys level (CSI > 4 ; n m)
	BracketedPaste  bool // CSI ? 2004 h
	Win32Input      bool // CSI ? 9001 h
	AltScreen       bool // CSI ? 1049 h (or 1047, 47)
}

// maxKittyStack bounds each kitty flags stack; like a terminal, the oldest
// entries go first on overflow.
const maxKittyStack = 16

// maxOutParams caps stored output CSI parameters; mode sequences are short.
const maxOutParams = 32

type kittyStack struct {
	cur   int
	saved []int
}

func (s *kittyStack) push(flags int) {
	if len(s.saved) == maxKittyStack {
		copy(s.saved, s.saved[1:])
		s.saved = s.saved[:len(s.saved)-1]
	}
	s.saved = append(s.saved, s.cur)
	s.cur = flags
}

func (s *kittyStack) pop(n int) {
	for ; n > 0; n-- {
		if len(s.saved) == 0 {
			s.cur = 0
			return
		}
		s.cur = s.saved[len(s.saved)-1]
		s.saved = s.saved[:len(s.saved)-1]
	}
}

// modeTracker parses the agent's output for keyboard mode changes. It keeps
// only a short CSI buffer across chunks.
type modeTracker struct {
	mode     Mode
	kitty    [2]kittyStack // main and alternate screen, as the kitty spec requires
	st       uint8         // 0 ground, 1 after ESC, 2 in CSI
	params   [maxOutParams]byte
	nparams  int
	overflow bool
}

const (
	outGround = iota
	outEsc
	outCSI
)

// ObserveOutput lets the decoder follow the keyboard modes the agent sets,
// given the bytes it writes to the terminal, in order. It is optional: call
// it from the output copier with each chunk after forwarding it. It does not
// retain chunk.
func (d *Decoder) ObserveOutput(chunk []byte) {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	d.out.observe(chunk)
	m := d.out.mode
	d.escAmbiguous.Store(m.KittyFlags&1 != 0 || m.Win32Input)
}

// Mode reports the modes seen by ObserveOutput.
func (d *Decoder) Mode() Mode {
	d.outMu.Lock()
	defer d.outMu.Unlock()
	return d.out.mode
}

func (t *modeTracker) observe(chunk []byte) {
	for i := 0; i < len(chunk); {
		b := chunk[i]
		switch t.st {
		case outGround:
			j := bytes.IndexByte(chunk[i:], 0x1b)
			if j < 0 {
				return
			}
			i += j + 1
			t.st = outEsc
			continue
		case outEsc:
			switch b {
			case '[':
				t.st, t.nparams, t.overflow = outCSI, 0, false
			case 'c': // RIS: full reset
				t.reset()
				t.st = outGround
			case 0x1b: // tmux passthrough doubles ESC; stay
			default:
				t.st = outGround
			}
		case outCSI:
			switch {
			case b >= 0x20 && b <= 0x3f:
				if t.nparams < maxOutParams {
					t.params[t.nparams] = b
					t.nparams++
				} else {
					t.overflow = true
				}
			case b >= 0x40 && b <= 0x7e:
				if !t.overflow {
					t.apply(t.params[:t.nparams], b)
				}
				t.st = outGround
			case b == 0x1b:
				t.st = outEsc
			default:
				t.st = outGround
			}
		}
		i++
	}
}

func (t *modeTracker) reset() {
	t.mode = Mode{}
	t.kitty = [2]kittyStack{}
}

func (t *modeTracker) screen() *kittyStack {
	if t.mode.AltScreen {
		return &t.kitty[1]
	}
	return &t.kitty[0]
}

// apply interprets one output CSI sequence.
func (t *modeTracker) apply(p []byte, final byte) {
	if len(p) == 0 {
		return
	}
	marker := p[0]
	if marker == '?' && (final == 'h' || final == 'l') {
		t.decset(p[1:], final == 'h')
		return
	}
	f, _, ok := csiFields(p[1:])
	if !ok {
		return
	}
	first := f[0][0]
	switch {
	case final == 'u' && marker == '>': // push
		t.screen().push(max(first, 0))
	case final == 'u' && marker == '<': // pop n
		if first == absent {
			first = 1
		}
		t.screen().pop(first)
	case final == 'u' && marker == '=': // set: 1 replace, 2 or, 3 and-not
		s := t.screen()
		flags := max(first, 0)
		switch f[1][0] {
		case absent, 1:
			s.cur = flags
		case 2:
			s.cur |= flags
		case 3:
			s.cur &^= flags
		}
	case final == 'm' && marker == '>': // XTMODKEYS
		if first == absent || first == 4 {
			t.mode.ModifyOtherKeys = max(f[1][0], 0)
		}
	}
	t.mode.KittyFlags = t.screen().cur
}

// decset applies CSI ? Pm h / l, which may list any number of modes.
func (t *modeTracker) decset(p []byte, on bool) {
	v, ok := 0, true
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] >= '0' && p[i] <= '9' {
			if v < 1<<24 {
				v = v*10 + int(p[i]-'0')
			}
			continue
		}
		if i < len(p) && p[i] != ';' {
			ok = false // a subparameter or stray byte: skip this mode
			continue
		}
		if ok {
			switch v {
			case 2004:
				t.mode.BracketedPaste = on
			case 9001:
				t.mode.Win32Input = on
			case 1049, 1047, 47:
				t.mode.AltScreen = on
			}
		}
		v, ok = 0, true
	}
	t.mode.KittyFlags = t.screen().cur
}
