// Package stats holds the small summaries the bench programs print.
package stats

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Pct is the p-th percentile (0–100) of samples, by nearest rank; 0 for no
// samples.
func Pct(samples []time.Duration, p float64) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Verdict is a target's mark: PASS or FAIL.
func Verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// Fail ends a bench program: msg on stderr after the program's name, exit 1.
func Fail(msg string) {
	fmt.Fprintf(os.Stderr, "%s: %s\n", filepath.Base(os.Args[0]), msg)
	os.Exit(1)
}

// Check is Fail for a non-nil err.
func Check(err error) {
	if err != nil {
		Fail(err.Error())
	}
}
