//go:build !race

package conformance

const raceDetector = false
