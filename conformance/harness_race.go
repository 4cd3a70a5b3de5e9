//go:build race

package conformance

// raceDetector skips the suite under -race: it drives external binaries,
// whose races the detector cannot see, and it runs once in the plain
// `go test ./...`.
const raceDetector = true
