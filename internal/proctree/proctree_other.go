//go:build !linux && !darwin

package proctree

import "time"

func stat(int) (procStat, error) { return procStat{}, ErrUnsupported }

func started(int) (time.Time, error) { return time.Time{}, ErrUnsupported }
