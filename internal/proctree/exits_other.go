//go:build !linux

package proctree

// Exits is unavailable here: poll with Alive instead.
type Exits struct{}

// NewExits fails: the platform has no pidfds.
func NewExits(func(pid int, start uint64)) (*Exits, error) { return nil, ErrUnsupported }

func (x *Exits) Watch(int, uint64) bool { return false }
func (x *Exits) Forget(int, uint64)     {}
func (x *Exits) Len() int               { return 0 }
func (x *Exits) Close()                 {}
