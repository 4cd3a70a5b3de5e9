package session

import (
	"strings"
	"testing"
	"unsafe"
)

func TestInternSharesOneCopy(t *testing.T) {
	a := strings.Clone("/home/u/project")
	b := strings.Clone("/home/u/project")
	if unsafe.StringData(intern(a)) != unsafe.StringData(intern(b)) {
		t.Fatal("two equal strings interned to two copies")
	}
	long := strings.Repeat("x", maxInternLen+1)
	if got := intern(long); unsafe.StringData(got) != unsafe.StringData(long) || got != long {
		t.Fatal("an over-long string is not returned as is")
	}
	if intern("") != "" {
		t.Fatal("empty string changed")
	}
}
