package keytap

import (
	"bytes"
	"testing"
	"time"
)

// typingChunks is a user typing under the kitty protocol with event types
// (Codex CSI >7u): each key a press write and a release write, some arrows,
// a legacy Esc and a Ctrl+C.
func typingChunks() [][]byte {
	var cs [][]byte
	for _, r := range "fix the failing test in parser.go please" {
		cs = append(cs, []byte(string(r)))
		cs = append(cs, []byte(csi+"97;1:3u"))
	}
	cs = append(cs, []byte(csi+"A"), []byte(csi+"D"), []byte("\x1bOB"), []byte("\r"),
		[]byte(csi+"27u"), []byte(csi+"27;1:3u"), []byte("\x1b"), []byte(csi+"99;5u"), []byte("\x03"))
	return cs
}

func BenchmarkFeed(b *testing.B) {
	b.Run("typing", func(b *testing.B) {
		cs := typingChunks()
		var n int64
		for _, c := range cs {
			n += int64(len(c))
		}
		d := New(0)
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range cs {
				d.Feed(c, t0)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cs)), "ns/chunk")
	})

	// 1 MiB of source code pasted, read in 4 KiB chunks as a proxy would.
	line := []byte("\tif err := run(ctx, \"\\x1b[A\"); err != nil { return fmt.Errorf(\"x: %w\", err) }\n")
	text := bytes.Repeat(line, (1<<20)/len(line))
	bracketed := append(append([]byte(csi+"200~"), text...), pasteEnd...)
	for _, bc := range []struct {
		name string
		in   []byte
	}{{"paste_bracketed_1MiB", bracketed}, {"paste_unbracketed_1MiB", text}} {
		b.Run(bc.name, func(b *testing.B) {
			d := New(0)
			b.SetBytes(int64(len(bc.in)))
			b.ReportAllocs()
			for b.Loop() {
				for in := bc.in; len(in) > 0; {
					n := min(4096, len(in))
					d.FeedPartial(in[:n], t0)
					in = in[n:]
				}
				d.Flush(t0.Add(time.Hour))
			}
		})
	}
}

// BenchmarkObserveOutput is the agent's TUI output: colour, cursor moves and
// text, which ObserveOutput scans for mode changes.
func BenchmarkObserveOutput(b *testing.B) {
	frame := []byte(csi + "?2026h" + csi + "H" + csi + "2K" + csi + "38;5;245m│" + csi + "0m Reading parser.go … " +
		csi + "1;32m✓" + csi + "0m\r\n" + csi + "?25l" + "plain text of a long assistant message line\r\n" + csi + "?2026l")
	out := bytes.Repeat(frame, (1<<20)/len(frame))
	d := New(0)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		for in := out; len(in) > 0; {
			n := min(32<<10, len(in))
			d.ObserveOutput(in[:n])
			in = in[n:]
		}
	}
}
