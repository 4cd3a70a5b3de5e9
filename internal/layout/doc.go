// Package layout holds no code: its test states the project's import flow
// (which package may import which) and fails on an import against it, on any
// package importing cmd/, and on a circle. The README's Layout section is
// the same map in words.
package layout
