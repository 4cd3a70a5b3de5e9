package keytap

// keyPasteStart is classify's answer for CSI 200~; it is never reported.
const keyPasteStart Key = 0xff

// Kitty modifier bits (the wire value is 1 + bits); lock keys do not change
// which key was meant (keys.md §5.2, kitty row).
const (
	kittyCtrl  = 4
	kittyLocks = 64 | 128 // Caps Lock, Num Lock
)

// win32-input-mode control key state bits (keys.md §5.2, win32 row).
const (
	winAlt   = 0x01 | 0x02 // RIGHT_ALT, LEFT_ALT
	winCtrl  = 0x04 | 0x08 // RIGHT_CTRL, LEFT_CTRL
	winShift = 0x10
)

const (
	vkEscape = 27
	vkC      = 67
	cpEsc    = 27
	cpC      = 99 // 'c': kitty and xterm report the unshifted key
	cpEnter  = 13 // kitty's Enter, and win32's VK_RETURN
)

// maxFields and maxSub bound what csiFields keeps; no key we classify needs
// more.
const (
	maxFields = 6
	maxSub    = 3
)

// absent marks a missing field or subfield.
const absent = -1

type fields [maxFields][maxSub]int

// classify names the key a complete CSI sequence encodes (params are the
// bytes between CSI and final): Esc, CtrlC, Enter, keyPasteStart or 0.
func classify(params []byte, final byte) Key {
	f, n, ok := csiFields(params)
	if !ok {
		return 0 // private marker or intermediate: a reply, mouse, …
	}
	switch final {
	case 'u': // kitty / fixterms: key[:shifted[:base]] ; mods[:event] ; text
		key, base := f[0][0], f[0][2]
		mods, event := f[1][0], f[1][1]
		if event != absent && event != 1 { // 2 repeat, 3 release
			return 0
		}
		switch m := modBits(mods); {
		case key == cpEsc && m == 0:
			return Esc
		case (key == cpC || base == cpC) && m == kittyCtrl:
			return CtrlC
		case key == cpEnter && m == 0:
			return Enter
		}
	case '~':
		if n == 1 && f[0][0] == 200 && f[0][1] == absent {
			return keyPasteStart
		}
		// xterm modifyOtherKeys=2: CSI 27 ; mods ; key ~
		if n == 3 && f[0][0] == 27 {
			switch m, key := modBits(f[1][0]), f[2][0]; {
			case key == cpEsc && m == 0:
				return Esc
			case key == cpC && m == kittyCtrl:
				return CtrlC
			}
		}
	case '_': // win32-input-mode: Vk ; Sc ; Uc ; Kd ; Cs ; Rc
		vk, down, cs := f[0][0], f[3][0] == 1, f[4][0]
		if cs == absent {
			cs = 0
		}
		switch {
		case !down:
		case vk == vkEscape && cs&(winAlt|winCtrl|winShift) == 0:
			return Esc
		case vk == vkC && cs&winCtrl != 0 && cs&(winAlt|winShift) == 0:
			return CtrlC
		case vk == cpEnter && cs&(winAlt|winCtrl|winShift) == 0:
			return Enter
		}
	}
	return 0
}

// modBits turns a kitty/xterm modifier value into its bits without the lock
// keys; -1 when the value is malformed.
func modBits(v int) int {
	if v == absent {
		return 0
	}
	if v < 1 {
		return -1
	}
	return (v - 1) &^ kittyLocks
}

// csiFields splits digits separated by ';' (fields) and ':' (subfields). It
// fails on any other byte, and on more fields than any key has; surplus
// subfields (kitty's text field) are skipped. Values saturate, so huge
// numbers cannot wrap to a key code.
func csiFields(p []byte) (f fields, n int, ok bool) {
	for i := range f {
		for j := range f[i] {
			f[i][j] = absent
		}
	}
	if len(p) == 0 {
		return f, 0, true
	}
	field, sub := 0, 0
	for _, b := range p {
		switch {
		case b >= '0' && b <= '9':
			if sub < maxSub {
				v := &f[field][sub]
				if *v == absent {
					*v = 0
				}
				if *v < 1<<24 {
					*v = *v*10 + int(b-'0')
				}
			}
		case b == ':':
			sub++
		case b == ';':
			field++
			sub = 0
			if field == maxFields {
				return f, 0, false
			}
		default:
			return f, 0, false
		}
	}
	return f, field + 1, true
}
