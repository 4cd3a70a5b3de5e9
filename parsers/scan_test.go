package parsers

import (
	"bytes"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// checkHead holds scanHead to fastjson: the same lines accepted as objects,
// and, when the scan calls its values exact, the same values fastjson's Get
// returns for them.
func checkHead(t *testing.T, line []byte) {
	t.Helper()
	var h Head
	ok := scanHead(line, &h, nil)
	var p fastjson.Parser
	v, err := p.ParseBytes(line)
	want := err == nil && v.Type() == fastjson.TypeObject
	if ok != want {
		t.Fatalf("scanHead accepts=%v, fastjson accepts=%v (err %v): %q", ok, want, err, line)
	}
	if !ok || !h.Exact {
		return
	}
	eq := func(name string, got []byte, v *fastjson.Value, key string) {
		// A nil scan value means "not a string", as GetStringBytes's nil.
		fv := v.Get(key)
		isStr := fv != nil && fv.Type() == fastjson.TypeString
		if w := v.GetStringBytes(key); !bytes.Equal(got, w) || (got != nil) != isStr {
			t.Fatalf("%s: scan %q, fastjson %q: %q", name, got, w, line)
		}
	}
	eq("type", h.Typ, v, "type")
	eq("timestamp", h.TS, v, "timestamp")
	pl := v.Get("payload")
	if isObj := pl != nil && pl.Type() == fastjson.TypeObject; isObj != h.Payload {
		t.Fatalf("payload object: scan %v, fastjson %v: %q", h.Payload, isObj, line)
	}
	if h.Payload {
		eq("payload.type", h.PTyp, pl, "type")
	}
}

// TestScanStringEnds: a string's end is found 8 bytes at a time, in
// unrolled steps where 32 bytes are left and a loop where fewer are, and
// by bytes.IndexByte past that. Every length up to 80, with an escape at
// every place in it and the line ending at every distance after it, as a
// top-level key, a wanted value and a nested key and value, against
// fastjson.
func TestScanStringEnds(t *testing.T) {
	escapes := []string{``, `\"`, `\\`, `\\\"`, `\n`, `\\\\`}
	for n := 0; n <= 80; n++ {
		for _, esc := range escapes {
			for p := 0; p <= n; p++ {
				if esc == `` && p > 0 {
					break
				}
				c := strings.Repeat("x", p) + esc + strings.Repeat("y", n-p)
				for _, l := range []string{
					`{"` + c + `":1}`,
					`{"type":"` + c + `"}`,
					`{"type":"t","m":[{"` + c + `":"` + c + `"}]}`,
				} {
					for _, pad := range []int{0, 1, 7, 8, 9, 31, 32, 33} {
						line := []byte(l + strings.Repeat(" ", pad))
						checkHead(t, line)
						// Without an escape the scan must not give up
						// its values to the parse.
						var h Head
						if esc == `` && (!scanHead(line, &h, nil) || !h.Exact) {
							t.Fatalf("no escape, but the scan is not exact: %q", line)
						}
					}
				}
			}
		}
	}
	// Cut short: no closing quote within the line, at every length.
	for n := 0; n <= 80; n++ {
		for _, l := range []string{`{"` + strings.Repeat("k", n), `{"type":"` + strings.Repeat("v", n), `{"m":["` + strings.Repeat("w", n) + `\"`} {
			checkHead(t, []byte(l))
		}
	}
}

func TestScanHead(t *testing.T) {
	for _, l := range []string{
		`{}`, ` {"a":1} `, `{"type":"user"}`, `{"type":"us\"er"}`, `{"type":"a\\"}`, `{"type":"a\\\"b"}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"x":[1,2,{"type":"no"}]}}}`,
		`{"payload":"x","payload":{"type":"a"}}`, `{"payload":{"type":"a"},"payload":{"type":"b"}}`,
		`{"type":1,"type":"user"}`, `{"typ\u0065":"user"}`, `{"a":nan,"b":NaN,"c":-inf,"d":+Inf,"e":1.2.3e}`,
		`{"a":-}`, `{"a":}`, `{"a":tru}`, `{"a":nul}`, `{"a" : [ ] , "b" : { } }`, "{\"a\":\"\x00\"}",
		`{"a":1}x`, `{"a":1`, `{"a":"`, `[1]`, `"s"`, ``, `{`, `{"a":[1,]}`, `{"a":[1 2]}`, `{,}`, `{"a":1,}`,
		"\x0b{}", "{}\x0b", `{"type":"user","message":{"content":"[Request interrupted by user]"}}`,
		`{"a":` + string(bytes.Repeat([]byte("["), 298)) + string(bytes.Repeat([]byte("]"), 298)) + `}`,
		`{"a":` + string(bytes.Repeat([]byte("["), 299)) + string(bytes.Repeat([]byte("]"), 299)) + `}`,
		`{"a":` + string(bytes.Repeat([]byte("["), 298)) + `1` + string(bytes.Repeat([]byte("]"), 298)) + `}`,
		`{"payload":` + string(bytes.Repeat([]byte(`{"a":`), 298)) + `1` + string(bytes.Repeat([]byte("}"), 298)) + `}`,
		`{"payload":` + string(bytes.Repeat([]byte(`{"a":`), 297)) + `{"type":"x"}` + string(bytes.Repeat([]byte("}"), 297)) + `}`,
	} {
		checkHead(t, []byte(l))
	}
}

func FuzzScanHead(f *testing.F) {
	for _, s := range []string{`{"type":"user"}`, `{"timestamp":"t","type":"event_msg","payload":{"type":"x"}}`,
		`{"a":[1,{"b":"c\\"}],"type":"x"}`, `{"a":nan}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkHead(t, line) })
}

// checkToolInput holds toolInput to what ToolDetail reads: every detail
// field's value is the one the whole input's Get returns.
func checkToolInput(t *testing.T, obj []byte) {
	var p, q fastjson.Parser
	in, err := p.ParseBytes(obj)
	if err != nil || in.Type() != fastjson.TypeObject {
		return
	}
	red := ToolInputOf(in)
	out, err := q.ParseBytes(red)
	if err != nil || out.Type() != fastjson.TypeObject {
		t.Fatalf("ToolInputOf(%s) = %s: not an object", obj, red)
	}
	for _, group := range [][]string{ToolCommandFields, ToolPathFields, ToolTargetFields} {
		for _, f := range group {
			a, b := in.Get(f), out.Get(f)
			if (a == nil) != (b == nil) || a != nil && string(a.MarshalTo(nil)) != string(b.MarshalTo(nil)) {
				t.Fatalf("%s: field %s: input %v, reduced %v", obj, f, a, b)
			}
		}
	}
}

func TestToolInputFields(t *testing.T) {
	for _, s := range []string{`{}`, `{"command":"ls","file_path":"/a","content":"big"}`, `{"cmd":["bash","-lc","x"],"url":1}`,
		`{"command":1,"command":"second"}`, `{"comm\u0061nd":"escaped"}`, `{"path":"p","TargetFile":"t","query":"q","Query":"Q"}`} {
		checkToolInput(t, []byte(s))
	}
}

func FuzzToolInput(f *testing.F) {
	f.Add([]byte(`{"command":"ls","file_path":"/a"}`))
	f.Fuzz(func(t *testing.T, obj []byte) { checkToolInput(t, obj) })
}
