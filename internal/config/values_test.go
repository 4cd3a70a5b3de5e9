package config

import (
	"testing"
	"time"
)

// TestValuesNameEveryKey: `logwatch config` shows every key the
// configuration has, and only those.
func TestValuesNameEveryKey(t *testing.T) {
	values := Config{}.Values("/run/s.sock")
	for k := range defaults {
		if _, ok := values[k]; !ok {
			t.Errorf("Values lacks the key %s", k)
		}
	}
	for k := range values {
		if _, ok := defaults[k]; !ok {
			t.Errorf("Values has %s, which is no key", k)
		}
	}
	if values["socket"] != "/run/s.sock" {
		t.Errorf("socket = %v", values["socket"])
	}
}

func TestShowValue(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{[]string{}, "[]"},
		{[]string{"a", "b"}, "[a, b]"},
		{"", `""`},
		{"x", "x"},
		{2 * time.Second, "2s"},
		{64, "64"},
	} {
		if got := ShowValue(tc.v); got != tc.want {
			t.Errorf("ShowValue(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
