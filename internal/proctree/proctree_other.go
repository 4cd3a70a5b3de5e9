//go:build !linux && !darwin

package proctree

func stat(int) (procStat, error) { return procStat{}, ErrUnsupported }
