package parsers

import (
	"regexp"
	"strings"
	"sync"
)

// ReleaseIn is the release an agent's --version output names, "" if none:
// "2.1.332 (Claude Code)", "codex-cli 0.171.0", and Copilot CLI's sentence
// "GitHub Copilot CLI 1.0.102.", whose full stop is not the release's.
func ReleaseIn(out string) string { return releaseRE().FindString(out) }

// releaseRE is compiled on first use: every process links the package,
// the hook client too, which never asks.
var releaseRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\d+\.\d+\.\d+(?:[0-9A-Za-z.+-]*[0-9A-Za-z+-])?`)
})

// CompareVersions orders two agent versions ("2.1.328", "0.104.0-alpha.1",
// "0.104.0a1") by their numeric major.minor.patch; a suffix after the patch
// number is ignored. ok is false when either is not a version.
func CompareVersions(a, b string) (cmp int, ok bool) {
	x, okA := versionParts(a)
	y, okB := versionParts(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range x {
		switch {
		case x[i] < y[i]:
			return -1, true
		case x[i] > y[i]:
			return 1, true
		}
	}
	return 0, true
}

func versionParts(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	if len(parts) < 2 {
		return out, false
	}
	for i, p := range parts {
		n, digits := 0, 0
		for digits < len(p) && p[digits] >= '0' && p[digits] <= '9' && digits < 9 {
			n = n*10 + int(p[digits]-'0')
			digits++
		}
		if digits == 0 || i < len(parts)-1 && digits != len(p) {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
