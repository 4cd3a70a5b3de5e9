package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"sort"
	"strings"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// ExpectPath is the sidecar holding expectations for a log file:
// NAME.jsonl → NAME.expect.json, in the same directory.
func ExpectPath(logPath string) string {
	return strings.TrimSuffix(logPath, ".jsonl") + ".expect.json"
}

// maxExpectBytes bounds a sidecar: a few hundred bytes of expectations.
const maxExpectBytes = 1 << 20

// readExpect reads logPath's sidecar: false when there is none.
func readExpect(logPath string) ([]byte, bool, error) {
	raw, err := safeopen.ReadFile(ExpectPath(logPath), maxExpectBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return raw, true, err
}

// expectedMax is the max_line_bytes a sidecar reads its sample with (a
// sample of oversized lines), or 0.
func expectedMax(raw []byte) int {
	var opt struct {
		MaxLineBytes int `json:"max_line_bytes"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &opt) != nil {
		return 0
	}
	return opt.MaxLineBytes
}

// Compare checks f against expectations given as a JSON object with any
// subset of the report's fields: every field present must equal the
// report's ("path" is ignored; "max_line_bytes" says how Run reads the
// sample). An expectation that cannot be parsed, or
// names a field the report does not have, is itself a mismatch.
func Compare(f *File, expect []byte) []string {
	var want map[string]any
	dec := json.NewDecoder(bytes.NewReader(expect))
	dec.UseNumber()
	if err := dec.Decode(&want); err != nil {
		return []string{fmt.Sprintf("expect file: %v", err)}
	}
	got, err := asMap(f)
	if err != nil {
		return []string{fmt.Sprintf("report: %v", err)}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if k == "path" || k == "mismatches" || k == "max_line_bytes" { // the last: how to read, not what
			continue
		}
		g, ok := got[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s: unknown field in expect file", k))
			continue
		}
		if !reflect.DeepEqual(normalize(want[k]), normalize(g)) {
			out = append(out, fmt.Sprintf("%s: want %s, got %s", k, compact(want[k]), compact(g)))
		}
	}
	return out
}

func asMap(f *File) (map[string]any, error) {
	b, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return m, dec.Decode(&m)
}

// normalize makes an empty list equal to an absent one and numbers compare
// by value.
func normalize(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		if len(x) == 0 {
			return nil
		}
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		if len(x) == 0 {
			return nil
		}
		for k := range x {
			x[k] = normalize(x[k])
		}
	case json.Number:
		return x.String()
	}
	return v
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
