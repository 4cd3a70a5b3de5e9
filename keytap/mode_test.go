package keytap

import (
	"strings"
	"testing"
)

// Mode tracking from the agent's output (keys.md §5.1, §5.4 step 2).
func TestObserveOutput(t *testing.T) {
	tests := []struct {
		name string
		out  []string
		want Mode
	}{
		{"5.1 Codex start-up", []string{csi + ">4;0m" + csi + ">7u" + csi + "?2004h" + csi + "?1004h" + csi + "?1007h"},
			Mode{KittyFlags: 7, BracketedPaste: true}},
		{"5.1 Codex exit pops", []string{csi + ">7u", csi + "<u" + csi + "?2004l"}, Mode{}},
		{"5.1 Claude 2.1.246 CSI >1u", []string{csi + ">1u"}, Mode{KittyFlags: 1}},
		{"5.1 Claude 2.1.247 CSI >5u", []string{csi + ">5u"}, Mode{KittyFlags: 5}},
		{"5.1 Claude XTMODKEYS CSI >4;2m", []string{csi + ">4;2m"}, Mode{ModifyOtherKeys: 2}},
		{"5.1 Codex in tmux with csi-u", []string{csi + ">4;0m" + csi + ">7u" + csi + ">4;2m"},
			Mode{KittyFlags: 7, ModifyOtherKeys: 2}},
		{"XTMODKEYS reset CSI >4m", []string{csi + ">4;2m", csi + ">4m"}, Mode{}},
		{"kitty pop restores the previous push", []string{csi + ">1u" + csi + ">7u" + csi + "<u"}, Mode{KittyFlags: 1}},
		{"kitty pop n", []string{csi + ">1u" + csi + ">7u" + csi + ">5u" + csi + "<2u"}, Mode{KittyFlags: 1}},
		{"kitty pop past the bottom", []string{csi + ">1u" + csi + "<9u"}, Mode{}},
		{"kitty set replace, or, and-not", []string{csi + "=1u", csi + "=4;2u", csi + "=1;3u"}, Mode{KittyFlags: 4}},
		{"kitty stacks are per screen", []string{csi + ">1u", csi + "?1049h", csi + ">7u"},
			Mode{KittyFlags: 7, AltScreen: true}},
		{"kitty stacks: leaving the alternate screen", []string{csi + ">1u", csi + "?1049h", csi + ">7u", csi + "?1049l"},
			Mode{KittyFlags: 1}},
		{"kitty query and restore-cursor CSI u are ignored", []string{csi + ">1u" + csi + "?u" + csi + "u" + csi + "s"},
			Mode{KittyFlags: 1}},
		{"win32-input-mode", []string{csi + "?9001h"}, Mode{Win32Input: true}},
		{"DECSET with several modes", []string{csi + "?1049;2004;9001h"},
			Mode{BracketedPaste: true, Win32Input: true, AltScreen: true}},
		{"DECSET with subparameter skips that mode only", []string{csi + "?2004:1;9001h"}, Mode{Win32Input: true}},
		{"split at every byte", strings.Split(csi+">5u"+csi+"?2004h", ""), Mode{KittyFlags: 5, BracketedPaste: true}},
		{"RIS resets", []string{csi + ">5u" + csi + "?2004h", "\x1bc"}, Mode{}},
		{"tmux passthrough", []string{"\x1bPtmux;\x1b\x1b[>1u\x1b\\"}, Mode{KittyFlags: 1}},
		{"text and SGR are ignored", []string{"hello " + csi + "1;31mred" + csi + "0m\r\n"}, Mode{}},
		{"overlong CSI is ignored", []string{csi + ">" + strings.Repeat("1", 100) + "u"}, Mode{}},
		{"ESC inside a CSI restarts", []string{csi + ">1" + csi + ">5u"}, Mode{KittyFlags: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := New(0)
			for _, c := range tt.out {
				d.ObserveOutput([]byte(c))
			}
			if got := d.Mode(); got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestKittyStackBounded(t *testing.T) {
	d := New(0)
	for i := 0; i < 1000; i++ {
		d.ObserveOutput([]byte(csi + ">1u"))
	}
	if n := len(d.out.kitty[0].saved); n > maxKittyStack {
		t.Fatalf("stack grew to %d", n)
	}
	d.ObserveOutput([]byte(csi + "<1000u"))
	if m := d.Mode(); m.KittyFlags != 0 {
		t.Fatalf("flags after popping all: %d", m.KittyFlags)
	}
}
