package parsers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// checkHead holds scanHead to fastjson: the same lines accepted as objects,
// and, when the scan calls its values exact, the same values fastjson's Get
// returns for them.
func checkHead(t *testing.T, line []byte) {
	t.Helper()
	var h head
	ok := scanHead(line, &h, false)
	var p fastjson.Parser
	v, err := p.ParseBytes(line)
	want := err == nil && v.Type() == fastjson.TypeObject
	if ok != want {
		t.Fatalf("scanHead accepts=%v, fastjson accepts=%v (err %v): %q", ok, want, err, line)
	}
	if !ok || !h.exact {
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
	eq("type", h.typ, v, "type")
	eq("timestamp", h.ts, v, "timestamp")
	pl := v.Get("payload")
	if isObj := pl != nil && pl.Type() == fastjson.TypeObject; isObj != h.payload {
		t.Fatalf("payload object: scan %v, fastjson %v: %q", h.payload, isObj, line)
	}
	if h.payload {
		eq("payload.type", h.ptyp, pl, "type")
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
						var h head
						if esc == `` && (!scanHead(line, &h, false) || !h.exact) {
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

// parseRef is each parser's whole-document path, the reference for the scan
// path and for the prepared one (Preparer, then ParseScanned): the same
// evidence for every line, in every parser state.
func parseRef(p Parser) func([]byte) (Evidence, error) {
	switch p := p.(type) {
	case *Claude:
		return p.parse
	case *Codex:
		return p.parseFull
	}
	panic("no reference path")
}

// checkSame feeds lines to a parser and to its reference in step.
func checkSame(t *testing.T, agent Agent, name string, lines [][]byte) {
	t.Helper()
	fast, ref, split := New(agent), New(agent), New(agent).(ScanParser)
	refParse := parseRef(ref)
	pr := split.NewPreparer()
	var s Scanned
	for i, l := range lines {
		got, gerr := fast.Parse(l)
		want, werr := refParse(l)
		if !reflect.DeepEqual(got, want) || gerr != werr {
			t.Fatalf("%s: %s line %d: scan path %+v, %v; full parse %+v, %v", name, agent, i+1, got, gerr, want, werr)
		}
		pr.Prepare(l, &s)
		got, gerr = split.ParseScanned(l, &s)
		if !reflect.DeepEqual(got, want) || gerr != werr {
			t.Fatalf("%s: %s line %d: prepared %+v, %v; full parse %+v, %v", name, agent, i+1, got, gerr, want, werr)
		}
	}
}

// TestScanPathMatchesParse runs both parsers over every real sample and
// held-out case (each through both parsers: a file detected as one agent may
// hold the other's lines) and requires the evidence of the full parse.
func TestScanPathMatchesParse(t *testing.T) {
	var files []string
	for _, root := range []string{"../../shared/realworld", "../testdata/verify", "../testdata/replay"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no samples")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(raw, []byte("\n"))
		for _, agent := range []Agent{AgentClaude, AgentCodex} {
			checkSame(t, agent, f, lines)
		}
	}
}

func FuzzScanPathMatchesParse(f *testing.F) {
	f.Add([]byte(`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`),
		[]byte(`{"timestamp":"t","type":"compacted","payload":{"message":""}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{}}`), []byte(`{"type":"user","message":{"content":"x"}}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"a"}}`),
		[]byte(`{"timestamp":"u","type":"session_meta","payload":{"id":"b"}}`))
	f.Add([]byte(`{"type":"user","sessionId":"s","isSidechain":false,"message":{"content":[{"type":"tool_result","content":"[Request interrupted by user]"}]},"timestamp":"t"}`),
		[]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"isMeta":true}`))
	f.Add([]byte(`{"type":"user","cwd":"/w","message":{"content":"<command-name>/model</command-name>"},"version":"2.1.3"}`),
		[]byte(`{"type":"user","message":{"content":[{"type":"image"},{"type":"text","text":"a\nb"}]}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, agent := range []Agent{AgentClaude, AgentCodex} {
			checkSame(t, agent, "fuzz", [][]byte{a, b, a})
		}
	})
}

// checkToolInput holds toolInput to what ToolDetail reads: every detail
// field's value is the one the whole input's Get returns.
func checkToolInput(t *testing.T, obj []byte) {
	var p, q fastjson.Parser
	in, err := p.ParseBytes(obj)
	if err != nil || in.Type() != fastjson.TypeObject {
		return
	}
	red := toolInput(in)
	out, err := q.ParseBytes(red)
	if err != nil || out.Type() != fastjson.TypeObject {
		t.Fatalf("toolInput(%s) = %s: not an object", obj, red)
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

// TestScanClaudeHead holds the one-pass scan of Claude user and assistant
// lines to the parse on the shapes their evidence depends on: stop_reason,
// model, the last block, tool blocks and their inputs, sidechains, API
// errors, old versions, escapes and duplicate keys.
func TestScanClaudeHead(t *testing.T) {
	var lines [][]byte
	for _, l := range []string{
		`{"type":"assistant","sessionId":"s","cwd":"/w","version":"2.1.328","timestamp":"t","message":{"model":"m","stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}}`,
		`{"message":{"stop_reason":null,"content":[{"type":"text","text":"hi"}]},"version":"1.0.51","type":"assistant"}`,
		`{"type":"assistant","message":{"stop_reason":"max_tokens","content":[{"type":"text","text":"hi"}]},"version":"1.0.51"}`,
		`{"type":"assistant","message":{"stop_reason":null,"content":[{"type":"thinking","thinking":"x"}]},"version":"2.0.3"}`,
		`{"type":"assistant","message":{"content":[{"type":"text"},{"type":1}]},"version":"1.0.1"}`,
		`{"type":"assistant","message":{"content":[{"type":"text"},"x"]},"version":"1.0.1"}`,
		`{"type":"assistant","message":{"content":[{"type":"text"}]},"version":"1.0.1"}`,
		`{"type":"assistant","message":{"stop_reason":"tool_use","content":[{"type":"tool_use","name":"Bash","input":{"command":"ls -l","description":"d"}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"text"},{"type":"server_tool_use","name":"web_search","input":{"query":"q\\u00e9\"x"}}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/a"}},{"type":"tool_use","name":"Edit","input":"x"},{"type":"text"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":[1],"input":{"file_path":"/a"}},{"type":"tool_use","input":{"path":"/b"},"name":1}]}}`,
		`{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"tool_use","name":"N\\u0061me","input":{}}]}}`,
		`{"type":"assistant","message":{"model":"<synthetic>","stop_reason":"end_turn","content":[{"type":"text","text":"No response requested."}]}}`,
		`{"type":"assistant","isSidechain":true,"sessionId":"s","timestamp":"t","message":{"stop_reason":"end_turn"}}`,
		`{"type":"assistant","isApiErrorMessage":true,"timestamp":"t","message":{"stop_reason":"stop_sequence"}}`,
		`{"type":"assistant","message":"text"}`, `{"type":"assistant"}`, `{"type":"assistant","message":[1]}`,
		`{"type":"assistant","message":{"stop_reason":"end\u005fturn"}}`, `{"type":"assistant","message":{"mod\u0065l":"<synthetic>","stop_reason":"end_turn"}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool\u005fuse","name":"x"}]}}`,
		`{"type":"assistant","message":{"stop_reason":"end_turn","stop_reason":"max_tokens","content":"x","content":[{"type":"text"}]},"message":{"model":"<synthetic>"}}`,
		`{"type":"assistant","sessionId":1,"cwd":null,"version":["2"],"timestamp":false,"isSidechain":"true","message":{"stop_reason":"end_turn"}}`,
		`{"type":"assistant","isSidechain":false,"isSidechain":true,"message":{}}`, `{"type":"assistant","sessi\u006fnId":"s"}`,
		`{"type":"assistant","message":{"content":[{"type":"text"}]}`, `{"type":"assistant","message":{"content":[{"type":"tool_use","input":{]}}`,
		`{"type":"assistant","message":{"stop_reason":"end_turn"}} x`, " {\"type\":\"assistant\",\"message\":{\"content\":[ ]}}\t",
		`{"message":{"content":[{"type":"tool_result","content":"[Request interrupted by user]"}]},"type":"user","timestamp":"t"}`,
		`{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}],"stop_reason":"x\\y"}}`,
		`{"type":"user","message":{"content":"[Request interrupted by user]","content":"x"},"message":{"content":"y"}}`,
		`{"type":"user","isMeta":true,"message":{"content":"hi"}}`, `{"type":"user","isCompactSummary":true,"message":{"content":"hi"}}`,
		`{"type":"user","message":{"content":[{"type":"image"},{"type":"text","text":"a"}]}}`, `{"type":"user","message":{"content":[]}}`,
		`{"type":"user","message":{"content":"a\nb"}}`, `{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}`,
	} {
		lines = append(lines, []byte(l))
	}
	checkSame(t, AgentClaude, "claude head", lines)
}
