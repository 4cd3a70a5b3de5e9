package statusview

import (
	"errors"
	"reflect"
	"testing"
)

func TestShortIDs(t *testing.T) {
	ids := []string{
		"a1f03c9e-5b7d-4c1e-9a2f-0d6b8e4c3a21",
		"019e0f3d-12a4-7b90-8c61-3e2f9d0a7b54", // Codex ids are time-ordered: same minute, long shared prefix
		"019e0f3d-12a5-7000-8000-000000000001",
		"s1", "s10", // an id that prefixes another keeps its full length
	}
	want := map[string]string{
		"a1f03c9e-5b7d-4c1e-9a2f-0d6b8e4c3a21": "a1f03c9e",
		"019e0f3d-12a4-7b90-8c61-3e2f9d0a7b54": "019e0f3d-12a4",
		"019e0f3d-12a5-7000-8000-000000000001": "019e0f3d-12a5",
		"s1":                                   "s1",
		"s10":                                  "s10",
	}
	got := ShortIDs(ids)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ShortIDs = %v, want %v", got, want)
	}
	for id, short := range got {
		if r, err := Resolve(ids, short); err != nil || r != id {
			t.Errorf("the short id %q resolves to %q, %v; want %q", short, r, err, id)
		}
	}
}

func TestResolveSession(t *testing.T) {
	ids := []string{"abc123", "abd999", "s1", "s10"}
	tests := []struct {
		arg, want string
		ambiguous bool
	}{
		{arg: "abc123", want: "abc123"},
		{arg: "abc", want: "abc123"},
		{arg: "abd", want: "abd999"},
		{arg: "ab", ambiguous: true},
		{arg: "s1", want: "s1"}, // an exact id wins over the ids it prefixes
		{arg: "s10", want: "s10"},
		{arg: "zz", want: "zz"}, // no match: passed on, the daemon says unknown session
	}
	for _, tc := range tests {
		got, err := Resolve(ids, tc.arg)
		if tc.ambiguous {
			if !errors.Is(err, ErrAmbiguous) {
				t.Errorf("%q: err %v, want ambiguous", tc.arg, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.arg, got, err, tc.want)
		}
	}
}
