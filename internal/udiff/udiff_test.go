package udiff

import (
	"bytes"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	b := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk"
	var out bytes.Buffer
	Write(&out, "old", "new", []byte(a), []byte(b))
	want := `--- old
+++ new
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -8,3 +8,4 @@
 h
 i
 j
+k
\ No newline at end of file
`
	if out.String() != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	Write(&out, "old", "new", []byte(a), []byte(a))
	if out.Len() != 0 {
		t.Errorf("no change, yet a diff: %q", out.String())
	}
}
