package selftest_test

import (
	"testing"

	"github.com/logwatch/logwatch/conformance"
)

// TestMain runs the suite's set-up around the pinned agents' selftest: a
// test binary of its own, so that its minutes have go test's whole time
// budget and leave the CLI's tests theirs.
func TestMain(m *testing.M) { conformance.Main(m) }
