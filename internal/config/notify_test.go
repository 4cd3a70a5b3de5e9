package config

import "testing"

// TestMaskURL: a URL's user info and path (an ntfy topic is its password)
// are hidden, the host kept, and the sentence around it left as it was.
func TestMaskURL(t *testing.T) {
	for in, want := range map[string]string{
		"POST https://ntfy.sh/secret_topic: 500":       "POST https://ntfy.sh/***: 500",
		"POST https://ntfy.sh/***: 403 Forbidden":      "POST https://ntfy.sh/***: 403 Forbidden",
		"webhook https://me:pw@h.example/x/y, retried": "webhook https://h.example/***, retried",
		"http://127.0.0.1:8080/ answered":              "http://127.0.0.1:8080/ answered",
		"(see https://h.example/topic).":               "(see https://h.example/***).",
		"no url here":                                  "no url here",
	} {
		if got := MaskURL(in); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", in, got, want)
		}
	}
}
