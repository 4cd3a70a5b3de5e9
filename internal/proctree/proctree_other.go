//go:build !linux && !darwin

package proctree

import "time"

func stat(int) (procStat, error) { return procStat{}, ErrUnsupported }

func started(int) (time.Time, error) { return time.Time{}, ErrUnsupported }

// args is not read here: Nearest finds no process.
func args(int) ([]string, error) { return nil, ErrUnsupported }
