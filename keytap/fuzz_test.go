package keytap

import (
	"bytes"
	"reflect"
	"testing"
	"time"
)

// chunks splits data into pieces whose lengths come from cuts (1–16 bytes
// each, cycling); skip reports cut positions to avoid.
func chunks(data, cuts []byte, skip func(pos int) bool) [][]byte {
	if len(cuts) == 0 {
		cuts = []byte{0}
	}
	var out [][]byte
	start := 0
	for i, pos := 0, 0; pos < len(data); i++ {
		pos += int(cuts[i%len(cuts)]%16) + 1
		if pos >= len(data) {
			break
		}
		if skip != nil && skip(pos) {
			continue
		}
		out = append(out, data[start:pos])
		start = pos
	}
	return append(out, data[start:])
}

// FuzzDecoder checks, for any input and any chunking:
//   - nothing panics and the input is not modified;
//   - reassembly is exact: feeding the pieces through FeedPartial (all but
//     the last) gives the same presses as one Feed of the whole, since only a
//     write boundary or the timeout can end a lone ESC;
//   - with Feed at every piece, the result is still the same as long as no
//     piece ends right after a 1b (there the chunk-end rule makes it Esc);
//   - bytes strictly inside a bracketed paste never yield a press, however
//     they and the markers are chunked and whatever state the preceding
//     bytes left behind; after the paste ends, keys count again;
//   - under a tracked kitty mode, any split matches one Feed.
func FuzzDecoder(f *testing.F) {
	for _, r := range tableRows {
		var in []byte
		for _, s := range r.steps {
			if s.op == "feed" || s.op == "partial" {
				in = append(in, s.in...)
			}
		}
		f.Add(in, []byte{0, 3, 1, 7})
	}
	far := t0.Add(time.Hour)
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		keep := bytes.Clone(data)

		whole := New(0)
		want := append(whole.Feed(data, t0), whole.Flush(far)...)

		d := New(0)
		var got []Press
		pieces := chunks(data, cuts, nil)
		for i, c := range pieces {
			if i < len(pieces)-1 {
				got = append(got, d.FeedPartial(c, t0)...)
			} else {
				got = append(got, d.Feed(c, t0)...)
			}
		}
		got = append(got, d.Flush(far)...)
		if !reflect.DeepEqual(show(got), show(want)) {
			t.Fatalf("FeedPartial pieces %q: %v, one Feed: %v", pieces, show(got), show(want))
		}

		d = New(0)
		got = nil
		pieces = chunks(data, cuts, func(pos int) bool { return data[pos-1] == 0x1b })
		for _, c := range pieces {
			got = append(got, d.Feed(c, t0)...)
		}
		got = append(got, d.Flush(far)...)
		if !reflect.DeepEqual(show(got), show(want)) {
			t.Fatalf("Feed pieces %q: %v, one Feed: %v", pieces, show(got), show(want))
		}

		// data as the prefix, then data without end markers as the paste.
		d = New(0)
		for _, c := range chunks(data, cuts, nil) {
			d.Feed(c, t0)
		}
		d.Flush(far)
		body := data
		for bytes.Contains(body, []byte(pasteEnd)) {
			body = bytes.ReplaceAll(body, []byte(pasteEnd), nil)
		}
		paste := append(append([]byte(csi+"200~"), body...), pasteEnd...)
		// Not cut right after the start marker's ESC: Feed would take it as
		// a lone Esc, before the paste began.
		for i, c := range chunks(paste, cuts, func(pos int) bool { return pos == 1 }) {
			var ps []Press
			if i%2 == 0 {
				ps = d.Feed(c, t0)
			} else {
				ps = d.FeedPartial(c, t0)
			}
			ps = append(ps, d.Flush(far)...)
			if len(ps) > 0 {
				t.Fatalf("press %v from paste %q", show(ps), c)
			}
			if _, ok := d.Deadline(); ok {
				t.Fatalf("deadline set inside a paste after %q", c)
			}
		}
		if ps := show(d.Feed([]byte("\x03"), t0)); len(ps) != 1 || ps[0] != "CtrlC@0" {
			t.Fatalf("after the paste: %v, want one CtrlC", ps)
		}

		// Under a tracked kitty mode no chunk end decides a trailing ESC, so
		// any split at all must match one Feed.
		kitty := func() *Decoder {
			d := New(0)
			d.ObserveOutput([]byte(csi + ">1u"))
			return d
		}
		d = kitty()
		want = append(d.Feed(data, t0), d.Flush(far)...)
		d = kitty()
		got = nil
		pieces = chunks(data, cuts, nil)
		for _, c := range pieces {
			got = append(got, d.Feed(c, t0)...)
		}
		got = append(got, d.Flush(far)...)
		if !reflect.DeepEqual(show(got), show(want)) {
			t.Fatalf("kitty mode, Feed pieces %q: %v, one Feed: %v", pieces, show(got), show(want))
		}

		// The output side must cope with the same bytes.
		d.ObserveOutput(data)
		if m := d.Mode(); m.KittyFlags < 0 || m.ModifyOtherKeys < 0 ||
			len(d.out.kitty[0].saved) > maxKittyStack || len(d.out.kitty[1].saved) > maxKittyStack {
			t.Fatalf("mode out of range: %+v", m)
		}
		d.Feed(data, t0)

		if !bytes.Equal(data, keep) {
			t.Fatal("input modified")
		}
	})
}
